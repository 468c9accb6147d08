#include "unit/http/llhttp_reference.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hail::test {

namespace {

// The cheap path sets exactly one callback: llhttp derives the framing flags, Content-Length and
// the version and status itself, so nothing per header field needs to reach us.
llhttp_settings_t make_settings(bool capture, llhttp_cb on_headers_complete,
                                llhttp_data_cb on_field, llhttp_data_cb on_value,
                                llhttp_cb on_value_complete) {
  llhttp_settings_t s;
  llhttp_settings_init(&s);
  s.on_headers_complete = on_headers_complete;
  if (capture) {
    s.on_header_field = on_field;
    s.on_header_value = on_value;
    s.on_header_value_complete = on_value_complete;
  }
  return s;
}

inline bool is_ows(char c) {
  return c == ' ' || c == '\t';
}

// --- ref_parse_head -------------------------------------------------------------------------

struct RefFields {
  std::vector<std::pair<std::string, std::string>>* fields;
  bool field_done = true;
};

int ref_on_headers_complete(llhttp_t* /*p*/) {
  return HPE_PAUSED;
}

int ref_on_field(llhttp_t* p, const char* at, size_t len) {
  auto* c = static_cast<RefFields*>(p->data);
  if (c->field_done) {
    c->fields->emplace_back();
    c->field_done = false;
  }
  c->fields->back().first.append(at, len);
  return 0;
}

int ref_on_value(llhttp_t* p, const char* at, size_t len) {
  auto* c = static_cast<RefFields*>(p->data);
  if (c->fields->empty()) c->fields->emplace_back();
  c->fields->back().second.append(at, len);
  return 0;
}

int ref_on_value_complete(llhttp_t* p) {
  auto* c = static_cast<RefFields*>(p->data);
  c->field_done = true;
  if (!c->fields->empty()) {
    std::string& v = c->fields->back().second;
    size_t end = v.size();
    while (end > 0 && is_ows(v[end - 1])) --end;
    v.resize(end);
  }
  return 0;
}

// A CR followed by something other than LF; a CR at the very end is still undecided.
bool ref_bare_cr(const char* data, size_t len) {
  for (size_t i = 0; i + 1 < len; ++i) {
    if (data[i] == '\r' && data[i + 1] != '\n') return true;
  }
  return false;
}

}  // namespace

RefHead ref_parse_head(const char* raw, size_t len, bool capture) {
  // hail's policy over llhttp's: HTTP/1.x with x > 1 is read as HTTP/1.1 (RFC 9110 §2.5), which
  // llhttp 8.1 refuses; the minor digit is rewritten before llhttp sees it.
  std::string copy(raw, len);
  size_t line = 0;
  while (line < copy.size() && (copy[line] == '\r' || copy[line] == '\n')) ++line;
  if (copy.size() > line + 7 && copy.compare(line, 7, "HTTP/1.") == 0 && copy[line + 7] >= '2' &&
      copy[line + 7] <= '9') {
    copy[line + 7] = '1';
  }
  const char* buf = copy.data();
  RefHead r;
  const llhttp_settings_t settings = make_settings(capture, &ref_on_headers_complete, &ref_on_field,
                                                   &ref_on_value, &ref_on_value_complete);
  llhttp_t p;
  llhttp_init(&p, HTTP_RESPONSE, &settings);
  llhttp_set_lenient_headers(&p, 1);
  RefFields fields{&r.fields};
  p.data = &fields;
  auto fail = [&](HeadError kind, const char* reason, size_t at) {
    r.status = HeadParseStatus::kError;
    r.error = kind;
    r.reason = reason;
    r.consumed = at;
    return r;
  };
  const size_t n = std::min(len, kMaxResponseHeadBytes);
  const llhttp_errno_t err = llhttp_execute(&p, buf, n);
  if (err == HPE_OK) {
    if (ref_bare_cr(buf, n)) return fail(HeadError::kSyntax, "bare CR in header section", n);
    if (n >= kMaxResponseHeadBytes) {
      return fail(HeadError::kTooLarge, "header section too large", n);
    }
    r.consumed = n;
    return r;
  }
  const size_t used = static_cast<size_t>(llhttp_get_error_pos(&p) - buf);
  const size_t scan = err == HPE_PAUSED ? used : std::min(used + 1, n);
  if (ref_bare_cr(buf, scan)) return fail(HeadError::kSyntax, "bare CR in header section", used);
  if (err != HPE_PAUSED) {
    const bool framing = err == HPE_UNEXPECTED_CONTENT_LENGTH ||
                         err == HPE_INVALID_CONTENT_LENGTH || err == HPE_INVALID_TRANSFER_ENCODING;
    return fail(framing ? HeadError::kFraming : HeadError::kSyntax, llhttp_get_error_reason(&p),
                used);
  }
  r.http_major = p.http_major;
  // hail's policy over llhttp's parse: HTTP/1.x with x > 1 is HTTP/1.1 (RFC 9110 §2.5), and a
  // status is 100..599 (RFC 9110 §15).
  r.http_minor = p.http_minor > 1 ? 1 : p.http_minor;
  r.status_code = p.status_code;
  if (r.http_major != 1) {
    return fail(HeadError::kSyntax, "unsupported HTTP version", used);
  }
  if (r.status_code < 100 || r.status_code > 599) {
    return fail(HeadError::kSyntax, "invalid status code", used);
  }
  r.status = HeadParseStatus::kComplete;
  r.consumed = used;
  r.flags = p.flags;
  r.content_length = p.content_length;
  return r;
}

