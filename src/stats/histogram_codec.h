// Exact, compact encodings of a Histogram: HdrHistogram's V2 counts payload, its V2 header, and
// EncodedHistogram (the payload plus the exact extremes: what windows keep in memory).
// Pure functions and plain values: any thread; an EncodedHistogram is immutable once shared.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/result.h"
#include "stats/histogram.h"

namespace hail {

// The V2 counts payload ("64b9B"), as HdrHistogram's encodeIntoByteBuffer writes it: the counts of
// slots 0 .. index_of(max) in order, each a ZigZag LEB128 varint of at most 9 bytes (the 9th byte
// carries 8 bits), and each run of k >= 2 empty slots as the single number -k. An empty histogram
// is one zero byte. Appends to `out`.
void encode_counts(const Histogram& histogram, std::vector<uint8_t>& out);

// Adds the payload's counts into `into`, whose slot layout the payload must fit. The extremes
// become the lowest and highest values of the outer non-empty slots, as HdrHistogram restores them
// (EncodedHistogram keeps the exact ones). Refuses truncated or overlong varints, a slot past
// into.counts_length(), and totals above 2^63 - 1 (negative in HdrHistogram's signed counts); on
// error `into` is unchanged.
Status decode_counts(std::span<const uint8_t> payload, Histogram& into);

// HdrHistogram's V2 encoding, uncompressed: a 40-byte big-endian header (cookie 0x1c849313,
// payload length, normalizing index offset 0, significant digits 3, lowest discernible value 1,
// highest trackable value, integer-to-double ratio 1.0), then the counts payload. The compressed
// form HdrHistogram's logs and "HISTF..." strings use is this with the cookie 0x1c849314 and a
// length in front of the zlib-deflated bytes: one wrapping function around these two.
inline constexpr uint32_t kV2EncodingCookie = 0x1c849313;
inline constexpr size_t kV2HeaderBytes = 40;
std::vector<uint8_t> encode_v2(const Histogram& histogram);
// Adds a V2 encoding into `into`. Refuses other cookies and other layouts (lowest discernible value
// other than 1, other significant digits); the highest trackable value may differ as long as every
// count fits into's slots. The normalizing offset and the integer-to-double ratio are ignored (the
// payload is in logical order; the ratio is for double histograms).
Status decode_v2(std::span<const uint8_t> bytes, Histogram& into);

// A histogram as the V2 counts payload plus what the payload cannot carry: the exact minimum and
// maximum and the out-of-range count. Decoding gives back the same histogram (counts, total,
// extremes, out-of-range), so percentiles, mean and merges are exact. Typically a few hundred
// bytes to a few KiB (see time_series.h for the per-window figures).
class EncodedHistogram {
 public:
  // No values, in the default layout.
  EncodedHistogram() = default;
  explicit EncodedHistogram(const Histogram& histogram);

  // Parts read back from a file: the payload must decode within the layout of
  // highest_trackable_ns, and the extremes must agree with it (min_ns in the lowest non-empty
  // slot, max_ns in the highest, out_of_range > 0 exactly when max_ns is above the layout's
  // highest value and at most that slot's count). The payload is kept re-encoded canonically.
  static Result<EncodedHistogram> from_parts(
      std::span<const uint8_t> payload, uint64_t min_ns, uint64_t max_ns, uint64_t out_of_range,
      uint64_t highest_trackable_ns = Histogram::kDefaultHighestTrackableNs);

  uint64_t count() const { return count_; }
  uint64_t min() const { return min_ns_; }  // 0 when empty, as Histogram
  uint64_t max() const { return max_ns_; }
  uint64_t out_of_range() const { return out_of_range_; }
  uint64_t highest_trackable_ns() const { return highest_trackable_ns_; }
  // The V2 counts payload; empty when count() is 0 (encode_counts writes one zero byte then).
  std::span<const uint8_t> payload() const { return payload_; }
  size_t memory_bytes() const { return sizeof(*this) + payload_.capacity(); }

  // Adds these values into `into`, which must have the same layout (aborts otherwise, as
  // Histogram::merge does).
  void add_to(Histogram& into) const;
  Histogram decode() const;
  // Adds another's values: the same as decoding both, merging and encoding, without a dense array.
  // Both must have the same layout and totals summing to at most 2^63 - 1 (aborts otherwise: no
  // run reaches it, and histograms read from files are checked with can_merge() first).
  void merge(const EncodedHistogram& other);
  bool can_merge(const EncodedHistogram& other) const;
  // Exactly Histogram::value_at_percentile() of the decoded histogram, read from the payload.
  uint64_t value_at_percentile(double percentile) const;

 private:
  std::vector<uint8_t> payload_;
  uint64_t count_ = 0;
  uint64_t min_ns_ = 0;
  uint64_t max_ns_ = 0;
  uint64_t out_of_range_ = 0;
  uint64_t highest_trackable_ns_ = Histogram::kDefaultHighestTrackableNs;
};

}  // namespace hail
