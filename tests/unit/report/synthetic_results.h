// Synthetic RunResults for the report tests: every field set, varied by a seed (closed loop and
// rate mode, TLS, HTTP/2, pipelines, stages and ladders, warm-up windows, tags, error reasons with
// and without errno, out-of-range latencies, odd doubles and strings), and consistent the way real
// runs are (each histogram's count is its completed count). Plus a field-by-field comparison.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "stats/histogram.h"
#include "stats/histogram_codec.h"
#include "stats/run_result.h"

namespace hail::test {

class Synth {
 public:
  explicit Synth(uint64_t seed) : rng_(seed) {}

  uint64_t below(uint64_t n) { return n == 0 ? 0 : rng_() % n; }
  bool chance(unsigned percent) { return below(100) < percent; }

  // `count` values spread over a few decades, with the layout's edges now and then: 0, the
  // unit-resolution boundary, and values past the highest trackable one (out of range).
  Histogram histogram(uint64_t count) {
    Histogram h;
    const uint64_t center = 1000 + below(50'000'000);
    for (uint64_t left = count; left > 0;) {
      const uint64_t n = 1 + below(left);
      uint64_t value = center / (1 + below(20)) + below(center);
      const uint64_t edge = below(40);
      if (edge == 0) value = 0;
      if (edge == 1) value = 2047 + below(3);
      if (edge == 2) value = Histogram::kDefaultHighestTrackableNs + 1 + below(1000);
      h.record_n(value, n);
      left -= n;
    }
    return h;
  }

  WindowStats window(uint64_t start_ns, uint64_t length_ns, bool warmup, bool open_loop) {
    WindowStats w;
    w.start_ns = start_ns;
    w.end_ns = start_ns + length_ns;
    w.warmup = warmup;
    w.completed = chance(15) ? 0 : below(500);
    w.latency = EncodedHistogram(histogram(w.completed));
    if (open_loop) {
      w.service = EncodedHistogram(histogram(w.completed));
      w.lag = EncodedHistogram(histogram(w.completed));
    }
    w.status_errors = below(w.completed + 1);
    for (uint64_t& e : w.errors) e = chance(70) ? 0 : below(50);
    w.open_connections = below(1000);
    w.target_start =
        chance(50) ? static_cast<double>(below(100)) : 0.1 * static_cast<double>(below(1000));
    w.target_end = chance(50) ? w.target_start : 1.0 / static_cast<double>(1 + below(7));
    w.sources = 1 + static_cast<uint32_t>(below(8));
    w.update_percentiles();
    for (uint64_t i = chance(70) ? 0 : 1 + below(3); i > 0; --i) {
      TagWindow& t = w.tags.emplace_back();
      t.name = i == 1 ? "GET /search?q=\"hail\"\n\x01" : "tag " + std::to_string(i);
      t.completed = below(200);
      t.latency = EncodedHistogram(histogram(t.completed));
      t.status_errors = below(t.completed + 1);
      for (uint64_t& e : t.errors) e = chance(80) ? 0 : below(20);
    }
    return w;
  }

  TagResult tag(std::string name) {
    TagResult t;
    t.name = std::move(name);
    t.completed = below(3000);
    t.latency = histogram(t.completed);
    for (uint64_t left = t.completed; left > 0;) {
      const uint64_t n = 1 + below(left);
      t.status_codes[static_cast<int>(below(1000))] += n;
      left -= n;
    }
    for (uint64_t& e : t.errors) e = chance(60) ? 0 : below(40);
    return t;
  }

