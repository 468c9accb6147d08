#include "monitor/process_monitor.h"

#include <vector>

#include "monitor/proc_text.h"

namespace hail {

namespace {
enum Column : size_t {
  kCpuCore,
  kCpuMachine,
  kCpuUser,
  kCpuSystem,
  kRss,
  kThreads,
  kFds,
  kVoluntary,
  kInvoluntary,
  kProcesses
};

// /proc/PID/comm (and stat's comm) keep the first 15 bytes of a name (TASK_COMM_LEN).
constexpr size_t kCommBytes = 15;

std::string proc_path(int64_t pid, const char* file) {
  return "/proc/" + std::to_string(pid) + "/" + file;
}
}  // namespace

ProcessMonitor::ProcessMonitor(MonitorSpec spec, ProcFs fs)
    : spec_(std::move(spec)), fs_(std::move(fs)) {
  series_.source = spec_.text;
  series_.kind = "process";
  series_.metrics.assign(std::begin(kProcessMetrics), std::end(kProcessMetrics));
}

std::map<ProcessMonitor::Key, ProcessMonitor::Reading> ProcessMonitor::read_matching() const {
  std::vector<int64_t> pids;
  if (spec_.kind == MonitorKind::kPid) {
    pids.push_back(spec_.pid);
  } else {
    pids = fs_.pids();
  }
  const std::string comm = spec_.name.substr(0, kCommBytes);
  std::map<Key, Reading> out;
  for (int64_t pid : pids) {
    const std::optional<std::string> stat_text = fs_.read(proc_path(pid, "stat"));
    if (!stat_text) continue;  // gone between the listing and the read
    const std::optional<ProcPidStat> stat = parse_proc_pid_stat(*stat_text);
    if (!stat || stat->state == 'Z' || stat->state == 'X') continue;  // a zombie holds nothing
    if (spec_.kind == MonitorKind::kName && stat->comm != comm) continue;
    if (spec_.kind == MonitorKind::kPid && started_ && stat->start_ticks != start_ticks_) continue;
    Reading r;
    r.counters.cpu_user_ticks = stat->utime_ticks;
    r.counters.cpu_system_ticks = stat->stime_ticks;
    r.threads = stat->threads;
    if (const auto status_text = fs_.read(proc_path(pid, "status"))) {
      if (const auto status = parse_proc_pid_status(*status_text)) {
        r.rss_bytes = status->rss_bytes;
        r.counters.voluntary = status->voluntary_switches;
        r.counters.involuntary = status->involuntary_switches;
      }
    }
    r.fds = fs_.count_fds(pid);
    out.emplace(Key{pid, stat->start_ticks}, r);
  }
  return out;
}

Status ProcessMonitor::check() {
  const std::map<Key, Reading> now = read_matching();
  if (!now.empty()) return ok_status();
  const std::string prefix = "--monitor " + quote(spec_.text) + ": ";
  if (spec_.kind == MonitorKind::kPid) {
    return make_error(prefix + "no process with pid " + std::to_string(spec_.pid));
  }
  return make_error(prefix + "no process named " + quote(spec_.name) +
                    " (matched against /proc/PID/comm, its first 15 characters)");
}

void ProcessMonitor::begin(uint64_t at_ns) {
  restart_series(at_ns);
  started_ = false;
  const std::map<Key, Reading> now = read_matching();
  previous_.clear();
  for (const auto& [key, r] : now) previous_.emplace(key, r.counters);
  if (spec_.kind == MonitorKind::kPid && !now.empty()) start_ticks_ = now.begin()->first.second;
  started_ = true;
  present_ = !now.empty();
  if (!present_) event(at_ns, "not running when the load started");
}

void ProcessMonitor::sample(uint64_t at_ns, bool warmup) {
  const uint64_t from_ns = last_ns_;
  const std::map<Key, Reading> now = read_matching();
  MonitorWindow& row = add_row(at_ns, warmup);
  // Which processes left and came (name:NAME: a worker restarted; pid:N: it exited).
  for (const auto& [key, seen] : previous_) {
    if (now.count(key) == 0 && spec_.kind == MonitorKind::kName && !now.empty()) {
      event(at_ns, "process " + std::to_string(key.first) + " exited");
    }
  }
  for (const auto& [key, r] : now) {
    if (previous_.count(key) == 0 && present_) {
      event(at_ns, "process " + std::to_string(key.first) + " started");
    }
  }
  if (now.empty()) {
    if (present_) {
      event(at_ns, spec_.kind == MonitorKind::kPid
                       ? "exited (pid " + std::to_string(spec_.pid) + ")"
                       : "exited (no process named " + quote(spec_.name) + " left)");
    }
    present_ = false;
    previous_.clear();
    return;  // the row stays kNoValue: not measured, not zero
  }
  if (!present_ && started_)
    event(at_ns, "restarted (" + std::to_string(now.size()) + " process" +
                     (now.size() == 1 ? ")" : "es)"));
  present_ = true;
  const double seconds = static_cast<double>(at_ns - from_ns) / 1e9;
  const double tick_s = 1.0 / static_cast<double>(fs_.ticks_per_s);
  uint64_t user = 0, system = 0, voluntary = 0, involuntary = 0, rss = 0, fds = 0;
  int64_t threads = 0;
  bool fds_known = true;
  std::map<Key, Seen> next;
  for (const auto& [key, r] : now) {
    // A process new in this window counts from its start (it began within the window, or was
    // not there at its beginning).
    Seen base;
    if (auto it = previous_.find(key); it != previous_.end()) base = it->second;
    auto delta = [](uint64_t a, uint64_t b) { return a >= b ? a - b : 0; };
    user += delta(r.counters.cpu_user_ticks, base.cpu_user_ticks);
    system += delta(r.counters.cpu_system_ticks, base.cpu_system_ticks);
    voluntary += delta(r.counters.voluntary, base.voluntary);
    involuntary += delta(r.counters.involuntary, base.involuntary);
    rss += r.rss_bytes;
    threads += r.threads;
    if (r.fds) {
      fds += *r.fds;
    } else {
      fds_known = false;
    }
    next.emplace(key, r.counters);
  }
  previous_ = std::move(next);
  if (seconds > 0) {
    const double user_pct = 100.0 * static_cast<double>(user) * tick_s / seconds;
    const double system_pct = 100.0 * static_cast<double>(system) * tick_s / seconds;
    row.values[kCpuUser] = user_pct;
    row.values[kCpuSystem] = system_pct;
    row.values[kCpuCore] = user_pct + system_pct;
    row.values[kCpuMachine] = (user_pct + system_pct) / std::max<uint32_t>(fs_.cpus, 1);
    row.values[kVoluntary] = static_cast<double>(voluntary) / seconds;
    row.values[kInvoluntary] = static_cast<double>(involuntary) / seconds;
  }
  row.values[kRss] = static_cast<double>(rss);
  row.values[kThreads] = static_cast<double>(threads);
  if (fds_known) row.values[kFds] = static_cast<double>(fds);
  row.values[kProcesses] = static_cast<double>(now.size());
}

}  // namespace hail