LlhttpResponseParser::LlhttpResponseParser() {
  begin_response(false);
}

void LlhttpResponseParser::init_llhttp() {
  static const llhttp_settings_t kFast =
      make_settings(false, &on_headers_complete, nullptr, nullptr, nullptr);
  static const llhttp_settings_t kCapture = make_settings(
      true, &on_headers_complete, &on_header_field, &on_header_value, &on_header_value_complete);
  // llhttp_init (not llhttp_reset): it also clears the lenient flags, so they are set afresh here.
  llhttp_init(&llhttp_, HTTP_RESPONSE, capture_active_ ? &kCapture : &kFast);
  llhttp_set_lenient_headers(&llhttp_, 1);
  llhttp_.data = this;
  head_bytes_ = 0;
  pending_cr_ = false;
  field_done_ = true;
}

void LlhttpResponseParser::begin_response(bool head_request, bool upgrade_requested) {
  state_ = State::kHead;
  upgrade_requested_ = upgrade_requested;
  status_line_pos_ = -1;
  head_request_ = head_request;
  started_ = false;
  keep_alive_ = false;
  error_kind_ = ParseErrorKind::kNone;
  error_reason_ = nullptr;
  status_ = 0;
  http_major_ = 0;
  http_minor_ = 0;
  interim_responses_ = 0;
  remaining_ = 0;
  body_bytes_ = 0;
  capture_active_ = capture_;
  if (capture_active_) {
    headers_.clear();
    body_.clear();
    body_truncated_ = false;
  }
  init_llhttp();
}

void LlhttpResponseParser::set_capture(bool on, size_t max_body_bytes) {
  capture_ = on;
  max_capture_body_bytes_ = max_body_bytes;
  if (!on) {
    headers_.clear();
    body_.clear();
    body_truncated_ = false;
  }
  if (state_ == State::kHead && !started_) begin_response(head_request_, upgrade_requested_);
}

ParseResult LlhttpResponseParser::fail(ParseErrorKind kind, const char* reason, size_t consumed) {
  state_ = State::kError;
  error_kind_ = kind;
  error_reason_ = reason;
  keep_alive_ = false;
  return {ParseStatus::kError, consumed};
}

// Scans for a CR not followed by LF, carrying a trailing CR over to the next call.
bool LlhttpResponseParser::bare_cr_in(const char* data, size_t len) {
  if (len == 0) return false;
  const char* p = data;
  const char* end = data + len;
  if (pending_cr_) {
    pending_cr_ = false;
    if (*p != '\n') return true;
  }
  while ((p = static_cast<const char*>(std::memchr(p, '\r', static_cast<size_t>(end - p))))) {
    if (p + 1 == end) {
      pending_cr_ = true;
      return false;
    }
    if (p[1] != '\n') return true;
    p += 2;
  }
  return false;
}

