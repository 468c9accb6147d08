#include "analysis/slo_eval.h"

#include <algorithm>
#include <utility>

#include "analysis/server_verdicts.h"
#include "analysis/slo_names.h"
#include "core/strings.h"

namespace hail {

namespace {

uint64_t failures(const SloCounts& c) {
  uint64_t n = c.status_errors;
  for (uint64_t e : c.errors) n += e;
  return n;
}

uint64_t error_count(SloErrors which, const SloCounts& c) {
  switch (which) {
    case SloErrors::kAll:
      return failures(c);
    case SloErrors::kStatus:
      return c.status_errors;
    default:
      // kConnect .. kStream follow ErrorClass's order, one after kAll.
      return c.errors[static_cast<size_t>(which) - 1];
  }
}

std::optional<double> scalar_value(const SloThreshold& t, const SloCounts& c) {
  switch (t.metric) {
    case SloMetric::kErrorRate:
      if (c.error_rate_base == 0) return std::nullopt;
      return static_cast<double>(failures(c)) / static_cast<double>(c.error_rate_base);
    case SloMetric::kRps:
      if (c.duration_ns == 0) return std::nullopt;
      return static_cast<double>(c.completed) * 1e9 / static_cast<double>(c.duration_ns);
    case SloMetric::kRequests:
      return static_cast<double>(c.completed);
    case SloMetric::kErrors:
      return static_cast<double>(error_count(t.errors, c));
    default:
      return std::nullopt;
  }
}

// A statistic of anything shaped like a Histogram (Histogram, HistogramSpan).
template <class D>
std::optional<double> stat_value(const SloThreshold& t, const D& d) {
  if (d.count() == 0) return std::nullopt;
  switch (t.stat) {
    case SloStat::kPercentile:
      return static_cast<double>(d.value_at_percentile(t.percentile));
    case SloStat::kAvg:
      return d.mean();
    case SloStat::kMin:
      return static_cast<double>(d.min());
    case SloStat::kMax:
      return static_cast<double>(d.max());
    case SloStat::kNone:
      break;
  }
  return std::nullopt;
}

const EncodedHistogram& window_histogram(SloMetric m, const WindowStats& w) {
  switch (m) {
    case SloMetric::kService:
      return w.service;
    case SloMetric::kLag:
      return w.lag;
    default:
      return w.latency;
  }
}

const Histogram* run_histogram(SloMetric m, const RunResult& r) {
  switch (m) {
    case SloMetric::kLatency:
      return &r.latency;
    case SloMetric::kService:
      return &r.service_time;
    case SloMetric::kTtfb:
      return &r.ttfb;
    case SloMetric::kConnect:
      return &r.connect_time;
    case SloMetric::kLag:
      return &r.lag;
    case SloMetric::kTls:
      return &r.tls_handshake;
    default:
      return nullptr;
  }
}

// Whether a failing value can never pass again as more windows add to the run: the quantity only
// moves away from the limit (max and counts only grow, min only falls).
bool failure_is_final(const SloThreshold& t, double value) {
  const bool grows = (t.is_distribution() && t.stat == SloStat::kMax) ||
                     t.metric == SloMetric::kRequests || t.metric == SloMetric::kErrors;
  const bool falls = t.is_distribution() && t.stat == SloStat::kMin;
  switch (t.op) {
    case SloOp::kLess:
    case SloOp::kLessEqual:
      return grows;
    case SloOp::kGreater:
    case SloOp::kGreaterEqual:
      return falls;
    case SloOp::kEqual:
      return (grows && value > t.limit) || (falls && value < t.limit);
    case SloOp::kNotEqual:
      return false;
  }
  return false;
}

// Why a whole-run metric has no value.
std::string missing_reason(const SloThreshold& t) {
  switch (t.metric) {
    case SloMetric::kLatency:
      return "no response completed";
    case SloMetric::kService:
    case SloMetric::kLag:
      return "no samples (service time and lag exist in open-loop runs, -R, only)";
    case SloMetric::kTtfb:
      return "no first byte was received";
    case SloMetric::kConnect:
      return "no connection was timed";
    case SloMetric::kTls:
      return "no TLS handshake (not an https:// run?)";
    case SloMetric::kErrorRate:
      return "no request was attempted";
    case SloMetric::kRps:
      return "no measured time";
    case SloMetric::kServerCpu:
    case SloMetric::kServerCpuMax:
    case SloMetric::kServerRss:
    case SloMetric::kServerRssGrowth:
    case SloMetric::kServerFds:
      return "no server samples (give --monitor pid:N or name:NAME; rss_growth needs 3 measured "
             "windows)";
    default:
      return "no samples";
  }
}

bool worse(SloOp op, double candidate, double current) {
  switch (op) {
    case SloOp::kLess:
    case SloOp::kLessEqual:
      return candidate > current;
    case SloOp::kGreater:
    case SloOp::kGreaterEqual:
      return candidate < current;
    default:
      return false;
  }
}

}  // namespace

std::optional<double> slo_scalar_value(const SloThreshold& threshold, const SloCounts& counts) {
  return scalar_value(threshold, counts);
}

SloCounts SloCounts::of_window(const WindowStats& window) {
  SloCounts c;
  c.completed = window.completed;
  c.status_errors = window.status_errors;
  c.errors = window.errors;
  c.error_rate_base = window.completed + window.error_total();
  c.duration_ns = window.duration_ns();
  return c;
}

SloCounts SloCounts::of_run(const RunResult& run) {
  SloCounts c;
  const Counters& k = run.counters;
  c.completed = k.completed;
  c.status_errors = k.status_errors;
  c.errors = k.errors;
  // Connect errors and unsolicited responses consume no request: each is one more event.
  c.error_rate_base = k.attempted + k.error(ErrorClass::kConnect) + k.unsolicited;
  c.duration_ns = run.duration_ns;
  return c;
}

SloCounts SloCounts::of_tag(const TagResult& tag, uint64_t duration_ns) {
  SloCounts c;
  c.completed = tag.completed;
  c.errors = tag.errors;
  for (const auto& [status, n] : tag.status_codes) {
    if (status < 200 || status >= 400) c.status_errors += n;
  }
  c.error_rate_base = tag.completed + tag.error_total();
  c.duration_ns = duration_ns;
  return c;
}

void SloCounts::add(const SloCounts& o) {
  completed += o.completed;
  status_errors += o.status_errors;
  for (size_t i = 0; i < errors.size(); ++i) errors[i] += o.errors[i];
  error_rate_base += o.error_rate_base;
  duration_ns += o.duration_ns;
}

void SloCounts::subtract(const SloCounts& o) {
  completed -= o.completed;
  status_errors -= o.status_errors;
  for (size_t i = 0; i < errors.size(); ++i) errors[i] -= o.errors[i];
  error_rate_base -= o.error_rate_base;
  duration_ns -= o.duration_ns;
}

SloEvaluator::SloEvaluator(std::vector<SloThreshold> thresholds,
                           std::optional<uint64_t> measure_start_ns)
    : thresholds_(std::move(thresholds)),
      states_(thresholds_.size()),
      measure_start_ns_(measure_start_ns) {}

double SloEvaluator::seconds(uint64_t ns) const {
  const uint64_t start = measure_start_ns_.value_or(0);
  return ns > start ? static_cast<double>(ns - start) / 1e9 : 0.0;
}

void SloEvaluator::add_window(const WindowStats& window) {
  if (window.warmup) return;
  if (!measure_start_ns_) measure_start_ns_ = window.start_ns;
  any_window_ = true;
  last_end_ns_ = window.end_ns;
  for (size_t i = 0; i < thresholds_.size(); ++i) {
    const SloThreshold& t = thresholds_[i];
    if (t.windowed()) {
      add_windowed(i, window);
    } else if (t.tag.empty() && slo_metric_in_windows(t.metric)) {
      add_cumulative(i, window);
    }
  }
}

void SloEvaluator::add_windowed(size_t i, const WindowStats& window) {
  const SloThreshold& t = thresholds_[i];
  State& s = states_[i];
  State::SpanWindow entry{window.start_ns, window.end_ns, SloCounts::of_window(window)};
  s.span_counts.add(entry.counts);
  if (t.is_distribution()) s.histogram.push_back(window_histogram(t.metric, window));
  s.span.push_back(std::move(entry));
  // Keep the shortest run of windows ending here that lasts at least W (W = 0: this window alone).
  while (s.span.size() > 1 &&
         s.span_counts.duration_ns - s.span.front().counts.duration_ns >= t.over_ns) {
    s.span_counts.subtract(s.span.front().counts);
    if (t.is_distribution()) s.histogram.pop_front();
    s.span.pop_front();
  }
  if (s.span_counts.duration_ns >= t.over_ns) {
    evaluate_span(i, s, seconds(window.end_ns), window.duration_ns());
  }
}

void SloEvaluator::evaluate_span(size_t i, State& s, double end_s, uint64_t last_window_ns) {
  const SloThreshold& t = thresholds_[i];
  const std::optional<double> v =
      t.is_distribution() ? stat_value(t, s.histogram) : scalar_value(t, s.span_counts);
  s.evaluated = true;
  if (!v) {
    s.stretch_ns = 0;  // no samples: no evidence of a violation
    return;
  }
  s.sampled = true;
  const bool holds = slo_holds(t.op, *v, t.limit);
  if (t.op == SloOp::kEqual || t.op == SloOp::kNotEqual) {
    if (!s.fail_seen) {
      s.worst = *v;
      s.worst_end_s = end_s;
      s.fail_seen = !holds;
    }
  } else if (!s.worst || worse(t.op, *v, *s.worst)) {
    s.worst = *v;
    s.worst_end_s = end_s;
  }
  if (holds) {
    s.stretch_ns = 0;
    return;
  }
  s.stretch_ns += last_window_ns;
  s.longest_stretch_ns = std::max(s.longest_stretch_ns, s.stretch_ns);
  if (s.breach_s || (t.for_ns > 0 && s.stretch_ns < t.for_ns)) return;
  s.breach_s = end_s;
  s.doomed = true;
  s.doomed_s = end_s;
  s.doomed_reason = quote(t.text) + ": " + t.metric_label() + " was " + format_slo_value(t, *v);
  s.doomed_reason += t.over_ns > 0 ? " in the span ending at " : " in the window ending at ";
  s.doomed_reason += string_printf("%.1f s", end_s);
  if (t.for_ns > 0) {
    s.doomed_reason +=
        string_printf(", violated for %.1f s", static_cast<double>(s.stretch_ns) / 1e9);
  }
}

void SloEvaluator::add_cumulative(size_t i, const WindowStats& window) {
  const SloThreshold& t = thresholds_[i];
  State& s = states_[i];
  s.cumulative_counts.add(SloCounts::of_window(window));
  std::optional<double> v;
  if (t.is_distribution()) {
    const EncodedHistogram& h = window_histogram(t.metric, window);
    if (!s.cumulative) s.cumulative.emplace(h.highest_trackable_ns());
    if (h.count() != 0 && h.highest_trackable_ns() == s.cumulative->highest_trackable_ns()) {
      h.add_to(*s.cumulative);
    }
    v = stat_value(t, *s.cumulative);
  } else {
    v = scalar_value(t, s.cumulative_counts);
  }
  if (!v || slo_holds(t.op, *v, t.limit)) return;
  const double end_s = seconds(window.end_ns);
  if (!s.cumulative_breach_s) s.cumulative_breach_s = end_s;
  if (!s.doomed && failure_is_final(t, *v)) {
    s.doomed = true;
    s.doomed_s = end_s;
    s.doomed_reason = quote(t.text) + ": " + t.metric_label() + " reached " +
                      format_slo_value(t, *v) + string_printf(" by %.1f s", end_s);
  }
}

bool SloEvaluator::can_still_pass(size_t i) const {
  return i < states_.size() && !states_[i].doomed;
}

std::optional<SloAbort> SloEvaluator::abort() const {
  std::optional<SloAbort> first;
  for (size_t i = 0; i < states_.size(); ++i) {
    const State& s = states_[i];
    if (s.doomed && (!first || s.doomed_s < first->at_s)) {
      first = SloAbort{i, s.doomed_s, s.doomed_reason};
    }
  }
  return first;
}

SloCheck SloEvaluator::windowed_check(size_t i) const {
  const SloThreshold& t = thresholds_[i];
  const State& s = states_[i];
  SloCheck c;
  c.expr = t.text;
  c.metric = t.metric_label();
  const auto missing = [&](std::string why) {
    c.ok = t.optional;
    c.detail = std::move(why);
    if (t.optional) c.detail += " (optional: passes)";
    return c;
  };
  if (!any_window_) {
    return missing("no time series: \"over\" and \"for\" need the run's windows");
  }
  if (!s.evaluated) {
    // The run was shorter than W: one span, all of it.
    const std::optional<double> v =
        t.is_distribution() ? stat_value(t, s.histogram) : scalar_value(t, s.span_counts);
    if (!v) return missing("no window had samples");
    c.value = v;
    const bool violated = !slo_holds(t.op, *v, t.limit);
    c.ok = !violated || (t.for_ns > 0 && s.span_counts.duration_ns < t.for_ns);
    if (!c.ok) c.first_breach_s = seconds(last_end_ns_);
    c.detail = string_printf("the run (%.1f s) was shorter than the window: checked once, whole",
                             static_cast<double>(s.span_counts.duration_ns) / 1e9);
    return c;
  }
  if (!s.sampled) return missing("no window had samples");
  c.value = s.worst;
  c.ok = !s.breach_s;
  c.first_breach_s = s.breach_s;
  if (t.for_ns > 0 && s.longest_stretch_ns > 0) {
    c.detail = string_printf("longest violation %.1f s (a breach needs %.1f s)",
                             static_cast<double>(s.longest_stretch_ns) / 1e9,
                             static_cast<double>(t.for_ns) / 1e9);
  } else if (s.worst_end_s) {
    c.detail =
        string_printf(t.over_ns > 0 ? "worst span ended at %.1f s" : "worst window ended at %.1f s",
                      *s.worst_end_s);
  }
  return c;
}

SloCheck SloEvaluator::whole_run_check(size_t i, std::optional<double> value,
                                       std::string detail) const {
  const SloThreshold& t = thresholds_[i];
  const State& s = states_[i];
  SloCheck c;
  c.expr = t.text;
  c.metric = t.metric_label();
  c.value = value;
  if (!value) {
    c.ok = t.optional;
    c.detail = std::move(detail);
    if (t.optional) c.detail += " (optional: passes)";
    return c;
  }
  c.ok = slo_holds(t.op, *value, t.limit);
  if (!c.ok && any_window_ && t.tag.empty() && slo_metric_in_windows(t.metric)) {
    c.first_breach_s = s.cumulative_breach_s.value_or(seconds(last_end_ns_));
  }
  return c;
}

SloReport SloEvaluator::finish(const RunResult& run) const {
  SloReport report;
  for (size_t i = 0; i < thresholds_.size(); ++i) {
    const SloThreshold& t = thresholds_[i];
    SloCheck c;
    if (t.windowed()) {
      c = windowed_check(i);
    } else if (!t.tag.empty()) {
      const TagResult* tag = nullptr;
      for (const TagResult& candidate : run.tags) {
        if (candidate.name == t.tag) tag = &candidate;
      }
      if (tag == nullptr) {
        c = whole_run_check(i, std::nullopt, "no tag named " + quote(t.tag) + " in the run");
      } else if (t.is_distribution()) {
        c = whole_run_check(i, stat_value(t, tag->latency), missing_reason(t));
      } else {
        c = whole_run_check(i, scalar_value(t, SloCounts::of_tag(*tag, run.duration_ns)),
                            missing_reason(t));
      }
    } else if (t.is_distribution()) {
      c = whole_run_check(i, stat_value(t, *run_histogram(t.metric, run)), missing_reason(t));
    } else if (slo_names::is_server_metric(t.metric)) {
      c = whole_run_check(i, server_metric(t.metric, run), missing_reason(t));
    } else {
      c = whole_run_check(i, scalar_value(t, SloCounts::of_run(run)), missing_reason(t));
    }
    report.ok = report.ok && c.ok;
    report.checks.push_back(std::move(c));
  }
  return report;
}

SloReport SloEvaluator::finish(const WindowStats& totals) const {
  SloReport report;
  for (size_t i = 0; i < thresholds_.size(); ++i) {
    const SloThreshold& t = thresholds_[i];
    SloCheck c;
    if (t.windowed() && any_window_) {
      c = windowed_check(i);
    } else if (t.windowed() || !t.tag.empty() || !slo_metric_in_windows(t.metric)) {
      c.expr = t.text;
      c.metric = t.metric_label();
      c.ok = true;
      c.applicable = false;
      c.detail = t.windowed() ? "no interval of the time series lies wholly inside the step"
                              : "not measured per step";
    } else if (t.is_distribution()) {
      c = whole_run_check(i, stat_value(t, window_histogram(t.metric, totals).decode()),
                          missing_reason(t));
    } else {
      c = whole_run_check(i, scalar_value(t, SloCounts::of_window(totals)), missing_reason(t));
    }
    report.ok = report.ok && (c.ok || !c.applicable);
    report.checks.push_back(std::move(c));
  }
  return report;
}

SloReport evaluate_slos(const std::vector<SloThreshold>& thresholds, const RunResult& run) {
  SloEvaluator evaluator(thresholds);
  for (const WindowStats& w : run.intervals) evaluator.add_window(w);
  return evaluator.finish(run);
}

SloStepsReport evaluate_slo_steps(const std::vector<SloThreshold>& thresholds,
                                  const RunResult& run) {
  SloStepsReport out;
  if (run.steps.empty()) return out;
  // One clock for every step: first_breach_s counts from the measured phase's start.
  uint64_t measure_start_ns = run.steps.front().start_ns;
  for (const WindowStats& w : run.intervals) {
    if (!w.warmup) {
      measure_start_ns = w.start_ns;
      break;
    }
  }
  double best_target = 0;
  for (size_t j = 0; j < run.steps.size(); ++j) {
    const WindowStats& step = run.steps[j];
    SloEvaluator evaluator(thresholds, measure_start_ns);
    for (const WindowStats& w : run.intervals) {
      if (!w.warmup && w.start_ns >= step.start_ns && w.end_ns <= step.end_ns) {
        evaluator.add_window(w);
      }
    }
    SloStepVerdict verdict;
    verdict.step = j;
    verdict.report = evaluator.finish(step);
    verdict.ok = verdict.report.ok;
    if (verdict.ok) {
      const double target = std::max(step.target_start, step.target_end);
      if (!out.highest_passing || target > best_target) {
        out.highest_passing = j;
        best_target = target;
      }
    } else if (!out.first_failing) {
      out.first_failing = j;
    }
    out.steps.push_back(std::move(verdict));
  }
  return out;
}

}  // namespace hail
