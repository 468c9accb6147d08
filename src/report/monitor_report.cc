#include "report/monitor_report.h"

#include <algorithm>

#include "analysis/server_verdicts.h"
#include "core/strings.h"

namespace hail {

namespace {

double seconds(uint64_t ns) {
  return static_cast<double>(ns) / 1e9;
}

// Exact, so that a saved run read back (hail report) gets the very verdicts the run printed.
void number_or_null(JsonWriter& j, std::string_view key, double v) {
  if (has_value(v)) {
    j.exact(key, v);
  } else {
    j.null(key);
  }
}

void write_drift(JsonWriter& j, const char* key, const std::optional<DriftVerdict>& d,
                 const char* unit) {
  if (!d) {
    j.null(key);
    return;
  }
  j.begin_object(key);
  j.value("drifted", d->drifted);
  j.value("unit", unit);
  j.value("slope_per_h", d->per_hour);
  j.value("unnoticed_per_h", d->unnoticed_per_hour);
  j.value("r2", d->fit.r2);
  j.value("p_value", d->fit.p_value);
  j.value("points", static_cast<uint64_t>(d->fit.points));
  j.value("first_fitted", d->fit.first_fitted);
  j.value("last_fitted", d->fit.last_fitted);
  j.value("text", d->text);
  j.end_object();
}

std::string mib(double bytes) {
  return string_printf("%.1f MiB", bytes / (1024.0 * 1024.0));
}

std::string count_or_dash(double v) {
  return has_value(v) ? string_printf("%.0f", v) : std::string("-");
}

}  // namespace

const MonitorWindow* monitor_window_at(const MonitorSeries& m, uint64_t end_ns,
                                       uint64_t interval_ns) {
  auto it = std::lower_bound(m.windows.begin(), m.windows.end(), end_ns,
                             [](const MonitorWindow& w, uint64_t t) { return w.end_ns < t; });
  const MonitorWindow* best = nullptr;
  uint64_t best_gap = interval_ns / 2 + 1;
  for (auto c : {it, it == m.windows.begin() ? it : it - 1}) {
    if (c == m.windows.end()) continue;
    const uint64_t gap = c->end_ns > end_ns ? c->end_ns - end_ns : end_ns - c->end_ns;
    if (gap < best_gap) {
      best_gap = gap;
      best = &*c;
    }
  }
  return best;
}

std::string monitor_column(const MonitorSeries& m, const std::string& metric) {
  std::string source = m.kind == "prom" ? "prom" : m.source;
  for (char& c : source) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!word) c = '_';
  }
  return source + "." + metric;
}

void write_monitors_json(JsonWriter& j, const RunResult& r) {
  if (r.monitors.empty()) return;
  j.begin_array("monitors");
  for (const MonitorSeries& m : r.monitors) {
    j.begin_object();
    j.value("source", m.source);
    j.value("kind", m.kind);
    j.begin_array("metrics");
    for (const std::string& name : m.metrics) j.element(name);
    j.end_array();
    j.begin_array("events");
    for (const MonitorEvent& e : m.events) {
      j.begin_object();
      j.value("at_s", seconds(e.at_ns));
      j.value("at_ns", e.at_ns);
      j.value("text", e.text);
      j.end_object();
    }
    j.end_array();
    if (m.kind == "process") {
      const ProcessSummary p = summarize_process(m);
      j.begin_object("summary");
      j.value("windows", static_cast<uint64_t>(p.windows));
      j.value("cpu_mean_pct", p.cpu_mean_pct);
      j.value("cpu_max_pct", p.cpu_max_pct);
      j.value("cpu_machine_mean_pct", p.cpu_machine_mean_pct);
      j.value("rss_start_bytes", p.rss_start_bytes);
      j.value("rss_end_bytes", p.rss_end_bytes);
      j.value("rss_max_bytes", p.rss_max_bytes);
      number_or_null(j, "fds_start", p.fds_start);
      number_or_null(j, "fds_end", p.fds_end);
      number_or_null(j, "fds_max", p.fds_max);
      j.end_object();
    }
    j.begin_array("windows");
    for (const MonitorWindow& w : m.windows) {
      j.begin_object();
      j.value("t_start_s", seconds(w.start_ns));
      j.value("t_end_s", seconds(w.end_ns));
      j.value("start_ns", w.start_ns);
      j.value("end_ns", w.end_ns);
      j.value("warmup", w.warmup);
      for (size_t i = 0; i < m.metrics.size() && i < w.values.size(); ++i) {
        number_or_null(j, m.metrics[i], w.values[i]);
      }
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
  const ServerVerdicts v = judge_server(r);
  j.begin_object("server_verdicts");
  if (v.limit) {
    j.begin_object("limit");
    j.value("limit", v.limit->limit);
    j.value("server_cpu_pct", v.limit->server_cpu_pct);
    j.value("hail_cpu_pct", v.limit->hail_cpu_pct);
    j.value("text", v.limit->text);
    j.end_object();
  } else {
    j.null("limit");
  }
  write_drift(j, "rss_drift", v.rss, "bytes");
  write_drift(j, "p99_drift", v.p99, "ns");
  j.end_object();
}

std::string render_monitors_text(const RunResult& r) {
  if (r.monitors.empty()) return {};
  std::string out = "  Server side (--monitor)\n";
  for (const MonitorSeries& m : r.monitors) {
    if (m.kind == "process") {
      const ProcessSummary p = summarize_process(m);
      if (p.windows == 0) {
        out += "    " + m.source + ": no measured window\n";
      } else {
        out += string_printf(
            "    %s: CPU mean %.1f%% max %.1f%% of one core (%.1f%% of the machine); RSS %s -> "
            "%s (max %s); descriptors %s -> %s (max %s)\n",
            m.source.c_str(), p.cpu_mean_pct, p.cpu_max_pct, p.cpu_machine_mean_pct,
            mib(p.rss_start_bytes).c_str(), mib(p.rss_end_bytes).c_str(),
            mib(p.rss_max_bytes).c_str(), count_or_dash(p.fds_start).c_str(),
            count_or_dash(p.fds_end).c_str(), count_or_dash(p.fds_max).c_str());
      }
    } else {
      size_t measured = 0;
      for (const MonitorWindow& w : m.windows) {
        measured += !w.warmup && std::any_of(w.values.begin(), w.values.end(), has_value);
      }
      out += string_printf(
          "    %s: %zu metrics over %zu measured windows (in --json and "
          "--timeseries)\n",
          m.source.c_str(), m.metrics.size(), measured);
    }
    for (const MonitorEvent& e : m.events) {
      out += string_printf("      at %.1f s: %s\n", seconds(e.at_ns), e.text.c_str());
    }
  }
  const ServerVerdicts v = judge_server(r);
  if (v.limit) out += "    Limit: " + v.limit->text + "\n";
  if (v.rss) out += "    Soak: " + v.rss->text + "\n";
  if (v.p99) out += "    Soak: " + v.p99->text + "\n";
  return out;
}

}  // namespace hail
