// --slo-abort while a run goes on: the thresholds judged window by window as the workers close
// them, so the run stops as soon as one can no longer pass (analysis/slo_eval.h says which can).
// Owner: cli (run_and_report). Main thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/slo_eval.h"
#include "stats/time_series.h"

namespace hail {

class SloWatch {
 public:
  // No thresholds: check() never stops anything. The texts were parsed once already.
  explicit SloWatch(const std::vector<std::string>& thresholds);

  // Feeds the windows every worker has closed since the last call (a window is whole once
  // `workers` sources merged into it) and returns why the run must stop, if it must:
  // `"max<1s": max was 2.00s by 5.0 s`.
  std::optional<std::string> check(const std::vector<WindowStats>& windows, uint32_t workers);

 private:
  std::optional<SloEvaluator> evaluator_;
  size_t fed_ = 0;
};

}  // namespace hail
