#include "load/live_run.h"

#include <algorithm>

#include "core/clock.h"
#include "load/collector.h"
#include "load/run_notes.h"
#include "load/script_run.h"
#include "load/window_sampler.h"
#include "load/worker.h"

namespace hail {

Result<std::unique_ptr<LiveRun>> LiveRun::start(const RunOptions& options) {
  auto planned = plan_run(options);
  if (!planned) return planned.error();
  std::unique_ptr<LiveRun> run(new LiveRun());
  run->plan_ = std::move(planned.value());
  RunPlan& plan = run->plan_;
  if (!options.script_path.empty() || options.wrk_requests) {
    auto prepared =
        ScriptRun::prepare(options, plan.targets.groups.front().addresses, plan.threads);
    if (!prepared) return prepared.error();
    run->script_ = std::move(prepared.value());
    // Scripts' requests are pipelined when one request() returns several (wrk's pipelining).
    plan.sessions.pipeline = std::max(plan.sessions.pipeline, run->script_->pipeline());
  }
  // --start-at: the workers are made (connections, TLS contexts) now and open their connections
  // at once; the load's clock starts at the instant asked for, on this machine's clocks.
  uint64_t mono_start_ns = mono_now_ns();
  uint64_t unix_start_ns = unix_now_ns();
  if (options.start_at_unix_ns > unix_start_ns) {
    mono_start_ns += options.start_at_unix_ns - unix_start_ns;
    unix_start_ns = options.start_at_unix_ns;
  } else if (options.start_at_unix_ns != 0) {
    plan.start_late_ns = unix_start_ns - options.start_at_unix_ns;
  }
  plan.start_clock(mono_start_ns, unix_start_ns);
  auto made = make_workers(plan, run->script_.get());
  if (!made) return made.error();
  run->workers_ = std::move(made.value());
  run->windows_ = WindowMerger(plan.start_ns);
  if (options.sampler && options.interval_ns > 0) {
    options.sampler->begin();
    run->last_sample_ns_ = plan.start_ns;
    run->next_sample_ns_ = next_interval_boundary(plan.start_ns, plan.start_ns,
                                                  plan.measure_start_ns, options.interval_ns);
  }
  run->threads_.reserve(run->workers_.size());
  for (auto& w : run->workers_) run->threads_.emplace_back([wp = w.get()] { wp->run(); });
  return run;
}

LiveRun::~LiveRun() {
  if (threads_.empty()) return;
  stop();
  join();
}

RunProgress LiveRun::progress() const {
  RunProgress p;
  const uint64_t now_ns = mono_now_ns();
  p.elapsed_ns = now_ns > plan_.start_ns ? now_ns - plan_.start_ns : 0;  // 0 before --start-at
  p.warmup_ns = plan_.options.warmup_ns;
  for (const auto& w : workers_) {
    const WorkerProgress& wp = w->progress();
    p.completed += wp.completed.load(std::memory_order_relaxed);
    p.errors += wp.errors.load(std::memory_order_relaxed);
    p.in_flight += wp.in_flight.load(std::memory_order_relaxed);
  }
  return p;
}

uint64_t LiveRun::sleep_ns() const {
  constexpr uint64_t kTickNs = 50 * kNsPerMs;
  if (next_sample_ns_ == 0) return kTickNs;
  const uint64_t now = mono_now_ns();
  return next_sample_ns_ <= now ? 0 : std::min(kTickNs, next_sample_ns_ - now);
}

// The windows the sampler closes are the workers' (next_interval_boundary); a late poll samples
// once, at its own time, and skips the boundaries it missed (rates are per actual second).
void LiveRun::sample_due(uint64_t now_ns) {
  if (next_sample_ns_ == 0 || now_ns < next_sample_ns_) return;
  const RunOptions& options = plan_.options;
  // Warm-up by the boundary it closes, not by when the poll came (a few ms after it).
  options.sampler->sample(now_ns - plan_.start_ns, next_sample_ns_ <= plan_.measure_start_ns);
  last_sample_ns_ = now_ns;
  next_sample_ns_ =
      next_interval_boundary(now_ns, plan_.start_ns, plan_.measure_start_ns, options.interval_ns);
}

bool LiveRun::poll(const TickFn& tick) {
  if (done_) return true;
  sample_due(mono_now_ns());
  bool all_done = true;
  for (const auto& w : workers_)
    all_done = all_done && w->progress().done.load(std::memory_order_acquire);
  if (all_done) {
    done_ = true;
    return true;
  }
  windows_.absorb(workers_);
  if (!interrupted_ && tick && tick(progress())) {
    interrupted_ = true;
    stop();
  }
  // A script error in one thread ends the whole run (wrk.thread:stop() ends only its thread).
  if (!script_failed_) {
    for (const auto& w : workers_) {
      script_failed_ = script_failed_ || w->progress().script_failed.load();
    }
    if (script_failed_) stop();
  }
  return false;
}

std::vector<MonitorSeries> LiveRun::monitors() const {
  if (next_sample_ns_ == 0) return {};
  return plan_.options.sampler->snapshot();
}

void LiveRun::retarget(double level) {
  for (const auto& w : workers_) w->retarget(level);
}

void LiveRun::stop() {
  for (const auto& w : workers_) w->stop();
}

void LiveRun::join() {
  for (auto& t : threads_) t.join();
  threads_.clear();
}

RunResult LiveRun::finish(std::unique_ptr<ScriptRun>* script_out) {
  join();
  // Merge.
  RunResult result = merge_workers(plan_, workers_, windows_);
  result.interrupted = interrupted_;
  const RunOptions& options = plan_.options;
  if (next_sample_ns_ != 0) {
    const uint64_t now = std::max(mono_now_ns(), plan_.start_ns);  // stopped before --start-at
    // A last window under half an interval is left out: a few ms read as 0% CPU (whole ticks).
    const bool stub =
        last_sample_ns_ != plan_.start_ns && now - last_sample_ns_ < options.interval_ns / 2;
    result.monitors =
        options.sampler->finish(now - plan_.start_ns, now <= plan_.measure_start_ns, !stub);
    next_sample_ns_ = 0;
  }
  const RunClock clock{plan_.start_ns, plan_.start_unix_ns};
  for (const auto& factory : options.collectors) factory->finish(clock);
  // Annotate.
  RunFacts facts;
  facts.authority = options.url.authority();
  facts.gave_up = std::all_of(workers_.begin(), workers_.end(),
                              [](const auto& w) { return w->summary().gave_up; });
  result.server_gone = std::any_of(workers_.begin(), workers_.end(),
                                   [](const auto& w) { return w->summary().server_gone; });
  facts.script_delay_ignored = script_ && options.rate_per_s > 0 && script_->thread(0)->has_delay();
  facts.threads = plan_.threads;
  facts.usable_cpus = usable_cpus();
  result.notes = run_notes(result, facts);
  if (script_out != nullptr) *script_out = std::move(script_);
  return result;
}

}  // namespace hail
