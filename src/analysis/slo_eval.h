// SLO evaluation: verdicts of parsed thresholds (slo_expr.h) over a finished RunResult, over
// windows fed one at a time while a run goes on (for --slo-abort), and per stage / ladder step.
// Owner: analysis. Pure (no I/O, no clock): an SloEvaluator is used by one thread at a time; the
// free functions from any thread.
#pragma once

// Rules (slo_expr.h has the grammar and the meaning of each metric):
// - Whole-run thresholds take their value from the run's totals (RunResult's histograms and
//   counters), or a step's window. Windowed ones (`over`, `for`) from the time series' measured
//   windows; their value is the worst span's (the highest for < and <=, the lowest for > and >=,
//   for == and != the first failing one, else the last).
// - first_breach_s: seconds from the measured phase's start to the end of the window at which
//   the threshold was first known breached: for windowed ones the window that ended the first
//   failing span (with `for`: completed the sustained stretch); for a failing whole-run one, the
//   first window at which the value over the windows so far (cumulative) failed, or the end of
//   the last window if that never happened (the totals count a little more than the windows: in
//   flight requests). Unknown (nullopt) for a passing threshold, and for ttfb, connect, tls and
//   per-tag thresholds, which have no windows.
// - Early abort (can_still_pass() false, abort()): a threshold whose failure is already final:
//     * any windowed threshold once breached (a breach is never undone);
//     * whole-run thresholds on a quantity that only moves one way as windows arrive:
//       max with < <= == (max only grows), min with > >= == (min only falls), and the counts
//       (requests, errors, timeouts, ...) with < <= == (counts only grow);
//   never: percentiles, med, avg, error_rate and rps over the whole run (more requests can still
//   bring them back), != , and thresholds without window data (ttfb, connect, tls, per-tag).

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "analysis/histogram_span.h"
#include "analysis/slo_expr.h"
#include "stats/run_result.h"
#include "stats/time_series.h"

namespace hail {

struct SloCheck {
  std::string expr;    // SloThreshold::text
  std::string metric;  // SloThreshold::metric_label()
  bool ok = false;
  // Measured, in the threshold's unit (ns, fraction, req/s, count); nullopt: no samples.
  std::optional<double> value;
  std::optional<double> first_breach_s;  // see above; only when !ok
  // false: this threshold has no data in the scope (per step: ttfb, connect, tls, per-tag); such a
  // check is ok and does not count towards the verdict.
  bool applicable = true;
  std::string detail;  // plain language: why missing, where the worst span was; "" when nothing
};

struct SloReport {
  bool ok = true;                // every applicable check passed
  std::vector<SloCheck> checks;  // one per threshold, in the order given
};

// A threshold that can no longer pass, found while windows arrive.
struct SloAbort {
  size_t threshold = 0;  // index into the thresholds
  double at_s = 0;       // since the measured phase's start
  std::string reason;    // `"max<1s": max reached 2.00s at 5.0 s`
};

// The counts a scalar threshold reads, summed over a span of windows, a run or a tag. Only
// error_rate's denominator differs by source: attempted requests (plus connect errors and
// unsolicited responses) for a run, outcomes (completed + errors) for windows and tags, which
// count no attempts. Internal to the evaluation; public for tests.
struct SloCounts {
  uint64_t completed = 0;
  uint64_t status_errors = 0;
  std::array<uint64_t, kErrorClassCount> errors{};
  uint64_t error_rate_base = 0;  // error_rate's denominator
  uint64_t duration_ns = 0;

  static SloCounts of_window(const WindowStats& window);
  static SloCounts of_run(const RunResult& run);
  static SloCounts of_tag(const TagResult& tag, uint64_t duration_ns);
  void add(const SloCounts& other);
  void subtract(const SloCounts& other);
};

// A scalar threshold's value (error_rate, rps, requests, errors) over these counts; nullopt when
// the counts give it no value (no outcomes for error_rate). For charts of the scalar per window.
std::optional<double> slo_scalar_value(const SloThreshold& threshold, const SloCounts& counts);

class SloEvaluator {
 public:
  // measure_start_ns: where the measured phase starts on the windows' clock (their start_ns);
  // by default the start of the first measured window fed.
  explicit SloEvaluator(std::vector<SloThreshold> thresholds,
                        std::optional<uint64_t> measure_start_ns = std::nullopt);

