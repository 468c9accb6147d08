#include "stats/histogram_codec.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

namespace hail {

namespace {

// HdrHistogram's counts are signed 64-bit numbers.
constexpr uint64_t kMaxTotal = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
constexpr int kMaxVarintBytes = 9;

// ZigZag, then LEB128 with at most 9 bytes: 8 bytes of 7 bits with a continuation bit, and a 9th
// that carries the last 8 bits whole.
void put_varint(std::vector<uint8_t>& out, int64_t value) {
  uint64_t v = (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
  for (int i = 0; i < kMaxVarintBytes - 1; ++i) {
    if (v < 0x80) {
      out.push_back(static_cast<uint8_t>(v));
      return;
    }
    out.push_back(static_cast<uint8_t>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<uint8_t>(v));
}

// Reads one varint at p (advancing it). A final byte of zero after other bytes is refused as
// overlong: the shorter form exists, and HdrHistogram never writes the longer one.
const char* get_varint(const uint8_t*& p, const uint8_t* end, int64_t& value) {
  uint64_t v = 0;
  for (int i = 0; i < kMaxVarintBytes; ++i) {
    if (p == end) return "truncated varint";
    const uint8_t byte = *p++;
    if (i == kMaxVarintBytes - 1) {
      if (byte == 0) return "overlong varint";
      v |= static_cast<uint64_t>(byte) << 56;
      break;
    }
    v |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      if (byte == 0 && i > 0) return "overlong varint";
      break;
    }
  }
  value = static_cast<int64_t>((v >> 1) ^ (0 - (v & 1)));
  return nullptr;
}

// The non-empty slots of a payload, in order. Stops at the end or at the first error.
class CountsReader {
 public:
  CountsReader(std::span<const uint8_t> payload, size_t counts_length)
      : p_(payload.data()), end_(payload.data() + payload.size()), length_(counts_length) {}

  bool next(size_t& index, uint64_t& count) {
    while (p_ != end_) {
      int64_t v = 0;
      error_ = get_varint(p_, end_, v);
      if (error_ != nullptr) return false;
      if (v < 0) {
        const uint64_t run = static_cast<uint64_t>(-(v + 1)) + 1;  // no overflow at INT64_MIN
        if (run > length_ - next_) {
          error_ = "run of empty slots past the last slot";
          return false;
        }
        next_ += run;
        continue;
      }
      if (next_ >= length_) {
        error_ = "count past the last slot";
        return false;
      }
      const size_t slot = next_++;
      if (v == 0) continue;
      index = slot;
      count = static_cast<uint64_t>(v);
      return true;
    }
    return false;
  }
  const char* error() const { return error_; }
  size_t next_slot() const { return next_; }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  size_t length_;
  size_t next_ = 0;
  const char* error_ = nullptr;
};

// Writes non-empty slots given in increasing order, with the empty ones between them as runs.
class CountsWriter {
 public:
  explicit CountsWriter(std::vector<uint8_t>& out) : out_(out) {}

  void add(size_t index, uint64_t count) {
    const size_t gap = index - next_;
    if (gap == 1) {
      put_varint(out_, 0);
    } else if (gap > 1) {
      put_varint(out_, -static_cast<int64_t>(gap));
    }
    put_varint(out_, static_cast<int64_t>(count));
    next_ = index + 1;
  }
  // An empty histogram is its slot 0 with count 0, as HdrHistogram writes it.
  void finish() {
    if (next_ == 0) put_varint(out_, 0);
  }

 private:
  std::vector<uint8_t>& out_;
  size_t next_ = 0;
};

struct PayloadSummary {
  uint64_t total = 0;
  size_t first = 0;  // lowest non-empty slot (when total > 0)
  size_t last = 0;   // highest non-empty slot
  uint64_t last_count = 0;
};

Result<PayloadSummary> scan(std::span<const uint8_t> payload, size_t counts_length) {
  PayloadSummary s;
  CountsReader reader(payload, counts_length);
  size_t index = 0;
  uint64_t count = 0;
  while (reader.next(index, count)) {
    if (count > kMaxTotal - s.total) return make_error("histogram counts: total above 2^63 - 1");
    if (s.total == 0) s.first = index;
    s.total += count;
    s.last = index;
    s.last_count = count;
  }
  if (reader.error() != nullptr) {
    return make_error(std::string("histogram counts: ") + reader.error() + " (slot " +
                      std::to_string(reader.next_slot()) + " of " + std::to_string(counts_length) +
                      ")");
  }
  return s;
}

void put_be(std::vector<uint8_t>& out, uint64_t value, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

uint64_t get_be(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
  return v;
}

size_t counts_length_for(uint64_t highest_trackable_ns) {
  return Histogram::index_of(highest_trackable_ns) + 1;
}

// One buffer per thread for encoding, so that a payload is allocated once at its final size.
std::vector<uint8_t>& scratch() {
  thread_local std::vector<uint8_t> buffer;
  buffer.clear();
  return buffer;
}

}  // namespace

void encode_counts(const Histogram& histogram, std::vector<uint8_t>& out) {
  // Counts are bounded by the total, which cannot pass 2^63 in practice (2^63 requests).
  if (histogram.count() > kMaxTotal) std::abort();
  CountsWriter writer(out);
  histogram.for_each_index([&writer](size_t index, uint64_t count) { writer.add(index, count); });
  writer.finish();
}

Status decode_counts(std::span<const uint8_t> payload, Histogram& into) {
  auto summary = scan(payload, into.counts_length());
  if (!summary) return summary.error();
  const PayloadSummary& s = summary.value();
  if (s.total == 0) return ok_status();
  if (s.total > kMaxTotal - std::min(into.count(), kMaxTotal)) {
    return make_error("histogram counts: total above 2^63 - 1 once added");
  }
  CountsReader reader(payload, into.counts_length());
  size_t index = 0;
  uint64_t count = 0;
  while (reader.next(index, count)) into.add_at_index(index, count);
  into.widen_extremes(Histogram::lowest_equivalent(s.first), Histogram::highest_equivalent(s.last),
                      0);
  return ok_status();
}

std::vector<uint8_t> encode_v2(const Histogram& histogram) {
  std::vector<uint8_t> payload;
  encode_counts(histogram, payload);
  std::vector<uint8_t> out;
  out.reserve(kV2HeaderBytes + payload.size());
  put_be(out, kV2EncodingCookie, 4);
  put_be(out, payload.size(), 4);
  put_be(out, 0, 4);  // normalizing index offset
  put_be(out, 3, 4);  // significant digits
  put_be(out, 1, 8);  // lowest discernible value
  put_be(out, histogram.highest_trackable_ns(), 8);
  put_be(out, std::bit_cast<uint64_t>(1.0), 8);  // integer to double conversion ratio
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

Status decode_v2(std::span<const uint8_t> bytes, Histogram& into) {
  if (bytes.size() < kV2HeaderBytes) return make_error("histogram: shorter than the V2 header");
  const uint8_t* p = bytes.data();
  const uint64_t cookie = get_be(p, 4);
  if (cookie != kV2EncodingCookie) {
    return make_error("histogram: not an uncompressed V2 encoding (cookie " +
                      std::to_string(cookie) + ")");
  }
  const uint64_t payload_bytes = get_be(p + 4, 4);
  if (payload_bytes > bytes.size() - kV2HeaderBytes) {
    return make_error("histogram: payload of " + std::to_string(payload_bytes) +
                      " bytes past the end");
  }
  // The normalizing index offset (p + 8) only says how the writer rotated its own storage (the
  // payload is in logical slot order), and the integer-to-double ratio (p + 32) only matters for
  // double histograms: both are ignored, as HdrHistogram's own decoders do for integer counts
  // (hdr-histogram-js writes an offset of 1 and the ratio as an integer).
  if (get_be(p + 12, 4) != 3) return make_error("histogram: significant digits not 3");
  if (get_be(p + 16, 8) != 1) return make_error("histogram: lowest discernible value not 1");
  return decode_counts(bytes.subspan(kV2HeaderBytes, payload_bytes), into);
}

EncodedHistogram::EncodedHistogram(const Histogram& histogram)
    : count_(histogram.count()),
      min_ns_(histogram.min()),
      max_ns_(histogram.max()),
      out_of_range_(histogram.out_of_range()),
      highest_trackable_ns_(histogram.highest_trackable_ns()) {
  if (count_ == 0) return;
  std::vector<uint8_t>& buffer = scratch();
  encode_counts(histogram, buffer);
  payload_.assign(buffer.begin(), buffer.end());
}

Result<EncodedHistogram> EncodedHistogram::from_parts(std::span<const uint8_t> payload,
                                                      uint64_t min_ns, uint64_t max_ns,
                                                      uint64_t out_of_range,
                                                      uint64_t highest_trackable_ns) {
  if (highest_trackable_ns < 2) return make_error("histogram: highest trackable value below 2");
  const size_t length = counts_length_for(highest_trackable_ns);
  auto summary = scan(payload, length);
  if (!summary) return summary.error();
  const PayloadSummary& s = summary.value();
  EncodedHistogram out;
  out.highest_trackable_ns_ = highest_trackable_ns;
  if (s.total == 0) {
    if (min_ns != 0 || max_ns != 0 || out_of_range != 0) {
      return make_error("histogram: extremes or out-of-range count without values");
    }
    return out;
  }
  const auto clamp = [highest_trackable_ns](uint64_t v) {
    return std::min(v, highest_trackable_ns);
  };
  if (min_ns > max_ns) return make_error("histogram: minimum above maximum");
  if (Histogram::index_of(clamp(min_ns)) != s.first) {
    return make_error("histogram: minimum outside the lowest non-empty slot");
  }
  if (Histogram::index_of(clamp(max_ns)) != s.last) {
    return make_error("histogram: maximum outside the highest non-empty slot");
  }
  const bool above = max_ns > highest_trackable_ns;
  if ((out_of_range > 0) != above || out_of_range > s.last_count ||
      (min_ns > highest_trackable_ns && out_of_range != s.total)) {
    return make_error("histogram: out-of-range count disagrees with the extremes");
  }
  CountsWriter writer(out.payload_);
  CountsReader reader(payload, length);
  size_t index = 0;
  uint64_t count = 0;
  while (reader.next(index, count)) writer.add(index, count);
  out.payload_.shrink_to_fit();
  out.count_ = s.total;
  out.min_ns_ = min_ns;
  out.max_ns_ = max_ns;
  out.out_of_range_ = out_of_range;
  return out;
}

void EncodedHistogram::add_to(Histogram& into) const {
  if (into.highest_trackable_ns() != highest_trackable_ns_) std::abort();
  if (count_ == 0) return;
  CountsReader reader(payload_, into.counts_length());
  size_t index = 0;
  uint64_t count = 0;
  while (reader.next(index, count)) into.add_at_index(index, count);
  into.widen_extremes(min_ns_, max_ns_, out_of_range_);
}

Histogram EncodedHistogram::decode() const {
  Histogram h(highest_trackable_ns_);
  add_to(h);
  return h;
}

void EncodedHistogram::merge(const EncodedHistogram& other) {
  if (other.highest_trackable_ns_ != highest_trackable_ns_) std::abort();
  // A count past 2^63 - 1 has no encoding; callers merging histograms read from files check
  // the totals first (can_merge).
  if (!can_merge(other)) std::abort();
  if (other.count_ == 0) return;
  if (count_ == 0) {
    *this = other;
    return;
  }
  const size_t length = counts_length_for(highest_trackable_ns_);
  std::vector<uint8_t>& buffer = scratch();
  CountsWriter writer(buffer);
  CountsReader a(payload_, length);
  CountsReader b(other.payload_, length);
  size_t ia = 0, ib = 0;
  uint64_t ca = 0, cb = 0;
  bool more_a = a.next(ia, ca);
  bool more_b = b.next(ib, cb);
  while (more_a || more_b) {
    if (more_a && (!more_b || ia < ib)) {
      writer.add(ia, ca);
      more_a = a.next(ia, ca);
    } else if (more_b && (!more_a || ib < ia)) {
      writer.add(ib, cb);
      more_b = b.next(ib, cb);
    } else {
      writer.add(ia, ca + cb);
      more_a = a.next(ia, ca);
      more_b = b.next(ib, cb);
    }
  }
  payload_.assign(buffer.begin(), buffer.end());
  count_ += other.count_;
  min_ns_ = std::min(min_ns_, other.min_ns_);
  max_ns_ = std::max(max_ns_, other.max_ns_);
  out_of_range_ += other.out_of_range_;
}

bool EncodedHistogram::can_merge(const EncodedHistogram& other) const {
  return other.highest_trackable_ns_ == highest_trackable_ns_ && count_ <= kMaxTotal - other.count_;
}

uint64_t EncodedHistogram::value_at_percentile(double percentile) const {
  if (count_ == 0) return 0;
  const uint64_t rank = Histogram::rank_at_percentile(percentile, count_);
  if (rank == 1) return min_ns_;
  if (rank >= count_) return max_ns_;
  CountsReader reader(payload_, counts_length_for(highest_trackable_ns_));
  size_t index = 0;
  uint64_t count = 0;
  uint64_t seen = 0;
  while (reader.next(index, count)) {
    seen += count;
    if (seen >= rank) return std::clamp(Histogram::highest_equivalent(index), min_ns_, max_ns_);
  }
  return max_ns_;  // unreachable: the counts sum to count_
}

}  // namespace hail
