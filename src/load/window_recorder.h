// WindowRecorder: one worker's windowed measurements — the --interval time series and one window
// per measured stage (ladder step) — with the timers that close them at boundaries every worker
// computes the same way, so that the runner can merge the workers' windows exactly. Owned by the
// worker's MeasurementSink; that worker's thread only.
#pragma once

#include <cstdint>
#include <vector>

#include "net/event_loop.h"
#include "stats/error_class.h"
#include "stats/time_series.h"

namespace hail {

struct WindowSettings {
  uint64_t start_ns = 0;          // the load's start (warm-up windows begin here)
  uint64_t measure_start_ns = 0;  // a boundary is forced here
  uint64_t end_ns = 0;            // the measured phase's planned end (0: none)
  uint64_t interval_ns = 0;       // 0: no time series
  bool open_loop = false;         // windows keep service times and lags too
  // Absolute boundaries of the stage windows: the first stage's start, each next stage's start,
  // and the curve's end. Fewer than two: no stage windows.
  std::vector<uint64_t> step_boundaries_ns;
};

class WindowRecorder {
 public:
  explicit WindowRecorder(WindowSettings settings);
  ~WindowRecorder();
  WindowRecorder(const WindowRecorder&) = delete;
  WindowRecorder& operator=(const WindowRecorder&) = delete;

  // Opens the first windows and arms the boundary timers. open_connections points at the count
  // each window records when it closes.
  void start(EventLoop& loop, uint64_t now_ns, const uint64_t* open_connections);
  // The run ended at now_ns: the current windows close (their end is the run's).
  void stop(uint64_t now_ns);

  // In a warm-up interval only warm-up requests count, in a measured one only measured requests
  // (so the measured windows add up to the summary exactly). service_ns and lag_ns are kept in
  // open-loop runs only (WindowSettings::open_loop).
  // `tag` counts in the intervals' per-tag shares (WindowSeries::set_tags).
  void on_complete(bool counted, int status, uint64_t latency_ns, uint64_t service_ns,
                   uint64_t lag_ns, uint16_t tag = WindowSeries::kNoTag) {
    if (counted && interval_warmup_ && intervals_.active()) roll_to_measured();
    if (intervals_.active() && counted != interval_warmup_) {
      intervals_.on_complete(status, latency_ns, service_ns, lag_ns, tag);
    }
    if (counted && steps_.active()) steps_.on_complete(status, latency_ns, service_ns, lag_ns);
  }
  void on_error(bool counted, ErrorClass error, uint16_t tag = WindowSeries::kNoTag) {
    if (counted && interval_warmup_ && intervals_.active()) roll_to_measured();
    if (intervals_.active() && counted != interval_warmup_) intervals_.on_error(error, tag);
    if (counted && steps_.active()) steps_.on_error(error);
  }

  // WindowSeries::take_closed() may be called on these from any thread.
  WindowSeries& intervals() { return intervals_; }
  WindowSeries& steps() { return steps_; }
  const WindowSeries& intervals() const { return intervals_; }
  const WindowSeries& steps() const { return steps_; }

 private:
  void roll_to_measured();
  static void on_interval_timer(Timer* timer, void* ctx);
  static void on_step_timer(Timer* timer, void* ctx);

  WindowSettings settings_;
  EventLoop* loop_ = nullptr;
  const uint64_t* open_connections_ = nullptr;
  WindowSeries intervals_;
  bool interval_warmup_ = false;
  Timer interval_timer_;
  WindowSeries steps_;
  size_t next_step_ = 0;  // index into step_boundaries_ns of the next boundary
  Timer step_timer_;
};

}  // namespace hail
