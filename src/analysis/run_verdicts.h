// A run's verdicts: the --slo thresholds its result carries (RunResult::slo), judged over the whole
// measured phase and per stage, next to the generator-health checks. Computed from the result
// alone, so a saved, re-read or merged run gets the very verdict the run printed.
// Owner: analysis. Pure functions and plain values: any thread.
#pragma once

#include <string>
#include <vector>

#include "analysis/generator_health.h"
#include "analysis/slo_eval.h"
#include "analysis/slo_expr.h"
#include "stats/run_result.h"

namespace hail {

struct RunVerdicts {
  std::vector<SloThreshold> thresholds;  // RunResult::slo, parsed
  // Entries of RunResult::slo that do not parse (a hand-edited file): each is a failed check.
  std::vector<std::string> unreadable;
  SloReport slo;         // the whole measured phase; empty without thresholds
  SloStepsReport steps;  // one verdict per stage / ladder step; empty without both
  GeneratorHealth health;

  bool has_slo() const { return !thresholds.empty() || !unreadable.empty(); }
  // Every threshold held (vacuously true without any).
  bool slo_ok() const { return unreadable.empty() && slo.ok; }
};

RunVerdicts judge_run(const RunResult& result);

}  // namespace hail
