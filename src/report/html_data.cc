#include "report/html_data.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

#include "analysis/run_verdicts.h"
#include "report/html_slo.h"
#include "report/json_writer.h"
#include "report/text_report.h"
#include "stats/histogram.h"

namespace hail {

namespace {

// A compact JSON builder for the page: numbers with 6 significant digits (charts need no more),
// arrays of them, and escaped strings.
class Out {
 public:
  void key(std::string_view k) {
    comma();
    JsonWriter::append_escaped(out_, k);
    out_ += ':';
    fresh_ = true;
  }
  void open(char c) {
    comma();
    out_ += c;
    fresh_ = true;
  }
  void close(char c) {
    out_ += c;
    fresh_ = false;
  }
  void number(double v, int digits = 6) {
    comma();
    if (!std::isfinite(v)) {
      out_ += "null";
      return;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    out_ += buf;
  }
  void null() {
    comma();
    out_ += "null";
  }
  void boolean(bool v) {
    comma();
    out_ += v ? "true" : "false";
  }
  void string(std::string_view s) {
    comma();
    JsonWriter::append_escaped(out_, s);
  }
  // A member: "k": v.
  void field(std::string_view k, std::string_view v) {
    key(k);
    string(v);
  }
  void field(std::string_view k, double v) {
    key(k);
    number(v);
  }
  void strings(std::string_view k, const std::vector<std::string>& values) {
    key(k);
    open('[');
    for (const std::string& v : values) string(v);
    close(']');
  }
  template <typename T>
  void numbers(std::string_view k, const std::vector<T>& values) {
    key(k);
    open('[');
    for (T v : values) number(static_cast<double>(v));
    close(']');
  }
  // "</" would end the <script> element the data sits in.
  std::string take() {
    std::string safe;
    safe.reserve(out_.size());
    for (size_t i = 0; i < out_.size(); ++i) {
      safe += out_[i];
      if (out_[i] == '<' && i + 1 < out_.size() && out_[i + 1] == '/') safe += "\\";
    }
    return safe;
  }

 private:
  void comma() {
    if (!fresh_ && !out_.empty() && out_.back() != '{' && out_.back() != '[') out_ += ',';
    fresh_ = false;
  }
  std::string out_;
  bool fresh_ = true;
};

double ms(uint64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

// Consecutive windows merged for display: counts added, the slowest request kept, percentiles
// from the merged histogram.
struct DisplayWindow {
  double start_s = 0;
  double end_s = 0;
  bool warmup = false;
  uint64_t completed = 0;
  std::array<uint64_t, kErrorClassCount> errors{};
  uint64_t open_connections = 0;
  double target = 0;
  double p50 = 0, p90 = 0, p99 = 0, p999 = 0, max = 0;
  double service_p99 = 0, lag_p99 = 0;
  bool has_latency = false;
  std::vector<uint64_t> heat;  // counts per heatmap row
};

std::vector<double> heat_edges_ms(const RunResult& r) {
  // Log-spaced rows between the run's fastest and slowest request (at least a decade wide).
  const double lo = std::max(1e-3, ms(r.latency.min()));
  const double hi = std::max(lo * 10, ms(r.latency.max()));
  std::vector<double> edges;
  for (size_t i = 0; i <= kHtmlHeatmapBins; ++i) {
    edges.push_back(lo * std::pow(hi / lo, static_cast<double>(i) / kHtmlHeatmapBins));
  }
  return edges;
}

std::vector<DisplayWindow> display_windows(const RunResult& r, const std::vector<double>& edges) {
  const std::vector<WindowStats>& w = r.intervals;
  const size_t group = html_display_group(w.size());
  std::vector<DisplayWindow> out;
  Histogram latency(r.latency.highest_trackable_ns());
  Histogram service(r.latency.highest_trackable_ns());
  Histogram lag(r.latency.highest_trackable_ns());
  for (size_t first = 0; first < w.size(); first += group) {
    const size_t last = std::min(w.size(), first + group);
    DisplayWindow d;
    d.start_s = static_cast<double>(w[first].start_ns) / 1e9;
    d.end_s = static_cast<double>(w[last - 1].end_ns) / 1e9;
    d.warmup = w[first].warmup;
    latency.reset();
    service.reset();
    lag.reset();
    for (size_t i = first; i < last; ++i) {
      const WindowStats& x = w[i];
      d.completed += x.completed;
      for (size_t e = 0; e < kErrorClassCount; ++e) d.errors[e] += x.errors[e];
      d.open_connections = x.open_connections;
      d.target = x.target_end;
      if (x.latency.count() > 0 &&
          x.latency.highest_trackable_ns() == latency.highest_trackable_ns()) {
        x.latency.add_to(latency);
      }
      if (x.service.count() > 0 &&
          x.service.highest_trackable_ns() == service.highest_trackable_ns()) {
        x.service.add_to(service);
      }
      if (x.lag.count() > 0 && x.lag.highest_trackable_ns() == lag.highest_trackable_ns()) {
        x.lag.add_to(lag);
      }
    }
    d.has_latency = latency.count() > 0;
    if (d.has_latency) {
      d.p50 = ms(latency.value_at_percentile(50));
      d.p90 = ms(latency.value_at_percentile(90));
      d.p99 = ms(latency.value_at_percentile(99));
      d.p999 = ms(latency.value_at_percentile(99.9));
      d.max = ms(latency.max());
      d.heat.assign(kHtmlHeatmapBins, 0);
      latency.for_each_recorded([&](uint64_t value_ns, uint64_t count) {
        const double v = ms(value_ns);
        const auto at = std::upper_bound(edges.begin(), edges.end(), v) - edges.begin();
        const size_t row = static_cast<size_t>(std::clamp<long>(at - 1, 0, kHtmlHeatmapBins - 1));
        d.heat[row] += count;
      });
    }
    if (service.count() > 0) d.service_p99 = ms(service.value_at_percentile(99));
    if (lag.count() > 0) d.lag_p99 = ms(lag.value_at_percentile(99));
    out.push_back(std::move(d));
  }
  return out;
}

void write_series(Out& o, const RunResult& r) {
  const std::vector<double> edges = heat_edges_ms(r);
  const std::vector<DisplayWindow> d = display_windows(r, edges);
  std::vector<double> t, t_start, rps, open, target, p50, p90, p99, p999, max, service, lag;
  double warmup_end_s = 0;
  for (const DisplayWindow& x : d) {
    const double span = std::max(1e-9, x.end_s - x.start_s);
    t.push_back(x.end_s);
    t_start.push_back(x.start_s);
    rps.push_back(static_cast<double>(x.completed) / span);
    open.push_back(static_cast<double>(x.open_connections));
    target.push_back(x.target);
    const double none = NAN;  // a window with no response has no latency, not a zero
    p50.push_back(x.has_latency ? x.p50 : none);
    p90.push_back(x.has_latency ? x.p90 : none);
    p99.push_back(x.has_latency ? x.p99 : none);
    p999.push_back(x.has_latency ? x.p999 : none);
    max.push_back(x.has_latency ? x.max : none);
    service.push_back(x.service_p99 > 0 ? x.service_p99 : none);
    lag.push_back(x.lag_p99 > 0 ? x.lag_p99 : none);
    if (x.warmup) warmup_end_s = x.end_s;
  }
  o.key("series");
  o.open('{');
  o.numbers("t", t);  // each display window's end
  o.numbers("t_start", t_start);
  o.key("warmup_end_s");
  o.number(warmup_end_s);
  o.numbers("rps", rps);
  o.key("errors");
  o.open('{');
  for (size_t e = 0; e < kErrorClassCount; ++e) {
    std::vector<double> per_s;
    uint64_t total = 0;
    for (const DisplayWindow& x : d) {
      per_s.push_back(static_cast<double>(x.errors[e]) / std::max(1e-9, x.end_s - x.start_s));
      total += x.errors[e];
    }
    if (total > 0) o.numbers(error_class_name(static_cast<ErrorClass>(e)), per_s);
  }
  o.close('}');
  o.numbers("open", open);
  if (r.rate_mode() || !r.steps.empty()) o.numbers("target", target);
  o.numbers("p50", p50);
  o.numbers("p90", p90);
  o.numbers("p99", p99);
  o.numbers("p999", p999);
  o.numbers("max", max);
  if (r.rate_mode()) {
    o.numbers("service_p99", service);
    o.numbers("lag_p99", lag);
  }
  o.key("heatmap");
  o.open('{');
  o.numbers("edges_ms", edges);
  o.key("counts");
  o.open('[');
  for (const DisplayWindow& x : d) {
    o.open('[');
    for (size_t i = 0; i < kHtmlHeatmapBins; ++i)
      o.number(x.heat.empty() ? 0.0 : static_cast<double>(x.heat[i]));
    o.close(']');
  }
  o.close(']');
  o.close('}');
  o.key("windows");
  o.number(static_cast<double>(r.intervals.size()));
  o.key("group");
  o.number(d.empty() ? 1.0 : static_cast<double>((r.intervals.size() + d.size() - 1) / d.size()));
  o.close('}');
}

// --monitor: per process monitor, its CPU (% of one core) and RSS (MiB) at each sample's end;
// the host's busy CPU (% of the machine). Charted as "Server resources"; absent without monitors.
void write_resources(Out& o, const RunResult& r) {
  if (r.monitors.empty()) return;
  o.key("resources");
  o.open('[');
  for (const MonitorSeries& m : r.monitors) {
    const int cpu = m.metric_index(m.kind == "host" ? "cpu_idle_pct" : "cpu_core_pct");
    const int rss = m.metric_index("rss_bytes");
    if (cpu < 0) continue;  // prom: its columns are the user's; in --json and --timeseries
    std::vector<double> t, cpu_pct, rss_mib;
    for (const MonitorWindow& w : m.windows) {
      const double c = w.values[static_cast<size_t>(cpu)];
      t.push_back(static_cast<double>(w.end_ns) / 1e9);
      cpu_pct.push_back(!has_value(c) ? NAN : m.kind == "host" ? 100 - c : c);
      if (rss >= 0) rss_mib.push_back(w.values[static_cast<size_t>(rss)] / (1024.0 * 1024.0));
    }
    o.open('{');
    o.key("source");
    o.string(m.source);
    o.key("host");
    o.boolean(m.kind == "host");
    o.numbers("t", t);
    o.numbers("cpu_pct", cpu_pct);
    if (rss >= 0) o.numbers("rss_mib", rss_mib);
    o.close('}');
  }
  o.close(']');
}

// The spectrum (HdrHistogram's view): percentiles at 1/(1-p) spaced evenly on a log axis, from
// 0 % to 99.999 %, each as "the latency that p of the requests stayed under".
std::vector<double> spectrum_levels() {
  std::vector<double> p;
  for (int k = 0; k <= 100; ++k) p.push_back(100.0 * (1.0 - std::pow(10.0, -k / 20.0)));
  return p;
}

void write_spectrum(Out& o, std::string_view name, const Histogram& h,
                    const std::vector<double>& levels, std::string_view side = {}) {
  o.open('{');
  o.key("name");
  o.string(name);
  if (!side.empty()) {
    o.key("side");
    o.string(side);
  }
  std::vector<double> values;
  for (double p : levels) values.push_back(ms(h.value_at_percentile(p)));
  o.numbers("ms", values);
  o.close('}');
}

void write_spectra(Out& o, const RunResult& r) {
  const std::vector<double> levels = spectrum_levels();
  o.key("spectrum");
  o.open('{');
  o.numbers("percentiles", levels);
  o.key("curves");
  o.open('[');
  if (r.latency.count() > 0) write_spectrum(o, "whole run", r.latency, levels);
  for (size_t i = 0; i < r.steps.size(); ++i) {
    if (r.steps[i].latency.count() == 0) continue;
    char name[64];
    std::snprintf(name, sizeof name, "step %zu (%g %s)", i + 1, r.steps[i].target_end,
                  r.target_unit != nullptr ? r.target_unit : "");
    write_spectrum(o, name, r.steps[i].latency.decode(), levels);
  }
  o.close(']');
  o.close('}');
}

void write_steps(Out& o, const RunResult& r, const RunVerdicts& verdicts) {
  if (r.steps.empty()) return;
  std::vector<double> target, achieved, p50, p99;
  for (const WindowStats& s : r.steps) {
    target.push_back(std::max(s.target_start, s.target_end));
    achieved.push_back(s.requests_per_s());
    p50.push_back(s.latency.count() > 0 ? ms(s.p50_ns) : NAN);
    p99.push_back(s.latency.count() > 0 ? ms(s.p99_ns) : NAN);
  }
  o.key("steps");
  o.open('{');
  o.key("unit");
  o.string(r.target_unit != nullptr ? r.target_unit : "");
  o.numbers("target", target);
  o.numbers("achieved", achieved);
  o.numbers("p50", p50);
  o.numbers("p99", p99);
  o.key("ok");
  o.open('[');
  for (size_t i = 0; i < r.steps.size(); ++i) {
    bool ok = true;
    bool judged = false;
    for (const SloStepVerdict& v : verdicts.steps.steps) {
      if (v.step == i) {
        ok = v.ok;
        judged = true;
      }
    }
    if (judged) {
      o.boolean(ok);
    } else {
      o.null();  // no thresholds: not judged
    }
  }
  o.close(']');
  o.close('}');
}

// Where the load came from, shown beside the version (a merge lists each host once).
void write_machines(Out& o, const std::vector<MachineInfo>& machines) {
  o.key("machines");
  o.open('[');
  for (const MachineInfo& m : machines) {
    o.open('{');
    o.field("cpu_model", m.cpu_model);
    o.field("cpus", m.cpus);
    o.field("kernel", m.kernel);
    o.field("hostname", m.hostname);
    o.close('}');
  }
  o.close(']');
}

// The thresholds table and the lines on the charts (html_slo.h); with an error_rate threshold, the
// error rate of each display window, which only that threshold's chart needs.
void write_thresholds(Out& o, const std::vector<HtmlThreshold>& thresholds, const RunResult* r) {
  o.key("thresholds");
  o.open('[');
  bool error_rate = false;
  for (const HtmlThreshold& t : thresholds) {
    o.open('{');
    o.field("expr", t.expr);
    o.field("metric", t.metric);
    o.key("ok");
    if (t.ok) {
      o.boolean(*t.ok);
    } else {
      o.null();
    }
    o.key("applicable");
    o.boolean(t.applicable);
    o.field("measured", t.measured);
    o.field("detail", t.detail);
    o.field("chart", t.chart);
    o.field("series", t.series);
    o.field("limit", t.limit);
    o.close('}');
    error_rate = error_rate || t.chart == "error_rate";
  }
  o.close(']');
  if (error_rate && r != nullptr) {
    o.numbers("error_rate", html_error_rate_percent(*r, html_display_group(r->intervals.size())));
  }
}

}  // namespace

std::string render_html_data(const RunResult& r, const std::string& hail_version) {
  const RunVerdicts verdicts = judge_run(r);
  Out o;
  o.open('{');
  o.key("version");
  o.string(hail_version);
  o.key("url");
  o.string(r.url);
  o.key("start_unix_s");
  o.number(static_cast<double>(r.start_unix_ns) / 1e9, 15);
  write_machines(o, r.machines);
  o.key("report");
  o.string(render_text_report(r, hail_version));
  o.key("completed");
  o.number(static_cast<double>(r.counters.completed));
  o.key("rate_mode");
  o.boolean(r.rate_mode());
  write_series(o, r);
  write_resources(o, r);
  write_spectra(o, r);
  write_steps(o, r, verdicts);
  write_thresholds(o, html_thresholds(verdicts), &r);
  o.close('}');
  return o.take();
}

std::string render_compare_html_data(const Comparison& c, std::span<const RunResult> base,
                                     std::span<const RunResult> candidate, const std::string& text,
                                     const std::string& hail_version) {
  const std::vector<double> levels = spectrum_levels();
  Out o;
  o.open('{');
  o.key("kind");
  o.string("compare");
  o.key("version");
  o.string(hail_version);
  o.key("url");
  o.string(base.empty() ? "" : base.front().url);
  std::vector<MachineInfo> machines;
  for (const RunResult& r : base) merge_machines(machines, r.machines);
  for (const RunResult& r : candidate) merge_machines(machines, r.machines);
  write_machines(o, machines);
  o.key("report");
  o.string(text);
  o.key("spectrum");
  o.open('{');
  o.numbers("percentiles", levels);
  o.key("curves");
  o.open('[');
  for (auto [runs, side] : {std::pair{base, "base"}, std::pair{candidate, "candidate"}}) {
    for (size_t i = 0; i < runs.size(); ++i) {
      if (runs[i].latency.count() == 0) continue;
      const std::string name =
          std::string(side) + (runs.size() > 1 ? " " + std::to_string(i + 1) : "");
      write_spectrum(o, name, runs[i].latency, levels, side);
    }
  }
  o.close(']');
  o.close('}');
  // The shift plot: each latency percentile's change (in %) with its interval and tolerance.
  std::vector<double> x, change, low, high, tolerance;
  std::vector<std::string> names, verdicts;
  for (const MetricComparison& m : c.metrics) {
    if (!m.tag.empty() || m.absolute || !m.is_time) continue;
    double p = 0;
    if (m.name == "p50") p = 50;
    if (m.name == "p90") p = 90;
    if (m.name == "p99") p = 99;
    if (m.name == "p99.9") p = 99.9;
    if (p == 0) continue;
    x.push_back(1 / (1 - p / 100));
    change.push_back(100 * m.change);
    low.push_back(100 * m.change_interval.low);
    high.push_back(100 * m.change_interval.high);
    tolerance.push_back(100 * m.tolerance);
    names.push_back(m.name);
    verdicts.push_back(std::string(verdict_name(m.verdict)));
  }
  o.key("shift");
  o.open('{');
  o.numbers("x", x);
  o.numbers("change", change);
  o.numbers("low", low);
  o.numbers("high", high);
  o.numbers("tolerance", tolerance);
  o.strings("names", names);
  o.strings("verdicts", verdicts);
  o.close('}');
  o.close('}');
  return o.take();
}

std::string render_search_html_data(const SearchVerdict& verdict, const std::string& url,
                                    const std::string& unit, const std::string& text,
                                    const std::string& hail_version,
                                    const std::vector<std::string>& slo,
                                    const std::vector<MachineInfo>& machines) {
  // The probes by level (an extended or repeated look replaces the earlier one at its level).
  std::map<double, const ProbeRecord*> by_level;
  for (const ProbeRecord& p : verdict.probes) {
    if (p.probe.kind == ProbeKind::kEstimate) continue;
    by_level[p.probe.target] = &p;
  }
  std::vector<double> target, achieved, p50, p99, p999;
  std::vector<std::string> decided;
  for (const auto& [level, p] : by_level) {
    target.push_back(level);
    achieved.push_back(p->outcome.achieved);
    p50.push_back(ms(p->outcome.stats.p50_ns));
    p99.push_back(ms(p->outcome.stats.p99_ns));
    p999.push_back(ms(p->outcome.stats.p999_ns));
    decided.push_back(probe_verdict_name(p->decided));
  }
  Out o;
  o.open('{');
  o.key("kind");
  o.string("search");
  o.key("version");
  o.string(hail_version);
  o.key("url");
  o.string(url);
  write_machines(o, machines);
  o.key("report");
  o.string(text);
  o.key("search");
  o.open('{');
  o.key("unit");
  o.string(unit);
  o.numbers("target", target);
  o.numbers("achieved", achieved);
  o.numbers("p50", p50);
  o.numbers("p99", p99);
  o.numbers("p999", p999);
  o.strings("verdicts", decided);
  o.key("found");
  o.boolean(verdict.found);
  o.key("max_passing");
  o.number(verdict.max_passing);
  o.key("lower");
  o.number(verdict.lower);
  o.key("upper");
  o.number(verdict.upper);
  o.key("limited_by");
  o.string(search_limit_name(verdict.limited_by));
  o.close('}');
  write_thresholds(o, html_threshold_limits(slo), nullptr);
  o.close('}');
  return o.take();
}

}  // namespace hail
