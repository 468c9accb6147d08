// Windowed measurements: the --interval time series and the per-stage (ladder step) rows. Each
// worker owns one WindowSeries per kind and closes windows at boundaries every worker computes the
// same way; the runner merges the workers' windows by index after the run into WindowStats rows.
// A WindowSeries is touched only by its worker's thread; WindowStats are plain values.
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "stats/error_class.h"
#include "stats/histogram.h"

namespace hail {

// One merged window (an interval of the time series, or one stage / ladder step).
struct WindowStats {
  uint64_t start_ns = 0;  // since the load started (warm-up included)
  uint64_t end_ns = 0;    // since the load started; the last window ends when the run stopped
  bool warmup = false;    // a warm-up window: shown, but not part of the run's totals
  uint64_t completed = 0;
  uint64_t status_errors = 0;  // part of `completed` with a status outside 2xx/3xx
  std::array<uint64_t, kErrorClassCount> errors{};
  // Latency of the requests completed in the window (rate mode: corrected), in ns; 0 when none.
  uint64_t p50_ns = 0;
  uint64_t p90_ns = 0;
  uint64_t p99_ns = 0;
  uint64_t max_ns = 0;
  uint64_t open_connections = 0;  // over all workers, when the window closed
  // What the plan asked for: requests/s in rate mode, connections in closed loop; for a stage,
  // target_start -> target_end (equal for a hold stage, i.e. every ladder step). Intervals carry
  // the target at their end. 0 when the run has no plan beyond -c.
  double target_start = 0;
  double target_end = 0;

  uint64_t duration_ns() const { return end_ns - start_ns; }
  uint64_t error_total() const {
    uint64_t n = 0;
    for (uint64_t e : errors) n += e;
    return n;
  }
  double requests_per_s() const {
    return end_ns > start_ns
               ? static_cast<double>(completed) * 1e9 / static_cast<double>(end_ns - start_ns)
               : 0.0;
  }
};

// One worker's side. Windows are [boundary_i, boundary_i+1): the worker calls close_window(now)
// at each boundary (its timer) and once more when it stops. Recording is allocation-free; closing a
// window allocates its compact histogram copy (once per window, never per request).
class WindowSeries {
 public:
  struct Window {
    uint64_t start_ns = 0;  // absolute (monotonic) times
    uint64_t end_ns = 0;
    bool warmup = false;
    uint64_t completed = 0;
    uint64_t status_errors = 0;
    std::array<uint64_t, kErrorClassCount> errors{};
    uint64_t open_connections = 0;
    // Latency at reduced precision (WindowSeries::quantize: 8 significant bits, within 0.8 %), as
    // (key, count) pairs in ascending order: 8 bytes per distinct key keeps a long run's series
    // small (a few KiB per window).
    std::vector<std::pair<uint32_t, uint32_t>> latency;
    uint64_t max_ns = 0;
  };

  WindowSeries() = default;
  // Starts the first window at start_ns.
  void begin(uint64_t start_ns, bool warmup);

  void on_complete(int status, uint64_t latency_ns) {
    ++current_.completed;
    if (status < 200 || status >= 400) ++current_.status_errors;
    histogram_.record(latency_ns);
  }
  void on_error(ErrorClass c) { ++current_.errors[static_cast<size_t>(c)]; }

  // Ends the current window at now_ns and, unless `last`, opens the next one (warm-up or not).
  void close_window(uint64_t now_ns, uint64_t open_connections, bool next_warmup, bool last);

  // Value -> key keeping 8 significant bits (exact below 256 ns); decode gives the highest value
  // with that key, so a percentile never reads low.
  static uint32_t quantize(uint64_t value_ns);
  static uint64_t dequantize(uint32_t key);

  bool active() const { return active_; }
  uint64_t current_start_ns() const { return current_.start_ns; }
  const std::vector<Window>& windows() const { return windows_; }

 private:
  bool active_ = false;
  Window current_;
  Histogram histogram_;
  std::vector<Window> windows_;
};

// Boundaries of the --interval series: every interval_ns from the load's start through the
// warm-up, a forced boundary where measuring starts, then every interval_ns from there. Pure.
// Returns the first boundary strictly after now_ns.
uint64_t next_interval_boundary(uint64_t now_ns, uint64_t start_ns, uint64_t measure_start_ns,
                                uint64_t interval_ns);

// Merges the workers' windows by index (workers close windows at the same boundaries; a window
// missing from a worker that stopped early counts as empty). Times become relative to
// load_start_ns. Percentiles come from the merged histogram.
std::vector<WindowStats> merge_windows(const std::vector<const WindowSeries*>& series,
                                       uint64_t load_start_ns);

}  // namespace hail
