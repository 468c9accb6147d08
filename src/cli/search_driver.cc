#include "cli/search_driver.h"

#include <dirent.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "analysis/probe_verdict.h"
#include "core/strings.h"
#include "core/units.h"
#include "load/live_run.h"

namespace hail {

namespace {

constexpr auto kTick = std::chrono::milliseconds(50);
// A run that outlives every probe: the driver stops it when the search is over.
constexpr uint64_t kRunSlackNs = 3600ull * 1'000'000'000;

uint64_t process_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// What hail's threads asked of the machine: CPU time, plus the time they waited for a CPU while
// runnable (the second field of /proc/self/task/*/schedstat). On a shared machine a starved
// generator uses little CPU yet is the limit all the same; its demand shows it.
uint64_t process_demand_ns() {
  uint64_t waited_ns = 0;
  if (DIR* dir = opendir("/proc/self/task")) {
    while (const dirent* e = readdir(dir)) {
      if (e->d_name[0] == '.') continue;
      const std::string path = std::string("/proc/self/task/") + e->d_name + "/schedstat";
      if (FILE* f = std::fopen(path.c_str(), "r")) {
        unsigned long long on_cpu = 0;
        unsigned long long waiting = 0;
        if (std::fscanf(f, "%llu %llu", &on_cpu, &waiting) == 2) waited_ns += waiting;
        std::fclose(f);
      }
    }
    closedir(dir);
  }
  return process_cpu_ns() + waited_ns;
}

uint64_t wall_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

uint64_t windows_for(uint64_t span_ns, uint64_t interval_ns) {
  return std::max<uint64_t>(1, (span_ns + interval_ns - 1) / interval_ns);
}

class Driver {
 public:
  Driver(const SearchPlan& plan, const SearchHooks& hooks) : plan_(plan), hooks_(hooks) {}
  ~Driver() { finish(); }

  Result<ProbeOutcome> estimate(const Probe& p);
  Result<ProbeOutcome> probe(const Probe& p);
  bool interrupted() const { return interrupted_; }
  uint32_t threads() const { return threads_; }
  void finish();

 private:
  Status start(double level);
  // Supervises the live run until `done` holds; false on a stop request or when the run ended.
  bool wait_until(LiveRun& live, const std::function<bool()>& done);
  size_t whole_windows() const;
  bool stop_requested();

