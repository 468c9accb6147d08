#include "analysis/server_verdicts.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/strings.h"

namespace hail {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kSecondsPerHour = 3600.0;

std::string mib(double bytes) {
  return string_printf("%.1f MiB", bytes / kMiB);
}
std::string ms(double ns) {
  return string_printf("%.2f ms", ns / 1e6);
}

// The measured windows' values of one column, with their end times in seconds.
std::vector<DriftPoint> column(const MonitorSeries& s, const char* metric) {
  std::vector<DriftPoint> out;
  const int c = s.metric_index(metric);
  if (c < 0) return out;
  for (const MonitorWindow& w : s.windows) {
    const double v = w.values[static_cast<size_t>(c)];
    if (!w.warmup && has_value(v)) out.push_back({static_cast<double>(w.end_ns) / 1e9, v});
  }
  return out;
}

LimitVerdict judge_limit(const ProcessSummary& server, double hail_share) {
  LimitVerdict v;
  v.server_cpu_pct = server.cpu_mean_pct;
  v.hail_cpu_pct = hail_share * 100;
  const bool server_busy = v.server_cpu_pct >= kServerBusyCorePct;
  const bool hail_busy = v.hail_cpu_pct >= kServerBusyCorePct;
  const std::string server_text =
      string_printf("server CPU at %.0f%% of one core (%.0f%% of the machine)", v.server_cpu_pct,
                    server.cpu_machine_mean_pct);
  const std::string hail_text = string_printf("hail's busiest worker at %.0f%%", v.hail_cpu_pct);
  if (server_busy && !hail_busy) {
    v.limit = "server";
    v.text = server_text + " while " + hail_text + ": the server is the limit";
  } else if (hail_busy && !server_busy) {
    v.limit = "hail";
    v.text = hail_text + " while " + server_text + ": hail is the limit, not the server";
  } else if (hail_busy) {
    v.limit = "both";
    v.text = server_text + " and " + hail_text +
             ": both were saturated (on one machine they compete for its cores)";
  } else {
    v.limit = "neither";
    v.text = server_text + " and " + hail_text +
             ": neither was CPU-bound; the limit is elsewhere (connections, the network, the "
             "server's own waits)";
  }
  return v;
}

// The fit of a series, per hour; the verdict's judgement and text are the caller's.
std::optional<DriftVerdict> fitted(const char* series, const std::vector<DriftPoint>& points) {
  const std::optional<DriftFit> fit = fit_drift(points);
  if (!fit) return std::nullopt;
  DriftVerdict v;
  v.series = series;
  v.fit = *fit;
  v.per_hour = fit->slope_per_s * kSecondsPerHour;
  v.unnoticed_per_hour = std::max(0.0, fit->slope_high_per_s * kSecondsPerHour);
  return v;
}

std::optional<DriftVerdict> judge_rss(const MonitorSeries& s) {
  std::optional<DriftVerdict> verdict = fitted("server RSS", column(s, "rss_bytes"));
  if (!verdict) return std::nullopt;
  DriftVerdict& v = *verdict;
  const DriftFit* fit = &v.fit;
  const double grown = fit->last_fitted - fit->first_fitted;
  v.drifted = fit->significant && grown >= kRssGrowthFloorBytes &&
              grown >= kRssGrowthFloorShare * std::max(fit->first_fitted, 1.0);
  if (v.drifted) {
    v.text = string_printf("server RSS grew %s/h, r² %.2f (%s -> %s over %.0f s)",
                           mib(v.per_hour).c_str(), fit->r2, mib(fit->first_fitted).c_str(),
                           mib(fit->last_fitted).c_str(), fit->span_s);
  } else {
    v.text = string_printf(
        "server RSS was flat (%s/h, r² %.2f); it could have grown up to %s/h "
        "unnoticed",
        mib(v.per_hour).c_str(), fit->r2, mib(v.unnoticed_per_hour).c_str());
  }
  return verdict;
}

std::optional<DriftVerdict> judge_p99(const RunResult& run) {
  std::vector<DriftPoint> points;
  for (const WindowStats& w : run.intervals) {
    if (!w.warmup && w.completed > 0) {
      points.push_back({static_cast<double>(w.end_ns) / 1e9, static_cast<double>(w.p99_ns)});
    }
  }
  std::optional<DriftVerdict> verdict = fitted("p99", points);
  if (!verdict) return std::nullopt;
  DriftVerdict& v = *verdict;
  const DriftFit* fit = &v.fit;
  // The line's ends can be anything when p99 only wanders (even below 0): the mean says more.
  double mean = 0;
  for (const DriftPoint& p : points) mean += p.value / static_cast<double>(points.size());
  v.drifted = fit->significant &&
              std::fabs(fit->last_fitted - fit->first_fitted) >= kP99DriftFloorShare * mean;
  if (v.drifted) {
    v.text = string_printf("p99 %s from %s to %s over %.0f s, r² %.2f",
                           fit->slope_per_s > 0 ? "rose" : "fell", ms(fit->first_fitted).c_str(),
                           ms(fit->last_fitted).c_str(), fit->span_s, fit->r2);
  } else {
    v.text = string_printf(
        "p99 was flat (%s on average over %zu windows, r² %.2f); it could have risen up to %s "
        "over the run unnoticed",
        ms(mean).c_str(), points.size(), fit->r2,
        ms(std::max(0.0, fit->slope_high_per_s * fit->span_s)).c_str());
  }
  return verdict;
}

}  // namespace

