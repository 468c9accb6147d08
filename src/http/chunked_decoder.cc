#include "http/chunked_decoder.h"

#include <algorithm>
#include <cstring>

namespace hail {

namespace {

// Hex digit value, or -1.
inline int hex_value(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// CTLs other than HTAB (CR and LF are handled before this test) and DEL never appear in extensions
// or trailer fields (RFC 9110 §5.5); a NUL or stray control byte means we are not reading chunked
// framing at all, so stop instead of skipping garbage.
inline bool is_bad_ctl(unsigned char c) {
  return (c < 0x20 && c != '\t') || c == 0x7f;
}

// tchar (RFC 9110 §5.6.2): what a field name is made of.
inline bool is_tchar(unsigned char c) {
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return c != 0 && std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

}  // namespace

bool ChunkedDecoder::fail(const char* reason) {
  state_ = State::kError;
  error_reason_ = reason;
  return false;
}

void ChunkedDecoder::end_size_line() {
  line_bytes_ = 0;
  if (size_ == 0) {
    state_ = State::kTrailerStart;
  } else {
    remaining_ = size_;
    size_ = 0;
    state_ = State::kData;
  }
}

void ChunkedDecoder::skip_data(uint64_t n) {
  if (state_ != State::kData) return;
  n = std::min(n, remaining_);
  remaining_ -= n;
  data_bytes_ += n;
  if (remaining_ == 0) state_ = State::kDataEnd;
}

bool ChunkedDecoder::step(unsigned char c) {
  switch (state_) {
    case State::kSizeStart: {
      int v = hex_value(c);
      if (v < 0) return fail("bad chunk size");
      size_ = static_cast<uint64_t>(v);
      line_bytes_ = 1;
      state_ = State::kSize;
      return true;
    }
    case State::kSize:
    case State::kSizeBws:
    case State::kExt:
    case State::kExtQuoted:
    case State::kExtQuotedEscape:
    case State::kSizeLf:
      if (++line_bytes_ > kMaxSizeLineBytes) return fail("chunk size line too long");
      break;
    case State::kTrailerStart:
    case State::kTrailerName:
    case State::kTrailerValue:
    case State::kTrailerLineLf:
    case State::kTrailerEndLf:
      if (++trailer_bytes_ > kMaxTrailerBytes) return fail("trailer section too large");
      break;
    default:
      break;
  }

  switch (state_) {
    case State::kSize: {
      int v = hex_value(c);
      if (v >= 0) {
        // Checked before shifting so that the multiplication itself can never wrap.
        if (size_ > (kMaxChunkSize >> 4)) return fail("chunk size too large");
        size_ = (size_ << 4) | static_cast<uint64_t>(v);
        if (size_ > kMaxChunkSize) return fail("chunk size too large");
        return true;
      }
      [[fallthrough]];
    }
    case State::kSizeBws:
      if (c == ' ' || c == '\t') {
        state_ = State::kSizeBws;
      } else if (c == ';') {
        state_ = State::kExt;
      } else if (c == '\r') {
        state_ = State::kSizeLf;
      } else if (c == '\n') {
        end_size_line();
      } else {
        return fail("bad chunk size");
      }
      return true;
    case State::kExt:
      if (c == '"') {
        state_ = State::kExtQuoted;
      } else if (c == '\r') {
        state_ = State::kSizeLf;
      } else if (c == '\n') {
        end_size_line();
      } else if (is_bad_ctl(c)) {
        return fail("bad chunk extension");
      }
      return true;
    case State::kExtQuoted:
      if (c == '"') {
        state_ = State::kExt;
      } else if (c == '\\') {
        state_ = State::kExtQuotedEscape;
      } else if (c == '\r' || c == '\n' || is_bad_ctl(c)) {
        return fail("bad chunk extension");
      }
      return true;
    case State::kExtQuotedEscape:
      if (c == '\r' || c == '\n' || is_bad_ctl(c)) return fail("bad chunk extension");
      state_ = State::kExtQuoted;
      return true;
    case State::kSizeLf:
      if (c != '\n') return fail("expected LF after chunk size");
      end_size_line();
      return true;
    case State::kDataEnd:
      if (c == '\r') {
        state_ = State::kDataLf;
      } else if (c == '\n') {
        state_ = State::kSizeStart;
      } else {
        return fail("missing CRLF after chunk data");
      }
      return true;
    case State::kDataLf:
      if (c != '\n') return fail("missing CRLF after chunk data");
      state_ = State::kSizeStart;
      return true;
    case State::kTrailerStart:
      if (c == '\r') {
        state_ = State::kTrailerEndLf;
      } else if (c == '\n') {
        state_ = State::kDone;
      } else if (is_tchar(c)) {
        state_ = State::kTrailerName;
      } else if ((c == ' ' || c == '\t') && trailer_field_seen_) {
        state_ = State::kTrailerValue;  // obs-fold continuation of the previous field
      } else {
        return fail("bad trailer field");
      }
      return true;
    case State::kTrailerName:
      if (c == ':') {
        state_ = State::kTrailerValue;
        trailer_field_seen_ = true;
      } else if (!is_tchar(c)) {
        return fail("bad trailer field");
      }
      return true;
    case State::kTrailerValue:
      if (c == '\r') {
        state_ = State::kTrailerLineLf;
      } else if (c == '\n') {
        state_ = State::kTrailerStart;
      } else if (is_bad_ctl(c)) {
        return fail("bad trailer field");
      }
      return true;
    case State::kTrailerLineLf:
      if (c != '\n') return fail("expected LF in trailer section");
      state_ = State::kTrailerStart;
      return true;
    case State::kTrailerEndLf:
      if (c != '\n') return fail("expected LF after trailer section");
      state_ = State::kDone;
      return true;
    case State::kSizeStart:  // handled above
    case State::kData:       // never stepped byte by byte
    case State::kDone:
    case State::kError:
      break;
  }
  return fail("internal chunked decoder state");
}

ChunkedDecoder::Result ChunkedDecoder::feed(const char* data, size_t len, DataFn on_data,
                                            void* ctx) {
  if (state_ == State::kDone) return {Status::kDone, 0};
  if (state_ == State::kError) return {Status::kError, 0};
  size_t i = 0;
  while (i < len) {
    if (state_ == State::kData) {
      // The bulk of a chunked body: hand the span over in one piece.
      size_t n = static_cast<size_t>(std::min<uint64_t>(remaining_, len - i));
      if (on_data != nullptr) on_data(ctx, data + i, n);
      remaining_ -= n;
      data_bytes_ += n;
      i += n;
      if (remaining_ == 0) state_ = State::kDataEnd;
      continue;
    }
    if (!step(static_cast<unsigned char>(data[i]))) return {Status::kError, i};
    ++i;
    if (state_ == State::kDone) return {Status::kDone, i};
  }
  return {Status::kNeedMore, len};
}

}  // namespace hail
