// Stage lists (--stages, --ladder, --repeat) and StageCurve, the piecewise-linear target they
// describe: connections in closed-loop mode, requests/s in rate mode. Owned by the CLI/runner
// setup; pure values (no clock, no I/O), read-only after construction: any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace hail {

// One stage, k6 style. A ramp stage (hold == false) moves linearly from the previous stage's target
// (or the curve's `initial` for the first stage) to `target` over `duration_ns`. A hold stage jumps
// to `target` at its start and keeps it for the whole duration: ladders are built from these. A
// zero-length ramp stage is an instant jump for the next ramp, as in k6 ("0s:100,10s:100").
struct Stage {
  uint64_t duration_ns = 0;
  double target = 0;
  bool hold = false;
};

// At most this many ladder levels: a 10,000-step ladder is already far past any useful test.
inline constexpr size_t kMaxLadderSteps = 10'000;

// "10s:50,30s:200,10s:0": comma-separated DURATION:TARGET ramp stages. Durations via
// parse_duration_ns, targets non-negative decimals ("12.5", "2.5k", "1M"). Errors name the bad
// item: invalid --stages item "10x:5": ...
Result<std::vector<Stage>> parse_stages(std::string_view text);

struct LadderSpec {
  double start = 0;
  double step = 0;
  double end = 0;
};

// "START:STEP:END", e.g. "100:100:1000". step > 0, end >= start, at most kMaxLadderSteps levels.
Result<LadderSpec> parse_ladder(std::string_view text);

// Hold stages at start, start+step, ... up to the last level <= end (a level within 1e-9 steps of
// end counts as reaching it, so "0:0.1:1" has 11 levels), each held for step_duration_ns (> 0).
// One stage per level, so a ladder's step index is StageCurve::stage_index_at.
Result<std::vector<Stage>> ladder_stages(double start, double step, double end,
                                         uint64_t step_duration_ns);
Result<std::vector<Stage>> ladder_stages(const LadderSpec& spec, uint64_t step_duration_ns);

// The list n times over (bursts). A repeated first ramp stage starts from the previous
// repetition's last target, exactly as if the list had been written out n times. n >= 1.
Result<std::vector<Stage>> repeat_stages(const std::vector<Stage>& stages, uint64_t n);

// The target as a function of the time elapsed since the curve's start. Right-continuous: at a
// stage boundary the value is the new stage's (a hold's target; a ramp's starting value).
// Time is relative (elapsed_ns); callers subtract their start time.
class StageCurve {
 public:
  // `initial` is where the first ramp starts: 0 by default (k6: startRate / startVUs default 0).
  explicit StageCurve(std::vector<Stage> stages, double initial = 0);

  const std::vector<Stage>& stages() const { return stages_; }
  uint64_t total_duration_ns() const { return total_duration_ns_; }

  // Past the end: the last stage's target (or `initial` when there are no stages).
  double value_at(uint64_t elapsed_ns) const;
  // Index of the stage holding elapsed_ns; stages().size() at or past the end. Zero-length stages
  // are never returned. For a ladder this is the step index.
  size_t stage_index_at(uint64_t elapsed_ns) const;
  // Integral of the value over [0, elapsed_ns], with value in units per second: for a rate curve,
  // the number of requests the curve asks for by then. Constant past the end (the plan is over).
  double integral_at(uint64_t elapsed_ns) const;
  // The instant (elapsed ns, fractional) at which the integral starts exceeding `count`: the end
  // of any zero-value stretch at that level, not its start. nullopt if it never does before the
  // end of the curve. Exact (the quadratic of a linear ramp is solved in closed form).
  std::optional<double> crossing_ns(double count) const;

  // Value at the start of stage i (ramp: the previous target; hold: its own target).
  double stage_start_value(size_t i) const { return from_[i]; }
  uint64_t stage_start_ns(size_t i) const { return start_ns_[i]; }

 private:
  std::vector<Stage> stages_;
  double initial_;
  uint64_t total_duration_ns_ = 0;
  std::vector<uint64_t> start_ns_;       // per stage: elapsed ns at its start
  std::vector<double> from_;             // per stage: value at its start
  std::vector<double> integral_before_;  // per stage: integral up to its start
  std::vector<double> integral_end_;     // per stage: integral up to its end
};

}  // namespace hail
