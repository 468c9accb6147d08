#include "analysis/probe_verdict.h"

#include <cmath>

#include "analysis/server_verdicts.h"
#include "analysis/slo_eval.h"
#include "analysis/slo_names.h"
#include "core/strings.h"

namespace hail {

namespace {

bool at_most(SloOp op) {
  return op == SloOp::kLess || op == SloOp::kLessEqual;
}
bool at_least(SloOp op) {
  return op == SloOp::kGreater || op == SloOp::kGreaterEqual;
}

const EncodedHistogram* distribution_of(const WindowStats& w, SloMetric metric) {
  switch (metric) {
    case SloMetric::kLatency:
      return &w.latency;
    case SloMetric::kService:
      return &w.service;
    case SloMetric::kLag:
      return &w.lag;
    default:
      return nullptr;
  }
}

uint64_t failures(const WindowStats& w) {
  return w.error_total() + w.status_errors;
}

// How many of the histogram's values break `value op limit_ns` (op < or <=), counted the way
// count_above() counts (each slot's reported value), so that the share agrees with the point
// value: values are whole nanoseconds, so `< L` holds up to ceil(L) - 1 and `<= L` up to floor(L).
uint64_t count_breaking(const Histogram& h, SloOp op, double limit_ns) {
  if (limit_ns >= 1.8e19) return 0;
  if (op == SloOp::kLess) {
    if (limit_ns <= 0) return h.count();
    return count_above(h, static_cast<uint64_t>(std::ceil(limit_ns)) - 1);
  }
  if (limit_ns < 0) return h.count();
  return count_above(h, static_cast<uint64_t>(std::floor(limit_ns)));
}

// The confidence judgement of one threshold, when it has one (see the header); nullopt: the
// point value decides.
std::optional<ProportionJudgement> proportion_judgement(const SloThreshold& t,
                                                        std::span<const WindowStats> windows,
                                                        const JudgeOptions& options) {
  if (t.for_ns > 0 || t.over_ns > 0 || !at_most(t.op)) return std::nullopt;
  std::vector<WindowCount> counts;
  counts.reserve(windows.size());
  if (t.metric == SloMetric::kErrorRate) {
    if (t.op == SloOp::kLess && !(t.limit > 0)) return std::nullopt;  // never holds: point value
    for (const WindowStats& w : windows)
      counts.push_back({w.completed + w.error_total(), failures(w)});
    return judge_proportion(counts, t.limit, options);
  }
  // p(0) is the minimum: an observation, like min (as a share it would be "at most 100% over").
  if (!t.is_distribution() || t.stat != SloStat::kPercentile || !(t.percentile > 0)) {
    return std::nullopt;
  }
  Histogram scratch;
  uint64_t samples = 0;
  for (const WindowStats& w : windows) {
    const EncodedHistogram* e = distribution_of(w, t.metric);
    if (e == nullptr) return std::nullopt;
    scratch.reset();
    e->add_to(scratch);
    counts.push_back({scratch.count(), count_breaking(scratch, t.op, t.limit)});
    samples += scratch.count();
  }
  // No sample of the metric at all (service and lag in a closed loop, latency when every request
  // failed): the point check decides, which fails it, or passes it when optional ("?").
  if (samples == 0) return std::nullopt;
  return judge_proportion(counts, 1.0 - t.percentile / 100.0, options);
}

std::optional<MeanJudgement> rate_judgement(const SloThreshold& t,
                                            std::span<const WindowStats> windows,
                                            const JudgeOptions& options) {
  if (t.metric != SloMetric::kRps || t.for_ns > 0 || t.over_ns > 0) return std::nullopt;
  if (!at_most(t.op) && !at_least(t.op)) return std::nullopt;
  std::vector<double> rates;
  for (const WindowStats& w : windows) rates.push_back(w.requests_per_s());
  return judge_window_mean(rates, t.limit, at_least(t.op) ? Bound::kAtLeast : Bound::kAtMost,
                           options);
}

void fill_stats(std::span<const WindowStats> windows, ProbeJudgementResult& r) {
  Histogram latency;
  Histogram lag;
  Histogram service;
  uint64_t completed = 0;
  uint64_t outcomes = 0;
  uint64_t failed = 0;
  uint64_t span_ns = 0;
  for (const WindowStats& w : windows) {
    w.latency.add_to(latency);
    w.lag.add_to(lag);
    w.service.add_to(service);
    completed += w.completed;
    outcomes += w.completed + w.error_total();
    failed += failures(w);
    span_ns += w.duration_ns();
  }
  r.stats.p50_ns = latency.value_at_percentile(50);
  r.stats.p90_ns = latency.value_at_percentile(90);
  r.stats.p99_ns = latency.value_at_percentile(99);
  r.stats.p999_ns = latency.value_at_percentile(99.9);
  r.stats.max_ns = latency.max();
  r.stats.lag_p99_ns = lag.value_at_percentile(99);
  r.stats.service_p99_ns = service.value_at_percentile(99);
  r.stats.error_rate =
      outcomes > 0 ? static_cast<double>(failed) / static_cast<double>(outcomes) : 0;
  const double seconds = static_cast<double>(span_ns) / 1e9;
  r.achieved_per_s = seconds > 0 ? static_cast<double>(completed) / seconds : 0;
  r.outcomes_per_s = seconds > 0 ? static_cast<double>(outcomes) / seconds : 0;
}

}  // namespace

Status check_searchable(const SloThreshold& t) {
  if (!t.tag.empty()) {
    return make_error(quote(t.text) +
                      ": hail search judges each probe from its time series, which has no "
                      "per-tag windows");
  }
  if (!slo_metric_in_windows(t.metric) && !slo_names::is_server_metric(t.metric)) {
    return make_error(quote(t.text) + ": " + t.metric_label() +
                      " has no per-window data; hail search judges latency, service, lag, "
                      "error_rate, rps and the error counts");
  }
  return ok_status();
}

namespace {

// With none of n samples beyond the limit, the interval's upper end is 1 - (alpha/2)^(1/n)
// (Clopper-Pearson): a tail threshold such as p(99) needs a minimum n before any probe can pass
// it, however fast the server. Says how many, so that the user lengthens --probe (or the rate).
std::string too_few_samples(const SloThreshold& t, std::span<const WindowStats> windows,
                            uint64_t samples, const JudgeOptions& options) {
  double allowed = 0;
  if (t.metric == SloMetric::kErrorRate) {
    allowed = t.limit;
  } else if (t.stat == SloStat::kPercentile) {
    allowed = 1.0 - t.percentile / 100.0;
  }
  if (!(allowed > 0 && allowed < 1) || windows.empty()) return {};
  const double alpha = 1.0 - options.confidence;
  const double needed = std::ceil(std::log(alpha / 2) / std::log(1.0 - allowed));
  if (static_cast<double>(samples) >= needed) return {};
  return string_printf(
      "; %llu requests cannot show it at this confidence, %.0f can: lengthen "
      "--probe or start higher (--from)",
      static_cast<unsigned long long>(samples), needed);
}

}  // namespace

ProbeJudgementResult judge_probe(const std::vector<SloThreshold>& thresholds,
                                 std::span<const WindowStats> windows, const JudgeOptions& options,
                                 std::span<const MonitorSeries> monitors) {
  ProbeJudgementResult r;
  fill_stats(windows, r);
  uint64_t outcomes = 0;
  WindowStats totals;
  for (const WindowStats& w : windows) {
    outcomes += w.completed + w.error_total();
    merge_window(totals, w);
  }
  if (windows.empty() || outcomes == 0) {
    r.judgement = Judgement::kInconclusive;
    r.reason = "no request completed or failed while measuring";
    return r;
  }
  SloEvaluator evaluator(thresholds, windows.front().start_ns);
  for (const WindowStats& w : windows) evaluator.add_window(w);
  const SloReport point = evaluator.finish(totals);
  RunResult server_side;  // server.*: the monitors' rows of this probe only
  server_side.monitors = monitors_during(monitors, windows);

  Judgement overall = Judgement::kPass;
  std::string fail_reason;
  std::string unsure_reason;
  for (size_t i = 0; i < thresholds.size() && i < point.checks.size(); ++i) {
    const SloThreshold& t = thresholds[i];
    const SloCheck& check = point.checks[i];
    const std::string value =
        check.value ? format_slo_value(t, *check.value) : std::string("no samples");
    Judgement j = check.ok ? Judgement::kPass : Judgement::kFail;
    std::string why = t.text + ": " + value;
    if (slo_names::is_server_metric(t.metric)) {
      const std::optional<double> v = server_metric(t.metric, server_side);
      j = (v ? slo_holds(t.op, *v, t.limit) : t.optional) ? Judgement::kPass : Judgement::kFail;
      why = t.text + ": " + (v ? format_slo_value(t, *v) : std::string("no server samples"));
    } else if (auto p = proportion_judgement(t, windows, options)) {
      j = p->judgement;
      if (j == Judgement::kInconclusive) {
        why += string_printf(" (%.3g%% over the limit, %.3g%%..%.3g%% at %.0f%% confidence)",
                             p->fraction * 100, p->interval.low * 100, p->interval.high * 100,
                             options.confidence * 100);
        if (p->above == 0) why += too_few_samples(t, windows, p->total, options);
      }
    } else if (auto m = rate_judgement(t, windows, options)) {
      j = m->judgement;
      if (j == Judgement::kInconclusive) {
        why += string_printf(" (windows' mean %.1f, %.1f..%.1f)", m->mean, m->interval.low,
                             m->interval.high);
      }
    }
    if (j == Judgement::kFail && fail_reason.empty()) fail_reason = why;
    if (j == Judgement::kInconclusive && unsure_reason.empty()) unsure_reason = why;
    overall = combine(overall, j);
  }
  r.judgement = overall;
  if (overall == Judgement::kFail) r.reason = fail_reason;
  if (overall == Judgement::kInconclusive) r.reason = unsure_reason;
  return r;
}

}  // namespace hail
