// What --monitor sampled: one series per source (a process, the host, a Prometheus endpoint), one
// row per --interval window, aligned with RunResult::intervals by index, plus the events that a
// number cannot say (a process exited or restarted, a scrape failed). Built by the monitors on the
// runner's supervising thread; a plain value in RunResult afterwards (any thread).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace hail {

// A value that was not measured: the process was gone, the scrape failed. Never a made-up zero.
inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();
inline bool has_value(double v) {
  return !std::isnan(v);
}

struct MonitorWindow {
  uint64_t start_ns = 0;  // since the load started, like WindowStats
  uint64_t end_ns = 0;
  bool warmup = false;
  std::vector<double> values;  // one per MonitorSeries::metrics; kNoValue when not measured
};

struct MonitorEvent {
  uint64_t at_ns = 0;  // since the load started
  std::string text;    // "exited", "restarted (pid 41 -> 57)", "scrape failed: ..."
};

struct MonitorSeries {
  std::string source;                // as given: "pid:123", "name:nginx", "host", "prom:http://..."
  std::string kind;                  // "process", "host", "prom"
  std::vector<std::string> metrics;  // column names, units in the name ("rss_bytes")
  std::vector<MonitorWindow> windows;
  std::vector<MonitorEvent> events;

  // The column of `metric`, or -1.
  int metric_index(std::string_view metric) const {
    for (size_t i = 0; i < metrics.size(); ++i) {
      if (metrics[i] == metric) return static_cast<int>(i);
    }
    return -1;
  }
};

}  // namespace hail
