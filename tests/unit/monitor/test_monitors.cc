// The monitors' sampling math on a fake /proc: CPU, RSS, descriptors and switches per window from
// recorded-style files, a process that vanishes mid-run (null samples and an "exited" event, never
// zeros), a pid reused by another process, name:NAME summing processes, the host's rates; and the
// --monitor syntax.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "monitor/host_monitor.h"
#include "monitor/monitor_spec.h"
#include "monitor/process_monitor.h"

namespace hail {
namespace {

struct FakeProc {
  std::map<std::string, std::string> files;
  std::map<int64_t, uint64_t> fds;

  void process(int64_t pid, const std::string& comm, uint64_t utime, uint64_t stime, uint64_t start,
               uint64_t rss_kb, uint64_t vol, uint64_t invol, uint64_t nfds) {
    const std::string p = "/proc/" + std::to_string(pid) + "/";
    files[p + "stat"] = std::to_string(pid) + " (" + comm + ") S 1 1 1 0 -1 0 0 0 0 0 " +
                        std::to_string(utime) + " " + std::to_string(stime) + " 0 0 20 0 3 0 " +
                        std::to_string(start) + " 1000 10 0\n";
    files[p + "status"] = "Name:\t" + comm + "\nVmRSS:\t" + std::to_string(rss_kb) +
                          " kB\nvoluntary_ctxt_switches:\t" + std::to_string(vol) +
                          "\nnonvoluntary_ctxt_switches:\t" + std::to_string(invol) + "\n";
    fds[pid] = nfds;
  }
  void vanish(int64_t pid) {
    files.erase("/proc/" + std::to_string(pid) + "/stat");
    files.erase("/proc/" + std::to_string(pid) + "/status");
    fds.erase(pid);
  }
  ProcFs fs() {
    ProcFs f;
    f.read = [this](const std::string& path) -> std::optional<std::string> {
      auto it = files.find(path);
      if (it == files.end()) return std::nullopt;
      return it->second;
    };
    f.pids = [this] {
      std::vector<int64_t> out;
      for (const auto& [pid, n] : fds) out.push_back(pid);
      return out;
    };
    f.count_fds = [this](int64_t pid) -> std::optional<uint64_t> {
      auto it = fds.find(pid);
      if (it == fds.end()) return std::nullopt;
      return it->second;
    };
    f.ticks_per_s = 100;
    f.cpus = 4;
    return f;
  }
};

constexpr uint64_t kSecond = 1'000'000'000;

MonitorSpec spec(const char* text) {
  return parse_monitor_spec(text).value();
}

double value(const MonitorSeries& s, size_t row, const char* metric) {
  return s.windows.at(row).values.at(static_cast<size_t>(s.metric_index(metric)));
}

TEST(MonitorSpec, Parses) {
  EXPECT_EQ(parse_monitor_spec("pid:42")->pid, 42);
  EXPECT_EQ(parse_monitor_spec("name:nginx")->kind, MonitorKind::kName);
  EXPECT_EQ(parse_monitor_spec("host")->kind, MonitorKind::kHost);
  EXPECT_EQ(parse_monitor_spec("prom:http://127.0.0.1:9100/metrics")->kind, MonitorKind::kProm);
  for (const char* bad :
       {"pid:", "pid:x", "pid:-1", "pid:0", "name:", "hots", "prom:ftp://x", "name:a/b", ""}) {
    auto r = parse_monitor_spec(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message.find("--monitor"), std::string::npos) << r.error().message;
  }
}

TEST(ProcessMonitor, CpuRssFdsPerWindow) {
  FakeProc proc;
  proc.process(10, "srv", 100, 50, 777, 2048, 10, 1, 7);
  ProcessMonitor m(spec("pid:10"), proc.fs());
  ASSERT_TRUE(m.check());
  m.begin(0);
  // 1 s later: +60 user ticks, +20 system ticks = 0.8 s of CPU in 1 s.
  proc.process(10, "srv", 160, 70, 777, 4096, 110, 21, 9);
  m.sample(kSecond, false);
  const MonitorSeries& s = m.series();
  ASSERT_EQ(s.windows.size(), 1u);
  EXPECT_DOUBLE_EQ(value(s, 0, "cpu_core_pct"), 80.0);
  EXPECT_DOUBLE_EQ(value(s, 0, "cpu_user_pct"), 60.0);
  EXPECT_DOUBLE_EQ(value(s, 0, "cpu_system_pct"), 20.0);
  EXPECT_DOUBLE_EQ(value(s, 0, "cpu_machine_pct"), 20.0);  // of 4 CPUs
  EXPECT_DOUBLE_EQ(value(s, 0, "rss_bytes"), 4096.0 * 1024);
  EXPECT_DOUBLE_EQ(value(s, 0, "fds"), 9);
  EXPECT_DOUBLE_EQ(value(s, 0, "threads"), 3);
  EXPECT_DOUBLE_EQ(value(s, 0, "voluntary_switches_per_s"), 100);
  EXPECT_DOUBLE_EQ(value(s, 0, "involuntary_switches_per_s"), 20);
  // A 250 ms window: rates per actual second.
  proc.process(10, "srv", 170, 70, 777, 4096, 110, 21, 9);
  m.sample(kSecond + kSecond / 4, false);
  EXPECT_DOUBLE_EQ(value(s, 1, "cpu_core_pct"), 40.0);
  EXPECT_EQ(s.windows[1].start_ns, kSecond);
}

TEST(ProcessMonitor, VanishedProcessIsNotZeros) {
  FakeProc proc;
  proc.process(10, "srv", 100, 50, 777, 2048, 10, 1, 7);
  ProcessMonitor m(spec("pid:10"), proc.fs());
  m.begin(0);
  m.sample(kSecond, false);
  proc.vanish(10);
  m.sample(2 * kSecond, false);
  // Another process takes the pid: not ours (its start time differs).
  proc.process(10, "other", 5, 5, 999, 100, 1, 1, 3);
  m.sample(3 * kSecond, false);
  const MonitorSeries& s = m.series();
  ASSERT_EQ(s.windows.size(), 3u);
  EXPECT_TRUE(has_value(value(s, 0, "rss_bytes")));
  for (size_t row : {1u, 2u}) {
    for (double v : s.windows[row].values) EXPECT_FALSE(has_value(v));
  }
  ASSERT_EQ(s.events.size(), 1u);
  EXPECT_EQ(s.events[0].at_ns, 2 * kSecond);
  EXPECT_NE(s.events[0].text.find("exited"), std::string::npos);
}

TEST(ProcessMonitor, UnknownPidAndNameRefuse) {
  FakeProc proc;
  proc.process(10, "srv", 1, 1, 1, 1, 1, 1, 1);
  auto pid = ProcessMonitor(spec("pid:11"), proc.fs()).check();
  ASSERT_FALSE(pid);
  EXPECT_EQ(pid.error().message, "--monitor \"pid:11\": no process with pid 11");
  auto name = ProcessMonitor(spec("name:nginx"), proc.fs()).check();
  ASSERT_FALSE(name);
  EXPECT_NE(name.error().message.find("no process named \"nginx\""), std::string::npos);
}

TEST(ProcessMonitor, NameSumsProcessesAndReportsRestarts) {
  FakeProc proc;
  proc.process(10, "nginx", 10, 0, 100, 1000, 0, 0, 5);   // master
  proc.process(11, "nginx", 10, 0, 101, 3000, 0, 0, 20);  // worker
  proc.process(12, "bash", 999, 0, 50, 9999, 0, 0, 3);
  ProcessMonitor m(spec("name:nginx"), proc.fs());
  m.begin(0);
  proc.process(11, "nginx", 60, 0, 101, 3000, 0, 0, 20);
  m.sample(kSecond, false);
  const MonitorSeries& s = m.series();
  EXPECT_DOUBLE_EQ(value(s, 0, "cpu_core_pct"), 50.0);
  EXPECT_DOUBLE_EQ(value(s, 0, "rss_bytes"), 4000.0 * 1024);
  EXPECT_DOUBLE_EQ(value(s, 0, "fds"), 25);
  EXPECT_DOUBLE_EQ(value(s, 0, "processes"), 2);
  // The worker is replaced by a new one (a new pid): counted from its start, both events said.
  proc.vanish(11);
  proc.process(13, "nginx", 30, 0, 205, 2000, 0, 0, 10);
  m.sample(2 * kSecond, false);
  EXPECT_DOUBLE_EQ(value(s, 1, "cpu_core_pct"), 30.0);
  EXPECT_DOUBLE_EQ(value(s, 1, "processes"), 2);
  ASSERT_EQ(s.events.size(), 2u);
  EXPECT_EQ(s.events[0].text, "process 11 exited");
  EXPECT_EQ(s.events[1].text, "process 13 started");
  // All gone, then back: "exited", null row, "restarted".
  proc.vanish(10);
  proc.vanish(13);
  m.sample(3 * kSecond, false);
  EXPECT_FALSE(has_value(value(s, 2, "rss_bytes")));
  proc.process(20, "nginx", 1, 0, 300, 1000, 0, 0, 5);
  m.sample(4 * kSecond, false);
  EXPECT_TRUE(has_value(value(s, 3, "rss_bytes")));
  ASSERT_EQ(s.events.size(), 4u);
  EXPECT_NE(s.events[2].text.find("exited"), std::string::npos);
  EXPECT_NE(s.events[3].text.find("restarted"), std::string::npos);
}

TEST(HostMonitor, RatesAndModes) {
  FakeProc proc;
  proc.files["/proc/stat"] = "cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 1 0 1 8 0 0 0 0 0 0\n";
  proc.files["/proc/net/dev"] =
      "Inter-|   Receive                                                |  Transmit\n"
      " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs "
      "drop fifo colls carrier compressed\n"
      "    lo: 5000 50 0 0 0 0 0 0 5000 50 0 0 0 0 0 0\n"
      "  eth0: 1000 10 0 0 0 0 0 0 2000 20 0 0 0 0 0 0\n";
  proc.files["/proc/net/snmp"] =
      "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails "
      "EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts\n"
      "Tcp: 1 200 120000 -1 0 0 0 0 0 0 0 5 0 0\n";
  HostMonitor m(proc.fs());
  ASSERT_TRUE(m.check());
  m.begin(0);
  proc.files["/proc/stat"] = "cpu  130 0 120 850 0 0 0 0 0 0\ncpu0 1 0 1 8 0 0 0 0 0 0\n";
  proc.files["/proc/net/dev"] =
      "Inter-|   Receive |  Transmit\n face |bytes packets|bytes packets\n    lo: 9000 90 0 0 0 0 "
      "0 0 9000 90 0 0 0 0 0 0\n"
      "  eth0: 3000 30 0 0 0 0 0 0 6000 60 0 0 0 0 0 0\n";
  proc.files["/proc/net/snmp"] =
      "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails "
      "EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts\n"
      "Tcp: 1 200 120000 -1 0 0 0 0 0 0 0 9 0 0\n";
  proc.files["/proc/loadavg"] = "0.50 0.40 0.30 1/100 1234\n";
  proc.files["/proc/meminfo"] = "MemTotal: 1000 kB\nMemFree: 100 kB\nMemAvailable: 500 kB\n";
  m.sample(2 * kSecond, false);
  const MonitorSeries& s = m.series();
  EXPECT_DOUBLE_EQ(value(s, 0, "cpu_user_pct"), 30.0);
  EXPECT_DOUBLE_EQ(value(s, 0, "cpu_system_pct"), 20.0);
  EXPECT_DOUBLE_EQ(value(s, 0, "cpu_idle_pct"), 50.0);
  EXPECT_DOUBLE_EQ(value(s, 0, "net_rx_bytes_per_s"), 1000.0);  // loopback left out
  EXPECT_DOUBLE_EQ(value(s, 0, "net_tx_packets_per_s"), 20.0);
  EXPECT_DOUBLE_EQ(value(s, 0, "tcp_retransmits_per_s"), 2.0);
  EXPECT_DOUBLE_EQ(value(s, 0, "load1"), 0.5);
  EXPECT_DOUBLE_EQ(value(s, 0, "mem_available_bytes"), 500.0 * 1024);
  EXPECT_FALSE(has_value(value(s, 0, "time_wait")));  // sockstat unreadable: not 0
  proc.files["/proc/net/sockstat"] =
      "sockets: used 10\nTCP: inuse 2 orphan 0 tw 9 alloc 2 mem 49\nUDP: inuse 0 mem 0\n";
  m.sample(3 * kSecond, false);
  EXPECT_DOUBLE_EQ(value(s, 1, "time_wait"), 9);
}

TEST(ProcText, SockstatTimeWait) {
  EXPECT_EQ(parse_sockstat_time_wait("sockets: used 1\nTCP: inuse 2 orphan 0 tw 9 alloc 2 mem 4\n"),
            9u);
  EXPECT_FALSE(parse_sockstat_time_wait("sockets: used 1\n"));
  EXPECT_FALSE(parse_sockstat_time_wait("TCP: inuse 2 orphan 0 tw x\n"));
}

}  // namespace
}  // namespace hail
