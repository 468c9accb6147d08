#include "load/runner.h"

#include <poll.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "load/script_run.h"
#include "load/targets.h"
#include "load/worker.h"
#include "net/address.h"

namespace hail {

namespace {
constexpr uint64_t kTickNs = 50 * kNsPerMs;
// Descriptors besides connections: stdio, epoll and eventfd per worker, output files, slack.
constexpr uint64_t kFdSlack = 64;
// A worker whose thread was on CPU this share of the run likely limited the load itself.
constexpr double kBusyWorkerShare = 0.90;

std::string format_share(double share) {
  return std::to_string(static_cast<int>(share * 100.0 + 0.5)) + "%";
}
}  // namespace

uint32_t usable_cpus() {
  // The CPUs this process may run on (taskset, cgroups' cpusets), not every CPU of the machine:
  // a worker per CPU it cannot use would only take turns with the others.
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return static_cast<uint32_t>(n);
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

uint32_t effective_threads(uint32_t requested, uint32_t connections) {
  uint32_t threads = requested;
  if (threads == 0) threads = usable_cpus();
  return std::max(1u, std::min(threads, connections));
}

Status ensure_fd_limit(uint64_t needed) {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) {
    return make_error(std::string("getrlimit(RLIMIT_NOFILE): ") + std::strerror(errno));
  }
  if (lim.rlim_cur >= needed) return ok_status();
  rlim_t target = lim.rlim_max == RLIM_INFINITY ? needed : std::min<rlim_t>(lim.rlim_max, needed);
  if (target > lim.rlim_cur) {
    rlimit raised = lim;
    raised.rlim_cur = target;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) lim.rlim_cur = target;
  }
  if (lim.rlim_cur >= needed) return ok_status();
  return make_error("too many connections for the open-file limit: need " + std::to_string(needed) +
                    " descriptors, RLIMIT_NOFILE allows " + std::to_string(lim.rlim_cur) +
                    " (hard limit " + std::to_string(lim.rlim_max) +
                    "); raise it with `ulimit -n " + std::to_string(needed) +
                    "` (as root, or via /etc/security/limits.conf) or lower -c");
}

namespace {
// The load curve of a staged run as the workers follow it from the load's start: a warm-up is a
// hold at the stages' starting value, then the stages themselves.
std::vector<Stage> curve_with_warmup(const RunOptions& options, double initial) {
  std::vector<Stage> stages;
  if (options.stages.empty()) return stages;
  if (options.warmup_ns > 0) {
    stages.push_back(
        Stage{options.warmup_ns, StageCurve(options.stages, initial).value_at(0), true});
  }
  stages.insert(stages.end(), options.stages.begin(), options.stages.end());
  return stages;
}

// The most connections a closed-loop curve ever asks for (ConnectionTargetSchedule floors).
uint32_t max_curve_connections(const RunOptions& options) {
  double most = options.stages_initial;
  for (const Stage& s : options.stages) most = std::max(most, s.target);
  return static_cast<uint32_t>(most * (1 + 1e-12));
}

// Row metadata for each stage with a duration: where it starts (relative to the measured phase)
// and the target it moves between.
struct StepInfo {
  uint64_t start_ns;
  double from;
  double to;
};
std::vector<StepInfo> step_infos(const RunOptions& options, double initial) {
  std::vector<StepInfo> steps;
  StageCurve curve(options.stages, initial);
  for (size_t i = 0; i < curve.stages().size(); ++i) {
    const Stage& st = curve.stages()[i];
    if (st.duration_ns == 0) continue;
    steps.push_back(StepInfo{curve.stage_start_ns(i), curve.stage_start_value(i), st.target});
  }
  return steps;
}
}  // namespace

namespace {
void fill_windows(const RunOptions& options, const std::vector<std::unique_ptr<Worker>>& workers,
                  uint64_t start_ns, const std::vector<Stage>& curve, double initial,
                  const std::vector<StepInfo>& steps, RunResult& result) {
  const bool rate_mode = options.rate_per_s > 0;
  result.target_unit = rate_mode ? "req/s" : "connections";
  result.ladder = options.ladder;
  result.interval_ns = options.interval_ns;
  std::vector<const WindowSeries*> intervals, step_series;
  for (const auto& w : workers) {
    intervals.push_back(&w->intervals());
    step_series.push_back(&w->steps());
  }
  if (options.interval_ns != 0) {
    result.intervals = merge_windows(intervals, start_ns);
    std::optional<StageCurve> full;
    if (!curve.empty()) full.emplace(curve, initial);
    for (WindowStats& w : result.intervals) {
      // The target where the window ends: the curve's value, or the constant -R / -c.
      double target = rate_mode ? options.rate_per_s : options.connections;
      if (full) {
        // The value in force during the window's last instant (the curve is right-continuous).
        uint64_t at_ns = std::min(w.end_ns, full->total_duration_ns());
        target = full->value_at(at_ns > w.start_ns ? at_ns - 1 : at_ns);
        if (!rate_mode) target = std::floor(target * (1 + 1e-12));
      }
      w.target_start = w.target_end = target;
    }
  }
  if (!steps.empty()) {
    result.steps = merge_windows(step_series, start_ns);
    if (result.steps.size() > steps.size()) result.steps.resize(steps.size());
    for (size_t i = 0; i < result.steps.size(); ++i) {
      result.steps[i].target_start = steps[i].from;
      result.steps[i].target_end = steps[i].to;
    }
  }
}
}  // namespace

