// Windowed measurements: the --interval time series and the per-stage (ladder step) rows. Each
// worker owns one WindowSeries per kind and closes windows at boundaries every worker computes the
// same way; windows are merged by index into WindowStats rows, as they close or after the run.
// A WindowSeries is written by its worker's thread only (take_closed() may run on any thread);
// WindowStats are plain values.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "stats/error_class.h"
#include "stats/histogram.h"
#include "stats/histogram_codec.h"
#include "stats/tag_stats.h"

namespace hail {

// Completed responses by status class: [1]..[5] for 1xx..5xx, [0] for any other status (0 for
// HTTP/0.9, codes outside 100..599).
inline constexpr size_t kStatusClassCount = 6;
using StatusClassCounts = std::array<uint64_t, kStatusClassCount>;
inline constexpr size_t status_class_index(int status) {
  return status >= 100 && status < 600 ? static_cast<size_t>(status / 100) : 0;
}

// One tag's share of a window (--urls line, hail.tag): what single-run comparisons resample per
// tag. Windows list only the tags that had an outcome in them, by name (workers number tags in
// the order they first meet them, so only names line up across workers and hosts).
struct TagWindow {
  std::string name;
  uint64_t completed = 0;
  uint64_t status_errors = 0;  // part of `completed` with a status outside 2xx/3xx
  std::array<uint64_t, kErrorClassCount> errors{};
  EncodedHistogram latency;  // exact; the run's latency (rate mode: corrected)
};

// One merged window (an interval of the time series, or one stage / ladder step).
//
// Memory: 264 bytes of fields plus the encoded latency histogram, whose payload costs at most
// ~3 bytes per request (a count, and the run of empty slots before it; 1 byte each while below 64)
// and at most ~2 bytes per slot between the window's fastest and slowest request (3,400 slots per
// decade of latency) while counts stay below 8,192, whatever the rate. Measured
// (test_stats_window_memory, latencies lognormal around 1 ms, sigma 0.5): 1.6 KB per window at
// 1,000 requests/s, so 86,400 one-second windows (a day) take 134 MiB; 4.1 KB at 20,000/s (350 MiB
// a day); 5.1 KB at 100,000/s (433 MiB a day). Worst case, a window whose requests fill every one
// of the 33,793 slots (1 ns to 73 min): ~70 KB.
struct WindowStats {
  uint64_t start_ns = 0;  // since the load started (warm-up included)
  uint64_t end_ns = 0;    // since the load started; the last window ends when the run stopped
  bool warmup = false;    // a warm-up window: shown, but not part of the run's totals
  uint64_t completed = 0;
  uint64_t status_errors = 0;  // part of `completed` with a status outside 2xx/3xx
  // `completed` by status class (status_class_index): live metrics' hail_requests_total. Not in
  // the JSON result (reports keep exact codes in the run's totals).
  StatusClassCounts status_classes{};
  std::array<uint64_t, kErrorClassCount> errors{};
  // Latency of the requests completed in the window (rate mode: corrected), in ns; 0 when none.
  // Read from `latency` whenever windows merge (merge_window), kept as fields for the reports.
  uint64_t p50_ns = 0;
  uint64_t p90_ns = 0;
  uint64_t p99_ns = 0;
  uint64_t max_ns = 0;
  // The whole latency histogram of the window, exact and encoded; latency.decode() gives it back.
  EncodedHistogram latency;
  // Open-loop runs only (empty otherwise): the window's service times (sent -> complete) and
  // scheduler lags (planned -> sent), as latency.
  EncodedHistogram service;
  EncodedHistogram lag;
  uint64_t open_connections = 0;  // over all workers, when the window closed
  // What the plan asked for: requests/s in rate mode, connections in closed loop; for a stage,
  // target_start -> target_end (equal for a hold stage, i.e. every ladder step). Intervals carry
  // the target at their end. 0 when the run has no plan beyond -c.
  double target_start = 0;
  double target_end = 0;
  // How many workers' (or hosts') windows were merged into this one; 0: none yet.
  uint32_t sources = 0;
  // Per tag, when the run has tags (intervals only; stage windows keep none).
  std::vector<TagWindow> tags;

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
  // Sets p50_ns .. max_ns from `latency` (all 0 when it is empty).
  void update_percentiles();
  size_t memory_bytes() const {
    size_t n = sizeof(*this) - 3 * sizeof(EncodedHistogram) + latency.memory_bytes() +
               service.memory_bytes() + lag.memory_bytes();
    for (const TagWindow& t : tags) {
      n += sizeof(t) - sizeof(EncodedHistogram) + t.name.capacity() + t.latency.memory_bytes();
    }
    return n;
  }
};

// Adds `from` into `into`, exactly: start = the earlier, end = the later, warm-up only when both
// are, counts, errors, open connections, targets (each worker or host plans its share) and sources
// summed, histograms merged, percentiles recomputed. Into an empty window (sources == 0) it is a
// copy. Windows of workers are merged by index (they share boundaries); across hosts they are to be
// aligned by wall-clock time first.
void merge_window(WindowStats& into, const WindowStats& from);

// One worker's side. Windows are [boundary_i, boundary_i+1): the worker calls close_window(now)
// at each boundary (its timer) and once more when it stops. Recording is allocation-free; closing a
// window encodes its histogram (one allocation per window, never per request).
class WindowSeries {
 public:
  struct Window {
    uint64_t index = 0;     // position in the series: 0 for the first window begin() opened
    uint64_t start_ns = 0;  // absolute (monotonic) times
    uint64_t end_ns = 0;
    bool warmup = false;
    uint64_t completed = 0;
    uint64_t status_errors = 0;
    StatusClassCounts status_classes{};
    std::array<uint64_t, kErrorClassCount> errors{};
    uint64_t open_connections = 0;
    EncodedHistogram latency;  // exact
    EncodedHistogram service;  // open loop only (set_open_loop), else empty
    EncodedHistogram lag;
    uint64_t max_ns = 0;  // latency.max()
    std::vector<TagWindow> tags;
  };

