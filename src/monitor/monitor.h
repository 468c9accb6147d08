// Monitor: one --monitor source (a process or processes, the host, a Prometheus endpoint) sampled
// once per window into a MonitorSeries. Owned and called by one thread, the runner's supervising
// thread (through cli/monitor_sampler.h), never by a worker. Times are ns since the load's start,
// given by the caller, so the sampling math runs on any clock a test likes.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/result.h"
#include "stats/monitor_series.h"

namespace hail {

class Monitor {
 public:
  virtual ~Monitor() = default;
  // Whether the source can be watched now: before the run, so that a typo refuses to start.
  virtual Status check() = 0;
  // The load starts: the baseline of the first window; the series starts afresh.
  virtual void begin(uint64_t at_ns) = 0;
  // A window ends at at_ns: one row (counters as rates over [previous sample, at_ns)).
  virtual void sample(uint64_t at_ns, bool warmup) = 0;

  const MonitorSeries& series() const { return series_; }

 protected:
  // A row of kNoValue, from the previous sample to at_ns, for the subclass to fill.
  MonitorWindow& add_row(uint64_t at_ns, bool warmup) {
    MonitorWindow w;
    w.start_ns = last_ns_;
    w.end_ns = at_ns;
    w.warmup = warmup;
    w.values.assign(series_.metrics.size(), kNoValue);
    last_ns_ = at_ns;
    series_.windows.push_back(std::move(w));
    return series_.windows.back();
  }
  void event(uint64_t at_ns, std::string text) {
    series_.events.push_back({at_ns, std::move(text)});
  }
  void restart_series(uint64_t at_ns) {
    series_.windows.clear();
    series_.events.clear();
    last_ns_ = at_ns;
  }

  MonitorSeries series_;
  uint64_t last_ns_ = 0;
};

// How monitors read the machine: the real /proc, or recorded files in tests.
struct ProcFs {
  // A whole file by path ("/proc/stat", "/proc/123/status"); nullopt when it cannot be read.
  std::function<std::optional<std::string>(const std::string&)> read;
  // Every pid under /proc.
  std::function<std::vector<int64_t>()> pids;
  // The open descriptors of pid (entries of /proc/PID/fd); nullopt when not readable.
  std::function<std::optional<uint64_t>(int64_t)> count_fds;
  uint64_t ticks_per_s = 100;  // sysconf(_SC_CLK_TCK)
  uint32_t cpus = 1;           // online CPUs: "% of the machine" is of all of them
};

ProcFs real_proc_fs();

}  // namespace hail