namespace {
// What the connections spoke: HTTP/2 when every connection negotiated it, both when ALPN gave
// some HTTP/2 and some HTTP/1.1.
std::string protocol_name(const RunOptions& options, const Counters& c) {
  if (options.http09) return "http/0.9";
  const std::string h1 = options.request.http_minor == 0 ? "http/1.0" : "http/1.1";
  if (options.protocol == HttpProtocol::kHttp2) return "h2";
  if (c.connections_h2 == 0) return h1;
  return c.connections_h2 == c.connections_opened ? "h2" : "h2+" + h1;
}
}  // namespace

namespace {
// What worker i sends: a --urls mix, a script's requests, or the one request.
void assign_requests(const RunOptions& options, const TargetPlan& plan, ScriptRun* script,
                     uint32_t i, WorkerConfig& cfg) {
  if (!options.mix.empty()) {
    cfg.keep_tags = true;
    cfg.tag_names = plan.labels;
    cfg.source = std::make_unique<RequestSource>(plan.templates, options.mix, plan.group_lines,
                                                 options.mix_order, options.seed + 7919 * i);
    return;
  }
  if (script == nullptr) {
    cfg.request = plan.templates.front();  // each worker its own copy: no cache line shared
    return;
  }
  cfg.script = script->thread(i);
  cfg.keep_tags = true;
  if (std::optional<SocketAddress> a = script->address(i)) cfg.groups.front().addresses = {*a};
  // Scripts' requests are pipelined when one request() returns several (wrk's pipelining).
  cfg.pipeline = std::max(cfg.pipeline, script->pipeline());
  if (!script->is_static()) {
    cfg.source = std::make_unique<RequestSource>(cfg.script, options.url.scheme,
                                                 std::max(cfg.connections, cfg.max_connections));
    return;
  }
  const std::vector<RequestTemplate>& requests = script->static_requests(i);
  const std::string& tag = script->static_tag(i);
  if (!tag.empty()) cfg.tag_names = {tag};
  const uint16_t tag_index = tag.empty() ? RequestSource::kNoTag : 0;
  if (requests.size() == 1) {
    cfg.source = std::make_unique<RequestSource>(requests.front(), tag_index);
    return;
  }
  // A static request of several concatenated requests: sent in turn, as wrk pipelines them.
  std::vector<MixLine> lines(requests.size());
  std::vector<uint32_t> all;
  for (uint32_t k = 0; k < requests.size(); ++k) all.push_back(k);
  cfg.source = std::make_unique<RequestSource>(
      requests, lines, std::vector<std::vector<uint32_t>>{all}, MixOrder::kRoundRobin, 0);
}
}  // namespace