  const SearchPlan& plan_;
  const SearchHooks& hooks_;
  std::unique_ptr<LiveRun> live_;
  double level_ = 0;
  size_t level_first_ = 0;  // the first window measured at this level
  size_t level_end_ = 0;    // the windows measured at this level so far end here
  bool interrupted_ = false;
  bool last_failed_ = false;  // the last probe did not pass: the server may still hold a queue
  uint32_t threads_ = 0;
};

bool Driver::stop_requested() {
  if (!interrupted_ && hooks_.should_stop && hooks_.should_stop()) interrupted_ = true;
  return interrupted_;
}

bool Driver::wait_until(LiveRun& live, const std::function<bool()>& done) {
  const TickFn tick = [](const RunProgress&) { return false; };
  for (;;) {
    if (live.poll(tick)) return done();
    if (done()) return true;
    if (stop_requested()) return false;
    std::this_thread::sleep_for(kTick);
  }
}

size_t Driver::whole_windows() const {
  const std::vector<WindowStats>& w = live_->intervals();
  size_t n = 0;
  while (n < w.size() && w[n].sources >= live_->workers()) ++n;
  return n;
}

// The closed-loop estimate of the maximum: its own short run at -c connections (its warm-up
// covers the connects), before the open-loop run starts.
Result<ProbeOutcome> Driver::estimate(const Probe& p) {
  const uint64_t started = wall_ns();
  RunOptions o = plan_.run;
  o.rate_per_s = 0;
  o.max_connections = 0;
  o.stages.clear();
  o.requests = 0;
  o.warmup_ns = std::min<uint64_t>(1'000'000'000, p.measure_ns / 4);
  o.duration_ns = p.measure_ns;
  o.interval_ns = 0;
  auto live = LiveRun::start(o);
  if (!live) return live.error();
  // Returns only once the run ended, or on a stop request: then stop it and let it end.
  if (!wait_until(**live, [] { return false; }) && interrupted_) (*live)->stop();
  while (!(*live)->poll([](const RunProgress&) { return false; }))
    std::this_thread::sleep_for(kTick);
  const RunResult r = (*live)->finish();
  if (r.counters.connections_opened == 0 && r.counters.completed == 0) {
    return make_error("could not connect to " + o.url.authority());
  }
  ProbeOutcome out;
  out.achieved = r.requests_per_s();
  out.duration_ns = wall_ns() - started;
  out.stats.p50_ns = r.latency.value_at_percentile(50);
  out.stats.p90_ns = r.latency.value_at_percentile(90);
  out.stats.p99_ns = r.latency.value_at_percentile(99);
  out.stats.p999_ns = r.latency.value_at_percentile(99.9);
  out.stats.max_ns = r.latency.max();
  out.stats.hail_cpu = r.max_worker_cpu_utilization;
  return out;
}

Status Driver::start(double level) {
  RunOptions o = plan_.run;
  o.requests = 0;
  o.warmup_ns = 0;
  o.duration_ns = plan_.config.budget_ns + kRunSlackNs;
  o.interval_ns = plan_.interval_ns;
  if (plan_.config.domain == SearchDomain::kRate) {
    o.rate_per_s = level;
    o.stages.clear();
  } else {
    // Closed loop: the connection capacity is a curve's peak, so the run holds `level` for its
    // whole length and names the cap in a last stage it never reaches (retarget replaces the
    // curve from the next probe on).
    o.rate_per_s = 0;
    o.stages = {Stage{o.duration_ns, level, true},
                Stage{1'000'000'000, std::max(level, plan_.config.max), false}};
    o.stages_initial = level;
    o.duration_ns += 1'000'000'000;
  }
  auto live = LiveRun::start(o);
  if (!live) return live.error();
  live_ = std::move(live.value());
  threads_ = live_->workers();
  level_ = level;
  return ok_status();
}

Result<ProbeOutcome> Driver::probe(const Probe& p) {
  const uint64_t started = wall_ns();
  if (!live_) {
    if (Status st = start(p.target); !st) return st.error();
  } else if (p.kind != ProbeKind::kExtend && p.target != level_) {
    if (last_failed_ && plan_.config.domain == SearchDomain::kRate) {
      // An overloaded level leaves requests queued in the server: sent at the next level they
      // would be measured as its latency (and its own requests would queue behind them). Pause
      // until they are answered (or time out), then start the new level afresh.
      live_->retarget(0);
      const uint64_t drain_until = wall_ns() + std::max<uint64_t>(plan_.run.timeout_ns, 1);
      if (!wait_until(*live_, [&] {
            return live_->progress().in_flight == 0 || wall_ns() >= drain_until;
          })) {
        if (interrupted_) return ProbeOutcome{};
        return make_error("the load stopped while the server's queue drained");
      }
    }
    live_->retarget(p.target);
    level_ = p.target;
  }
  const uint64_t interval = plan_.interval_ns;
  const uint64_t measure_windows = windows_for(p.measure_ns, interval);
  if (p.kind == ProbeKind::kExtend) {
    level_end_ += measure_windows;
  } else {
    const uint64_t settle_end = live_->progress().elapsed_ns + p.settle_ns;
    level_first_ = windows_for(settle_end, interval);
    if (settle_end % interval == 0) level_first_ = settle_end / interval;
    level_end_ = level_first_ + measure_windows;
  }
  const size_t measure_from =
      p.kind == ProbeKind::kExtend ? level_end_ - measure_windows : level_first_;
  uint64_t cpu0 = 0;
  uint64_t wall0 = 0;
  auto started_measuring = [&] {
    if (whole_windows() < measure_from) return false;
    cpu0 = process_demand_ns();
    wall0 = wall_ns();
    return true;
  };
  if (!wait_until(*live_, started_measuring) || !wait_until(*live_, [&] {
        if (hooks_.on_tick) {
          const double left_s =
              static_cast<double>((level_end_ - std::min(level_end_, whole_windows())) * interval) /
              1e9;
          hooks_.on_tick(
              string_printf("%s %.1f: %.0fs left", probe_kind_name(p.kind), p.target, left_s));
        }
        return whole_windows() >= level_end_;
      })) {
    if (interrupted_) return ProbeOutcome{};
    return make_error("the load stopped before the probe at " + string_printf("%g", p.target) +
                      " ended (every connection failed?)");
  }
  const uint64_t cpu_ns = process_demand_ns() - cpu0;
  const uint64_t measured_wall_ns = std::max<uint64_t>(1, wall_ns() - wall0);
  const std::vector<WindowStats>& all = live_->intervals();
  const std::span<const WindowStats> windows(all.data() + level_first_, level_end_ - level_first_);
  const std::vector<MonitorSeries> monitors = live_->monitors();
  const ProbeJudgementResult judged = judge_probe(plan_.thresholds, windows, {}, monitors);

  ProbeOutcome out;
  out.achieved = judged.achieved_per_s;
  out.stats = judged.stats;
  out.stats.hail_cpu = static_cast<double>(cpu_ns) /
                       (static_cast<double>(measured_wall_ns) * std::max(1u, live_->workers()));
  out.reason = judged.reason;
  out.verdict = judged.judgement == Judgement::kPass   ? ProbeVerdict::kPass
                : judged.judgement == Judgement::kFail ? ProbeVerdict::kFail
                                                       : ProbeVerdict::kInconclusive;
  std::string bound;
  if (plan_.config.domain == SearchDomain::kRate) {
    GeneratorSignals signals;
    signals.target_per_s = p.target;
    signals.achieved_per_s = judged.outcomes_per_s;
    signals.cpu_busy = out.stats.hail_cpu;
    signals.lag_p99_ns = judged.stats.lag_p99_ns;
    bound = generator_bound_reason(signals);
  } else if (out.stats.hail_cpu >= GeneratorLimits{}.cpu_busy) {
    bound = string_printf("hail's CPU %.0f%% busy", out.stats.hail_cpu * 100);
  }
  if (!bound.empty()) {
    out.verdict = ProbeVerdict::kGeneratorBound;
    out.reason = bound;
  }
  out.duration_ns = wall_ns() - started;
  last_failed_ = out.verdict != ProbeVerdict::kPass;
  return out;
}

void Driver::finish() {
  if (!live_) return;
  live_->stop();
  while (!live_->poll([](const RunProgress&) { return false; })) std::this_thread::sleep_for(kTick);
  live_->finish();
  live_.reset();
}

}  // namespace

Result<SearchRunResult> run_search(const SearchPlan& plan, const SearchHooks& hooks) {
  auto controller = SearchController::create(plan.config);
  if (!controller) return controller.error();
  // The progress line names the bracket so far, which only the controller knows.
  SearchHooks with_bracket = hooks;
  std::string bracket;
  if (hooks.on_tick) {
    with_bracket.on_tick = [&](const std::string& line) { hooks.on_tick(line + bracket); };
  }
  Driver driver(plan, with_bracket);
  SearchRunResult out;
  for (;;) {
    const SearchStep step = controller->next();
    if (const auto* done = std::get_if<SearchDone>(&step)) {
      out.verdict = done->verdict;
      break;
    }
    const Probe p = std::get<Probe>(step);
    auto outcome = p.kind == ProbeKind::kEstimate ? driver.estimate(p) : driver.probe(p);
    if (!outcome) return outcome.error();
    if (driver.interrupted()) {
      out.interrupted = true;
      out.verdict = controller->verdict();
      break;
    }
    controller->record(outcome.value());
    const SearchVerdict so_far = controller->verdict();
    if (hooks.on_probe && !so_far.probes.empty()) {
      hooks.on_probe(so_far.probes.back(), so_far.probes.size());
    }
    bracket = so_far.upper > 0   ? string_printf(", bracket [%g, %g)", so_far.lower, so_far.upper)
              : so_far.lower > 0 ? string_printf(", passing up to %g", so_far.lower)
                                 : std::string();
  }
  driver.finish();
  out.threads = driver.threads();
  return out;
}

}  // namespace hail