  WindowSeries() = default;
  WindowSeries(const WindowSeries&) = delete;
  WindowSeries& operator=(const WindowSeries&) = delete;

  // Starts the first window at start_ns.
  void begin(uint64_t start_ns, bool warmup);

  // Open-loop runs keep each window's service times and lags too.
  void set_open_loop(bool on) { open_loop_ = on; }
  // Windows keep per-tag counts and latencies, named from `tags` (the worker's table; read on
  // this worker's thread only, when a window closes).
  void set_tags(const TagTable* tags) { tag_names_ = tags; }

  void on_complete(int status, uint64_t latency_ns, uint64_t service_ns = 0, uint64_t lag_ns = 0,
                   uint16_t tag = kNoTag) {
    ++current_.completed;
    ++current_.status_classes[status_class_index(status)];  // plain, this worker's own window
    const bool failed = status < 200 || status >= 400;
    if (failed) ++current_.status_errors;
    histogram_.record(latency_ns);
    if (open_loop_) {
      service_.record(service_ns);
      lag_.record(lag_ns);
    }
    if (tag_names_ != nullptr && tag < tag_names_->size()) [[unlikely]] {
      TagAccumulator& t = tag_accumulator(tag);
      ++t.completed;
      if (failed) ++t.status_errors;
      t.latency->record(latency_ns);
    }
  }
  void on_error(ErrorClass c, uint16_t tag = kNoTag) {
    ++current_.errors[static_cast<size_t>(c)];
    if (tag_names_ != nullptr && tag < tag_names_->size()) [[unlikely]] {
      ++tag_accumulator(tag).errors[static_cast<size_t>(c)];
    }
  }
  static constexpr uint16_t kNoTag = 0xFFFF;

  // Ends the current window at now_ns and, unless `last`, opens the next one (warm-up or not).
  void close_window(uint64_t now_ns, uint64_t open_connections, bool next_warmup, bool last);

  bool active() const { return active_; }
  uint64_t current_start_ns() const { return current_.start_ns; }
  // The closed windows not yet taken, oldest first. Any thread, while the worker runs: a
  // supervisor merges windows as they close, so that no worker keeps a long run's series.
  std::vector<Window> take_closed();
  // The closed windows not yet taken; only once the worker has stopped (no lock).
  const std::vector<Window>& windows() const { return closed_; }

 private:
  bool active_ = false;
  uint64_t next_index_ = 0;
  Window current_;
  Histogram histogram_;
  bool open_loop_ = false;
  Histogram service_;  // open loop only
  Histogram lag_;
  // The current window's per-tag share, by the worker's tag id; a tag's histogram is allocated the
  // first time the tag is seen, then reset per window (never per request).
  struct TagAccumulator {
    uint64_t completed = 0;
    uint64_t status_errors = 0;
    std::array<uint64_t, kErrorClassCount> errors{};
    std::unique_ptr<Histogram> latency;
  };
  TagAccumulator& tag_accumulator(uint16_t tag);
  void close_tags();
  const TagTable* tag_names_ = nullptr;
  std::vector<TagAccumulator> tag_accumulators_;
  std::mutex closed_mutex_;  // taken once per window close, never per request
  std::vector<Window> closed_;
};

// A worker's window as a WindowStats row: times relative to load_start_ns, percentiles filled,
// sources 1.
WindowStats window_stats(const WindowSeries::Window& window, uint64_t load_start_ns);

// Boundaries of the --interval series: every interval_ns from the load's start through the
// warm-up, a forced boundary where measuring starts, then every interval_ns from there. Pure.
// Returns the first boundary strictly after now_ns.
uint64_t next_interval_boundary(uint64_t now_ns, uint64_t start_ns, uint64_t measure_start_ns,
                                uint64_t interval_ns);

// Merges the workers' windows by index (workers close windows at the same boundaries; a window
// missing from a worker that stopped early counts as empty). Times become relative to
// load_start_ns. Percentiles come from the merged histogram, exactly.
std::vector<WindowStats> merge_windows(const std::vector<const WindowSeries*>& series,
                                       uint64_t load_start_ns);

}  // namespace hail
