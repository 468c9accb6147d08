// The --slo thresholds as the HTML report shows them: each one's verdict for the thresholds table,
// and the chart line it maps to (a latency percentile on the latency chart and the knee, rps on
// throughput, error_rate on its own per-window chart), its limit in the chart's unit.
// Owner: report. Pure: any thread.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "analysis/run_verdicts.h"
#include "stats/run_result.h"

namespace hail {

struct HtmlThreshold {
  std::string expr;        // as written
  std::string metric;      // SloThreshold::metric_label(); empty when it does not parse
  std::optional<bool> ok;  // nullopt: not judged here (hail search judges each level alone)
  bool applicable = true;  // false: no data for it in this scope (it does not count)
  std::string measured;    // "12.35ms", "0.120%"; empty when not judged or no samples
  std::string detail;      // why missing, where the worst span was
  // The chart it is drawn on: "latency", "service", "throughput", "error_rate"; empty for none
  // (per-tag thresholds, ttfb/connect/tls and counts have no series over time to bound).
  std::string chart;
  std::string series;  // the series it bounds on that chart ("p99", "max", "rps"); may be empty
  double limit = 0;    // in the chart's unit: ms, req/s or percent
};

// A run's thresholds with their whole-run verdicts (unreadable entries fail, with no line).
std::vector<HtmlThreshold> html_thresholds(const RunVerdicts& verdicts);

// Thresholds as written, unjudged: their lines only (hail search's knee).
std::vector<HtmlThreshold> html_threshold_limits(const std::vector<std::string>& slo);

// The error rate (error_rate's definition, in percent) of each display window of `group`
// windows; NaN for a window with no outcome.
std::vector<double> html_error_rate_percent(const RunResult& result, size_t group);

}  // namespace hail
