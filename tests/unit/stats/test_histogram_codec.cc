// The V2 counts payload, the V2 header and EncodedHistogram: bytes written to HdrHistogram's
// spec, exact round trips at the layout's edges, exact merges and percentiles without decoding,
// and refusal of malformed input.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include "stats/histogram.h"
#include "stats/histogram_codec.h"

namespace hail {
namespace {

constexpr uint64_t kHighest = Histogram::kDefaultHighestTrackableNs;

std::vector<std::pair<size_t, uint64_t>> slots_of(const Histogram& h) {
  std::vector<std::pair<size_t, uint64_t>> out;
  h.for_each_index([&](size_t index, uint64_t count) { out.emplace_back(index, count); });
  return out;
}

// Everything a decoded histogram must give back.
void expect_same(const Histogram& got, const Histogram& want, const char* what) {
  EXPECT_EQ(slots_of(got), slots_of(want)) << what;
  EXPECT_EQ(got.count(), want.count()) << what;
  EXPECT_EQ(got.min(), want.min()) << what;
  EXPECT_EQ(got.max(), want.max()) << what;
  EXPECT_EQ(got.out_of_range(), want.out_of_range()) << what;
  EXPECT_EQ(got.mean(), want.mean()) << what;
  for (double p : {0.0, 0.1, 1.0, 25.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
    EXPECT_EQ(got.value_at_percentile(p), want.value_at_percentile(p)) << what << " p" << p;
  }
}

std::vector<uint8_t> payload_of(const Histogram& h) {
  std::vector<uint8_t> out;
  encode_counts(h, out);
  return out;
}

Histogram lognormal(uint64_t seed, int n, double median_ns, double sigma) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> dist(std::log(median_ns), sigma);
  Histogram h;
  for (int i = 0; i < n; ++i) h.record(static_cast<uint64_t>(dist(rng)));
  return h;
}

TEST(HistogramCodec, PayloadBytesFollowTheSpec) {
  Histogram empty;
  EXPECT_EQ(payload_of(empty), (std::vector<uint8_t>{0x00}));  // slot 0, count 0

  Histogram small;
  small.record(1);
  small.record_n(3, 2);
  // slot 0 empty (a single zero is written as 0), 1 x1 (ZigZag 2), slot 2 empty, 3 x2 (ZigZag 4).
  EXPECT_EQ(payload_of(small), (std::vector<uint8_t>{0x00, 0x02, 0x00, 0x04}));

  Histogram run;
  run.record(2048);  // slot 2048: a run of 2048 empty slots, -2048 = ZigZag 4095 = 0xff 0x1f
  EXPECT_EQ(payload_of(run), (std::vector<uint8_t>{0xff, 0x1f, 0x02}));

  Histogram huge;
  huge.record_n(5, uint64_t{1} << 62);  // ZigZag 2^63: 9 bytes, the last one carrying 8 bits
  EXPECT_EQ(payload_of(huge),
            (std::vector<uint8_t>{0x09, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80}));
  Histogram back;
  ASSERT_TRUE(decode_counts(payload_of(huge), back).ok());
  EXPECT_EQ(back.count(), uint64_t{1} << 62);
  EXPECT_EQ(back.count_at_index(5), uint64_t{1} << 62);
}

TEST(HistogramCodec, LayoutIsHdrHistogramsCountsArrayIndex) {
  // countsArrayIndex for lowest discernible value 1 and 3 digits (subBucketHalfCountMagnitude 10,
  // unitMagnitude 0): ((bucket + 1) << 10) + (value >> bucket) - 1024.
  const auto hdr_index = [](uint64_t v) {
    const int bucket = 53 - std::countl_zero(v | 2047);
    return (static_cast<size_t>(bucket + 1) << 10) + (v >> bucket) - 1024;
  };
  for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{2047}, uint64_t{2048}, uint64_t{4095},
                     uint64_t{4096}, uint64_t{1'000'000}, kHighest - 1, kHighest}) {
    EXPECT_EQ(Histogram::index_of(v), hdr_index(v)) << v;
  }
  // HdrHistogram's countsArrayLength for highest 2^42 is (33 buckets + 1) * 1024 = 34,816; ours
  // ends at the slot of 2^42.
  EXPECT_EQ(Histogram().counts_length(), 33'793u);
  EXPECT_EQ(Histogram::index_of(kHighest), 33'792u);
}

TEST(HistogramCodec, RoundTripAtTheEdges) {
  std::vector<Histogram> cases;
  cases.emplace_back();  // empty
  cases.emplace_back().record(0);
  cases.emplace_back().record(1);
  cases.emplace_back().record(kHighest);
  Histogram& over = cases.emplace_back();
  over.record(kHighest + 1);  // counted out of range, in the top slot
  over.record(UINT64_MAX);
  over.record(7);
  Histogram& runs = cases.emplace_back();  // long empty runs between far-apart values
  runs.record(0);
  runs.record(1'000'000);
  runs.record(kHighest);
  Histogram& only_over = cases.emplace_back();
  only_over.record_n(UINT64_MAX - 5, 3);
  cases.push_back(lognormal(1, 100'000, 1e6, 0.5));
  cases.push_back(lognormal(2, 1'000, 1e3, 3.0));
  for (const Histogram& h : cases) {
    const EncodedHistogram encoded(h);
    expect_same(encoded.decode(), h, "EncodedHistogram");
    EXPECT_EQ(encoded.count(), h.count());
    EXPECT_EQ(encoded.min(), h.min());
    EXPECT_EQ(encoded.max(), h.max());
    EXPECT_EQ(encoded.out_of_range(), h.out_of_range());

    // The bare payload keeps the counts; the extremes become the outer slots' bounds.
    Histogram counts_only;
    ASSERT_TRUE(decode_counts(payload_of(h), counts_only).ok());
    EXPECT_EQ(slots_of(counts_only), slots_of(h));
    EXPECT_EQ(counts_only.count(), h.count());
    if (h.count() > 0) {
      EXPECT_EQ(counts_only.min(), Histogram::lowest_equivalent(slots_of(h).front().first));
      EXPECT_EQ(counts_only.max(), Histogram::highest_equivalent(slots_of(h).back().first));
    }

    Histogram v2;
    ASSERT_TRUE(decode_v2(encode_v2(h), v2).ok());
    EXPECT_EQ(slots_of(v2), slots_of(h));
  }
}

TEST(HistogramCodec, DecodeAddsIntoAnExistingHistogram) {
  const Histogram a = lognormal(3, 5'000, 2e5, 1.0);
  const Histogram b = lognormal(4, 7'000, 9e5, 0.3);
  Histogram both = a;
  both.merge(b);
  Histogram sum = a;
  EncodedHistogram(b).add_to(sum);
  expect_same(sum, both, "add_to");
}

TEST(HistogramCodec, V2HeaderIsHdrHistogramsUncompressedEncoding) {
  Histogram h;
  h.record(1);
  const std::vector<uint8_t> bytes = encode_v2(h);
  const std::vector<uint8_t> header = {
      0x1c, 0x84, 0x93, 0x13,                          // cookie
      0x00, 0x00, 0x00, 0x02,                          // payload bytes
      0x00, 0x00, 0x00, 0x00,                          // normalizing index offset
      0x00, 0x00, 0x00, 0x03,                          // significant digits
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,  // lowest discernible value
      0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00,  // highest trackable value 2^42
      0x3f, 0xf0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // 1.0
  };
  ASSERT_EQ(bytes.size(), kV2HeaderBytes + 2);
  EXPECT_EQ(std::vector<uint8_t>(bytes.begin(), bytes.begin() + kV2HeaderBytes), header);
  EXPECT_EQ(bytes[40], 0x00);
  EXPECT_EQ(bytes[41], 0x02);

  // Other layouts and forms are refused; a smaller highest trackable value is a shorter array of
  // the same layout, so its counts decode.
  const auto refused = [&](size_t offset, uint8_t value) {
    std::vector<uint8_t> changed = bytes;
    changed[offset] = value;
    Histogram into;
    return !decode_v2(changed, into).ok();
  };
  EXPECT_TRUE(refused(3, 0x14));   // the compressed cookie
  EXPECT_TRUE(refused(7, 0x03));   // payload past the end
  EXPECT_TRUE(refused(15, 0x02));  // 2 digits
  EXPECT_TRUE(refused(23, 0x03));  // lowest discernible value 3
  EXPECT_FALSE(refused(26, 0x00));
  // How the writer rotated its storage, and the ratio of double histograms, change nothing in an
  // integer histogram's logical counts (HdrHistogram's decoders ignore them too).
  EXPECT_FALSE(refused(11, 0x01));  // normalizing offset
  EXPECT_FALSE(refused(32, 0x40));  // ratio 2.0
  Histogram into;
  EXPECT_FALSE(decode_v2(std::span(bytes).first(39), into).ok());
}

TEST(HistogramCodec, MalformedPayloadsAreRefusedAndLeaveTheHistogramAlone) {
  const std::vector<std::pair<std::vector<uint8_t>, const char*>> bad = {
      {{0x80}, "truncated varint"},
      {{0x02, 0x81}, "truncated varint"},
      {{0x80, 0x00}, "overlong varint"},
      {{0x82, 0x80, 0x00}, "overlong varint"},
      {{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, "overlong varint"},
      // A run to the last slot, then a count past it: -33,793 = ZigZag 67,585.
      {{0x81, 0x90, 0x04, 0x02}, "count past the last slot"},
      {{0x83, 0x90, 0x04}, "run of empty slots past the last slot"},                   // -33,794
      {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, "run of empty slots"},  // INT64_MIN
      // Two counts of 2^62 + 2^62: the total passes 2^63 - 1.
      {{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
        0x80, 0x80, 0x80},
       "total above 2^63 - 1"},
  };
  for (const auto& [bytes, why] : bad) {
    Histogram h;
    h.record(12'345);
    const auto before = slots_of(h);
    const Status s = decode_counts(bytes, h);
    ASSERT_FALSE(s.ok()) << why;
    EXPECT_NE(s.error().message.find(why), std::string::npos) << s.error().message;
    EXPECT_EQ(slots_of(h), before) << why;
    EXPECT_EQ(h.count(), 1u);
    EXPECT_FALSE(EncodedHistogram::from_parts(bytes, 0, 0, 0).ok()) << why;
  }
  // A trailing run that ends exactly at the last slot is well-formed: -33,792 = ZigZag 67,583.
  Histogram h;
  EXPECT_TRUE(decode_counts(std::vector<uint8_t>{0x02, 0xff, 0x8f, 0x04}, h).ok());
  EXPECT_EQ(h.count(), 1u);
}

TEST(EncodedHistogram, FromPartsChecksTheExtremesAgainstTheCounts) {
  Histogram h;
  h.record(1'000);
  h.record(5'000'000);
  const std::vector<uint8_t> payload = payload_of(h);
  auto good = EncodedHistogram::from_parts(payload, 1'000, 5'000'000, 0);
  ASSERT_TRUE(good.ok()) << good.error().message;
  expect_same(good->decode(), h, "from_parts");
  EXPECT_FALSE(EncodedHistogram::from_parts(payload, 999, 5'000'000, 0).ok());  // other slot
  EXPECT_FALSE(EncodedHistogram::from_parts(payload, 1'000, 6'000'000, 0).ok());
  EXPECT_FALSE(EncodedHistogram::from_parts(payload, 1'000, 5'000'000, 1).ok());  // not above
  EXPECT_FALSE(EncodedHistogram::from_parts(payload, 1'000, 5'000'000, 0, 1'000'000).ok());
  EXPECT_FALSE(EncodedHistogram::from_parts(std::vector<uint8_t>{0x00}, 1, 1, 0).ok());
  EXPECT_TRUE(EncodedHistogram::from_parts(std::vector<uint8_t>{0x00}, 0, 0, 0).ok());
  EXPECT_TRUE(EncodedHistogram::from_parts({}, 0, 0, 0).ok());

  Histogram over;
  over.record(kHighest + 10);
  over.record(kHighest);
  const std::vector<uint8_t> top = payload_of(over);
  EXPECT_TRUE(EncodedHistogram::from_parts(top, kHighest, kHighest + 10, 1).ok());
  EXPECT_FALSE(EncodedHistogram::from_parts(top, kHighest, kHighest + 10, 0).ok());
  EXPECT_FALSE(EncodedHistogram::from_parts(top, kHighest, kHighest + 10, 3).ok());
  EXPECT_FALSE(EncodedHistogram::from_parts(top, kHighest + 1, kHighest + 10, 1).ok());

  // A non-canonical payload (a single empty slot written as a run of 1) is stored canonically.
  auto relaxed = EncodedHistogram::from_parts(std::vector<uint8_t>{0x01, 0x02}, 1, 1, 0);
  ASSERT_TRUE(relaxed.ok());
  EXPECT_EQ(std::vector<uint8_t>(relaxed->payload().begin(), relaxed->payload().end()),
            (std::vector<uint8_t>{0x00, 0x02}));
}

TEST(EncodedHistogram, MergeEqualsBruteForceOnSparseRandomData) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    // Sparse: a few values each, anywhere in the range, sometimes none, sometimes out of range.
    Histogram a;
    Histogram b;
    Histogram both;
    std::uniform_real_distribution<double> exponent(0.0, 43.0);
    const int na = static_cast<int>(rng() % 20);
    const int nb = static_cast<int>(rng() % 20);
    for (int i = 0; i < na + nb; ++i) {
      const auto v = static_cast<uint64_t>(std::exp2(exponent(rng)));
      const uint64_t n = 1 + rng() % 3;
      (i < na ? a : b).record_n(v, n);
      both.record_n(v, n);
    }
    EncodedHistogram merged(a);
    merged.merge(EncodedHistogram(b));
    expect_same(merged.decode(), both, "merge");
    EXPECT_EQ(std::vector<uint8_t>(merged.payload().begin(), merged.payload().end()),
              both.count() == 0 ? std::vector<uint8_t>{} : payload_of(both));
    for (double p = 0; p <= 100; p += 0.5) {
      ASSERT_EQ(merged.value_at_percentile(p), both.value_at_percentile(p)) << p;
    }
  }
}

TEST(EncodedHistogram, MergeRefusesTotalsWithoutAnEncoding) {
  Histogram h;
  h.record_n(1'000, uint64_t{1} << 62);
  const EncodedHistogram half(h);
  EncodedHistogram sum = half;
  h.reset();
  h.record_n(1'000, (uint64_t{1} << 62) - 1);
  const EncodedHistogram rest(h);
  ASSERT_TRUE(sum.can_merge(rest));  // 2^62 + 2^62 - 1 fits
  sum.merge(rest);
  EXPECT_EQ(sum.count(), (uint64_t{1} << 63) - 1);
  EXPECT_EQ(sum.decode().count(), (uint64_t{1} << 63) - 1);
  EXPECT_FALSE(sum.can_merge(half));
  EXPECT_DEATH(sum.merge(half), "");
  EXPECT_FALSE(half.can_merge(EncodedHistogram(Histogram(1'000'000))));  // other layout
}

TEST(EncodedHistogram, PercentilesWithoutDecodingEqualTheHistogramsOwn) {
  const Histogram h = lognormal(8, 50'000, 3e6, 1.2);
  const EncodedHistogram encoded(h);
  for (double p = 0; p <= 100; p += 0.25) {
    ASSERT_EQ(encoded.value_at_percentile(p), h.value_at_percentile(p)) << p;
  }
  EXPECT_EQ(encoded.value_at_percentile(99.99), h.value_at_percentile(99.99));
  EXPECT_EQ(EncodedHistogram().value_at_percentile(50), 0u);
}

TEST(EncodedHistogram, IsCompact) {
  // 10,000 latencies spread over about a decade: a few bytes per non-empty slot, against 264 KiB
  // for the dense array.
  const Histogram h = lognormal(9, 10'000, 1e6, 0.5);
  const EncodedHistogram encoded(h);
  size_t slots = 0;
  h.for_each_index([&](size_t, uint64_t) { ++slots; });
  EXPECT_LT(encoded.payload().size(), slots * 3);
  EXPECT_LT(encoded.memory_bytes(), 16u * 1024);
  EXPECT_EQ(EncodedHistogram().memory_bytes(), sizeof(EncodedHistogram));
}

}  // namespace
}  // namespace hail
