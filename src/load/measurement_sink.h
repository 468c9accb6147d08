// MeasurementSink: where everything a worker's connections measure goes — one Outcome per request,
// plus connection events (connects, TLS handshakes, bytes) — and from where it is fanned out to the
// Recorder (run totals and histograms), the windows, the per-tag table, the wake-up coalescer and
// the front-ends' collectors. Warm-up is told apart here, by time or by the request's ticket.
// Owned by one worker; its thread only during the run, then read by the runner.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "load/collector.h"
#include "load/outcome.h"
#include "load/pacer.h"
#include "load/wake_coalescer.h"
#include "load/window_recorder.h"
#include "stats/recorder.h"
#include "stats/tag_stats.h"

namespace hail {

struct SinkSettings {
  uint64_t measure_start_ns = 0;
  // Open-loop plans: service time (sent -> complete) and the scheduler's lag (planned -> sent) are
  // recorded apart from the latency (planned -> complete).
  bool open_loop = false;
  bool coalesce_wakeups = true;
  std::vector<std::string> tag_names;  // interned first, in order (--urls lines)
  WindowSettings windows;
};

class MeasurementSink {
 public:
  explicit MeasurementSink(SinkSettings settings);
  MeasurementSink(const MeasurementSink&) = delete;
  MeasurementSink& operator=(const MeasurementSink&) = delete;

  void add_collector(Collector* collector) {
    if (collector != nullptr) collectors_.push_back(collector);
  }
  void start(EventLoop& loop, uint64_t now_ns);
  // The run ended at now_ns with counted_in_flight measured requests still unanswered.
  void stop(EventLoop& loop, uint64_t now_ns, uint64_t counted_in_flight);

  // ---- connections ----
  void on_connect_failed(uint64_t now_ns, const char* reason) {
    const bool counted = measuring(now_ns);
    if (counted) {
      recorder_.on_error(ErrorClass::kConnect);
      recorder_.on_error_reason(ErrorClass::kConnect, reason);
    }
    windows_.on_error(counted, ErrorClass::kConnect);
  }
  void on_connected(uint64_t now_ns, uint64_t connect_ns) {
    if (measuring(now_ns)) recorder_.on_connect(connect_ns);
  }
  void on_tls_handshake(uint64_t now_ns, uint64_t handshake_ns, bool resumed) {
    if (measuring(now_ns)) recorder_.on_tls_handshake(handshake_ns, resumed);
  }
  void on_opened(bool h2, std::string_view tls_version, std::string_view tls_cipher) {
    recorder_.on_connection_opened();
    recorder_.on_protocol(h2, tls_version, tls_cipher);
    ++open_connections_;
  }
  void on_closed() { --open_connections_; }
  void on_stream_limit(uint32_t streams) { recorder_.on_stream_limit(streams); }
  void on_bytes_read(uint64_t now_ns, uint64_t bytes) {
    if (measuring(now_ns)) recorder_.on_bytes_read(bytes);
  }
  void on_bytes_written(uint64_t now_ns, uint64_t bytes) {
    if (measuring(now_ns)) recorder_.on_bytes_written(bytes);
  }

  // A protocol error with no request in flight (bytes no request asked for): it ends its
  // connection, counts as a parse error, and consumes no request.
  void on_unsolicited(uint64_t now_ns, const char* reason) {
    const bool counted = measuring(now_ns);
    if (counted) {
      recorder_.on_unsolicited();
      recorder_.on_error_reason(ErrorClass::kParse, reason);
    }
    windows_.on_error(counted, ErrorClass::kParse);
  }

  // ---- requests ----
  // A request sent again on a new connection (its first send was never answered): that send is
  // settled as retried; the next on_attempt is the new send.
  void on_retry(const Ticket& ticket) {
    --in_flight_;
    if (ticket.counted) recorder_.on_retried();
  }
  void on_attempt(const Ticket& ticket) {
    ++in_flight_;
    if (ticket.counted) recorder_.on_attempt();
  }
  void on_first_byte(bool counted, uint64_t ttfb_ns) {
    if (counted) recorder_.on_first_byte(ttfb_ns);
  }
  void on_outcome(const Outcome& o) {
    --in_flight_;
    if (o.completed()) {
      if (o.counted) {
        if (settings_.open_loop) {
          recorder_.on_complete_planned(o.status, o.planned_ns, o.sent_ns, o.done_ns);
        } else {
          recorder_.on_complete(o.status, o.service_ns());
        }
        for (uint32_t i = 0; i < o.interim; ++i) recorder_.on_interim();
        tags_.on_complete(o.tag, o.status, o.latency_ns());
      }
      coalescer_.on_response(o.service_ns());
      windows_.on_complete(o.counted, o.status, o.latency_ns(), o.service_ns(),
                           o.sent_ns - o.planned_ns, o.tag);
    } else {
      on_failure(o);
    }
    if (!collectors_.empty()) [[unlikely]]
      feed_collectors(o);
  }
  bool wants_capture(uint32_t connection) const {
    for (const Collector* c : collectors_) {
      if (c->wants_capture(connection)) return true;
    }
    return false;
  }
  void on_captured(uint32_t connection, int status,
                   const std::vector<std::pair<std::string, std::string>>& headers,
                   uint64_t body_bytes) {
    for (Collector* c : collectors_) {
      if (c->wants_capture(connection)) c->on_captured(connection, status, headers, body_bytes);
    }
  }

  // Requests granted and not yet answered, warm-up included.
  uint64_t in_flight() const { return in_flight_; }
  // How long the worker may nap before its next blocking wait (WakeCoalescer).
  uint64_t nap_ns() const { return coalescer_.nap_ns(in_flight_); }
  uint64_t batch_wait_ns() const { return coalescer_.batch_wait_ns(in_flight_); }

  const Recorder& recorder() const { return recorder_; }
  TagTable& tags() { return tags_; }
  const TagTable& tags() const { return tags_; }
  const WindowRecorder& windows() const { return windows_; }
  WindowRecorder& windows() { return windows_; }

 private:
  bool measuring(uint64_t now_ns) const { return now_ns >= settings_.measure_start_ns; }
  void on_failure(const Outcome& o);
  void feed_collectors(const Outcome& o);

  SinkSettings settings_;
  Recorder recorder_;
  TagTable tags_;
  WindowRecorder windows_;
  WakeCoalescer coalescer_;
  std::vector<Collector*> collectors_;
  uint64_t in_flight_ = 0;
  uint64_t open_connections_ = 0;
};

}  // namespace hail