ParseResult LlhttpResponseParser::feed(const char* data, size_t len) {
  llhttp_.data = this;  // the parser may have been moved since the last call
  size_t pos = 0;
  for (;;) {
    switch (state_) {
      case State::kHead: {
        if (pos == len) return {ParseStatus::kNeedMore, len};
        ParseResult r = feed_head(data + pos, len - pos);
        pos += r.consumed;
        if (r.status == ParseStatus::kError) return {ParseStatus::kError, pos};
        if (r.status == ParseStatus::kNeedMore) return {ParseStatus::kNeedMore, len};
        continue;  // head complete: the state now says what follows
      }
      case State::kBodyLength: {
        size_t n = static_cast<size_t>(std::min<uint64_t>(remaining_, len - pos));
        if (capture_active_) capture_body(data + pos, n);
        remaining_ -= n;
        body_bytes_ += n;
        pos += n;
        if (remaining_ == 0) {
          state_ = State::kComplete;
          continue;
        }
        return {ParseStatus::kNeedMore, len};
      }
      case State::kBodyChunked: {
        ChunkedDecoder::Result r = capture_active_
                                       ? chunked_.feed(data + pos, len - pos, &on_chunk_data, this)
                                       : chunked_.feed(data + pos, len - pos);
        body_bytes_ = chunked_.data_bytes();
        pos += r.consumed;
        if (r.status == ChunkedDecoder::Status::kError) {
          return fail(ParseErrorKind::kBadChunk, chunked_.error_reason(), pos);
        }
        if (r.status == ChunkedDecoder::Status::kNeedMore) return {ParseStatus::kNeedMore, len};
        state_ = State::kComplete;
        continue;
      }
      case State::kBodyUntilClose: {
        size_t n = len - pos;
        if (capture_active_) capture_body(data + pos, n);
        body_bytes_ += n;
        return {ParseStatus::kNeedMore, len};
      }
      case State::kComplete:
        return {ParseStatus::kComplete, pos};
      case State::kError:
        return {ParseStatus::kError, pos};
    }
  }
}

ParseResult LlhttpResponseParser::feed_head(const char* data, size_t len) {
  if (len > 0) started_ = true;
  // llhttp has no size limit of its own: it never sees more than the head may still take, so the
  // limit is exact (a head of exactly kMaxHeadBytes passes) whatever the split.
  size_t n = std::min(len, kMaxHeadBytes - head_bytes_);
  // The minor version digit of "HTTP/1.x", x > 1, becomes 1 (see status_line_pos_).
  const char* original = data;
  for (size_t i = 0; i < n && status_line_pos_ < 8; ++i) {
    const char c = data[i];
    if (status_line_pos_ < 0) {
      if (c == '\r' || c == '\n') continue;
      status_line_pos_ = 0;
    }
    if (status_line_pos_ < 7) {
      version_prefix_[status_line_pos_] = c;
    } else if (std::string_view(version_prefix_, 7) == "HTTP/1." && c >= '2' && c <= '9') {
      rewritten_.assign(data, n);
      rewritten_[i] = '1';
      data = rewritten_.data();
    }
    ++status_line_pos_;
  }
  llhttp_errno_t err = llhttp_execute(&llhttp_, data, n);
  const char* fed = data;
  data = original;
  if (err == HPE_OK) {
    if (bare_cr_in(data, n)) return fail(ParseErrorKind::kBadHead, "bare CR in header section", n);
    head_bytes_ += n;
    if (head_bytes_ >= kMaxHeadBytes) {
      return fail(ParseErrorKind::kHeadTooLarge, "header section too large", n);
    }
    return {ParseStatus::kNeedMore, n};
  }
  // On a pause or an error llhttp reports where it stopped; after our pause in
  // on_headers_complete that is just past the LF ending the header section.
  size_t used = static_cast<size_t>(llhttp_get_error_pos(&llhttp_) - fed);
  // On an error the byte llhttp stopped at is scanned too: when it follows a CR, the bare CR is
  // the better explanation, and the bytes scanned do not depend on how the input was split.
  size_t scan = err == HPE_PAUSED ? used : std::min(used + 1, n);
  if (bare_cr_in(data, scan)) {
    return fail(ParseErrorKind::kBadHead, "bare CR in header section", used);
  }
  if (err != HPE_PAUSED) {
    ParseErrorKind kind = ParseErrorKind::kBadHead;
    if (err == HPE_UNEXPECTED_CONTENT_LENGTH || err == HPE_INVALID_CONTENT_LENGTH ||
        err == HPE_INVALID_TRANSFER_ENCODING) {
      kind = ParseErrorKind::kBadFraming;
    }
    return fail(kind, llhttp_get_error_reason(&llhttp_), used);
  }
  head_bytes_ += used;
  if (!on_head_complete()) return {ParseStatus::kError, used};
  return {ParseStatus::kComplete, used};
}

