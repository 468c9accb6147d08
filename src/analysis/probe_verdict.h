// One `hail search` probe judged: its measured windows against the --slo thresholds, each as
// surely as the data allows (pass, fail, or too close to call), plus the numbers of its report row.
// Owner: analysis. Pure functions: any thread.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "analysis/probe_judge.h"
#include "analysis/search_controller.h"
#include "analysis/slo_expr.h"
#include "core/result.h"
#include "stats/monitor_series.h"
#include "stats/time_series.h"

namespace hail {

// Whether a search can judge this threshold probe by probe: it needs per-window data (latency,
// service, lag, the scalars, and the server.* metrics of --monitor; not ttfb, connect, tls or
// per-tag thresholds). The error is one
// line naming the threshold.
Status check_searchable(const SloThreshold& threshold);

struct ProbeJudgementResult {
  Judgement judgement = Judgement::kInconclusive;
  // The first failing threshold, else the first inconclusive one: `p(99)<10ms: 12.31ms`, with
  // the confidence interval's reach for an inconclusive one. Empty on a pass.
  std::string reason;
  ProbeStats stats;           // hail_cpu is the driver's to fill
  double achieved_per_s = 0;  // completed responses per second over the windows
  double outcomes_per_s = 0;  // completed + failed requests per second (what hail got sent out)
};

// How each threshold is judged:
// - pN (or med) of latency, service or lag, with < or <=: the share of responses over the limit
//   against 1 - N/100 (judge_proportion: a confidence interval over the windows); a response at
//   exactly the limit breaks `<`. p(0) (the minimum), and a metric without a single sample in the
//   windows (which fails, or passes when optional), are decided by the point value;
// - error_rate with < or <=: failed requests (every class, and statuses outside 2xx/3xx) against
//   the limit, the same way;
// - rps: the windows' rates, their mean's confidence interval against the limit;
// - the rest (avg, min, max, counts, `over`/`for`, other operators): the value over the windows,
//   which decides alone (an extreme or a count is an observation, not an estimate).
// - server.* (--monitor): the monitors' rows sampled at the ends of the probe's windows
//   (monitors_during), their value (server_verdicts.h) decides alone; none: fails (or passes when
//   optional).
// No window, or windows without a single outcome: inconclusive.
ProbeJudgementResult judge_probe(const std::vector<SloThreshold>& thresholds,
                                 std::span<const WindowStats> windows,
                                 const JudgeOptions& options = {},
                                 std::span<const MonitorSeries> monitors = {});

}  // namespace hail
