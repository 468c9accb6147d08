#include "http/response_parser.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace hail {

const char* parse_error_kind_name(ParseErrorKind kind) {
  switch (kind) {
    case ParseErrorKind::kNone:
      return "none";
    case ParseErrorKind::kClosedBeforeResponse:
      return "closed before response";
    case ParseErrorKind::kTruncated:
      return "truncated response";
    case ParseErrorKind::kBadHead:
      return "bad response head";
    case ParseErrorKind::kHeadTooLarge:
      return "response head too large";
    case ParseErrorKind::kBadFraming:
      return "bad body framing";
    case ParseErrorKind::kBadChunk:
      return "bad chunked body";
  }
  return "?";
}

Http1ResponseParser::Http1ResponseParser() {
  begin_response(false);
}

void Http1ResponseParser::start_head() {
  pending_head_.clear();  // keeps its capacity
  head_waits_for_line_end_ = false;
}

void Http1ResponseParser::begin_response(bool head_request, bool upgrade_requested) {
  state_ = State::kHead;
  head_request_ = head_request;
  upgrade_requested_ = upgrade_requested;
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
    captured_->headers.clear();
    captured_->body.clear();
    captured_->truncated = false;
  }
  start_head();
}

void Http1ResponseParser::set_capture(bool on, size_t max_body_bytes) {
  capture_ = on;
  if (on && captured_ == nullptr) captured_ = std::make_unique<Captured>();
  if (captured_ != nullptr) {
    captured_->max_body_bytes = max_body_bytes;
    if (!on) {
      captured_->headers.clear();
      captured_->body.clear();
      captured_->truncated = false;
    }
  }
  if (state_ == State::kHead && !started_) begin_response(head_request_, upgrade_requested_);
}

const std::vector<std::pair<std::string, std::string>>& Http1ResponseParser::headers() const {
  static const std::vector<std::pair<std::string, std::string>> kNone;
  return captured_ != nullptr ? captured_->headers : kNone;
}

const std::string& Http1ResponseParser::body() const {
  static const std::string kNone;
  return captured_ != nullptr ? captured_->body : kNone;
}

ParseResult Http1ResponseParser::fail(ParseErrorKind kind, const char* reason, size_t consumed) {
  state_ = State::kError;
  error_kind_ = kind;
  error_reason_ = reason;
  keep_alive_ = false;
  return {ParseStatus::kError, consumed};
}