bool LlhttpResponseParser::on_head_complete() {
  const int status = llhttp_.status_code;
  const int major = llhttp_.http_major;
  const int minor = llhttp_.http_minor > 1 ? 1 : llhttp_.http_minor;
  if (major != 1) {
    fail(ParseErrorKind::kBadHead, "unsupported HTTP version", 0);
    return false;
  }
  if (status < 100 || status > 599) {
    fail(ParseErrorKind::kBadHead, "invalid status code", 0);
    return false;
  }
  if (status == 101 && !upgrade_requested_) {
    // hail's policy: a 101 to a request that asked for no upgrade is a protocol error.
    fail(ParseErrorKind::kBadHead, "101 Switching Protocols to a request that asked for no upgrade",
         0);
    return false;
  }
  if (status < 200 && status != 101) {
    // Interim response (100 Continue, 103 Early Hints, ...): the final one follows.
    if (++interim_responses_ > kMaxInterimResponses) {
      fail(ParseErrorKind::kHeadTooLarge, "too many interim responses", 0);
      return false;
    }
    if (capture_active_) headers_.clear();
    init_llhttp();
    state_ = State::kHead;
    status_line_pos_ = -1;  // the next head has a status line of its own, to be rewritten too
    return true;
  }
  status_ = status;
  http_major_ = major;
  http_minor_ = minor;

  const uint16_t flags = llhttp_.flags;
  bool keep_alive =
      (flags & F_CONNECTION_CLOSE) == 0 && (minor == 1 || (flags & F_CONNECTION_KEEP_ALIVE) != 0);
  if (head_request_ || status == 101 || status == 204 || status == 304) {
    // No body whatever the framing fields say (RFC 9112 §6.3 rules 1 and 2).
    state_ = State::kComplete;
    keep_alive_ = keep_alive && status != 101;
    return true;
  }
  if ((flags & F_TRANSFER_ENCODING) != 0) {
    // llhttp has already rejected Transfer-Encoding together with Content-Length, and sets
    // F_CHUNKED only when chunked is the final coding.
    // RFC 9112 §6.1: the framing of an HTTP/1.0 message with Transfer-Encoding is suspect.
    if (minor == 0) keep_alive = false;
    if ((flags & F_CHUNKED) != 0) {
      chunked_.reset();
      state_ = State::kBodyChunked;
      keep_alive_ = keep_alive;
    } else {
      state_ = State::kBodyUntilClose;
      keep_alive_ = false;
    }
    return true;
  }
  if ((flags & F_CONTENT_LENGTH) != 0) {
    remaining_ = llhttp_.content_length;
    state_ = remaining_ == 0 ? State::kComplete : State::kBodyLength;
    keep_alive_ = keep_alive;
    return true;
  }
  state_ = State::kBodyUntilClose;
  keep_alive_ = false;
  return true;
}

