#include "server/session.h"

#include <unistd.h>

#include <cerrno>

#include "core/ascii.h"
#include "core/clock.h"
#include "server/static_root.h"

namespace hail {

namespace {

constexpr size_t kMaxFieldNameBytes = 16;  // longer than any name we look for

ServeMethod serve_method(uint8_t method) {
  switch (method) {
    case HTTP_GET:
      return ServeMethod::kGet;
    case HTTP_HEAD:
      return ServeMethod::kHead;
    case HTTP_POST:
      return ServeMethod::kPost;
    case HTTP_PUT:
      return ServeMethod::kPut;
    default:
      return ServeMethod::kOther;
  }
}

// Statuses that refuse the request itself (as opposed to answering it): the connection closes after
// them, since the request stream may be out of step with its framing.
bool refuses_request(int status) {
  return status == 400 || status == 408 || status == 413 || status == 414 || status == 431 ||
         status == 501;
}

// A Transfer-Encoding list with a coding other than chunked (gzip, chunked): the body can be framed
// but not decoded, so RFC 9112 section 6.1 says 501. Empty list elements are allowed.
bool has_unknown_coding(std::string_view list) {
  while (!list.empty()) {
    const size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (!item.empty() && !ascii::iequals(item, "chunked")) return true;
  }
  return false;
}

// pread until `len` bytes or EOF/error; returns the bytes read.
size_t pread_full(int fd, char* dst, size_t len) {
  size_t done = 0;
  while (done < len) {
    const ssize_t n = pread(fd, dst + done, len - done, static_cast<off_t>(done));
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  return done;
}

}  // namespace

const llhttp_settings_t* ServerSession::settings() {
  static const llhttp_settings_t kSettings = [] {
    llhttp_settings_t s;
    llhttp_settings_init(&s);
    s.on_message_begin = &ServerSession::on_message_begin;
    s.on_method = &ServerSession::on_method;
    s.on_url = &ServerSession::on_url;
    s.on_version = &ServerSession::on_version;
    s.on_version_complete = &ServerSession::on_version_complete;
    s.on_header_field = &ServerSession::on_header_field;
    s.on_header_field_complete = &ServerSession::on_header_field_complete;
    s.on_header_value = &ServerSession::on_header_value;
    s.on_header_value_complete = &ServerSession::on_header_value_complete;
    s.on_headers_complete = &ServerSession::on_headers_complete;
    s.on_body = &ServerSession::on_body;
    s.on_message_complete = &ServerSession::on_message_complete;
    return s;
  }();
  return &kSettings;
}

ServerSession::ServerSession(const SessionEnv* env) : env_(env) {
  llhttp_init(&parser_, HTTP_REQUEST, settings());
  parser_.data = this;
}

bool ServerSession::wants_input() const {
  return !output_.closing() && output_.segments() < kMaxQueuedSegments &&
         output_.buffered_bytes() < kMaxBufferedOutputBytes;
}

size_t ServerSession::feed(const char* data, size_t len, uint64_t now_ns) {
  if (output_.closing()) return len;
  now_ns_ = now_ns;
  size_t consumed = 0;
  while (consumed < len && wants_input()) {
    const char* chunk = data + consumed;
    const size_t chunk_len = len - consumed;
    if (in_head_) head_start_ = chunk;  // the head continues from the previous chunk
    const llhttp_errno_t err = llhttp_execute(&parser_, chunk, chunk_len);
    if (err == HPE_OK) {
      account_partial_head(chunk + chunk_len);
      return len;
    }
    if (err == HPE_PAUSED || err == HPE_PAUSED_UPGRADE) {
      // Paused by on_message_complete (output full or closing), or after a request asking for an
      // Upgrade, which is never granted: the stream simply stays HTTP/1.1.
      consumed = static_cast<size_t>(llhttp_get_error_pos(&parser_) - data);
      if (err == HPE_PAUSED) {
        llhttp_resume(&parser_);
      } else {
        llhttp_resume_after_upgrade(&parser_);
      }
      if (output_.closing()) return len;
      continue;
    }
    // Malformed (or a limit a callback enforced): answer and close. llhttp stays in its error
    // state, so nothing after this point is ever parsed.
    respond_error(error_status_ != 0 ? error_status_ : 400, true);
    return len;
  }
  return consumed;
}

void ServerSession::time_out_head() {
  if (output_.closing()) return;
  respond_error(408, true);
}

// --- head size accounting ---------------------------------------------------------------------
// llhttp has no size limits, so the session measures the head itself: from the first byte of the
// method to the end of the latest span callback, carried across feed() calls. Bytes no callback
// reports (whitespace runs) are caught by account_partial_head() at the end of each chunk.

int ServerSession::fail(int status) {
  error_status_ = status;
  return HPE_USER;
}

int ServerSession::note_head_bytes(const char* at, size_t len) {
  if (!in_head_) {
    // Trailer fields after a chunked body: limited like a header section, but counted on their
    // own. The head's span ended with it; measuring from head_start_ would count the body (or,
    // in a later read, subtract pointers into different buffers).
    trailer_bytes_ += len;
    return trailer_bytes_ > kMaxHeaderBytes ? fail(431) : 0;
  }
  if (head_start_ == nullptr) head_start_ = at;
  head_last_end_ = at + len;
  const uint64_t size = head_bytes_before_ + static_cast<uint64_t>(head_last_end_ - head_start_);
  if (request_line_bytes_ == 0) {
    if (size > kMaxRequestLineBytes) return fail(414);
  } else if (size - request_line_bytes_ > kMaxHeaderBytes) {
    return fail(431);
  }
  return 0;
}

void ServerSession::end_request_line() {
  if (request_line_bytes_ != 0 || head_start_ == nullptr) return;
  request_line_bytes_ = head_bytes_before_ + static_cast<uint64_t>(head_last_end_ - head_start_);
}

void ServerSession::account_partial_head(const char* chunk_end) {
  if (!in_head_) return;
  if (head_start_ != nullptr) head_bytes_before_ += static_cast<uint64_t>(chunk_end - head_start_);
  head_start_ = nullptr;
  head_last_end_ = nullptr;
  int status = 0;
  if (request_line_bytes_ == 0) {
    if (head_bytes_before_ > kMaxRequestLineBytes) status = 414;
  } else if (head_bytes_before_ - request_line_bytes_ > kMaxHeaderBytes) {
    status = 431;
  }
  if (status != 0) {
    in_head_ = false;
    in_message_ = false;
    respond_error(status, true);
  }
}

// --- llhttp callbacks -------------------------------------------------------------------------

int ServerSession::on_message_begin(llhttp_t* parser) {
  ServerSession* s = self(parser);
  s->in_message_ = true;
  s->in_head_ = true;
  s->head_method_ = false;
  s->keep_alive_ = true;
  s->error_status_ = 0;
  s->header_ = Header::kOther;
  s->url_.clear();
  s->field_.clear();
  s->content_type_.clear();
  s->expect_.clear();
  s->transfer_encoding_.clear();
  s->body_.clear();
  s->head_bytes_before_ = 0;
  s->head_start_ = nullptr;
  s->head_last_end_ = nullptr;
  s->request_line_bytes_ = 0;
  s->trailer_bytes_ = 0;
  return 0;
}

int ServerSession::on_method(llhttp_t* parser, const char* at, size_t len) {
  return self(parser)->note_head_bytes(at, len);
}

int ServerSession::on_url(llhttp_t* parser, const char* at, size_t len) {
  ServerSession* s = self(parser);
  if (int rc = s->note_head_bytes(at, len); rc != 0) return rc;
  s->url_.append(at, len);
  return 0;
}

int ServerSession::on_version(llhttp_t* parser, const char* at, size_t len) {
  return self(parser)->note_head_bytes(at, len);
}

int ServerSession::on_version_complete(llhttp_t* parser) {
  self(parser)->end_request_line();
  return 0;
}

int ServerSession::on_header_field(llhttp_t* parser, const char* at, size_t len) {
  ServerSession* s = self(parser);
  s->end_request_line();
  if (int rc = s->note_head_bytes(at, len); rc != 0) return rc;
  if (s->field_.size() <= kMaxFieldNameBytes) s->field_.append(at, len);
  return 0;
}

int ServerSession::on_header_field_complete(llhttp_t* parser) {
  ServerSession* s = self(parser);
  if (ascii::iequals(s->field_, "content-type")) {
    s->header_ = Header::kContentType;
    s->content_type_.clear();  // the last one wins
  } else if (ascii::iequals(s->field_, "expect")) {
    s->header_ = Header::kExpect;
    s->expect_.clear();
  } else if (ascii::iequals(s->field_, "transfer-encoding") && s->in_head_) {
    s->header_ = Header::kTransferEncoding;
    if (!s->transfer_encoding_.empty()) s->transfer_encoding_.push_back(',');  // one list
  } else {
    s->header_ = Header::kOther;
  }
  s->field_.clear();
  return 0;
}

int ServerSession::on_header_value(llhttp_t* parser, const char* at, size_t len) {
  ServerSession* s = self(parser);
  if (int rc = s->note_head_bytes(at, len); rc != 0) return rc;
  if (s->header_ == Header::kContentType) {
    s->content_type_.append(at, len);
  } else if (s->header_ == Header::kExpect) {
    s->expect_.append(at, len);
  } else if (s->header_ == Header::kTransferEncoding &&
             s->transfer_encoding_.size() + len <= kMaxHeaderBytes) {
    s->transfer_encoding_.append(at, len);
  }
  return 0;
}

int ServerSession::on_header_value_complete(llhttp_t* parser) {
  self(parser)->header_ = Header::kOther;
  return 0;
}

int ServerSession::on_headers_complete(llhttp_t* parser) {
  ServerSession* s = self(parser);
  s->in_head_ = false;
  const uint8_t method = llhttp_get_method(parser);
  s->head_method_ = method == HTTP_HEAD;
  s->http10_ = llhttp_get_http_major(parser) == 1 && llhttp_get_http_minor(parser) == 0;
  s->keep_alive_ = llhttp_should_keep_alive(parser) != 0;
  s->route_ = route_request(serve_method(method), s->url_, &s->path_);
  // CONNECT turns the connection into a tunnel in llhttp's eyes; we never tunnel.
  if (method == HTTP_CONNECT) return s->fail(s->route_.endpoint == Endpoint::kError ? 400 : 405);

  const bool chunked = (parser->flags & F_CHUNKED) != 0;
  // Chunked last but another coding before it. (Chunked not last, or missing, llhttp refuses with
  // 400 right after this callback, as RFC 9112 requires.)
  if (chunked && has_unknown_coding(s->transfer_encoding_)) return s->fail(501);
  const bool has_body = chunked || parser->content_length > 0;
  if (s->route_.endpoint == Endpoint::kEcho && !chunked &&
      parser->content_length > kMaxEchoBodyBytes) {
    return s->fail(413);
  }
  if (has_body && !s->http10_ && ascii::iequals(s->expect_, "100-continue")) {
    s->output_.append("HTTP/1.1 100 Continue\r\n\r\n", true);
  }
  return 0;
}

int ServerSession::on_body(llhttp_t* parser, const char* at, size_t len) {
  ServerSession* s = self(parser);
  if (s->route_.endpoint != Endpoint::kEcho) return 0;  // read and discarded
  if (s->body_.size() + len > kMaxEchoBodyBytes) return s->fail(413);
  s->body_.append(at, len);
  return 0;
}

int ServerSession::on_message_complete(llhttp_t* parser) {
  ServerSession* s = self(parser);
  s->in_message_ = false;
  s->respond();
  // Pausing hands control back to feed(), which stops while output is full or closing.
  return s->wants_input() ? 0 : HPE_PAUSED;
}

// --- responses --------------------------------------------------------------------------------

std::string_view ServerSession::date_line() const {
  return env_->date_line != nullptr ? std::string_view(*env_->date_line) : std::string_view();
}

void ServerSession::count_request() {
  if (env_->counters != nullptr) bump(env_->counters->requests);
}

void ServerSession::queue_head(const HeadFields& fields, bool counted) {
  scratch_.clear();
  append_head(&scratch_, fields);
  output_.append(scratch_, counted);
}

void ServerSession::respond_error(int status, bool close) {
  Reply reply = error_reply(status);
  send_reply(reply, close);
}

void ServerSession::respond() {
  ReplyRequest request;
  request.route = route_;
  request.path = path_;
  request.content_type = content_type_;
  request.body = &body_;
  request.now_ns = now_ns_;
  Reply reply;
  make_reply(*env_, request, &reply);
  send_reply(reply, false);
  if (route_.endpoint == Endpoint::kEcho && reply.text.capacity() <= kMaxBufferedOutputBytes) {
    // The /echo body gave its buffer to the reply: take it back for the next request.
    reply.text.clear();
    body_.swap(reply.text);
  }
}

void ServerSession::send_reply(Reply& reply, bool close) {
  if (refuses_request(reply.status)) {
    refused_ = true;
    close = true;
  }
  in_head_ = false;
  in_message_ = false;
  HeadFields fields;
  fields.status = reply.status;
  fields.keep_alive = keep_alive_ && !close;
  fields.http10 = http10_;
  fields.date_line = date_line();
  fields.content_type = reply.content_type;
  fields.content_length = reply.length;
  std::string allow_line;
  if (!reply.allow.empty()) {
    allow_line = "Allow: " + std::string(reply.allow) + "\r\n";
    fields.extra_lines = allow_line;
  }
  // Responses queued behind a delayed one wait for it: HTTP/1 answers in order.
  if (reply.ready_at_ns != 0) output_.add_delay(reply.ready_at_ns);
  const bool counted = reply.counted;
  switch (reply.body) {
    case Reply::Body::kNone:
      queue_head(fields, counted);
      break;
    case Reply::Body::kText:
      queue_head(fields, counted);
      if (!head_method_) output_.append(reply.text, counted);
      break;
    case Reply::Body::kPattern:
      queue_head(fields, counted);
      if (!head_method_) output_.add_pattern(reply.length, counted);
      break;
    case Reply::Body::kFile:
      if (head_method_) {
        queue_head(fields, counted);
      } else if (reply.length <= kInlineFileMaxBytes) {
        const OutputQueue::Mark mark = output_.mark();
        queue_head(fields, counted);
        char* dst = output_.append_space(reply.length, counted);
        const size_t got = pread_full(reply.fd(), dst, reply.length);
        if (got != reply.length) {
          // Shrunk (or unreadable) since fstat: the promised Content-Length cannot be kept.
          output_.rollback(mark);
          respond_error(500, close);
          return;
        }
      } else {
        queue_head(fields, counted);
        output_.add_file(reply.take_fd(), 0, reply.length, counted);
      }
      break;
  }
  if (counted) count_request();
  if (!fields.keep_alive) output_.add_close();
}

}  // namespace hail
