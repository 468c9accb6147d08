// "HISTF..." strings: HdrHistogram's compressed V2 encoding in base64, round trips at the layout's
// edges, and every way a string from a file can be wrong refused with a message.
#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <string>
#include <vector>

#include "stats/hdr_string.h"
#include "stats/histogram_codec.h"

namespace hail {
namespace {

std::vector<uint64_t> counts_of(const Histogram& h) {
  std::vector<uint64_t> out;
  h.for_each_recorded([&out](uint64_t value, uint64_t count) {
    out.push_back(value);
    out.push_back(count);
  });
  return out;
}

void expect_round_trip(const Histogram& h) {
  const std::string text = encode_histf(h);
  ASSERT_TRUE(text.starts_with("HISTF")) << text;
  Histogram back;
  ASSERT_TRUE(decode_histf(text, back).ok()) << decode_histf(text, back).error().message;
  EXPECT_EQ(back.count(), h.count());
  EXPECT_EQ(counts_of(back), counts_of(h));
}

TEST(HdrString, RoundTripsAtTheLayoutsEdges) {
  Histogram empty;
  expect_round_trip(empty);
  Histogram edges;
  edges.record(0);
  edges.record(1);
  edges.record(2047);
  edges.record(2048);
  edges.record(Histogram::kDefaultHighestTrackableNs);
  edges.record_n(123'456'789, 1'000'000'000'000ull);  // a count past 32 bits
  expect_round_trip(edges);
  Histogram wide;
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> latency(13.8, 1.5);  // around 1 ms, decades wide
  for (int i = 0; i < 200'000; ++i) wide.record(static_cast<uint64_t>(latency(rng)));
  expect_round_trip(wide);
}

TEST(HdrString, DecodingAddsIntoWhatIsThere) {
  Histogram a, b;
  a.record(1000);
  b.record(2000);
  ASSERT_TRUE(decode_histf(encode_histf(a), b).ok());
  EXPECT_EQ(b.count(), 2u);
}

std::string base64_of(const std::vector<uint8_t>& bytes) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t v = uint32_t{bytes[i]} << 16;
    if (i + 1 < bytes.size()) v |= uint32_t{bytes[i + 1]} << 8;
    if (i + 2 < bytes.size()) v |= bytes[i + 2];
    out += k[(v >> 18) & 63];
    out += k[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? k[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? k[v & 63] : '=';
  }
  return out;
}

// The compressed form around arbitrary inflated bytes.
std::string wrap(const std::vector<uint8_t>& inflated, uint32_t cookie = 0x1c849314) {
  uLongf n = compressBound(static_cast<uLong>(inflated.size()));
  std::vector<uint8_t> z(n);
  EXPECT_EQ(compress2(z.data(), &n, inflated.data(), static_cast<uLong>(inflated.size()), 9), Z_OK);
  z.resize(n);
  std::vector<uint8_t> out;
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<uint8_t>(cookie >> s));
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<uint8_t>(n >> s));
  out.insert(out.end(), z.begin(), z.end());
  return base64_of(out);
}

TEST(HdrString, RefusesWhatIsNotAHistogram) {
  Histogram h;
  h.record(5);
  const std::string good = encode_histf(h);
  const auto refused = [](std::string_view text) {
    Histogram into;
    into.record(42);
    const Status s = decode_histf(text, into);
    if (s.ok()) return false;
    EXPECT_EQ(into.count(), 1u) << text;  // unchanged
    return !s.error().message.empty();
  };
  EXPECT_TRUE(refused(""));
  EXPECT_TRUE(refused("HISTF"));                        // not whole base64 quanta
  EXPECT_TRUE(refused("HIS*FAAA"));                     // outside the alphabet
  EXPECT_TRUE(refused(good.substr(0, good.size() - 4)));  // truncated
  std::string flipped = good;
  flipped[12] = flipped[12] == 'A' ? 'B' : 'A';  // inside the zlib stream or its length
  EXPECT_TRUE(refused(flipped));
  const std::vector<uint8_t> v2 = encode_v2(h);
  EXPECT_FALSE(refused(wrap(v2)));                          // the wrapping itself is sound
  EXPECT_TRUE(refused(wrap(v2, 0x1c849315)));              // another cookie
  EXPECT_TRUE(refused(wrap(std::vector<uint8_t>(39, 0))));  // a short V2 header
  // A zip bomb: 50 MB of zeros deflate to ~50 KB; inflating stops at the largest histogram.
  EXPECT_TRUE(refused(wrap(std::vector<uint8_t>(50'000'000, 0))));
}

// hdr-histogram-js 3.0.1 (npm) writes its V2 header with a normalizing index offset of 1 and the
// integer-to-double ratio as the 64-bit integer 1; HdrHistogram's Java decoder reads such strings
// (for an integer histogram the offset only rotates storage, and the ratio is unused), decode_v2
// ignores both, as Java does; the interop test (tests/integration/test_hdr_interop.py) checks the
// same per layout against the package itself.
TEST(HdrString, DecodesHdrHistogramJsStrings) {
  // hdr.build({bitBucketSize: 64, lowestDiscernibleValue: 1, highestTrackableValue: 2 ** 42,
  // numberOfSignificantValueDigits: 3}) holding 0, 1, 2047 x3, 2048 x4 and 2^42 x5.
  const char* js = "HISTFAAAACx4nJNpmSzMwMDAxcDAwMjAwMDMAAGMDAwsDEiAkYnppzwbx9/3zFwAUKMEfg==";
  Histogram decoded;
  const Status st = decode_histf(js, decoded);
  ASSERT_TRUE(st.ok()) << st.error().message;
  Histogram expected;
  expected.record(0);
  expected.record(1);
  expected.record_n(2047, 3);
  expected.record_n(2048, 4);
  expected.record_n(Histogram::kDefaultHighestTrackableNs, 5);
  EXPECT_EQ(counts_of(decoded), counts_of(expected));
}

}  // namespace
}  // namespace hail