ParseResult Http1ResponseParser::feed(const char* data, size_t len) {
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

[[gnu::always_inline]] inline bool Http1ResponseParser::on_head_complete(const ResponseHead& head) {
  const int status = head.status;
  const int minor = head.http_minor;
  if (status < 200 && status != 101) {
    // Interim response (100 Continue, 103 Early Hints, ...): the final one follows.
    if (++interim_responses_ > kMaxInterimResponses) {
      fail(ParseErrorKind::kHeadTooLarge, "too many interim responses", 0);
      return false;
    }
    if (capture_active_) captured_->headers.clear();
    state_ = State::kHead;
    return true;
  }
  if (status == 101 && !upgrade_requested_) {
    // The server switched protocols on a request that asked for no such thing: what follows is
    // not HTTP/1 (RFC 9110 §15.2.2).
    fail(ParseErrorKind::kBadHead, "101 Switching Protocols to a request that asked for no upgrade",
         0);
    return false;
  }
  status_ = status;
  http_major_ = head.http_major;
  http_minor_ = minor;

  bool keep_alive = !head.connection_close && (minor == 1 || head.connection_keep_alive);
  if (head_request_ || status == 101 || status == 204 || status == 304) {
    // No body whatever the framing fields say (RFC 9112 §6.3 rules 1 and 2).
    state_ = State::kComplete;
    keep_alive_ = keep_alive && status != 101;
    return true;
  }
  if (head.transfer_encoding) {
    // The head parser has already rejected Transfer-Encoding together with Content-Length.
    // RFC 9112 §6.1: the framing of an HTTP/1.0 message with Transfer-Encoding is suspect.
    if (minor == 0) keep_alive = false;
    if (head.chunked) {
      chunked_.reset();
      state_ = State::kBodyChunked;
      keep_alive_ = keep_alive;
    } else {
      state_ = State::kBodyUntilClose;
      keep_alive_ = false;
    }
    return true;
  }
  if (head.has_content_length) {
    remaining_ = head.content_length;
    state_ = remaining_ == 0 ? State::kComplete : State::kBodyLength;
    keep_alive_ = keep_alive;
    return true;
  }
  state_ = State::kBodyUntilClose;
  keep_alive_ = false;
  return true;
}

// Inlined into both paths of feed_head: on the hot path every call layer shows in the count.
[[gnu::always_inline]] inline HeadParseResult Http1ResponseParser::parse_head(const char* buf,
                                                                              size_t len) {
  ResponseHead head;
  HeadParseResult r;
  if (capture_active_) {
    captured_->headers.clear();  // only the fields of the final response's head are kept
    const HeadFieldSink sink{&on_field, this};
    r = parse_response_head(buf, len, &head, &sink);
  } else {
    r = parse_response_head(buf, len, &head);
  }
  if (r.status == HeadParseStatus::kError) {
    ParseErrorKind kind = ParseErrorKind::kBadHead;
    if (r.error == HeadError::kFraming) kind = ParseErrorKind::kBadFraming;
    if (r.error == HeadError::kTooLarge) kind = ParseErrorKind::kHeadTooLarge;
    fail(kind, r.reason, r.consumed);
  } else if (r.status == HeadParseStatus::kComplete && !on_head_complete(head)) {
    r.status = HeadParseStatus::kError;
  }
  return r;
}

ParseResult Http1ResponseParser::feed_head(const char* data, size_t len) {
  if (len > 0) started_ = true;
  if (pending_head_.empty()) {
    // The usual case: the whole head is in this feed, parsed where it lies.
    HeadParseResult r = parse_head(data, len);
    if (r.status != HeadParseStatus::kIncomplete) {
      return {r.status == HeadParseStatus::kComplete ? ParseStatus::kComplete : ParseStatus::kError,
              r.consumed};
    }
    pending_head_.assign(data, len);  // len < kMaxHeadBytes, or r would be an error
    head_waits_for_line_end_ = r.waiting_for_line_end;
    return {ParseStatus::kNeedMore, len};
  }
  // The head began in an earlier feed: gather it, never beyond the limit, and parse it whole.
  const size_t before = pending_head_.size();
  const size_t take = std::min(len, kMaxHeadBytes - before);
  pending_head_.append(data, take);
  if (head_waits_for_line_end_ && pending_head_.size() < kMaxHeadBytes &&
      std::memchr(data, '\n', take) == nullptr && std::memchr(data, '\r', take) == nullptr) {
    return {ParseStatus::kNeedMore, len};  // parsing again could not change the answer
  }
  HeadParseResult r = parse_head(pending_head_.data(), pending_head_.size());
  switch (r.status) {
    case HeadParseStatus::kIncomplete:
      head_waits_for_line_end_ = r.waiting_for_line_end;
      return {ParseStatus::kNeedMore, len};  // take == len: the limit was not reached
    case HeadParseStatus::kError: {
      // The error may lie in bytes of an earlier feed; report where it is in this one, if at all.
      size_t at = r.consumed > before ? std::min(r.consumed - before, take) : 0;
      return {ParseStatus::kError, at};
    }
    case HeadParseStatus::kComplete:
      break;
  }
  // A head is complete as soon as its last byte is seen, so some of this feed's bytes were needed.
  const size_t used = r.consumed - before;
  start_head();
  return {ParseStatus::kComplete, used};
}

ParseResult Http1ResponseParser::on_eof() {
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

size_t Http1ResponseParser::skippable_body_bytes() const {
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

ParseResult Http1ResponseParser::skip_body(size_t n) {
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
  if (capture_active_ && n > 0) captured_->truncated = true;
  return {status, n};
}

// Called for every body byte in capture mode, also once the cap is reached, so that
// body_truncated() does not depend on how the bytes were split.
void Http1ResponseParser::capture_body(const char* data, size_t len) {
  Captured& c = *captured_;
  size_t room = c.max_body_bytes - c.body.size();
  if (len > room) {
    c.truncated = true;
    len = room;
  }
  c.body.append(data, len);
}

void Http1ResponseParser::on_field(void* ctx, std::string_view name, std::string_view value) {
  auto* self = static_cast<Http1ResponseParser*>(ctx);
  auto& field = self->captured_->headers.emplace_back(std::string(name), std::string());
  // An obs-fold leaves its line break in the value; without it the folded lines are joined by
  // their leading whitespace, as RFC 9112 §5.2 asks.
  std::string& v = field.second;
  v.reserve(value.size());
  for (char c : value) {
    if (c != '\r' && c != '\n') v.push_back(c);
  }
}

void Http1ResponseParser::on_chunk_data(void* ctx, const char* data, size_t len) {
  auto* self = static_cast<Http1ResponseParser*>(ctx);
  self->capture_body(data, len);
}

}  // namespace hail
