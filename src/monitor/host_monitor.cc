#include "monitor/host_monitor.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

namespace hail {

namespace {
enum Column : size_t {
  kCpuFirst = 0,  // the 8 CPU modes, in CpuMode order
  kLoad1 = 8,
  kMemTotal,
  kMemAvailable,
  kRxBytes,
  kTxBytes,
  kRxPackets,
  kTxPackets,
  kRetransmits,
  kTimeWait
};
}  // namespace

HostMonitor::HostMonitor(ProcFs fs) : fs_(std::move(fs)) {
  series_.source = "host";
  series_.kind = "host";
  series_.metrics.assign(std::begin(kHostMetrics), std::end(kHostMetrics));
}

HostMonitor::Counters HostMonitor::read_counters() const {
  Counters c;
  if (auto t = fs_.read("/proc/stat")) c.cpu = parse_proc_stat(*t);
  if (auto t = fs_.read("/proc/net/dev")) c.net = parse_net_dev(*t);
  if (auto t = fs_.read("/proc/net/snmp")) c.retransmits = parse_tcp_retransmits(*t);
  return c;
}

Status HostMonitor::check() {
  if (!read_counters().cpu) return make_error("--monitor \"host\": cannot read /proc/stat");
  return ok_status();
}

void HostMonitor::begin(uint64_t at_ns) {
  restart_series(at_ns);
  previous_ = read_counters();
}

void HostMonitor::sample(uint64_t at_ns, bool warmup) {
  const double seconds = static_cast<double>(at_ns - last_ns_) / 1e9;
  MonitorWindow& row = add_row(at_ns, warmup);
  Counters now = read_counters();
  if (now.cpu && previous_.cpu) {
    uint64_t total = 0;
    CpuTicks delta{};
    for (size_t m = 0; m < delta.size(); ++m) {
      delta[m] =
          now.cpu->cpu[m] >= previous_.cpu->cpu[m] ? now.cpu->cpu[m] - previous_.cpu->cpu[m] : 0;
      total += delta[m];
    }
    for (size_t m = 0; m < delta.size() && total > 0; ++m) {
      row.values[kCpuFirst + m] =
          100.0 * static_cast<double>(delta[m]) / static_cast<double>(total);
    }
  }
  if (auto t = fs_.read("/proc/loadavg")) {
    if (auto load = parse_loadavg(*t)) row.values[kLoad1] = (*load)[0];
  }
  if (auto t = fs_.read("/proc/meminfo")) {
    if (auto mem = parse_meminfo(*t)) {
      row.values[kMemTotal] = static_cast<double>(mem->total_bytes);
      row.values[kMemAvailable] = static_cast<double>(mem->available_bytes);
    }
  }
  auto rate = [seconds](uint64_t a, uint64_t b) {
    return a >= b && seconds > 0 ? static_cast<double>(a - b) / seconds : kNoValue;
  };
  if (now.net && previous_.net) {
    row.values[kRxBytes] = rate(now.net->rx_bytes, previous_.net->rx_bytes);
    row.values[kTxBytes] = rate(now.net->tx_bytes, previous_.net->tx_bytes);
    row.values[kRxPackets] = rate(now.net->rx_packets, previous_.net->rx_packets);
    row.values[kTxPackets] = rate(now.net->tx_packets, previous_.net->tx_packets);
  }
  if (now.retransmits && previous_.retransmits) {
    row.values[kRetransmits] = rate(*now.retransmits, *previous_.retransmits);
  }
  if (auto t = fs_.read("/proc/net/sockstat")) {
    if (auto n = parse_sockstat_time_wait(*t)) row.values[kTimeWait] = static_cast<double>(*n);
  }
  previous_ = std::move(now);
}

// The real /proc. Files there report a size of 0, so they are read to their end.
ProcFs real_proc_fs() {
  ProcFs fs;
  fs.read = [](const std::string& path) -> std::optional<std::string> {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return std::nullopt;
    return text.str();
  };
  fs.pids = [] {
    std::vector<int64_t> out;
    DIR* d = opendir("/proc");
    if (d == nullptr) return out;
    while (dirent* e = readdir(d)) {
      char* end = nullptr;
      const long long pid = std::strtoll(e->d_name, &end, 10);
      if (end != e->d_name && *end == '\0') out.push_back(pid);
    }
    closedir(d);
    return out;
  };
  fs.count_fds = [](int64_t pid) -> std::optional<uint64_t> {
    DIR* d = opendir(("/proc/" + std::to_string(pid) + "/fd").c_str());
    if (d == nullptr) return std::nullopt;
    uint64_t n = 0;
    while (dirent* e = readdir(d)) n += e->d_name[0] != '.';
    closedir(d);
    return n;
  };
  const long ticks = sysconf(_SC_CLK_TCK);
  fs.ticks_per_s = ticks > 0 ? static_cast<uint64_t>(ticks) : 100;
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  fs.cpus = cpus > 0 ? static_cast<uint32_t>(cpus) : 1;
  return fs;
}

}  // namespace hail
