// HostMonitor: --monitor host, this machine from /proc: CPU by mode (% of the machine), load,
// memory, network bytes and packets per second (every interface but loopback), TCP retransmits
// per second and sockets in TIME_WAIT (/proc/net/sockstat). Supervising thread only.
#pragma once

#include <optional>

#include "monitor/monitor.h"
#include "monitor/proc_text.h"

namespace hail {

inline constexpr const char* kHostMetrics[] = {"cpu_user_pct",
                                               "cpu_nice_pct",
                                               "cpu_system_pct",
                                               "cpu_idle_pct",
                                               "cpu_iowait_pct",
                                               "cpu_irq_pct",
                                               "cpu_softirq_pct",
                                               "cpu_steal_pct",
                                               "load1",
                                               "mem_total_bytes",
                                               "mem_available_bytes",
                                               "net_rx_bytes_per_s",
                                               "net_tx_bytes_per_s",
                                               "net_rx_packets_per_s",
                                               "net_tx_packets_per_s",
                                               "tcp_retransmits_per_s",
                                               "time_wait"};

class HostMonitor : public Monitor {
 public:
  explicit HostMonitor(ProcFs fs);
  Status check() override;
  void begin(uint64_t at_ns) override;
  void sample(uint64_t at_ns, bool warmup) override;

 private:
  struct Counters {
    std::optional<ProcStat> cpu;
    std::optional<NetCounters> net;
    std::optional<uint64_t> retransmits;
  };
  Counters read_counters() const;

  ProcFs fs_;
  Counters previous_;
};

}  // namespace hail
