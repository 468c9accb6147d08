// RunPlan: everything a run's workers share, derived once from RunOptions before any worker
// starts — the load's times, the load model's parameters, the connection and session settings,
// the resolved targets, the windows' boundaries — and each worker's share of connections and of
// -n. Built on the main thread by plan_run(); read-only afterwards, so any worker thread may read
// it during the run.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "http/session_factory.h"
#include "load/run_options.h"
#include "load/schedule.h"
#include "load/stage_spec.h"
#include "load/targets.h"
#include "load/window_recorder.h"
#include "net/limits.h"

namespace hail {

class LoadModel;

// One worker's part of the run.
struct WorkerShare {
  uint32_t index = 0;
  // Connections opened at the start (closed loop with stages: this worker's share of the curve's
  // peak; rate mode: its share of -c).
  uint32_t connections = 0;
  // Connections this worker may have (rate mode: its share of --max-connections); its connection
  // slots. At least `connections`.
  uint32_t max_connections = 0;
  uint64_t requests = 0;  // its share of -n (0 without -n, or when -n < threads)
  // The target group of each of its connection slots (connection_groups()); empty: all group 0.
  std::vector<uint16_t> connection_groups;
};

// A stage with a duration, as its row reports it: where it starts (relative to the measured
// phase) and the target it moves between.
struct StepInfo {
  uint64_t start_ns = 0;
  double from = 0;
  double to = 0;
};

struct RunPlan {
  RunOptions options;  // as given (front-ends' fields included)
  std::shared_ptr<const LoadModel> model;

  uint32_t threads = 1;
  // Closed loop: the connections (with stages: the curve's peak). Rate mode: -c, opened at start.
  uint32_t connections = 0;
  uint32_t max_open = 0;           // connections open at most over all workers
  uint32_t whole_connections = 0;  // `connections` of the whole test, all shards together
  bool open_loop = false;
  // The load curve the workers follow from start_ns: a warm-up is a hold at the stages' starting
  // value, then the stages. Empty without stages. `initial` is where it starts.
  std::vector<Stage> curve;
  double initial = 0;
  std::vector<StepInfo> steps;  // the measured stages' rows (empty without stages)

  SessionSettings sessions;
  TargetPlan targets;
  std::vector<WorkerShare> shares;  // one per worker
  // The seed of the run's random choices (Poisson arrivals, random mixes): every worker — and
  // every shard — walks the same seeded sequences and keeps its own slice of them.
  uint64_t seed = 0;
  IoBackend io = IoBackend::kEpoll;  // --io resolved: every worker's loop uses this one

  // Monotonic times, set by start_clock(): the load's start (warm-up included), the measured
  // phase's start and planned end (0: none), and the start on the wall clock.
  uint64_t start_ns = 0;
  uint64_t start_unix_ns = 0;
  uint64_t measure_start_ns = 0;
  uint64_t end_ns = 0;
  // --start-at an instant already past when the workers were ready: by how much (the load starts
  // at once).
  uint64_t start_late_ns = 0;

  // Worker w's part of the whole test's plan: slice shard + N * w of N * threads, so that the
  // shards' workers interleave exactly (planned request k goes to slice k mod (N * threads), and
  // shard i's slices are those congruent to i mod N, whatever thread count each shard runs).
  WorkerSlice slice(uint32_t worker) const;

  // The window boundaries every worker uses (times absolute: valid after start_clock()).
  WindowSettings windows() const;
  // Fixes the run's times, the load starting at start_ns (monotonic) = start_unix_ns (wall).
  void start_clock(uint64_t mono_ns, uint64_t unix_ns);
};

// The plan of a run: resolves targets, splits connections and -n over the workers, derives the
// curve and the steps, chooses the load model. Errors: unresolvable hosts, resource limits, more
// hosts than connections.
Result<RunPlan> plan_run(const RunOptions& options);

// A shard runs its part of the whole test's connections and -n: an error when the split leaves
// this shard none of either (a usage mistake, found before anything is resolved or opened).
Status check_shard_split(const RunOptions& options);

// Threads actually used for a run: -t, or one per usable CPU, never more than connections.
uint32_t effective_threads(uint32_t requested, uint32_t connections);

}  // namespace hail
