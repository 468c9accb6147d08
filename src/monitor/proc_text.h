// Parsers of the /proc files a monitor samples once per window: a process's stat and status, the
// machine's CPU times, memory, load, network counters, TCP retransmits and sockets in TIME_WAIT.
// They read text only (tests feed recorded files; the sampler reads the files), so they are pure;
// any thread. Formats: proc(5). A file that does not parse gives nullopt, never a made-up zero.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hail {

// /proc/PID/stat: the fields a monitor needs. Times in clock ticks (sysconf(_SC_CLK_TCK)).
struct ProcPidStat {
  int64_t pid = 0;
  std::string comm;  // without the parentheses; may hold spaces and ')'
  char state = '?';
  uint64_t utime_ticks = 0;
  uint64_t stime_ticks = 0;
  int64_t threads = 0;
  uint64_t start_ticks = 0;  // since boot: a restarted process under the same pid differs here
  int64_t rss_pages = 0;
};
std::optional<ProcPidStat> parse_proc_pid_stat(std::string_view text);

// /proc/PID/status: what stat lacks.
struct ProcPidStatus {
  uint64_t rss_bytes = 0;  // VmRSS (absent for kernel threads and zombies: 0)
  uint64_t voluntary_switches = 0;
  uint64_t involuntary_switches = 0;
};
std::optional<ProcPidStatus> parse_proc_pid_status(std::string_view text);

// /proc/stat's first line: the whole machine's CPU time by mode, in clock ticks.
enum class CpuMode { kUser, kNice, kSystem, kIdle, kIowait, kIrq, kSoftirq, kSteal, kCount };
using CpuTicks = std::array<uint64_t, static_cast<size_t>(CpuMode::kCount)>;
struct ProcStat {
  CpuTicks cpu{};
  uint32_t cpus = 0;  // the number of "cpuN" lines
};
std::optional<ProcStat> parse_proc_stat(std::string_view text);

// /proc/meminfo (kB in the file, bytes here).
struct MemInfo {
  uint64_t total_bytes = 0;
  uint64_t available_bytes = 0;
};
std::optional<MemInfo> parse_meminfo(std::string_view text);

// /proc/loadavg: the 1, 5 and 15 minute load averages.
std::optional<std::array<double, 3>> parse_loadavg(std::string_view text);

// /proc/net/dev summed over every interface but loopback (traffic to 127.0.0.1 is the test itself).
struct NetCounters {
  uint64_t rx_bytes = 0;
  uint64_t rx_packets = 0;
  uint64_t tx_bytes = 0;
  uint64_t tx_packets = 0;
};
std::optional<NetCounters> parse_net_dev(std::string_view text, bool include_loopback = false);

// /proc/net/snmp: Tcp RetransSegs (the header line names the columns).
std::optional<uint64_t> parse_tcp_retransmits(std::string_view text);

// /proc/net/tcp or tcp6: sockets in TIME_WAIT (state 06).
std::optional<uint64_t> count_time_wait(std::string_view text);

// /proc/net/sockstat's "TCP: ... tw N": the namespace's TIME_WAIT sockets, IPv4 and IPv6. Reading
// it costs microseconds, where /proc/net/tcp walks the whole connection hash table (~5 ms on a
// 24 GiB machine even when nearly empty): the host monitor reads this one.
std::optional<uint64_t> parse_sockstat_time_wait(std::string_view text);

}  // namespace hail
