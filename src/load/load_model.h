// LoadModel: a kind of load (closed loop, open-loop rate, or one a test or a front-end defines)
// as a factory of per-worker Pacers. The run's model is chosen once, in default_load_model() from
// the flags unless RunOptions::load_model names another; adding a load model is one class, its
// tests, and one flag that sets it. Immutable; shared by every worker.
#pragma once

#include <memory>

#include "load/pacer.h"

namespace hail {

struct RunPlan;
struct RunOptions;
struct WorkerShare;
class ThreadScript;

class LoadModel {
 public:
  virtual ~LoadModel() = default;
  // Whether requests have planned send times that may differ from when they are sent (open loop):
  // latency is then measured from the plan, and service time and lag are kept apart.
  virtual bool open_loop() const { return false; }
  // The Pacer of one worker. `script`: that worker's wrk script (delay()), or null.
  virtual std::unique_ptr<Pacer> make_pacer(const RunPlan& plan, const WorkerShare& share,
                                            PacerHost& host, ThreadScript* script) const = 0;
};

// Closed loop (with think time, -n, and connection-target stages) or, with -R, the open-loop rate
// (fixed or Poisson arrivals, with rate stages).
std::shared_ptr<const LoadModel> default_load_model(const RunOptions& options);

}  // namespace hail
