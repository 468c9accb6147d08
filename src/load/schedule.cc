#include "load/schedule.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/clock.h"

namespace hail {
namespace {

// This worker's share of a total count: N/n each, one more for the first N%n workers (the same
// split as striding k = i, i+n, ... over 0..N-1).
uint64_t share_of(uint64_t total, const WorkerSlice& slice) {
  if (total == kUnlimitedCount) return kUnlimitedCount;
  return total / slice.count + (slice.index < total % slice.count ? 1 : 0);
}

// start + offset, or kNoMoreRequests when the offset is beyond the uint64 range.
uint64_t at_offset(uint64_t start_ns, long double offset_ns) {
  const long double limit = static_cast<long double>(kNoMoreRequests - start_ns);
  if (!(offset_ns < limit)) return kNoMoreRequests;
  return start_ns + static_cast<uint64_t>(std::llroundl(offset_ns));
}

}  // namespace

RateSchedule::RateSchedule(double rate_per_sec, uint64_t start_ns,
                           const RateScheduleOptions& options, std::mt19937_64 rng)
    : rate_per_sec_(rate_per_sec),
      start_ns_(start_ns),
      arrival_(options.arrival),
      slice_(options.slice),
      limit_(share_of(options.total_count, options.slice)),
      rng_(std::move(rng)) {
  plan_next();
}

RateSchedule::RateSchedule(StageCurve rate_curve, uint64_t start_ns,
                           const RateScheduleOptions& options, std::mt19937_64 rng)
    : curve_(std::move(rate_curve)),
      start_ns_(start_ns),
      arrival_(options.arrival),
      slice_(options.slice),
      limit_(share_of(options.total_count, options.slice)),
      rng_(std::move(rng)) {
  plan_next();
}

void RateSchedule::advance() {
  if (next_ns_ == kNoMoreRequests) return;
  ++consumed_;
  plan_next();
}

// Unit exponential by inversion: u uniform in (0, 1] from the top 53 bits (never 0, so log is
// finite). Written out rather than std::exponential_distribution, whose algorithm is not fixed by
// the standard: the same seed gives the same plan with any standard library.
double RateSchedule::exp1() {
  const double u = static_cast<double>((rng_() >> 11) + 1) * 0x1p-53;
  return -std::log(u);
}

void RateSchedule::plan_next() {
  if (consumed_ >= limit_) {
    next_ns_ = kNoMoreRequests;
    return;
  }
  // This request is the global plan's k-th.
  const uint64_t k = slice_.index + consumed_ * slice_.count;
  double cumulative = 0;  // the count of the full (all-slice) plan at which this request goes
  if (arrival_ == Arrival::kFixed) {
    cumulative = static_cast<double>(k);
  } else {
    // The global k-th arrival is where C reaches E_1 + ... + E_(k+1): draw the other slices'
    // arrivals too, in order, so that every slice sums the very same doubles.
    while (poisson_drawn_ <= k) {
      poisson_sum_ += exp1();
      ++poisson_drawn_;
    }
    cumulative = poisson_sum_;
  }
  if (!curve_) {
    if (!(rate_per_sec_ > 0)) {
      next_ns_ = kNoMoreRequests;
      return;
    }
    // t_k = k / R from k itself, never start + sum of intervals: no drift over millions of
    // requests. For fixed arrivals k is an integer; long double (64-bit mantissa on x86-64) keeps
    // k * 1e9 exact up to k ~ 1.8e10 so the only rounding is the final one to whole ns.
    const long double at = arrival_ == Arrival::kFixed ? static_cast<long double>(k)
                                                       : static_cast<long double>(cumulative);
    next_ns_ = at_offset(start_ns_, at * static_cast<long double>(kNsPerSec) /
                                        static_cast<long double>(rate_per_sec_));
    return;
  }
  const std::optional<double> crossing = curve_->crossing_ns(cumulative);
  if (!crossing) {
    next_ns_ = kNoMoreRequests;
    return;
  }
  const auto offset_ns = static_cast<uint64_t>(std::llround(*crossing));
  // Half-open plan [start, start + duration): a crossing rounded onto the end is past it.
  next_ns_ = offset_ns < curve_->total_duration_ns() ? start_ns_ + offset_ns : kNoMoreRequests;
}

ConnectionTargetSchedule::ConnectionTargetSchedule(StageCurve curve, uint64_t start_ns)
    : curve_(std::move(curve)), start_ns_(start_ns) {}

uint64_t ConnectionTargetSchedule::target_at_elapsed(uint64_t elapsed_ns) const {
  const double value = curve_.value_at(elapsed_ns);
  // The slack is relative and far above the value's rounding error (~1e-16 relative) yet shifts a
  // change by under 1 ns for any slope above one connection per 1000 s.
  return value > 0 ? static_cast<uint64_t>(std::floor(value + 1e-12 * std::max(1.0, value))) : 0;
}

uint64_t ConnectionTargetSchedule::target_at(uint64_t now_ns) const {
  return target_at_elapsed(now_ns < start_ns_ ? 0 : now_ns - start_ns_);
}

uint64_t ConnectionTargetSchedule::next_change_ns(uint64_t now_ns) const {
  const uint64_t elapsed_ns = now_ns < start_ns_ ? 0 : now_ns - start_ns_;
  const uint64_t current = target_at_elapsed(elapsed_ns);
  const uint64_t total_ns = curve_.total_duration_ns();
  // Walk the stages from just after now. Within one stage the value is linear, hence monotone,
  // and so is its floor: "differs from current" flips at most once there, and a binary search
  // over whole ns finds the flip exactly as target_at will see it (no float disagreement between
  // the timer and the check). Jumps happen only at stage starts, which are tested directly.
  uint64_t lo = elapsed_ns + 1;
  while (true) {
    if (target_at_elapsed(lo) != current) return start_ns_ + lo;
    if (lo >= total_ns) return kNoMoreRequests;  // constant from the end on
    const size_t i = curve_.stage_index_at(lo);
    const uint64_t stage_end = curve_.stage_start_ns(i) + curve_.stages()[i].duration_ns;
    if (target_at_elapsed(stage_end - 1) != current) {
      uint64_t same = lo;                // target == current here
      uint64_t differs = stage_end - 1;  // target != current here
      while (differs - same > 1) {
        const uint64_t mid = same + (differs - same) / 2;
        if (target_at_elapsed(mid) != current) {
          differs = mid;
        } else {
          same = mid;
        }
      }
      return start_ns_ + differs;
    }
    lo = stage_end;
  }
}

}  // namespace hail