ParseResult LlhttpResponseParser::on_eof() {
  switch (state_) {
    case State::kComplete:
      return {ParseStatus::kComplete, 0};
    case State::kBodyUntilClose:
      state_ = State::kComplete;
      keep_alive_ = false;
      return {ParseStatus::kComplete, 0};
    case State::kHead:
      if (!started_) {
        return fail(ParseErrorKind::kClosedBeforeResponse,
                    "connection closed before any response byte", 0);
      }
      return fail(ParseErrorKind::kTruncated, "connection closed in response head", 0);
    case State::kBodyLength:
    case State::kBodyChunked:
      return fail(ParseErrorKind::kTruncated, "connection closed in response body", 0);
    case State::kError:
      break;
  }
  return {ParseStatus::kError, 0};
}

size_t LlhttpResponseParser::skippable_body_bytes() const {
  if (capturing_body()) return 0;
  switch (state_) {
    case State::kBodyLength:
      return static_cast<size_t>(std::min<uint64_t>(remaining_, SIZE_MAX));
    case State::kBodyChunked:
      return static_cast<size_t>(std::min<uint64_t>(chunked_.data_remaining(), SIZE_MAX));
    case State::kBodyUntilClose:
      return SIZE_MAX;
    default:
      return 0;
  }
}

ParseResult LlhttpResponseParser::skip_body(size_t n) {
  ParseStatus status = ParseStatus::kNeedMore;
  switch (state_) {
    case State::kBodyLength:
      n = static_cast<size_t>(std::min<uint64_t>(n, remaining_));
      remaining_ -= n;
      body_bytes_ += n;
      if (remaining_ == 0) {
        state_ = State::kComplete;
        status = ParseStatus::kComplete;
      }
      break;
    case State::kBodyChunked:
      n = static_cast<size_t>(std::min<uint64_t>(n, chunked_.data_remaining()));
      chunked_.skip_data(n);
      body_bytes_ = chunked_.data_bytes();
      break;
    case State::kBodyUntilClose:
      body_bytes_ += n;
      break;
    case State::kComplete:
      return {ParseStatus::kComplete, 0};
    case State::kError:
      return {ParseStatus::kError, 0};
    case State::kHead:
      return {ParseStatus::kNeedMore, 0};
  }
  // Skipping is only offered once the capture is full, so whatever is skipped is cut off.
  if (capture_active_ && n > 0) body_truncated_ = true;
  return {status, n};
}

// Called for every body byte in capture mode, also once the cap is reached, so that
// body_truncated() does not depend on how the bytes were split.
void LlhttpResponseParser::capture_body(const char* data, size_t len) {
  size_t room = max_capture_body_bytes_ - body_.size();
  if (len > room) {
    body_truncated_ = true;
    len = room;
  }
  body_.append(data, len);
}

int LlhttpResponseParser::on_headers_complete(llhttp_t* /*p*/) {
  // Stop llhttp right after the header section: the body is framed by our code.
  return HPE_PAUSED;
}

int LlhttpResponseParser::on_header_field(llhttp_t* p, const char* at, size_t len) {
  auto* self = static_cast<LlhttpResponseParser*>(p->data);
  if (self->field_done_) {
    self->headers_.emplace_back();
    self->field_done_ = false;
  }
  self->headers_.back().first.append(at, len);
  return 0;
}

int LlhttpResponseParser::on_header_value(llhttp_t* p, const char* at, size_t len) {
  auto* self = static_cast<LlhttpResponseParser*>(p->data);
  // llhttp hands an obs-fold continuation over as a further span (without the CRLF, with its
  // leading whitespace), so appending joins folded lines with whitespace as RFC 9112 §5.2 asks.
  if (self->headers_.empty()) self->headers_.emplace_back();
  self->headers_.back().second.append(at, len);
  return 0;
}

int LlhttpResponseParser::on_header_value_complete(llhttp_t* p) {
  auto* self = static_cast<LlhttpResponseParser*>(p->data);
  self->field_done_ = true;
  if (!self->headers_.empty()) {
    std::string& v = self->headers_.back().second;
    size_t end = v.size();
    while (end > 0 && is_ows(v[end - 1])) --end;
    v.resize(end);
  }
  return 0;
}

void LlhttpResponseParser::on_chunk_data(void* ctx, const char* data, size_t len) {
  auto* self = static_cast<LlhttpResponseParser*>(ctx);
  self->capture_body(data, len);
}

}  // namespace hail::test
