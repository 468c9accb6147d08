// The data an HTML report draws, taken from a RunResult's windows and histograms (never from
// per-request points): the time series (aggregated to at most kMaxPoints display windows, each
// keeping its slowest request so that no spike is smoothed away), the percentile spectrum of the
// run and of each step, the knee (each step's target against what it achieved), and a latency
// heatmap. Serialized as one JSON object for the page's script. Owner: report. Pure; any thread.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "analysis/compare_runs.h"
#include "analysis/search_controller.h"
#include "stats/run_result.h"

namespace hail {

inline constexpr size_t kHtmlMaxPoints = 1500;  // display windows per time chart
inline constexpr size_t kHtmlHeatmapBins = 40;  // latency rows of the heatmap

// How many consecutive windows each display window merges.
constexpr size_t html_display_group(size_t windows) {
  return windows <= kHtmlMaxPoints ? 1 : (windows + kHtmlMaxPoints - 1) / kHtmlMaxPoints;
}

// The page's data as a JSON object, safe inside <script type="application/json"> (no "</").
// Times in seconds since the load started, latencies in milliseconds, rates per second.
std::string render_html_data(const RunResult& result, const std::string& hail_version);

// `hail compare --html`: every run's spectrum (base and candidate sides) and the change of each
// latency percentile with its interval and tolerance (the shift plot); `text` is the text table.
std::string render_compare_html_data(const Comparison& comparison, std::span<const RunResult> base,
                                     std::span<const RunResult> candidate, const std::string& text,
                                     const std::string& hail_version);

// `hail search --html`: every measured probe (target, achieved, p50/p99/p99.9, verdict) for the
// knee chart, and the answer (highest passing level, bracket, what limited it); `text` is the
// search's text report. `unit`: "req/s" or "connections". `slo`: the thresholds as written, drawn
// as limits on the knee; `machines`: where the load came from.
std::string render_search_html_data(const SearchVerdict& verdict, const std::string& url,
                                    const std::string& unit, const std::string& text,
                                    const std::string& hail_version,
                                    const std::vector<std::string>& slo = {},
                                    const std::vector<MachineInfo>& machines = {});

}  // namespace hail
