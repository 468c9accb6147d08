#include "load/runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "load/collector.h"
#include "load/live_run.h"
#include "load/run_notes.h"
#include "load/script_run.h"
#include "load/worker.h"

namespace hail {

namespace {

// What worker i sends: a --urls mix, a script's requests, or the one request.
void assign_requests(const RunPlan& plan, ScriptRun* script, uint32_t i, WorkerSetup& setup) {
  const RunOptions& options = plan.options;
  const TargetPlan& targets = plan.targets;
  if (!options.mix.empty()) {
    setup.keep_tags = true;
    setup.tag_names = targets.labels;
    setup.source =
        std::make_unique<RequestSource>(targets.templates, options.mix, targets.group_lines,
                                        options.mix_order, plan.seed, plan.slice(i));
    return;
  }
  if (script == nullptr) return;  // the worker sends its own copy of the one request
  setup.script = script->thread(i);
  setup.keep_tags = true;
  if (std::optional<SocketAddress> a = script->address(i)) setup.groups.front().addresses = {*a};
  if (!script->is_static()) {
    setup.source = std::make_unique<RequestSource>(setup.script, options.url.scheme,
                                                   plan.shares[i].max_connections);
    return;
  }
  const std::vector<RequestTemplate>& requests = script->static_requests(i);
  const std::string& tag = script->static_tag(i);
  if (!tag.empty()) setup.tag_names = {tag};
  const uint16_t tag_index = tag.empty() ? RequestSource::kNoTag : 0;
  if (requests.size() == 1) {
    setup.source = std::make_unique<RequestSource>(requests.front(), tag_index);
    return;
  }
  // A static request of several concatenated requests: sent in turn, as wrk pipelines them.
  std::vector<MixLine> lines(requests.size());
  std::vector<uint32_t> all;
  for (uint32_t k = 0; k < requests.size(); ++k) all.push_back(k);
  setup.source = std::make_unique<RequestSource>(
      requests, lines, std::vector<std::vector<uint32_t>>{all}, MixOrder::kRoundRobin, 0);
}

}  // namespace

// The start step: one worker per share, each initialised (loop, TLS, connections, pacer).
Result<std::vector<std::unique_ptr<Worker>>> make_workers(const RunPlan& plan, ScriptRun* script) {
  std::vector<std::unique_ptr<Worker>> workers;
  for (uint32_t i = 0; i < plan.threads; ++i) {
    WorkerSetup setup;
    setup.plan = &plan;
    setup.index = i;
    setup.groups = plan.targets.groups;
    assign_requests(plan, script, i, setup);
    for (const auto& factory : plan.options.collectors) {
      setup.collectors.push_back(factory->make(i, plan.threads));
    }
    auto worker = std::make_unique<Worker>(std::move(setup));
    if (Status s = worker->init(); !s) return s.error();
    workers.push_back(std::move(worker));
  }
  return workers;
}

void WindowMerger::absorb(const std::vector<std::unique_ptr<Worker>>& workers) {
  std::vector<WindowSeries::Window> intervals, steps;
  for (const auto& w : workers) {
    w->take_closed_windows(&intervals, &steps);
    add(intervals_, intervals);
    add(steps_, steps);
  }
}

void WindowMerger::add(std::vector<WindowStats>& rows,
                       const std::vector<WindowSeries::Window>& closed) const {
  for (const WindowSeries::Window& window : closed) {
    if (window.index >= rows.size()) rows.resize(window.index + 1);
    merge_window(rows[window.index], window_stats(window, load_start_ns_));
  }
}

namespace {

// What the connections spoke: HTTP/2 when every connection negotiated it, both when ALPN gave
// some HTTP/2 and some HTTP/1.x.
ProtocolSet protocols_spoken(const RunOptions& options, const Counters& c) {
  if (options.http09) return ProtocolSet(WireProtocol::kHttp09);
  const WireProtocol h1 =
      options.request.http_minor == 0 ? WireProtocol::kHttp10 : WireProtocol::kHttp11;
  if (options.protocol == HttpProtocol::kHttp2) return ProtocolSet(WireProtocol::kHttp2);
  if (c.connections_h2 == 0) return ProtocolSet(h1);
  ProtocolSet set(WireProtocol::kHttp2);
  if (c.connections_h2 != c.connections_opened) set.add(h1);
  return set;
}

// The windows' targets: what the plan asked for during each interval (at its end) and step.
void set_window_targets(const RunPlan& plan, RunResult& result) {
  const RunOptions& options = plan.options;
  const bool rate_mode = options.rate_per_s > 0;
  std::optional<StageCurve> full;
  if (!plan.curve.empty()) full.emplace(plan.curve, plan.initial);
  for (WindowStats& w : result.intervals) {
    double target = rate_mode ? options.rate_per_s : options.connections;
    if (full) {
      // The value in force during the window's last instant (the curve is right-continuous).
      const uint64_t at_ns = std::min(w.end_ns, full->total_duration_ns());
      target = full->value_at(at_ns > w.start_ns ? at_ns - 1 : at_ns);
      if (!rate_mode) target = std::floor(target * (1 + 1e-12));
    }
    w.target_start = w.target_end = target;
  }
  if (result.steps.size() > plan.steps.size()) result.steps.resize(plan.steps.size());
  for (size_t i = 0; i < result.steps.size(); ++i) {
    result.steps[i].target_start = plan.steps[i].from;
    result.steps[i].target_end = plan.steps[i].to;
  }
}

// What was asked for, as the reports show it.
void describe(const RunPlan& plan, RunResult& result) {
  const RunOptions& options = plan.options;
  result.url = options.url.to_string();
  result.method = options.request.method;
  result.connections = plan.connections;
  result.threads = plan.threads;
  result.keep_alive = options.request.keep_alive;
  result.http_minor = options.request.http_minor;
  const ShardSpec& shard = options.shard;
  result.requests_target = slice_share(options.requests, shard.count, shard.index);
  result.shard_index = shard.index;
  result.shard_count = shard.count;
  result.shard_source = shard.source;
  result.run_id = options.run_id;
  result.io_backend = io_backend_name(plan.io);
  result.start_at_unix_ns = options.start_at_unix_ns;
  result.start_late_ns = std::max(result.start_late_ns, plan.start_late_ns);
  result.duration_target_ns = options.duration_ns;
  result.warmup_ns = options.warmup_ns;
  result.timeout_ns = options.timeout_ns;
  result.start_unix_ns = plan.start_unix_ns;
  result.pipeline = plan.sessions.pipeline;
  result.streams = options.streams;
  result.rate_target_per_s = options.rate_per_s;
  if (options.rate_per_s > 0 && !options.stages.empty()) {
    // A ramped rate: the target is the plan's average over the stages.
    StageCurve measured(options.stages, plan.initial);
    const double seconds = static_cast<double>(measured.total_duration_ns()) / 1e9;
    result.rate_target_per_s =
        seconds > 0 ? measured.integral_at(measured.total_duration_ns()) / seconds : plan.initial;
  }
  result.whole_connections = plan.whole_connections;
  result.whole_requests = options.requests;
  result.whole_rate_per_s = result.rate_target_per_s;
  // Shard i plans the requests k = i mod N of the whole plan: 1/N of its rate.
  result.rate_target_per_s /= shard.count;
  result.target_unit = options.rate_per_s > 0 ? "req/s" : "connections";
  result.ladder = options.ladder;
  result.interval_ns = options.interval_ns;
}
}  // namespace

RunResult merge_workers(const RunPlan& plan, const std::vector<std::unique_ptr<Worker>>& workers,
                        WindowMerger& windows) {
  RunResult result;
  for (const auto& w : workers) {
    const MeasurementSink& sink = w->sink();
    const WorkerSummary& s = w->summary();
    RunResult part = RunResult::from_recorder(sink.recorder());
    part.merge(RunResult::from_tags(sink.tags()));
    part.duration_ns = std::max(s.end_ns, plan.measure_start_ns) - plan.measure_start_ns;
    part.script_error = s.script_error;
    part.max_worker_cpu_utilization = s.cpu_utilization;
    part.naps = s.naps;
    part.max_nap_ns = s.max_nap_ns;
    part.backlog = s.backlog;
    part.start_late_ns = s.start_late_ns;
    result.merge(part);
  }
  windows.absorb(workers);  // what closed since the last tick, and the last windows
  if (plan.options.interval_ns != 0) result.intervals = windows.take_intervals();
  if (!plan.steps.empty()) result.steps = windows.take_steps();
  describe(plan, result);
  set_window_targets(plan, result);
  result.protocols = protocols_spoken(plan.options, result.counters);
  return result;
}

Result<RunResult> run_load(const RunOptions& options, const TickFn& tick,
                           std::unique_ptr<ScriptRun>* script_out) {
  auto live = LiveRun::start(options);
  if (!live) return live.error();
  while (!(*live)->poll(tick))
    std::this_thread::sleep_for(std::chrono::nanoseconds((*live)->sleep_ns()));
  return (*live)->finish(script_out);
}

}  // namespace hail
