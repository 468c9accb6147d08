// Fuzzes the histogram codec: the V2 counts payload, the V2 header and EncodedHistogram::from_parts
// never crash on any bytes; what they accept re-encodes and decodes to the same histogram, and an
// EncodedHistogram's merge and percentiles agree with its decoded histogram.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <utility>
#include <vector>

#include "stats/histogram.h"
#include "stats/histogram_codec.h"

namespace {

void check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz_histogram_codec: %s\n", what);
  std::abort();
}

std::vector<std::pair<size_t, uint64_t>> slots_of(const hail::Histogram& h) {
  std::vector<std::pair<size_t, uint64_t>> out;
  h.for_each_index([&](size_t index, uint64_t count) { out.emplace_back(index, count); });
  return out;
}

uint64_t read_u64(const uint8_t* p) {
  uint64_t v = 0;
  std::memcpy(&v, p, sizeof v);
  return v;
}

void check_payload(std::span<const uint8_t> input) {
  hail::Histogram h;
  if (!hail::decode_counts(input, h).ok()) {
    check(h.count() == 0, "a refused payload changed the histogram");
    return;
  }
  std::vector<uint8_t> again;
  hail::encode_counts(h, again);
  hail::Histogram back;
  check(hail::decode_counts(again, back).ok(), "a re-encoded payload was refused");
  check(slots_of(back) == slots_of(h), "payload round trip changed the counts");
  const hail::EncodedHistogram encoded(h);
  const hail::Histogram decoded = encoded.decode();
  check(slots_of(decoded) == slots_of(h), "EncodedHistogram changed the counts");
  check(decoded.min() == h.min() && decoded.max() == h.max(), "EncodedHistogram extremes");
}

void check_parts(std::span<const uint8_t> input) {
  if (input.size() < 24) return;
  const uint64_t min_ns = read_u64(input.data()) >> (input[0] % 64);
  const uint64_t max_ns = read_u64(input.data() + 8) >> (input[8] % 64);
  const uint64_t out_of_range = read_u64(input.data() + 16) >> (input[16] % 64);
  auto parts = hail::EncodedHistogram::from_parts(input.subspan(24), min_ns, max_ns, out_of_range);
  if (!parts.ok()) return;
  const hail::EncodedHistogram& e = parts.value();
  const hail::Histogram h = e.decode();
  check(h.count() == e.count() && h.min() == e.min() && h.max() == e.max() &&
            h.out_of_range() == e.out_of_range(),
        "from_parts: decoded totals or extremes differ");
  for (double p : {0.0, 1.0, 50.0, 99.9, 100.0}) {
    check(e.value_at_percentile(p) == h.value_at_percentile(p), "percentile differs");
  }
  if (!e.can_merge(e)) return;  // the doubled total would pass 2^63 - 1
  hail::EncodedHistogram doubled = e;
  doubled.merge(e);
  hail::Histogram twice = h;
  twice.merge(h);
  check(slots_of(doubled.decode()) == slots_of(twice), "merge differs");
  check(doubled.count() == 2 * e.count(), "merge count");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> input(data, size);
  check_payload(input);
  hail::Histogram v2;
  (void)hail::decode_v2(input, v2);
  check_parts(input);
  return 0;
}
