// Runner: turns RunOptions into a finished RunResult, in five steps — plan (resolve targets, split
// the load over workers: run_plan.h), start (one Worker thread per -t), supervise (the front-end's
// tick a few times a second, SIGINT, script failures), merge (the workers' measurements into one
// result) and annotate (notes from the merged data: run_notes.h); live_run.h holds a run between
// its start and its end for callers that steer it (hail search). Called from the main thread; it
// never prints.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/result.h"
#include "load/run_options.h"
#include "load/run_plan.h"
#include "stats/run_result.h"
#include "stats/time_series.h"

namespace hail {

struct RunProgress {
  uint64_t elapsed_ns = 0;  // since the load started (warm-up included)
  uint64_t warmup_ns = 0;
  uint64_t completed = 0;  // measured phase only
  uint64_t errors = 0;
  uint64_t in_flight = 0;  // requests sent and not yet answered or failed (every worker)
};

// Called about every 50 ms from the main thread while the run goes on; returning true stops the run
// early (the front-end's way to pass SIGINT/SIGTERM on). The result is then marked interrupted.
using TickFn = std::function<bool(const RunProgress&)>;

class ScriptRun;
class Worker;

// Errors are environmental (unresolvable host, resource limits) or the script's (it does not load,
// or a hook failed before the run): exit status 1 in the front-ends. With a script, *script_out
// receives its states so that the front-end can call done() after printing its report.
Result<RunResult> run_load(const RunOptions& options, const TickFn& tick,
                           std::unique_ptr<ScriptRun>* script_out = nullptr);

// The workers' windows merged by index as they close (the supervise step hands them over every
// tick), so that a day-long run keeps one encoded row per window, not one per window and worker.
// Main thread only.
class WindowMerger {
 public:
  explicit WindowMerger(uint64_t load_start_ns) : load_start_ns_(load_start_ns) {}
  // Takes what each worker closed since the last call (thread-safe on the workers' side).
  void absorb(const std::vector<std::unique_ptr<Worker>>& workers);
  std::vector<WindowStats> take_intervals() { return std::move(intervals_); }
  std::vector<WindowStats> take_steps() { return std::move(steps_); }
  // The time series merged so far: a window is whole once every worker's has come
  // (WindowStats::sources == the number of workers).
  const std::vector<WindowStats>& intervals() const { return intervals_; }

 private:
  void add(std::vector<WindowStats>& rows, const std::vector<WindowSeries::Window>& closed) const;

  uint64_t load_start_ns_;
  std::vector<WindowStats> intervals_;
  std::vector<WindowStats> steps_;
};

// The start step: one worker per share of the plan, each initialised (loop, TLS, connections,
// pacer); the script's thread states go to their workers.
Result<std::vector<std::unique_ptr<Worker>>> make_workers(const RunPlan& plan, ScriptRun* script);

// The merge step: the workers' measurements and summaries, after every one has stopped, as one
// result (what was asked for comes from the plan; windows are the merger's, given their targets).
// Notes are not made here (run_notes()).
RunResult merge_workers(const RunPlan& plan, const std::vector<std::unique_ptr<Worker>>& workers,
                        WindowMerger& windows);

}  // namespace hail
