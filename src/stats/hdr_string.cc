#include "stats/hdr_string.h"

#include <openssl/evp.h>
#include <zlib.h>

#include <cstdint>
#include <vector>

#include "stats/histogram_codec.h"

namespace hail {

namespace {

// The largest V2 encoding of a histogram this process can hold: the header plus a 9-byte varint
// per slot of the largest layout. Anything inflating past it is not a histogram hail can read.
constexpr size_t kMaxInflatedBytes = kV2HeaderBytes + 9 * 64 * 1024 + 64;
// Base64 text of more than this is refused before decoding (deflate's worst case is a few bytes
// above its input, and base64 adds a third).
constexpr size_t kMaxTextBytes = (kMaxInflatedBytes + 1024) * 2;

void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(v >> shift));
}

uint32_t get_u32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

bool is_base64_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '/';
}

std::string base64_encode(const std::vector<uint8_t>& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), bytes.data(),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

// Strict: whole quanta of the base64 alphabet, '=' only as the last one or two characters.
Result<std::vector<uint8_t>> base64_decode(std::string_view text) {
  if (text.empty() || text.size() % 4 != 0) {
    return make_error("not base64 (its length is not a multiple of 4)");
  }
  size_t padding = 0;
  if (text.back() == '=') padding = text[text.size() - 2] == '=' ? 2 : 1;
  for (size_t i = 0; i < text.size() - padding; ++i) {
    if (!is_base64_char(text[i])) return make_error("not base64 (a character outside it)");
  }
  std::vector<uint8_t> out(text.size() / 4 * 3);
  const int n = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0 || static_cast<size_t>(n) < padding) return make_error("not base64");
  out.resize(static_cast<size_t>(n) - padding);
  return out;
}

}  // namespace

std::string encode_histf(const Histogram& histogram) {
  const std::vector<uint8_t> v2 = encode_v2(histogram);
  uLongf deflated_bytes = compressBound(static_cast<uLong>(v2.size()));
  std::vector<uint8_t> out;
  out.reserve(8 + deflated_bytes);
  put_u32(out, kV2CompressedEncodingCookie);
  put_u32(out, 0);  // the length, once known
  out.resize(8 + deflated_bytes);
  // compress2 writes a zlib stream (RFC 1950), as Java's Deflater does by default.
  if (compress2(out.data() + 8, &deflated_bytes, v2.data(), static_cast<uLong>(v2.size()),
                Z_DEFAULT_COMPRESSION) != Z_OK) {
    std::abort();  // can't happen: the buffer is compressBound's size and the input is in memory
  }
  out.resize(8 + deflated_bytes);
  const auto length = static_cast<uint32_t>(deflated_bytes);
  for (int i = 0; i < 4; ++i) out[4 + i] = static_cast<uint8_t>(length >> (24 - 8 * i));
  return base64_encode(out);
}

Status decode_histf(std::string_view text, Histogram& into) {
  if (text.size() > kMaxTextBytes) return make_error("histogram string too long");
  auto bytes = base64_decode(text);
  if (!bytes) return bytes.error();
  const std::vector<uint8_t>& b = bytes.value();
  if (b.size() < 8) return make_error("histogram string too short");
  if (get_u32(b.data()) != kV2CompressedEncodingCookie) {
    return make_error("not a compressed HdrHistogram V2 encoding (unknown cookie)");
  }
  const uint32_t length = get_u32(b.data() + 4);
  if (length != b.size() - 8) {
    return make_error("histogram string's length field disagrees with its data");
  }
  // Inflate with a bounded output: a stream that would inflate further is refused, not followed.
  std::vector<uint8_t> v2(kMaxInflatedBytes);
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return make_error("zlib cannot start");
  z.next_in = const_cast<Bytef*>(b.data() + 8);
  z.avail_in = length;
  z.next_out = v2.data();
  z.avail_out = static_cast<uInt>(v2.size());
  const int rc = inflate(&z, Z_FINISH);
  const size_t inflated = v2.size() - z.avail_out;
  const bool consumed_all = z.avail_in == 0;
  const bool out_full = z.avail_out == 0;
  inflateEnd(&z);
  if (rc != Z_STREAM_END && out_full) {
    return make_error("histogram string inflates past any histogram (refused)");
  }
  if (rc != Z_STREAM_END) return make_error("histogram string's zlib stream is broken or truncated");
  if (!consumed_all) return make_error("histogram string has bytes after its zlib stream");
  v2.resize(inflated);
  return decode_v2(v2, into);
}

}  // namespace hail
