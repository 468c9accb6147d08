#include "load/load_model.h"

#include <random>

#include "load/closed_loop_pacer.h"
#include "load/rate_pacer.h"
#include "load/run_plan.h"

namespace hail {

namespace {

class ClosedLoopModel final : public LoadModel {
 public:
  std::unique_ptr<Pacer> make_pacer(const RunPlan& plan, const WorkerShare& share, PacerHost& host,
                                    ThreadScript* script) const override {
    ClosedLoopSettings s;
    s.measure_start_ns = plan.measure_start_ns;
    s.connections = share.connections;
    if (plan.options.requests > 0) s.budget = RequestBudget(share.requests);
    s.think_ns = plan.options.think_ns;
    s.script = script;
    if (!plan.curve.empty()) {
      s.targets.emplace(StageCurve(plan.curve, plan.initial), plan.start_ns);
      s.slice = plan.slice(share.index);
    }
    return std::make_unique<ClosedLoopPacer>(host, std::move(s));
  }
};

class RateModel final : public LoadModel {
 public:
  bool open_loop() const override { return true; }
  std::unique_ptr<Pacer> make_pacer(const RunPlan& plan, const WorkerShare& share, PacerHost& host,
                                    ThreadScript* /*script*/) const override {
    RateSettings s;
    s.measure_start_ns = plan.measure_start_ns;
    if (plan.end_ns != 0) s.end_ns = plan.end_ns;
    s.connections = share.connections;
    if (plan.options.requests > 0) s.budget = RequestBudget(share.requests);
    RateScheduleOptions o;
    o.arrival = plan.options.arrival;
    o.slice = plan.slice(share.index);
    // Every worker walks the same seeded arrival process (schedule.h) and keeps its slice.
    std::mt19937_64 rng(plan.seed);
    std::mt19937_64 later(rng());  // for the schedules of retarget(): the same on every worker
    if (plan.curve.empty()) {
      return std::make_unique<RatePacer>(
          host, s, RateSchedule(plan.options.rate_per_s, plan.start_ns, o, rng), o, later);
    }
    return std::make_unique<RatePacer>(
        host, s, RateSchedule(StageCurve(plan.curve, plan.initial), plan.start_ns, o, rng), o,
        later);
  }
};

}  // namespace

std::shared_ptr<const LoadModel> default_load_model(const RunOptions& options) {
  if (options.rate_per_s > 0) return std::make_shared<RateModel>();
  return std::make_shared<ClosedLoopModel>();
}

}  // namespace hail
