// Server-side verdicts from what --monitor sampled (RunResult::monitors): the server's summary
// (mean and max CPU, RSS and descriptors at start and end), who was the limit (the server's CPU
// against hail's busiest worker: the other half of the generator-health check), and soak drift (a
// linear fit of the server's RSS and of the per-window p99 over the measured phase, analysis/
// drift.h). "The server" is the first pid: or name: monitor. Owner: analysis. Pure; any thread.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/drift.h"
#include "analysis/slo_expr.h"
#include "stats/run_result.h"

namespace hail {

// A process is CPU-bound from 90% of one core (the share generator_health uses for hail's workers).
inline constexpr double kServerBusyCorePct = 90.0;
// RSS drift is reported as growth only when it is significant and at least this large over the
// measured phase: allocators and caches settle by a few pages, which no one calls a leak.
inline constexpr double kRssGrowthFloorBytes = 1024.0 * 1024.0;
inline constexpr double kRssGrowthFloorShare = 0.01;
// p99 drift is reported only when significant and the fitted change over the measured phase is at
// least this share of the mean p99: a p99 that moves by a few percent is within any SLO's margin.
inline constexpr double kP99DriftFloorShare = 0.10;

// Summary of one process monitor over the measured (non-warm-up) windows that have values.
struct ProcessSummary {
  std::string source;
  size_t windows = 0;       // measured windows with a value; 0: nothing below is set
  double cpu_mean_pct = 0;  // % of one core
  double cpu_max_pct = 0;
  double cpu_machine_mean_pct = 0;
  double rss_start_bytes = 0;
  double rss_end_bytes = 0;
  double rss_max_bytes = 0;
  double fds_start = kNoValue;  // kNoValue when /proc/PID/fd could not be read
  double fds_end = kNoValue;
  double fds_max = kNoValue;
  size_t events = 0;  // exits, restarts
};

struct LimitVerdict {
  std::string limit;          // "server", "hail", "both", "neither"
  double server_cpu_pct = 0;  // mean, % of one core
  double hail_cpu_pct = 0;    // hail's busiest worker, % of one core
  std::string text;
};

struct DriftVerdict {
  std::string series;  // "server RSS", "p99"
  DriftFit fit;
  bool drifted = false;           // significant (and, for RSS, above the floor)
  double per_hour = 0;            // the fitted slope, per hour, in the series' unit (bytes, ns)
  double unnoticed_per_hour = 0;  // flat: the interval's far end, the growth that could hide
  std::string text;
};

struct ServerVerdicts {
  std::optional<ProcessSummary> server;  // the first process monitor
  std::optional<LimitVerdict> limit;
  std::optional<DriftVerdict> rss;
  std::optional<DriftVerdict> p99;
};

ProcessSummary summarize_process(const MonitorSeries& series);
// The first pid: or name: monitor, or null.
const MonitorSeries* server_series(const RunResult& run);
// A server.* threshold's value (slo_expr.h: kServerCpu ...) from the first process monitor's
// measured windows; nullopt without samples (or for any other metric).
std::optional<double> server_metric(SloMetric metric, const RunResult& run);

// The rows of each series whose sample closed one of `windows` (its end within half a window of
// a window's end): a probe's share of the monitors (hail search).
std::vector<MonitorSeries> monitors_during(std::span<const MonitorSeries> monitors,
                                           std::span<const WindowStats> windows);

// Empty (all nullopt) without a process monitor; p99 drift is judged whenever the run has
// --monitor and at least 3 measured windows.
ServerVerdicts judge_server(const RunResult& run);

}  // namespace hail
