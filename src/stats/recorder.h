// Recorder: everything one worker measures during the measured phase (warm-up excluded by the
// caller). Owned and written by exactly one worker thread; read by the runner only after that
// worker has stopped. Recording never allocates and never locks.
#pragma once

#include <array>
#include <cstdint>

#include "stats/error_class.h"
#include "stats/histogram.h"

namespace hail {

struct Counters {
  uint64_t attempted = 0;      // requests whose first byte was queued on a connection
  uint64_t completed = 0;      // full responses, whatever their status
  uint64_t status_errors = 0;  // the part of `completed` whose status is not 2xx/3xx
  uint64_t in_flight = 0;      // attempted but without an outcome when the run stopped
  std::array<uint64_t, kErrorClassCount> errors{};
  uint64_t bytes_read = 0;          // every byte received while measuring (headers and bodies)
  uint64_t bytes_written = 0;       // request bytes sent while measuring
  uint64_t connections_opened = 0;  // successful connects (warm-up included: see README)
  uint64_t interim_responses = 0;   // 1xx responses skipped before a final one

  uint64_t error(ErrorClass c) const { return errors[static_cast<size_t>(c)]; }
  uint64_t request_errors() const {
    uint64_t n = 0;
    for (size_t i = 0; i < kErrorClassCount; ++i) {
      if (is_request_error(static_cast<ErrorClass>(i))) n += errors[i];
    }
    return n;
  }
  void add(const Counters& o);
};

class Recorder {
 public:
  static constexpr int kMaxStatus = 999;

  Recorder() = default;

  void on_attempt() { ++counters_.attempted; }
  // Rate mode: latency counts from the planned send time (coordinated-omission correction); the
  // time from the actual send (service) and the scheduler's lag (planned -> sent) are kept apart.
  void on_complete_planned(int status, uint64_t planned_ns, uint64_t sent_ns, uint64_t done_ns) {
    on_complete(status, done_ns - planned_ns);
    service_.record(done_ns - sent_ns);
    lag_.record(sent_ns - planned_ns);
  }
  void on_complete(int status, uint64_t latency_ns) {
    ++counters_.completed;
    latency_.record(latency_ns);
    if (status >= 0 && status <= kMaxStatus) {
      ++status_counts_[static_cast<size_t>(status)];
    }
    if (status < 200 || status >= 400) ++counters_.status_errors;
  }
  void on_error(ErrorClass c) { ++counters_.errors[static_cast<size_t>(c)]; }
  // Why errors happened ("connect: Connection refused"). `reason` must have static storage (a
  // literal, or errno_reason()); reasons are told apart by pointer, in a fixed table, so counting
  // one never allocates even when every request fails.
  void on_error_reason(ErrorClass c, const char* reason);
  void on_first_byte(uint64_t ttfb_ns) { ttfb_.record(ttfb_ns); }
  void on_connect(uint64_t connect_ns) { connect_.record(connect_ns); }
  void on_connection_opened() { ++counters_.connections_opened; }
  void on_bytes_read(uint64_t n) { counters_.bytes_read += n; }
  void on_bytes_written(uint64_t n) { counters_.bytes_written += n; }
  void on_interim() { ++counters_.interim_responses; }
  void set_in_flight(uint64_t n) { counters_.in_flight = n; }

  const Counters& counters() const { return counters_; }
  const Histogram& latency() const { return latency_; }
  const Histogram& connect_time() const { return connect_; }
  const Histogram& ttfb() const { return ttfb_; }
  const Histogram& service_time() const { return service_; }
  const Histogram& lag() const { return lag_; }
  const std::array<uint64_t, kMaxStatus + 1>& status_counts() const { return status_counts_; }
  struct ReasonCount {
    ErrorClass error_class;
    const char* reason;  // nullptr: "other" (the table was full)
    uint64_t count;
  };
  static constexpr size_t kMaxReasons = 32;
  const ReasonCount* reasons_begin() const { return reasons_.data(); }
  const ReasonCount* reasons_end() const { return reasons_.data() + reason_slots_; }

 private:
  Counters counters_;
  Histogram latency_;
  Histogram connect_;
  Histogram ttfb_;
  Histogram service_;  // rate mode only
  Histogram lag_;      // rate mode only
  std::array<uint64_t, kMaxStatus + 1> status_counts_{};
  std::array<ReasonCount, kMaxReasons> reasons_{};
  size_t reason_slots_ = 0;
};

// A static description of an errno value ("Connection refused"), usable as an error reason.
const char* errno_reason(int errno_value);

}  // namespace hail
