// WindowSampler: what the runner's supervising thread samples once per --interval window besides
// the workers' measurements (--monitor: /proc, Prometheus endpoints). The front-end puts one in
// RunOptions; LiveRun calls it from poll() on the main thread only, never from a worker, so that
// sampling stays off the request path. Implementations live above load (cli/monitor_sampler.h).
#pragma once

#include <cstdint>
#include <vector>

#include "stats/monitor_series.h"

namespace hail {

class WindowSampler {
 public:
  virtual ~WindowSampler() = default;
  // The load starts (at_ns 0, since the load's start): the baseline of the first window. A sampler
  // may be used for several runs (hail search): begin() starts afresh.
  virtual void begin() = 0;
  // A window ends at at_ns (since the load's start); `warmup`: the window that ends was warm-up.
  virtual void sample(uint64_t at_ns, bool warmup) = 0;
  // The series so far (hail search judges each probe's share while the run goes on).
  virtual std::vector<MonitorSeries> snapshot() const = 0;
  // The run ended at at_ns: the last window is sampled (unless `sample_last` is false: a stub of
  // a few ms after the last boundary, whose CPU ticks would read as 0%), the series handed over.
  virtual std::vector<MonitorSeries> finish(uint64_t at_ns, bool warmup, bool sample_last) = 0;
};

}  // namespace hail
