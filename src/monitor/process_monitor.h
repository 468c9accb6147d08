// ProcessMonitor: --monitor pid:N (one process) and name:NAME (every process of that name, summed:
// nginx's master and workers) from /proc/PID/{stat,status,fd}. A process is known by its pid and
// start time, so a pid reused by another process is not mistaken for it. Supervising thread only.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "monitor/monitor.h"
#include "monitor/monitor_spec.h"

namespace hail {

// The columns, in this order: CPU as % of one core (user + system) and of the machine, user and
// system % of one core, RSS, threads, open descriptors, context switches per second, and how many
// processes were summed.
inline constexpr const char* kProcessMetrics[] = {"cpu_core_pct",
                                                  "cpu_machine_pct",
                                                  "cpu_user_pct",
                                                  "cpu_system_pct",
                                                  "rss_bytes",
                                                  "threads",
                                                  "fds",
                                                  "voluntary_switches_per_s",
                                                  "involuntary_switches_per_s",
                                                  "processes"};

class ProcessMonitor : public Monitor {
 public:
  ProcessMonitor(MonitorSpec spec, ProcFs fs);
  Status check() override;
  void begin(uint64_t at_ns) override;
  void sample(uint64_t at_ns, bool warmup) override;

 private:
  struct Seen {
    uint64_t cpu_user_ticks = 0;
    uint64_t cpu_system_ticks = 0;
    uint64_t voluntary = 0;
    uint64_t involuntary = 0;
  };
  struct Reading {
    Seen counters;
    uint64_t rss_bytes = 0;
    int64_t threads = 0;
    std::optional<uint64_t> fds;
  };
  using Key = std::pair<int64_t, uint64_t>;  // pid, start ticks

  // The processes the spec names now, read.
  std::map<Key, Reading> read_matching() const;

  MonitorSpec spec_;
  ProcFs fs_;
  uint64_t start_ticks_ = 0;  // pid:N: the process the run began with
  bool started_ = false;
  std::map<Key, Seen> previous_;
  bool present_ = false;
};

}  // namespace hail
