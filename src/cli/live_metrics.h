// LiveMetrics: what --metrics-listen shows, gathered from a LiveRun as the supervisor polls it
// (progress() and the merged --interval windows; nothing is read from the workers' hot path) into
// a MetricsSnapshot. Owner: run_command's supervising loop. Main thread only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "load/live_run.h"
#include "load/run_options.h"
#include "load/stage_spec.h"
#include "report/openmetrics.h"
#include "stats/histogram.h"

namespace hail {

class LiveMetrics {
 public:
  explicit LiveMetrics(const RunOptions& options);

  // Takes in the windows every worker has closed since the last call (a window counts once all
  // workers' shares are merged, so counters lag the load by up to one --interval) and the gauges.
  void update(const LiveRun& live);
  // The run ended: the windows left (the result's whole series), hail_up 0, nothing in flight.
  void finish(const RunResult& result);

  MetricsSnapshot snapshot() const;

 private:
  void absorb(const WindowStats& w);

  MetricsSnapshot state_;
  Histogram latency_;  // every absorbed window's latency (rate mode: corrected), warm-up included
  std::map<std::string, uint64_t> tags_;
  size_t absorbed_ = 0;  // windows taken in, in order
  bool rate_mode_ = false;
  double rate_per_s_ = 0;  // the whole test's -R
  uint32_t shards_ = 1;
  std::optional<StageCurve> curve_;  // rate mode with --stages: the plan's curve
};

// This process' CPU time (user + system) in seconds, from getrusage.
double process_cpu_seconds();

}  // namespace hail