  RunResult result() {
    RunResult r;
    static const char* const kUrls[] = {"http://127.0.0.1:8080/", "https://example.com:8443/a?b=c",
                                        "http://[::1]:9/caf\xc3\xa9/\xe2\x82\xac"};
    r.url = kUrls[below(3)] + std::string(below(3) == 0 ? 200 : 0, 'p');
    static const char* const kMethods[] = {"GET", "POST", "DELETE", "PURGE"};
    r.method = kMethods[below(4)];
    r.connections = 1 + static_cast<uint32_t>(below(10000));
    r.threads = 1 + static_cast<uint32_t>(below(64));
    r.keep_alive = chance(80);
    r.http_minor = chance(80) ? 1 : 0;
    r.requests_target = chance(30) ? 1 + below(1'000'000) : 0;
    r.duration_target_ns = r.requests_target != 0 && chance(50) ? 0 : 1 + below(100'000'000'000);
    r.warmup_ns = chance(50) ? 0 : below(5'000'000'000);
    r.timeout_ns = 1 + below(10'000'000'000);
    r.start_unix_ns = 1'700'000'000'000'000'000 + below(100'000'000'000'000'000);
    r.duration_ns = below(60'000'000'000);
    r.interrupted = chance(10);
    const bool open_loop = chance(40);
    r.rate_target_per_s =
        open_loop ? (chance(50) ? 1234567.5 : 0.1 + static_cast<double>(below(100000)) / 7) : 0;
    r.backlog = open_loop ? below(100000) : 0;
    r.latency = histogram(below(20000));
    r.counters.completed = r.latency.count();
    r.counters.status_errors = below(r.counters.completed + 1);
    for (uint64_t& e : r.counters.errors) e = chance(50) ? 0 : below(1000);
    r.counters.in_flight = below(100);
    r.counters.attempted = r.counters.completed + r.counters.request_errors() +
                           r.counters.in_flight +
                           (chance(10) ? 1 : 0);  // now and then broken accounting, as reported
    r.counters.bytes_read = below(uint64_t{1} << 40);
    r.counters.bytes_written = below(uint64_t{1} << 40);
    r.counters.connections_opened = below(20000);
    r.counters.interim_responses = below(10);
    for (uint64_t left = r.counters.completed; left > 0;) {
      const uint64_t n = 1 + below(left);
      r.status_codes[static_cast<int>(100 + below(500))] += n;
      left -= n;
    }
    add_reasons(r);
    r.connect_time = histogram(below(100));
    r.ttfb = histogram(r.counters.completed);
    if (open_loop) {
      r.service_time = histogram(r.counters.completed);
      r.lag = histogram(r.counters.completed);
    }
    if (chance(40)) {
      r.tls_handshake = histogram(below(200));
      r.tls_version = chance(50) ? "TLSv1.3" : "TLSv1.2";
      r.tls_cipher = "TLS_AES_256_GCM_SHA384";
      r.counters.tls_handshakes = r.tls_handshake.count();
      r.counters.tls_resumed = below(r.counters.tls_handshakes + 1);
    }
    const unsigned protocols = static_cast<unsigned>(below(16));
    for (unsigned p = 0; p < 4; ++p) {
      if ((protocols & (1u << p)) != 0) r.protocols.add(static_cast<WireProtocol>(p));
    }
    r.counters.connections_h2 = r.protocols.speaks_h2() ? below(100) : 0;
    r.pipeline = chance(20) ? 2 + static_cast<uint32_t>(below(100)) : 1;
    r.streams = chance(30) ? 1 + static_cast<uint32_t>(below(1000)) : 1;
    r.target_unit = chance(10) ? "" : open_loop ? "req/s" : "connections";
    add_windows(r, open_loop);
    if (chance(20)) r.script_error = "post.lua:12: attempt to call global 'foo' (a nil value)";
    const size_t tags = chance(40) ? below(6) : 0;
    for (size_t i = 0; i < tags; ++i) {
      r.tags.push_back(tag(i == 0 ? "GET /search?q=\"hail\"\n\x01" : "tag " + std::to_string(i)));
    }
    if (tags > 0 && chance(50)) r.tags.push_back(tag("(other)"));
    r.max_worker_cpu_utilization = static_cast<double>(below(1001)) / 1000;
    r.naps = below(1000);
    r.max_nap_ns = r.naps > 0 ? below(50'001) : 0;
    for (uint64_t i = below(3); i > 0; --i)
      r.notes.push_back("note " + std::to_string(i) + ": \"x\"");
    // None (a result from before machines were recorded), one (a run), or a merge's several.
    for (uint64_t i = below(4); i > 0; --i) {
      r.machines.push_back({"Model \"" + std::to_string(i) + "\"  X",
                            static_cast<uint32_t>(below(257)), "Linux 6.1.0 #1 SMP",
                            "host-" + std::to_string(i)});
    }
    return r;
  }

 private:
  void add_reasons(RunResult& r) {
    static const char* const kReasons[] = {"Connection refused", "bad chunk size",
                                           "Connection reset by peer", "refused by GOAWAY"};
    for (uint64_t i = below(5); i > 0; --i) {
      add_error_reason(r.error_reasons, static_cast<ErrorClass>(below(kErrorClassCount)),
                       kReasons[below(4)], 1 + below(100));
    }
    if (chance(10)) add_error_reason(r.error_reasons, ErrorClass::kCount, "other reasons", 3);
  }

  void add_windows(RunResult& r, bool open_loop) {
    if (chance(70)) {
      r.interval_ns = 10'000'000 + below(2'000'000'000);
      uint64_t at = 0;
      for (uint64_t i = below(12); i > 0; --i) {
        const bool warmup = at < r.warmup_ns;
        const uint64_t length = i == 1 ? 1 + below(r.interval_ns) : r.interval_ns;
        r.intervals.push_back(window(at, length, warmup, open_loop));
        at += length;
      }
    }
    if (chance(40)) {
      r.ladder = chance(50);
      uint64_t at = r.warmup_ns;
      for (uint64_t i = 1 + below(5); i > 0; --i) {
        const uint64_t length = 1 + below(3'000'000'000);
        r.steps.push_back(window(at, length, false, open_loop));
        at += length;
      }
    }
  }

  std::mt19937_64 rng_;
};

inline std::vector<std::pair<size_t, uint64_t>> slots(const Histogram& h) {
  std::vector<std::pair<size_t, uint64_t>> out;
  h.for_each_index([&](size_t index, uint64_t count) { out.emplace_back(index, count); });
  return out;
}

inline void expect_same_histogram(const Histogram& a, const Histogram& b, const std::string& what) {
  EXPECT_EQ(a.count(), b.count()) << what;
  EXPECT_EQ(a.min(), b.min()) << what;
  EXPECT_EQ(a.max(), b.max()) << what;
  EXPECT_EQ(a.out_of_range(), b.out_of_range()) << what;
  EXPECT_EQ(slots(a), slots(b)) << what;
}

inline void expect_same_window(const WindowStats& a, const WindowStats& b,
                               const std::string& what) {
  EXPECT_EQ(a.start_ns, b.start_ns) << what;
  EXPECT_EQ(a.end_ns, b.end_ns) << what;
  EXPECT_EQ(a.warmup, b.warmup) << what;
  EXPECT_EQ(a.completed, b.completed) << what;
  EXPECT_EQ(a.status_errors, b.status_errors) << what;
  EXPECT_EQ(a.errors, b.errors) << what;
  EXPECT_EQ(a.p50_ns, b.p50_ns) << what;
  EXPECT_EQ(a.p90_ns, b.p90_ns) << what;
  EXPECT_EQ(a.p99_ns, b.p99_ns) << what;
  EXPECT_EQ(a.max_ns, b.max_ns) << what;
  expect_same_histogram(a.latency.decode(), b.latency.decode(), what + " latency");
  expect_same_histogram(a.service.decode(), b.service.decode(), what + " service");
  expect_same_histogram(a.lag.decode(), b.lag.decode(), what + " lag");
  EXPECT_EQ(a.open_connections, b.open_connections) << what;
  EXPECT_EQ(a.target_start, b.target_start) << what;
  EXPECT_EQ(a.target_end, b.target_end) << what;
  EXPECT_EQ(a.sources, b.sources) << what;
  ASSERT_EQ(a.tags.size(), b.tags.size()) << what;
  for (size_t i = 0; i < a.tags.size(); ++i) {
    EXPECT_EQ(a.tags[i].name, b.tags[i].name) << what;
    EXPECT_EQ(a.tags[i].completed, b.tags[i].completed) << what;
    EXPECT_EQ(a.tags[i].status_errors, b.tags[i].status_errors) << what;
    EXPECT_EQ(a.tags[i].errors, b.tags[i].errors) << what;
    expect_same_histogram(a.tags[i].latency.decode(), b.tags[i].latency.decode(),
                          what + " tag " + a.tags[i].name);
  }
}

// Every field of RunResult (the settings, the measurements, the windows, the tags).
inline void expect_same_result(const RunResult& a, const RunResult& b) {
  EXPECT_EQ(a.url, b.url);
  EXPECT_EQ(a.method, b.method);
  EXPECT_EQ(a.connections, b.connections);
  EXPECT_EQ(a.threads, b.threads);
  EXPECT_EQ(a.keep_alive, b.keep_alive);
  EXPECT_EQ(a.http_minor, b.http_minor);
  EXPECT_EQ(a.requests_target, b.requests_target);
  EXPECT_EQ(a.duration_target_ns, b.duration_target_ns);
  EXPECT_EQ(a.warmup_ns, b.warmup_ns);
  EXPECT_EQ(a.timeout_ns, b.timeout_ns);
  EXPECT_EQ(a.start_unix_ns, b.start_unix_ns);
  EXPECT_EQ(a.duration_ns, b.duration_ns);
  EXPECT_EQ(a.interrupted, b.interrupted);
  EXPECT_EQ(a.shard_index, b.shard_index);
  EXPECT_EQ(a.shard_count, b.shard_count);
  EXPECT_EQ(a.shard_source, b.shard_source);
  EXPECT_EQ(a.run_id, b.run_id);
  EXPECT_EQ(a.whole_connections, b.whole_connections);
  EXPECT_EQ(a.whole_requests, b.whole_requests);
  EXPECT_EQ(a.whole_rate_per_s, b.whole_rate_per_s);
  EXPECT_EQ(a.start_at_unix_ns, b.start_at_unix_ns);
  EXPECT_EQ(a.start_late_ns, b.start_late_ns);
  EXPECT_EQ(std::memcmp(&a.counters, &b.counters, sizeof(Counters)), 0);
  EXPECT_EQ(a.status_codes, b.status_codes);
  ASSERT_EQ(a.error_reasons.size(), b.error_reasons.size());
  for (size_t i = 0; i < a.error_reasons.size(); ++i) {
    EXPECT_EQ(a.error_reasons[i].error_class, b.error_reasons[i].error_class) << i;
    EXPECT_EQ(a.error_reasons[i].reason, b.error_reasons[i].reason) << i;
    EXPECT_EQ(a.error_reasons[i].errno_value, b.error_reasons[i].errno_value) << i;
    EXPECT_EQ(a.error_reasons[i].count, b.error_reasons[i].count) << i;
  }
  expect_same_histogram(a.latency, b.latency, "latency");
  expect_same_histogram(a.connect_time, b.connect_time, "connect");
  expect_same_histogram(a.ttfb, b.ttfb, "ttfb");
  expect_same_histogram(a.tls_handshake, b.tls_handshake, "tls_handshake");
  expect_same_histogram(a.service_time, b.service_time, "service_time");
  expect_same_histogram(a.lag, b.lag, "lag");
  EXPECT_EQ(a.tls_version, b.tls_version);
  EXPECT_EQ(a.tls_cipher, b.tls_cipher);
  EXPECT_EQ(a.protocols, b.protocols);
  EXPECT_EQ(a.pipeline, b.pipeline);
  EXPECT_EQ(a.streams, b.streams);
  EXPECT_EQ(a.rate_target_per_s, b.rate_target_per_s);
  EXPECT_EQ(a.backlog, b.backlog);
  EXPECT_EQ(a.interval_ns, b.interval_ns);
  ASSERT_EQ(a.intervals.size(), b.intervals.size());
  for (size_t i = 0; i < a.intervals.size(); ++i) {
    expect_same_window(a.intervals[i], b.intervals[i], "interval " + std::to_string(i));
  }
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (size_t i = 0; i < a.steps.size(); ++i) {
    expect_same_window(a.steps[i], b.steps[i], "step " + std::to_string(i));
  }
  EXPECT_EQ(a.ladder, b.ladder);
  EXPECT_STREQ(a.target_unit, b.target_unit);
  EXPECT_EQ(a.script_error, b.script_error);
  ASSERT_EQ(a.tags.size(), b.tags.size());
  for (size_t i = 0; i < a.tags.size(); ++i) {
    EXPECT_EQ(a.tags[i].name, b.tags[i].name) << i;
    EXPECT_EQ(a.tags[i].completed, b.tags[i].completed) << i;
    EXPECT_EQ(a.tags[i].errors, b.tags[i].errors) << i;
    EXPECT_EQ(a.tags[i].status_codes, b.tags[i].status_codes) << i;
    expect_same_histogram(a.tags[i].latency, b.tags[i].latency, "tag " + a.tags[i].name);
  }
  EXPECT_EQ(a.max_worker_cpu_utilization, b.max_worker_cpu_utilization);
  EXPECT_EQ(a.naps, b.naps);
  EXPECT_EQ(a.max_nap_ns, b.max_nap_ns);
  EXPECT_EQ(a.notes, b.notes);
  EXPECT_EQ(a.machines, b.machines);
}

}  // namespace hail::test
