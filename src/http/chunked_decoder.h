// ChunkedDecoder: streaming decoder of the chunked transfer coding (RFC 9112 §7.1) for response
// bodies (and chunked request bodies in scripts' raw requests: raw_request.cc). Owned by
// Http1ResponseParser (http layer); pure state machine, no I/O, no allocation. One thread at a time
// (the owning connection's worker).
#pragma once

#include <cstddef>
#include <cstdint>

namespace hail {

// Accepted grammar, chosen to frame exactly like curl and llhttp without ever guessing:
// - chunk-size: 1+ hex digits, either case, any number of leading zeros; values above 2^62 are
//   rejected (no real body is that large, and the bound keeps every sum below 2^64).
// - optional SP/HTAB after the size (BWS before a chunk extension; some servers pad sizes).
// - chunk extensions after ';' are skipped, never interpreted. Quoted strings are tracked only so
//   that a quoted string cut off by the line end is an error; control characters are errors.
// - line terminators: CRLF, or a bare LF (RFC 9112 §2.2 lets a recipient accept a lone LF, and curl
//   does). A CR not followed by LF is an error: that is where parsers disagree about framing.
// - after chunk data, CRLF (or LF) is required; anything else is an error.
// - the trailer section after the last chunk is skipped, bounded by kMaxTrailerBytes, but each line
//   must look like a field line (a token, then ':'; or an obs-fold continuation): otherwise a
//   server that forgot the final CRLF would have the next response's head swallowed as "trailers".
// Bounded line lengths mean a hostile peer cannot keep the decoder busy outside chunk data forever.
class ChunkedDecoder {
 public:
  enum class Status : uint8_t { kNeedMore, kDone, kError };
  struct Result {
    Status status;
    size_t consumed;  // kNeedMore: == len. kDone: bytes up to the end of the trailer section.
  };
  // Receives the chunk data of each call in order; spans never include framing bytes.
  using DataFn = void (*)(void* ctx, const char* data, size_t len);

  static constexpr uint64_t kMaxChunkSize = uint64_t{1} << 62;
  static constexpr size_t kMaxSizeLineBytes = 4096;  // chunk-size line, extensions included
  static constexpr size_t kMaxTrailerBytes = 64 * 1024;

  ChunkedDecoder() = default;

  void reset() { *this = ChunkedDecoder(); }

  // Any split of the input is fine, down to one byte per call. After kDone or kError further calls
  // return the same status with consumed == 0 until reset().
  Result feed(const char* data, size_t len, DataFn on_data = nullptr, void* ctx = nullptr);

  // Chunk data bytes left in the current chunk: the caller may discard up to this many bytes
  // instead of feeding them (0 outside chunk data).
  uint64_t data_remaining() const { return state_ == State::kData ? remaining_ : 0; }
  // The caller discarded n <= data_remaining() bytes of chunk data.
  void skip_data(uint64_t n);

  uint64_t data_bytes() const { return data_bytes_; }  // decoded body bytes so far
  bool done() const { return state_ == State::kDone; }
  bool failed() const { return state_ == State::kError; }
  const char* error_reason() const { return error_reason_; }

 private:
  enum class State : uint8_t {
    kSizeStart,        // first hex digit of a chunk-size
    kSize,             // more hex digits
    kSizeBws,          // SP/HTAB after the size
    kExt,              // inside chunk extensions, outside quotes
    kExtQuoted,        // inside a quoted-string of an extension value
    kExtQuotedEscape,  // after a backslash inside a quoted-string
    kSizeLf,           // CR seen at the end of the chunk-size line
    kData,             // chunk data, remaining_ > 0
    kDataEnd,          // CRLF after the data expected
    kDataLf,           // CR after the data seen
    kTrailerStart,     // start of a trailer line or of the final empty line
    kTrailerName,      // inside a trailer field name
    kTrailerValue,     // inside a trailer field value (after the colon)
    kTrailerLineLf,    // CR inside the trailer section seen
    kTrailerEndLf,     // CR of the final empty line seen
    kDone,
    kError,
  };

  // Advances over one framing byte; false on error (state_ is kError then).
  bool step(unsigned char c);
  bool fail(const char* reason);
  void end_size_line();

  State state_ = State::kSizeStart;
  uint64_t size_ = 0;       // chunk-size being parsed
  uint64_t remaining_ = 0;  // chunk data left in the current chunk
  uint64_t data_bytes_ = 0;
  size_t line_bytes_ = 0;  // bytes of the current chunk-size line
  size_t trailer_bytes_ = 0;
  bool trailer_field_seen_ = false;  // an obs-fold line may continue it
  const char* error_reason_ = nullptr;
};

}  // namespace hail
