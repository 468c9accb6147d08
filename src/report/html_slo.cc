#include "report/html_slo.h"

#include <cmath>

#include "analysis/slo_eval.h"

namespace hail {

namespace {

// The latency chart's series, by the percentile they show.
std::string latency_series(const SloThreshold& t) {
  if (t.stat == SloStat::kMax) return "max";
  if (t.stat != SloStat::kPercentile) return "";
  if (t.percentile == 50) return "p50";
  if (t.percentile == 90) return "p90";
  if (t.percentile == 99) return "p99";
  if (t.percentile == 99.9) return "p999";
  return "";
}

// Where the threshold's limit goes, if anywhere.
void place(const SloThreshold& t, HtmlThreshold& h) {
  if (!t.tag.empty()) return;  // the time series has no per-tag windows
  switch (t.metric) {
    case SloMetric::kLatency:
      h.chart = "latency";
      h.series = latency_series(t);
      h.limit = t.limit / 1e6;
      return;
    case SloMetric::kService:
    case SloMetric::kLag:
      h.chart = "service";  // the rate-mode chart of service time and lag p99
      if (t.stat == SloStat::kPercentile && t.percentile == 99) {
        h.series = t.metric == SloMetric::kService ? "service_p99" : "lag_p99";
      }
      h.limit = t.limit / 1e6;
      return;
    case SloMetric::kRps:
      h.chart = "throughput";
      h.series = "rps";
      h.limit = t.limit;
      return;
    case SloMetric::kErrorRate:
      h.chart = "error_rate";
      h.series = "error_rate";
      h.limit = t.limit * 100;
      return;
    default:
      return;
  }
}

}  // namespace

std::vector<HtmlThreshold> html_thresholds(const RunVerdicts& verdicts) {
  std::vector<HtmlThreshold> out;
  for (size_t i = 0; i < verdicts.thresholds.size(); ++i) {
    const SloThreshold& t = verdicts.thresholds[i];
    HtmlThreshold h;
    h.expr = t.text;
    h.metric = t.metric_label();
    if (i < verdicts.slo.checks.size()) {
      const SloCheck& c = verdicts.slo.checks[i];
      h.ok = c.ok;
      h.applicable = c.applicable;
      if (c.value) h.measured = format_slo_value(t, *c.value);
      h.detail = c.detail;
    }
    place(t, h);
    out.push_back(std::move(h));
  }
  for (const std::string& why : verdicts.unreadable) {
    HtmlThreshold h;
    h.expr = why;  // the parser's line, which quotes the expression
    h.ok = false;
    h.detail = "does not parse";
    out.push_back(std::move(h));
  }
  return out;
}

std::vector<HtmlThreshold> html_threshold_limits(const std::vector<std::string>& slo) {
  std::vector<HtmlThreshold> out;
  for (const std::string& expr : slo) {
    auto t = parse_slo(expr);
    if (!t) continue;
    HtmlThreshold h;
    h.expr = t->text;
    h.metric = t->metric_label();
    place(t.value(), h);
    out.push_back(std::move(h));
  }
  return out;
}

std::vector<double> html_error_rate_percent(const RunResult& result, size_t group) {
  SloThreshold error_rate;
  error_rate.metric = SloMetric::kErrorRate;
  const std::vector<WindowStats>& w = result.intervals;
  std::vector<double> out;
  for (size_t first = 0; first < w.size(); first += group) {
    SloCounts counts;
    for (size_t i = first; i < std::min(w.size(), first + group); ++i) {
      counts.add(SloCounts::of_window(w[i]));
    }
    const std::optional<double> rate = slo_scalar_value(error_rate, counts);
    out.push_back(rate ? *rate * 100 : NAN);
  }
  return out;
}

}  // namespace hail
