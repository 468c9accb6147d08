#include "load/run_plan.h"

#include <algorithm>

#include "core/clock.h"
#include "load/load_model.h"

namespace hail {

namespace {
// Descriptors besides connections: stdio, epoll and eventfd per worker, output files, slack.
constexpr uint64_t kFdSlack = 64;

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

std::vector<StepInfo> step_infos(const RunOptions& options, double initial) {
  std::vector<StepInfo> steps;
  if (options.stages.empty()) return steps;
  StageCurve curve(options.stages, initial);
  for (size_t i = 0; i < curve.stages().size(); ++i) {
    const Stage& st = curve.stages()[i];
    if (st.duration_ns == 0) continue;
    steps.push_back(StepInfo{curve.stage_start_ns(i), curve.stage_start_value(i), st.target});
  }
  return steps;
}

// n split over `parts`: the first n % parts take one more.
uint64_t share_of(uint64_t n, uint32_t parts, uint32_t i) {
  return slice_share(n, parts, i);
}

// What a shard takes of a whole-test quantity; a shard left with none of it cannot run.
Result<uint64_t> shard_part(uint64_t whole, const ShardSpec& shard, const char* what) {
  const uint64_t part = slice_share(whole, shard.count, shard.index);
  if (whole > 0 && part == 0) {
    return make_error(std::string(what) + " " + std::to_string(whole) + " split over " +
                      std::to_string(shard.count) + " shards leaves shard " +
                      std::to_string(shard.index) + " none: give at least one per shard");
  }
  return part;
}

// One seed for every worker and shard. Shards of one test must agree on it without talking:
// --seed, else the shared --start-at instant, else a fixed value.
uint64_t run_seed(const RunOptions& options) {
  if (options.seed != 0) return options.seed;
  if (!options.shard.sharded()) return mono_now_ns();
  return options.start_at_unix_ns != 0 ? options.start_at_unix_ns : 0x68a11ull;
}

// Closed loop with stages: the curve's peak is the connection capacity; -c is not used.
uint32_t whole_test_connections(const RunOptions& options) {
  const bool staged_closed_loop = !options.stages.empty() && !(options.rate_per_s > 0);
  return staged_closed_loop ? max_curve_connections(options) : options.connections;
}
}  // namespace

Status check_shard_split(const RunOptions& options) {
  if (auto c = shard_part(whole_test_connections(options), options.shard, "-c"); !c) {
    return c.error();
  }
  if (auto n = shard_part(options.requests, options.shard, "-n"); !n) return n.error();
  return ok_status();
}

uint32_t effective_threads(uint32_t requested, uint32_t connections) {
  uint32_t threads = requested;
  if (threads == 0) threads = usable_cpus();
  return std::max(1u, std::min(threads, connections));
}

Result<RunPlan> plan_run(const RunOptions& options) {
  auto targets = plan_targets(options);
  if (!targets) return targets.error();
  RunPlan plan;
  plan.options = options;
  plan.model = options.load_model ? options.load_model : default_load_model(options);
  plan.open_loop = plan.model->open_loop();
  const bool rate_mode = options.rate_per_s > 0;
  plan.initial = rate_mode ? options.rate_per_s : options.stages_initial;
  const ShardSpec& shard = options.shard;
  const uint32_t whole_connections = whole_test_connections(options);
  auto connections = shard_part(whole_connections, shard, "-c");
  if (!connections) return connections.error();
  auto shard_requests = shard_part(options.requests, shard, "-n");
  if (!shard_requests) return shard_requests.error();
  plan.connections = static_cast<uint32_t>(connections.value());
  plan.whole_connections = whole_connections;
  plan.threads = effective_threads(options.threads, std::max(1u, plan.connections));
  plan.max_open =
      rate_mode
          ? static_cast<uint32_t>(slice_share(std::max(options.max_connections, whole_connections),
                                              shard.count, shard.index))
          : plan.connections;
  plan.max_open = std::max(plan.max_open, plan.connections);
  plan.seed = run_seed(options);
  // The most a worker holds open: closed loop its connections, rate mode up to its cap.
  const uint32_t per_worker_open = (plan.max_open + plan.threads - 1) / plan.threads;
  auto io = resolve_io(options.io, per_worker_open);
  if (!io) return io.error();
  plan.io = io.value();
  if (Status s = ensure_fd_limit(plan.max_open + kFdSlack + 2ull * plan.threads); !s) {
    return s.error();
  }
  if (targets->groups.size() > plan.connections) {
    return make_error("the --urls file names " + std::to_string(targets->groups.size()) +
                      " hosts: give at least as many connections (-c " +
                      std::to_string(plan.connections) + ")");
  }
  plan.targets = std::move(targets.value());
  plan.curve = curve_with_warmup(options, plan.initial);
  plan.steps = step_infos(options, plan.initial);

  plan.sessions.protocol = options.protocol;
  plan.sessions.pipeline = options.pipeline;
  plan.sessions.http09 = options.http09;
  plan.sessions.http_minor = options.request.http_minor;
  plan.sessions.h2.max_streams = options.streams;
  plan.sessions.h2.window_bits = options.window_bits;

  // Worker w's connection j is the run's connection j * threads + w.
  const uint32_t threads = plan.threads;
  std::vector<std::vector<uint16_t>> groups_of =
      connection_groups(plan.targets.groups, plan.connections, threads, per_worker_open);
  for (uint32_t i = 0; i < threads; ++i) {
    WorkerShare share;
    share.index = i;
    share.connections = static_cast<uint32_t>(share_of(plan.connections, threads, i));
    share.max_connections =
        rate_mode ? static_cast<uint32_t>(share_of(plan.max_open, threads, i)) : share.connections;
    share.max_connections = std::max(share.max_connections, share.connections);
    share.requests = share_of(shard_requests.value(), threads, i);
    if (plan.targets.groups.size() > 1) share.connection_groups = std::move(groups_of[i]);
    plan.shares.push_back(std::move(share));
  }
  return plan;
}

WorkerSlice RunPlan::slice(uint32_t worker) const {
  const uint64_t n = options.shard.count;
  return WorkerSlice{options.shard.index + n * worker, n * threads};
}

void RunPlan::start_clock(uint64_t mono_ns, uint64_t unix_ns) {
  start_ns = mono_ns;
  start_unix_ns = unix_ns;
  measure_start_ns = start_ns + options.warmup_ns;
  end_ns = options.duration_ns ? measure_start_ns + options.duration_ns : 0;
}

WindowSettings RunPlan::windows() const {
  WindowSettings w;
  w.start_ns = start_ns;
  w.measure_start_ns = measure_start_ns;
  w.end_ns = end_ns;
  w.interval_ns = options.interval_ns;
  w.open_loop = open_loop;
  for (const StepInfo& st : steps) w.step_boundaries_ns.push_back(measure_start_ns + st.start_ns);
  if (!steps.empty()) {
    w.step_boundaries_ns.push_back(measure_start_ns +
                                   StageCurve(options.stages, initial).total_duration_ns());
  }
  return w;
}

}  // namespace hail