ProcessSummary summarize_process(const MonitorSeries& s) {
  ProcessSummary p;
  p.source = s.source;
  p.events = s.events.size();
  const std::vector<DriftPoint> cpu = column(s, "cpu_core_pct");
  const std::vector<DriftPoint> machine = column(s, "cpu_machine_pct");
  const std::vector<DriftPoint> rss = column(s, "rss_bytes");
  const std::vector<DriftPoint> fds = column(s, "fds");
  p.windows = rss.size();
  for (const DriftPoint& c : cpu) {
    p.cpu_mean_pct += c.value / static_cast<double>(cpu.size());
    p.cpu_max_pct = std::max(p.cpu_max_pct, c.value);
  }
  for (const DriftPoint& c : machine)
    p.cpu_machine_mean_pct += c.value / static_cast<double>(machine.size());
  if (!rss.empty()) {
    p.rss_start_bytes = rss.front().value;
    p.rss_end_bytes = rss.back().value;
    for (const DriftPoint& r : rss) p.rss_max_bytes = std::max(p.rss_max_bytes, r.value);
  }
  if (!fds.empty()) {
    p.fds_start = fds.front().value;
    p.fds_end = fds.back().value;
    p.fds_max = 0;
    for (const DriftPoint& f : fds) p.fds_max = std::max(p.fds_max, f.value);
  }
  return p;
}

const MonitorSeries* server_series(const RunResult& run) {
  for (const MonitorSeries& s : run.monitors) {
    if (s.kind == "process") return &s;
  }
  return nullptr;
}

std::optional<double> server_metric(SloMetric m, const RunResult& run) {
  const MonitorSeries* series = server_series(run);
  if (series == nullptr) return std::nullopt;
  const ProcessSummary p = summarize_process(*series);
  if (p.windows == 0) return std::nullopt;
  switch (m) {
    case SloMetric::kServerCpu:
      return p.cpu_mean_pct;
    case SloMetric::kServerCpuMax:
      return p.cpu_max_pct;
    case SloMetric::kServerRss:
      return p.rss_max_bytes;
    case SloMetric::kServerFds:
      if (!has_value(p.fds_max)) return std::nullopt;
      return p.fds_max;
    case SloMetric::kServerRssGrowth: {
      const std::optional<DriftVerdict> d = judge_server(run).rss;
      if (!d) return std::nullopt;
      return d->per_hour;
    }
    default:
      return std::nullopt;
  }
}

std::vector<MonitorSeries> monitors_during(std::span<const MonitorSeries> monitors,
                                           std::span<const WindowStats> windows) {
  std::vector<MonitorSeries> out;
  for (const MonitorSeries& m : monitors) {
    MonitorSeries part = m;
    part.windows.clear();
    for (const MonitorWindow& row : m.windows) {
      for (const WindowStats& w : windows) {
        const uint64_t half = w.duration_ns() / 2;
        if (row.end_ns + half >= w.end_ns && row.end_ns <= w.end_ns + half) {
          part.windows.push_back(row);
          part.windows.back().warmup = false;  // the probe's windows are all measured
          break;
        }
      }
    }
    out.push_back(std::move(part));
  }
  return out;
}

ServerVerdicts judge_server(const RunResult& run) {
  ServerVerdicts v;
  if (run.monitors.empty()) return v;
  v.p99 = judge_p99(run);
  const MonitorSeries* server = server_series(run);
  if (server == nullptr) return v;
  v.server = summarize_process(*server);
  if (v.server->windows == 0) return v;
  v.limit = judge_limit(*v.server, run.max_worker_cpu_utilization);
  v.rss = judge_rss(*server);
  return v;
}

}  // namespace hail
