#include "http/http1_client_session.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "http/request.h"

namespace hail {

Http1ClientSession::Http1ClientSession(uint32_t depth, bool http09) {
  configure(depth, http09);
}

void Http1ClientSession::configure(uint32_t depth, bool http09) {
  http09_ = http09;
  if (!http09) {
    http09_state_.reset();
  } else if (!http09_state_) {
    http09_state_ = std::make_unique<Http09State>();
  }
  depth_ = http09 ? 1 : std::clamp<uint32_t>(depth, 1, kMaxDepth);
  queue_.assign(depth_, Pending{0, nullptr});
  reset();
}

void Http1ClientSession::reset() {
  head_ = 0;
  count_ = 0;
  written_ = 0;
  write_offset_ = 0;
  gather_.clear();
  gather_offset_ = 0;
  gathered_upto_ = 0;
  unsent_ = false;
  if (http09_state_) {  // the body's capacity stays: one request per connection, none allocates
    http09_state_->bytes = 0;
    http09_state_->body.clear();
    http09_state_->head_len = 0;
  }
  first_byte_seen_ = false;
  reusable_ = true;
  error_ = ErrorClass::kRead;
  error_reason_ = "";
}

uint32_t Http1ClientSession::capacity() const {
  return reusable_ ? depth_ - count_ : 0;
}

void Http1ClientSession::submit(uint32_t slot, const RequestTemplate& request) {
  queue_[(head_ + count_) % depth_] = Pending{slot, &request};
  if (count_ == 0) {
    parser_.begin_response(request.head, request.asks_upgrade);
    first_byte_seen_ = false;
    if (http09_) http09_state_->body.clear();
  }
  ++count_;
  // HTTP/0.9 has no keep-alive: one request per connection.
  if (http09_) reusable_ = false;
  // A request that said "close" is the last on its connection, even if the server ignores it and
  // answers keep-alive (RFC 9112 §9.6: no further request on it, and close after the response).
  if (!http09_ && request.close_after) reusable_ = false;
}

std::string_view Http1ClientSession::pending_output() {
  if (unsent_) return {};  // nothing more goes out on a connection answered early
  if (gather_offset_ < gather_.size()) {
    return std::string_view(gather_).substr(gather_offset_);
  }
  const uint32_t unwritten = count_ - written_;
  if (unwritten == 0) return {};
  const std::string& first = queue_[(head_ + written_) % depth_].request->http1;
  if (unwritten == 1) return std::string_view(first).substr(write_offset_);
  // Several requests wait (pipelining): one buffer, one write. The buffer keeps its capacity.
  gather_.assign(first, write_offset_, std::string::npos);
  for (uint32_t i = written_ + 1; i < count_; ++i)
    gather_ += queue_[(head_ + i) % depth_].request->http1;
  gather_offset_ = 0;
  gathered_upto_ = count_;
  return gather_;
}

void Http1ClientSession::consume_output(size_t bytes) {
  if (gather_offset_ < gather_.size()) {
    gather_offset_ += bytes;
    if (gather_offset_ >= gather_.size()) {
      gather_.clear();
      gather_offset_ = 0;
      written_ = gathered_upto_;
      write_offset_ = 0;
    }
    return;
  }
  if (written_ == count_) return;
  write_offset_ += bytes;
  if (write_offset_ >= queue_[(head_ + written_) % depth_].request->http1.size()) {
    ++written_;
    write_offset_ = 0;
  }
}

void Http1ClientSession::pop_front() {
  head_ = (head_ + 1) % depth_;
  --count_;
  if (written_ > 0) {
    --written_;
    if (gathered_upto_ > 0) --gathered_upto_;
    return;
  }
  // The server answered before this request was fully written (an early 413 to an upload): the
  // rest of it must not be sent, and the connection cannot carry another request.
  gather_.clear();
  gather_offset_ = 0;
  write_offset_ = 0;
  gathered_upto_ = 0;
  reusable_ = false;
  unsent_ = true;
}

namespace {

// "HTTP/1.x NNN " (or the status line's end right after NNN): the status, else 0.
int http1_status_line(const char* head, size_t len) {
  if (len < 12 || std::string_view(head, 7) != "HTTP/1." || head[7] < '0' || head[7] > '9' ||
      head[8] != ' ') {
    return 0;
  }
  int status = 0;
  for (size_t i = 9; i < 12; ++i) {
    if (head[i] < '0' || head[i] > '9') return 0;
    status = status * 10 + (head[i] - '0');
  }
  return status >= 100 && status <= 599 ? status : 0;
}

// The first bytes of a response look like an HTTP/2 frame header: a SETTINGS or GOAWAY frame on
// stream 0, what an h2c-only server sends to an HTTP/1.1 request.
bool looks_like_http2_frames(const char* data, size_t len) {
  if (len < 9) return false;
  const auto type = static_cast<uint8_t>(data[3]);
  const bool stream0 = data[5] == 0 && data[6] == 0 && data[7] == 0 && data[8] == 0;
  return stream0 && (type == 0x4 || type == 0x7) && static_cast<uint8_t>(data[0]) == 0;
}

}  // namespace

void Http1ClientSession::complete_front(SessionListener& listener) {
  const uint32_t slot = front().slot;
  int status = http09_ ? 200 : parser_.status();
  if (http09_) {
    Http09State& h = *http09_state_;
    if (const int said = http1_status_line(h.head, h.head_len); said != 0) status = said;
    h.head_len = 0;
    last_body_bytes_ = h.bytes;
    h.bytes = 0;
  } else {
    last_body_bytes_ = parser_.body_bytes();
  }
  const uint32_t interim = http09_ ? 0 : parser_.interim_responses();
  if (!http09_ && !parser_.keep_alive()) reusable_ = false;
  // Before the parser moves on to the next response, which clears what it captured.
  if (capture_) {
    if (http09_) {
      static const std::vector<std::pair<std::string, std::string>> kNoHeaders;
      listener.on_response_captured(slot, status, kNoHeaders, http09_state_->body);
    } else {
      listener.on_response_captured(slot, status, parser_.headers(), parser_.body());
    }
  }
  pop_front();
  if (count_ > 0) {
    parser_.begin_response(front().request->head, front().request->asks_upgrade);
    first_byte_seen_ = false;
  }
  listener.on_response_complete(slot, status, interim);
}

SessionStatus Http1ClientSession::fail(ErrorClass error, const char* reason) {
  error_ = error;
  error_reason_ = reason;
  reusable_ = false;
  return SessionStatus::kError;
}

SessionStatus Http1ClientSession::feed(const char* data, size_t len, SessionListener& listener) {
  while (len > 0) {
    if (count_ == 0) {
      // Bytes no request asked for (a body longer than its Content-Length said, a surplus
      // response, a 408 on an idle connection): they are not the next response (RFC 9112 §6.3,
      // §9.3.2), and the connection can no longer be trusted to frame one. Stray empty lines are
      // tolerated, as before a status line (RFC 9112 §2.2).
      for (size_t i = 0; i < len; ++i) {
        if (data[i] != '\r' && data[i] != '\n') {
          return fail(ErrorClass::kParse, "unsolicited data: bytes with no request outstanding");
        }
      }
      return SessionStatus::kOk;
    }
    const bool response_starts_here = !first_byte_seen_;
    if (!first_byte_seen_) {
      first_byte_seen_ = true;
      listener.on_first_byte(front().slot);
    }
    if (http09_) {  // everything up to the close is the response
      Http09State& h = *http09_state_;
      const size_t take = std::min(len, sizeof h.head - h.head_len);
      std::memcpy(h.head + h.head_len, data, take);
      h.head_len = static_cast<uint8_t>(h.head_len + take);
      h.bytes += len;
      if (capture_) {
        const size_t room = Http1ResponseParser::kDefaultMaxCaptureBodyBytes - h.body.size();
        h.body.append(data, std::min(len, room));
      }
      return SessionStatus::kOk;
    }
    ParseResult r = parser_.feed(data, len);
    data += r.consumed;
    len -= r.consumed;
    if (r.status == ParseStatus::kNeedMore) return SessionStatus::kOk;
    if (r.status == ParseStatus::kError) {
      if (response_starts_here && looks_like_http2_frames(data - r.consumed, len + r.consumed)) {
        return fail(ErrorClass::kParse,
                    "the server answered with HTTP/2 frames: it speaks only HTTP/2 (h2c); use --h2");
      }
      return fail(ErrorClass::kParse, parser_.error_reason());
    }
    complete_front(listener);
    if (check_unsent() == SessionStatus::kError) return SessionStatus::kError;
  }
  return SessionStatus::kOk;
}

SessionStatus Http1ClientSession::check_unsent() {
  if (unsent_ && count_ > 0) {
    // Requests pipelined behind one the server answered early were never sent.
    return fail(ErrorClass::kWrite, "server answered before the request was sent");
  }
  return SessionStatus::kOk;
}

SessionStatus Http1ClientSession::on_eof(SessionListener& listener) {
  reusable_ = false;
  if (count_ == 0) return SessionStatus::kOk;
  if (http09_) {
    if (!first_byte_seen_) return fail(ErrorClass::kRead, "closed before response");
    complete_front(listener);
    return SessionStatus::kOk;
  }
  ParseResult r = parser_.on_eof();
  if (r.status == ParseStatus::kComplete) {
    complete_front(listener);  // a body delimited by the close
    if (count_ == 0) return SessionStatus::kOk;
    return fail(ErrorClass::kRead, parse_error_kind_name(ParseErrorKind::kClosedBeforeResponse));
  }
  return fail(ErrorClass::kRead, parse_error_kind_name(parser_.error_kind()));
}

void Http1ClientSession::set_capture(bool on) {
  capture_ = on;
  parser_.set_capture(on);
  if (!on && http09_state_) http09_state_->body.clear();
}

size_t Http1ClientSession::skippable_body_bytes() const {
  if (count_ == 0 || http09_) return 0;
  return parser_.skippable_body_bytes();
}

SessionStatus Http1ClientSession::skip_body(size_t bytes, SessionListener& listener) {
  ParseResult r = parser_.skip_body(bytes);
  if (r.status != ParseStatus::kComplete) return SessionStatus::kOk;
  complete_front(listener);
  // The same end as in feed(): an early answer whose body was dropped in the kernel.
  return check_unsent();
}

}  // namespace hail