Result<RunResult> run_load(const RunOptions& options, const TickFn& tick,
                           std::unique_ptr<ScriptRun>* script_out) {
  auto plan = plan_targets(options);
  if (!plan) return plan.error();

  const bool rate_mode = options.rate_per_s > 0;
  const bool staged = !options.stages.empty();
  const double initial = rate_mode ? options.rate_per_s : options.stages_initial;
  // Closed loop with stages: the curve's peak is the connection capacity; -c is not used.
  const uint32_t connections =
      staged && !rate_mode ? max_curve_connections(options) : options.connections;
  const uint32_t threads = effective_threads(options.threads, std::max(1u, connections));
  const uint32_t max_open =
      rate_mode ? std::max(options.max_connections, connections) : connections;
  if (Status s = ensure_fd_limit(max_open + kFdSlack + 2ull * threads); !s) return s.error();
  if (plan->groups.size() > connections) {
    return make_error("the --urls file names " + std::to_string(plan->groups.size()) +
                      " hosts: give at least as many connections (-c " +
                      std::to_string(connections) + ")");
  }
  std::unique_ptr<ScriptRun> script;
  if (!options.script_path.empty() || options.wrk_requests) {
    auto prepared = ScriptRun::prepare(options, plan->groups.front().addresses, threads);
    if (!prepared) return prepared.error();
    script = std::move(prepared.value());
  }

  const uint64_t start_ns = mono_now_ns();
  const uint64_t start_unix_ns = unix_now_ns();
  const uint64_t measure_start_ns = start_ns + options.warmup_ns;
  const uint64_t end_ns = options.duration_ns ? measure_start_ns + options.duration_ns : 0;
  const std::vector<Stage> curve = curve_with_warmup(options, initial);
  const std::vector<StepInfo> steps =
      staged ? step_infos(options, initial) : std::vector<StepInfo>{};
  std::vector<uint64_t> step_boundaries_ns;
  for (const StepInfo& st : steps) step_boundaries_ns.push_back(measure_start_ns + st.start_ns);
  if (!steps.empty()) {
    step_boundaries_ns.push_back(measure_start_ns +
                                 StageCurve(options.stages, initial).total_duration_ns());
  }

  // Worker w's connection j is the run's connection j * threads + w.
  const uint32_t per_worker = (max_open + threads - 1) / threads;
  const std::vector<std::vector<uint16_t>> groups_of =
      connection_groups(plan->groups, connections, threads, per_worker);
  std::vector<std::unique_ptr<Worker>> workers;
  for (uint32_t i = 0; i < threads; ++i) {
    WorkerConfig cfg;
    cfg.index = i;
    // Connections and the -n budget are spread evenly; the first workers take the remainders.
    cfg.connections = connections / threads + (i < connections % threads ? 1 : 0);
    cfg.groups = plan->groups;
    if (plan->groups.size() > 1) cfg.connection_groups = groups_of[i];
    cfg.protocol = options.protocol;
    cfg.pipeline = options.pipeline;
    cfg.http09 = options.http09;
    cfg.h2.max_streams = options.streams;
    cfg.h2.window_bits = options.window_bits;
    cfg.keep_alive = options.request.keep_alive;
    cfg.timeout_ns = options.timeout_ns;
    cfg.budget_mode = options.requests > 0;
    if (cfg.budget_mode) {
      cfg.requests = options.requests / threads + (i < options.requests % threads ? 1 : 0);
    }
    cfg.slice = WorkerSlice{i, threads};
    cfg.stages = curve;
    cfg.stages_initial = initial;
    if (rate_mode) {
      cfg.rate_per_s = options.rate_per_s;
      cfg.arrival = options.arrival;
      cfg.max_connections = max_open / threads + (i < max_open % threads ? 1 : 0);
      cfg.seed = options.seed;
    }
    cfg.think_ns = options.think_ns;
    cfg.coalesce_wakeups = options.coalesce_wakeups;
    cfg.interval_ns = options.interval_ns;
    cfg.step_boundaries_ns = step_boundaries_ns;
    cfg.start_ns = start_ns;
    cfg.measure_start_ns = measure_start_ns;
    cfg.end_ns = end_ns;
    cfg.keep_request_log = options.keep_request_log;
    cfg.first_response_facts = options.first_response_facts && i == 0;
    assign_requests(options, plan.value(), script.get(), i, cfg);
    auto worker = std::make_unique<Worker>(std::move(cfg));
    if (Status s = worker->init(); !s) return s.error();
    workers.push_back(std::move(worker));
  }

  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (auto& w : workers) pool.emplace_back([wp = w.get()] { wp->run(); });

  bool interrupted = false;
  bool script_failed = false;
  for (;;) {
    bool all_done = true;
    RunProgress p;
    p.elapsed_ns = mono_now_ns() - start_ns;
    p.warmup_ns = options.warmup_ns;
    for (auto& w : workers) {
      const WorkerProgress& wp = w->progress();
      all_done = all_done && wp.done.load(std::memory_order_acquire);
      p.completed += wp.completed.load(std::memory_order_relaxed);
      p.errors += wp.errors.load(std::memory_order_relaxed);
    }
    if (all_done) break;
    if (!interrupted && tick && tick(p)) {
      interrupted = true;
      for (auto& w : workers) w->stop();
    }
    // A script error in one thread ends the whole run (wrk.thread:stop() ends only its thread).
    if (!script_failed) {
      for (auto& w : workers) script_failed = script_failed || w->progress().script_failed.load();
      if (script_failed) {
        for (auto& w : workers) w->stop();
      }
    }
    std::this_thread::sleep_for(std::chrono::nanoseconds(kTickNs));
  }
  for (auto& t : pool) t.join();

  RunResult result;
  result.url = options.url.to_string();
  result.method = options.request.method;
  result.connections = connections;
  result.threads = threads;
  result.keep_alive = options.request.keep_alive;
  result.http_minor = options.request.http_minor;
  result.requests_target = options.requests;
  result.duration_target_ns = options.duration_ns;
  result.warmup_ns = options.warmup_ns;
  result.timeout_ns = options.timeout_ns;
  result.interrupted = interrupted;
  result.start_unix_ns = start_unix_ns;
  result.pipeline = script ? std::max(options.pipeline, script->pipeline()) : options.pipeline;
  result.streams = options.streams;
  result.rate_target_per_s = options.rate_per_s;
  if (rate_mode && staged) {
    // A ramped rate: the target is the plan's average over the stages.
    StageCurve measured(options.stages, initial);
    double seconds = static_cast<double>(measured.total_duration_ns()) / 1e9;
    result.rate_target_per_s =
        seconds > 0 ? measured.integral_at(measured.total_duration_ns()) / seconds : initial;
  }
  uint64_t last_end_ns = measure_start_ns;
  bool all_gave_up = true;
  if (workers.size() > 1) {
    size_t logged = 0;
    for (const auto& w : workers) logged += w->request_log().size();
    result.request_log.reserve(logged);
  }
  for (auto& w : workers) {
    result.add(w->recorder());
    result.add_tags(w->tags());
    result.rate_samples.merge(w->rate_samples());
    if (result.script_error.empty()) result.script_error = w->script_error();
    if (workers.size() == 1) {
      result.request_log = w->take_request_log();  // no copy: ab's log can be millions long
    } else {
      const std::vector<RequestRecord> log = w->take_request_log();  // freed after appending
      result.request_log.insert(result.request_log.end(), log.begin(), log.end());
    }
    if (w->first_body_bytes() >= 0 && result.document_length < 0) {
      result.server_software = w->first_server();
      result.document_length = w->first_body_bytes();
    }
    last_end_ns = std::max(last_end_ns, w->end_ns());
    result.max_worker_cpu_utilization =
        std::max(result.max_worker_cpu_utilization, w->cpu_utilization());
    result.naps += w->naps();
    result.max_nap_ns = std::max(result.max_nap_ns, w->max_nap_ns());
    all_gave_up = all_gave_up && w->gave_up();
    result.backlog += w->backlog();
  }
  result.duration_ns = last_end_ns - measure_start_ns;
  for (RequestRecord& rec : result.request_log) {
    rec.start_unix_ns = rec.start_unix_ns - start_ns + start_unix_ns;  // monotonic -> wall
  }
  std::stable_sort(result.request_log.begin(), result.request_log.end(),
                   [](const RequestRecord& a, const RequestRecord& b) {
                     return a.start_unix_ns < b.start_unix_ns;
                   });
  fill_windows(options, workers, start_ns, curve, initial, steps, result);
  result.protocol = protocol_name(options, result.counters);
  if (all_gave_up) {
    result.notes.push_back("no connection to " + options.url.authority() +
                           " could be opened; the run stopped early");
  }
  const bool rate_missed = result.rate_mode() && result.duration_ns > 0 &&
                           result.requests_per_s() < 0.99 * result.rate_target_per_s;
  // A rate run that kept its plan was not limited by hail, however busy its threads were (the
  // lag distribution shows how closely sends kept to the plan).
  if (result.max_worker_cpu_utilization >= kBusyWorkerShare &&
      (!result.rate_mode() || rate_missed)) {
    result.notes.push_back("the busiest hail worker thread was on CPU " +
                           format_share(result.max_worker_cpu_utilization) +
                           " of the run: hail itself may have limited the load (try more -t "
                           "threads, or give hail more cores)");
  }
  if (rate_missed) {
    // Who limited the rate: a busy hail worker, or a server (or connection cap) that fell behind.
    bool hail_busy = result.max_worker_cpu_utilization >= kBusyWorkerShare;
    result.notes.push_back(
        "target rate not reached: " +
        std::to_string(static_cast<uint64_t>(result.requests_per_s())) + " of " +
        std::to_string(static_cast<uint64_t>(result.rate_target_per_s)) + " req/s; " +
        (hail_busy ? "hail's worker threads were the limit (add -t threads or cores)"
                   : "the server, or too few connections (--max-connections), was the limit"));
  }
  if (script && rate_mode && script->thread(0)->has_delay()) {
    result.notes.push_back(
        "the script's delay() was ignored: in rate mode (-R) the plan sets when "
        "requests go out");
  }
  if (!result.script_error.empty()) {
    result.notes.push_back("a script error stopped the run: " + result.script_error);
  }
  if (script_out != nullptr) *script_out = std::move(script);
  if (threads > usable_cpus()) {
    result.notes.push_back("more worker threads (" + std::to_string(threads) +
                           ") than CPU cores (" + std::to_string(usable_cpus()) + ")");
  }
  return result;
}

}  // namespace hail
