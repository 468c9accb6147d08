#include "analysis/run_verdicts.h"

namespace hail {

RunVerdicts judge_run(const RunResult& result) {
  RunVerdicts v;
  for (const std::string& text : result.slo) {
    auto threshold = parse_slo(text);
    if (threshold) {
      v.thresholds.push_back(std::move(threshold.value()));
    } else {
      v.unreadable.push_back(threshold.error().message);
    }
  }
  if (!v.thresholds.empty()) {
    v.slo = evaluate_slos(v.thresholds, result);
    if (!result.steps.empty()) v.steps = evaluate_slo_steps(v.thresholds, result);
  }
  for (const std::string& why : v.unreadable) {
    SloCheck check;
    check.expr = why;
    check.metric = "?";
    check.detail = "not a threshold this hail reads";
    v.slo.checks.push_back(check);
    v.slo.ok = false;
  }
  v.health = check_generator_health(result);
  return v;
}

}  // namespace hail
