// Fuzz target for ChunkedDecoder. Byte 0 picks a split point, byte 1 whether chunk data is skipped
// instead of fed; the rest is the chunked body. Whole, split and byte-at-a-time decoding must agree
// on status, bytes consumed and data; consumed never exceeds the input and the data handed out is
// exactly data_bytes() long.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "http/chunked_decoder.h"

namespace {

using hail::ChunkedDecoder;

struct Outcome {
  ChunkedDecoder::Status status = ChunkedDecoder::Status::kNeedMore;
  size_t consumed = 0;
  std::string data;
  uint64_t data_bytes = 0;
  bool operator==(const Outcome&) const = default;
};

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "fuzz_chunked: %s\n", what);
  std::abort();
}

void append(void* ctx, const char* data, size_t len) {
  static_cast<std::string*>(ctx)->append(data, len);
}

Outcome decode(const std::string& input, size_t step, size_t first_cut, bool skip) {
  ChunkedDecoder d;
  Outcome o;
  size_t pos = 0;
  while (pos < input.size()) {
    size_t piece = pos == 0 && first_cut > 0 ? first_cut : step;
    if (piece == 0 || piece > input.size() - pos) piece = input.size() - pos;
    // A private copy per piece lets ASan catch any read past it.
    std::vector<char> buf(input.begin() + static_cast<std::ptrdiff_t>(pos),
                          input.begin() + static_cast<std::ptrdiff_t>(pos + piece));
    size_t off = 0;
    while (off < piece) {
      if (skip && d.data_remaining() > 0) {
        size_t n = static_cast<size_t>(std::min<uint64_t>(d.data_remaining(), piece - off));
        d.skip_data(n);
        o.data.append(buf.data() + off, n);
        off += n;
        o.consumed += n;
        continue;
      }
      ChunkedDecoder::Result r = d.feed(buf.data() + off, piece - off, &append, &o.data);
      if (r.consumed > piece - off) die("consumed > len");
      if (r.status == ChunkedDecoder::Status::kNeedMore && r.consumed != piece - off) {
        die("kNeedMore without consuming everything");
      }
      off += r.consumed;
      o.consumed += r.consumed;
      if (r.status != ChunkedDecoder::Status::kNeedMore) {
        o.status = r.status;
        if (d.feed(buf.data(), piece, nullptr, nullptr).consumed != 0) die("end state not sticky");
        if ((r.status == ChunkedDecoder::Status::kError) != d.failed()) die("failed() mismatch");
        if ((r.status == ChunkedDecoder::Status::kDone) != d.done()) die("done() mismatch");
        o.data_bytes = d.data_bytes();
        if (o.data_bytes != o.data.size()) die("data_bytes() differs from data handed out");
        return o;
      }
    }
    pos += piece;
  }
  o.data_bytes = d.data_bytes();
  if (o.data_bytes != o.data.size()) die("data_bytes() differs from data handed out");
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2 || size > (1 << 18)) return 0;
  const std::string input(reinterpret_cast<const char*>(data + 2), size - 2);
  const bool skip = (data[1] & 1) != 0;
  const Outcome whole = decode(input, 0, 0, skip);
  if (whole.consumed > input.size()) die("consumed > input");
  if (!(decode(input, 0, 0, !skip) == whole)) die("skipping changes the result");
  if (input.size() > 1) {
    size_t cut = 1 + static_cast<size_t>(data[0]) * (input.size() - 1) / 256;
    if (!(decode(input, 0, cut, skip) == whole)) die("split differs from whole");
    if (input.size() <= 8192 && !(decode(input, 1, 0, skip) == whole)) {
      die("one byte at a time differs from whole");
    }
  }
  return 0;
}