  // Feeds the next window of the time series, in order. Warm-up windows are ignored.
  void add_window(const WindowStats& window);

  // Whether threshold i could still pass, from the windows fed so far (see the rules above).
  bool can_still_pass(size_t i) const;
  // The threshold that became certain to fail first (earliest, then lowest index), if any.
  std::optional<SloAbort> abort() const;

  // Verdicts: whole-run thresholds from the run's totals, windowed ones from the windows fed.
  SloReport finish(const RunResult& run) const;
  // The same with one window (a stage / ladder step) as the totals. ttfb, connect, tls and per-tag
  // thresholds are not applicable to a window, nor are windowed ones when no window was fed (no
  // interval lies wholly inside the step: the step is finer than the time series).
  SloReport finish(const WindowStats& totals) const;

  const std::vector<SloThreshold>& thresholds() const { return thresholds_; }

 private:
  struct State {
    // Windowed thresholds: the current span.
    struct SpanWindow {
      uint64_t start_ns = 0;
      uint64_t end_ns = 0;
      SloCounts counts;
    };
    std::deque<SpanWindow> span;
    HistogramSpan histogram;  // distributions only
    SloCounts span_counts;
    bool evaluated = false;  // a span reached W
    bool sampled = false;    // some evaluated span had samples
    std::optional<double> worst;
    std::optional<double> worst_end_s;
    bool fail_seen = false;   // ==, !=: a failing span was recorded as the worst
    uint64_t stretch_ns = 0;  // `for`: how long the current violation has lasted
    uint64_t longest_stretch_ns = 0;
    std::optional<double> breach_s;  // windowed: the first breach
    // Whole-run thresholds with window data: the windows so far, for first_breach_s and the
    // early abort.
    std::optional<Histogram> cumulative;
    SloCounts cumulative_counts;
    std::optional<double> cumulative_breach_s;
    std::optional<double> cumulative_value_at_breach;
    bool doomed = false;
    double doomed_s = 0;
    std::string doomed_reason;
  };

  void add_windowed(size_t i, const WindowStats& window);
  void add_cumulative(size_t i, const WindowStats& window);
  void evaluate_span(size_t i, State& s, double end_s, uint64_t last_window_ns);
  double seconds(uint64_t ns) const;
  SloCheck windowed_check(size_t i) const;
  SloCheck whole_run_check(size_t i, std::optional<double> value, std::string detail) const;

  std::vector<SloThreshold> thresholds_;
  std::vector<State> states_;
  std::optional<uint64_t> measure_start_ns_;
  bool any_window_ = false;
  uint64_t last_end_ns_ = 0;
};

// Feeds every measured window of run.intervals to an SloEvaluator and finishes it with the run.
SloReport evaluate_slos(const std::vector<SloThreshold>& thresholds, const RunResult& run);

// Stages and ladders: each step of run.steps judged against every threshold (whole-run thresholds
// on the step's window; windowed ones on the intervals lying wholly inside the step, so steps whose
// boundaries fall inside an interval lose that interval, and a step holding no whole interval does
// not judge them: not applicable there, they are still judged over the whole run).
struct SloStepVerdict {
  size_t step = 0;  // index into run.steps
  bool ok = true;
  SloReport report;
};
struct SloStepsReport {
  std::vector<SloStepVerdict> steps;
  // The passing step with the highest target (max of target_start, target_end; the earliest among
  // equals): the highest load that met every threshold. nullopt when no step passed.
  std::optional<size_t> highest_passing;
  std::optional<size_t> first_failing;  // the first step, in time, that failed a threshold
};
SloStepsReport evaluate_slo_steps(const std::vector<SloThreshold>& thresholds,
                                  const RunResult& run);

}  // namespace hail
