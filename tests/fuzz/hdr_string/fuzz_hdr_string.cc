// Fuzzes HdrHistogram's text form (decode_histf) and, through it and directly, the V2 decoder
// (decode_v2). Each input is read three ways, so that mutations reach every layer:
//   1. as the "HISTF..." text itself (base64, cookie, length, zlib stream, V2 encoding);
//   2. as a V2 encoding, wrapped the way encode_histf wraps one (deflated, cookie, length,
//      base64): decode_histf must then accept exactly what decode_v2 accepts, with the same counts;
//   3. as a zlib stream behind a valid cookie and length (broken streams, zip bombs).
// Whatever is refused leaves the histogram as it was and says why in one printable line; whatever
// is accepted re-encodes (encode_histf) and decodes to the same counts.
#include <openssl/evp.h>
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stats/hdr_string.h"
#include "stats/histogram.h"
#include "stats/histogram_codec.h"

namespace {

// Above this a wrapped V2 encoding inflates past decode_histf's bound, so the two decoders may
// rightly disagree (the bound is ~590 KB; fuzz inputs stay far below).
constexpr size_t kMaxComparedBytes = 256 * 1024;

void check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz_hdr_string: %s\n", what);
  std::abort();
}

std::vector<std::pair<size_t, uint64_t>> slots_of(const hail::Histogram& h) {
  std::vector<std::pair<size_t, uint64_t>> out;
  h.for_each_index([&](size_t index, uint64_t count) { out.emplace_back(index, count); });
  return out;
}

bool is_one_printable_line(const std::string& s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) return false;
  }
  return !s.empty();
}

std::string base64(const std::vector<uint8_t>& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), bytes.data(),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

// The compressed form: cookie, big-endian length, then `stream` (a zlib stream, or anything).
std::string wrap_stream(std::span<const uint8_t> stream) {
  std::vector<uint8_t> out;
  const uint32_t cookie = hail::kV2CompressedEncodingCookie;
  const auto length = static_cast<uint32_t>(stream.size());
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<uint8_t>(cookie >> s));
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<uint8_t>(length >> s));
  out.insert(out.end(), stream.begin(), stream.end());
  return base64(out);
}

std::string wrap_v2(std::span<const uint8_t> v2) {
  uLongf n = compressBound(static_cast<uLong>(v2.size()));
  std::vector<uint8_t> z(n);
  check(compress2(z.data(), &n, v2.data(), static_cast<uLong>(v2.size()), Z_BEST_SPEED) == Z_OK,
        "compress2 failed");
  z.resize(n);
  return wrap_stream(z);
}

// decode_histf on `text` into a histogram holding one value already; returns whether it was
// accepted, and leaves the decoded counts (without that value) in `decoded`.
bool decode_checked(std::string_view text, hail::Histogram& decoded) {
  hail::Histogram into;
  into.record(12'345);
  const auto before = slots_of(into);
  const hail::Status st = hail::decode_histf(text, into);
  if (!st.ok()) {
    check(slots_of(into) == before && into.count() == 1, "a refused string changed the histogram");
    check(is_one_printable_line(st.error().message), "error is not one printable line");
    return false;
  }
  check(hail::decode_histf(text, decoded).ok(), "accepted once, refused the second time");
  check(into.count() == decoded.count() + 1, "decoding did not add the string's total");
  // What was accepted encodes again to a string that decodes to the same counts.
  hail::Histogram again;
  check(hail::decode_histf(hail::encode_histf(decoded), again).ok(), "re-encoding was refused");
  check(slots_of(again) == slots_of(decoded), "re-encoding changed the counts");
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> input(data, size);
  hail::Histogram as_text;
  (void)decode_checked(std::string_view(reinterpret_cast<const char*>(data), size), as_text);

  if (size <= kMaxComparedBytes) {
    hail::Histogram direct;
    const bool direct_ok = hail::decode_v2(input, direct).ok();
    hail::Histogram wrapped;
    const bool wrapped_ok = decode_checked(wrap_v2(input), wrapped);
    check(direct_ok == wrapped_ok, "decode_histf and decode_v2 disagree on a V2 encoding");
    if (direct_ok) check(slots_of(direct) == slots_of(wrapped), "decoders disagree on counts");
  }

  hail::Histogram as_stream;
  (void)decode_checked(wrap_stream(input), as_stream);
  return 0;
}
