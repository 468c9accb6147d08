// Shared by the SLO evaluation tests: hand-built windows of the time series and runs whose totals
// are exactly their windows. Owner: tests/unit/analysis.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/slo_eval.h"
#include "analysis/slo_expr.h"

namespace hail::slo_test {

inline constexpr uint64_t kS = 1'000'000'000;
inline constexpr uint64_t kMs = 1'000'000;

inline constexpr size_t kTimeout = static_cast<size_t>(ErrorClass::kTimeout);
inline constexpr size_t kConnect = static_cast<size_t>(ErrorClass::kConnect);
inline constexpr size_t kRead = static_cast<size_t>(ErrorClass::kRead);

inline SloThreshold slo(const std::string& text) {
  Result<SloThreshold> r = parse_slo(text);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : SloThreshold{};
}

inline std::vector<SloThreshold> slos(const std::vector<std::string>& texts) {
  std::vector<SloThreshold> out;
  for (const std::string& t : texts) out.push_back(slo(t));
  return out;
}

// A window of the time series: [start, start + length), `fast` responses at 1 ms and `slow` ones
// at `slow_ns`, all counted as completed. Open-loop fields (service, lag) stay empty.
inline WindowStats window(uint64_t start_ns, uint64_t length_ns, uint64_t fast, uint64_t slow = 0,
                          uint64_t slow_ns = 20 * kMs) {
  WindowStats w;
  w.start_ns = start_ns;
  w.end_ns = start_ns + length_ns;
  w.completed = fast + slow;
  Histogram h;
  h.record_n(1 * kMs, fast);
  h.record_n(slow_ns, slow);
  w.latency = EncodedHistogram(h);
  w.update_percentiles();
  w.sources = 1;
  return w;
}

// n one-second windows of 100 fast responses each, starting at `start_ns`.
inline std::vector<WindowStats> steady(size_t n, uint64_t start_ns = 0, uint64_t per_window = 100) {
  std::vector<WindowStats> out;
  for (size_t i = 0; i < n; ++i) out.push_back(window(start_ns + i * kS, kS, per_window));
  return out;
}

// A run whose totals are exactly its measured windows (every request attempted completed or
// failed; nothing in flight).
inline RunResult run_of(const std::vector<WindowStats>& windows) {
  RunResult run;
  run.interval_ns = kS;
  run.intervals = windows;
  for (const WindowStats& w : windows) {
    if (w.warmup) continue;
    run.counters.completed += w.completed;
    run.counters.status_errors += w.status_errors;
    for (size_t e = 0; e < kErrorClassCount; ++e) run.counters.errors[e] += w.errors[e];
    w.latency.add_to(run.latency);
    run.duration_ns += w.duration_ns();
  }
  run.counters.attempted = run.counters.completed + run.counters.request_errors();
  return run;
}

inline const SloCheck& only_check(const SloReport& report) {
  EXPECT_EQ(report.checks.size(), 1u);
  return report.checks.front();
}

}  // namespace hail::slo_test
