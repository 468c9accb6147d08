// LiveRun: one run between its start and its end, for the main thread to supervise and, when it
// wants, to steer: the load model's level can change while connections stay open (hail search
// probes one rate after another on warm connections), and the windows merged so far can be read.
// run_load() is start, poll until done, finish. Main thread only; the workers run on their own.
#pragma once

#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "core/result.h"
#include "load/run_options.h"
#include "load/run_plan.h"
#include "load/runner.h"
#include "stats/run_result.h"

namespace hail {

class ScriptRun;
class Worker;

class LiveRun {
 public:
  // The plan and start steps: resolves targets, prepares a script, starts one worker thread per
  // share. Errors as run_load's.
  static Result<std::unique_ptr<LiveRun>> start(const RunOptions& options);
  ~LiveRun();  // stops and joins the workers if finish() was not called
  LiveRun(const LiveRun&) = delete;
  LiveRun& operator=(const LiveRun&) = delete;

  // One supervision step (call it every ~50 ms): the front-end's tick (returning true stops the
  // run: SIGINT), a script error in any worker (stops them all), the windows the workers closed.
  // True once every worker has stopped.
  bool poll(const TickFn& tick);
  // The load model's level changes now, on every worker: the total rate in an open-loop run, the
  // number of open connections in a closed loop (up to the run's connection capacity). Planned
  // requests still waiting for a connection are dropped (never attempted); those in flight finish.
  // A rate of 0 pauses an open loop (progress().in_flight then drains to 0).
  void retarget(double level);
  // Ends the run now (as SIGINT does, but not marked interrupted).
  void stop();

  // How long the supervisor may sleep before its next poll(): a tick, or less when a monitor
  // sample is due sooner (samples land on the windows' boundaries, not up to a tick late).
  uint64_t sleep_ns() const;

  RunProgress progress() const;
  uint32_t workers() const { return static_cast<uint32_t>(workers_.size()); }
  // The time series merged so far (needs --interval); the last windows may still lack workers.
  const std::vector<WindowStats>& intervals() const { return windows_.intervals(); }
  const RunPlan& plan() const { return plan_; }
  // --monitor: the series sampled so far (a copy; empty without monitors).
  std::vector<MonitorSeries> monitors() const;

  // The merge and annotate steps, once poll() returned true. With a script, *script_out receives
  // its states (the front-end calls done() after its report).
  RunResult finish(std::unique_ptr<ScriptRun>* script_out = nullptr);

 private:
  LiveRun() = default;
  void join();
  void sample_due(uint64_t now_ns);

  RunPlan plan_;
  std::unique_ptr<ScriptRun> script_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::thread> threads_;
  WindowMerger windows_{0};
  bool interrupted_ = false;
  bool script_failed_ = false;
  bool done_ = false;
  uint64_t next_sample_ns_ = 0;  // monotonic; 0: no sampler
  uint64_t last_sample_ns_ = 0;
};

}  // namespace hail
