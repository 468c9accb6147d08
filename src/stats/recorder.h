// Recorder: everything one worker measures during the measured phase (warm-up excluded by the
// caller). Owned and written by exactly one worker thread; read by the runner only after that
// worker has stopped. Recording never allocates and never locks.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

#include "core/errno_reason.h"
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
  uint64_t tls_handshakes = 0;      // completed while measuring, resumed ones included
  uint64_t tls_resumed = 0;         // the part of tls_handshakes that resumed a session
  uint64_t connections_h2 = 0;      // the part of connections_opened that spoke HTTP/2
  // Sends that the server never answered because it closed a reused keep-alive connection before a
  // byte of their response (RFC 9112 §9.3.1): each idempotent request is sent once more on a new
  // connection, and both sends are in `attempted`.
  uint64_t retried = 0;
  // Bytes or whole responses that arrived with no request outstanding (RFC 9112 §9.3.2): they end
  // their connection. Part of errors[kParse], but they consume no request.
  uint64_t unsolicited = 0;

  uint64_t error(ErrorClass c) const { return errors[static_cast<size_t>(c)]; }
  // Errors that ended a request: every class but connect, without the unsolicited ones.
  uint64_t request_errors() const {
    uint64_t n = 0;
    for (size_t i = 0; i < kErrorClassCount; ++i) {
      if (is_request_error(static_cast<ErrorClass>(i))) n += errors[i];
    }
    return n - unsolicited;
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
  void on_retried() { ++counters_.retried; }
  void on_unsolicited() {
    ++counters_.errors[static_cast<size_t>(ErrorClass::kParse)];
    ++counters_.unsolicited;
  }
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
  void on_tls_handshake(uint64_t handshake_ns, bool resumed) {
    tls_handshake_.record(handshake_ns);
    ++counters_.tls_handshakes;
    if (resumed) ++counters_.tls_resumed;
  }
  // After each connect (and handshake). version / cipher: static NUL-terminated strings from
  // OpenSSL (empty for cleartext); the first seen are kept for the report.
  void on_protocol(bool h2, std::string_view tls_version, std::string_view tls_cipher) {
    if (h2) ++counters_.connections_h2;
    if (tls_version_ == nullptr && !tls_version.empty()) tls_version_ = tls_version.data();
    if (tls_cipher_ == nullptr && !tls_cipher.empty()) tls_cipher_ = tls_cipher.data();
  }
  void set_in_flight(uint64_t n) { counters_.in_flight = n; }
  // HTTP/2: a connection's stream limit (ClientSession::stream_limit), when it opens and when it
  // closes (the server may lower it in between); the lowest and highest are reported.
  void on_stream_limit(uint32_t streams) {
    if (streams_min_ == 0 || streams < streams_min_) streams_min_ = streams;
    streams_max_ = std::max(streams_max_, streams);
  }
  uint32_t streams_min() const { return streams_min_; }
  uint32_t streams_max() const { return streams_max_; }

  const Counters& counters() const { return counters_; }
  const Histogram& latency() const { return latency_; }
  const Histogram& connect_time() const { return connect_; }
  const Histogram& ttfb() const { return ttfb_; }
  const Histogram& service_time() const { return service_; }
  const Histogram& lag() const { return lag_; }
  const Histogram& tls_handshake() const { return tls_handshake_; }
  const char* tls_version() const { return tls_version_; }
  const char* tls_cipher() const { return tls_cipher_; }
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
  Histogram tls_handshake_;
  const char* tls_version_ = nullptr;
  const char* tls_cipher_ = nullptr;
  uint32_t streams_min_ = 0;  // 0: no HTTP/2 connection reported one
  uint32_t streams_max_ = 0;
  std::array<uint64_t, kMaxStatus + 1> status_counts_{};
  std::array<ReasonCount, kMaxReasons> reasons_{};
  size_t reason_slots_ = 0;
};

}  // namespace hail
