// MeasurementSink: one outcome per request fans out to the recorder, the windows, the tags, the
// coalescer and the collectors; warm-up is told apart by the request's ticket and connection
// events by time. The front-ends' collectors (request log, first response, rate samples) on their
// own.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "load/collectors.h"
#include "load/measurement_sink.h"
#include "net/event_loop.h"

namespace hail {
namespace {

constexpr uint64_t kMs = kNsPerMs;

Outcome completed(uint64_t planned_ns, uint64_t sent_ns, uint64_t done_ns, bool counted,
                  int status = 200) {
  Outcome o;
  o.planned_ns = planned_ns;
  o.sent_ns = sent_ns;
  o.done_ns = done_ns;
  o.start_ns = sent_ns;
  o.status = status;
  o.counted = counted;
  return o;
}

Outcome failed(ErrorClass error, const char* reason, bool counted) {
  Outcome o;
  o.error = error;
  o.reason = reason;
  o.counted = counted;
  return o;
}

class RecordingCollector final : public Collector {
 public:
  void on_outcome(const Outcome& o) override { outcomes.push_back(o); }
  std::vector<Outcome> outcomes;
};

TEST(MeasurementSink, ClosedLoopOutcomesReachTheRecorderAndTags) {
  SinkSettings s;
  s.tag_names = {"a", "b"};
  MeasurementSink sink(s);
  RecordingCollector collector;
  sink.add_collector(&collector);
  sink.add_collector(nullptr);  // a factory with nothing for this worker
  Ticket counted{0, true};
  Ticket warm{0, false};
  for (int i = 0; i < 4; ++i) sink.on_attempt(counted);
  sink.on_attempt(warm);
  EXPECT_EQ(sink.in_flight(), 5u);
  Outcome a = completed(100, 100, 100 + 2 * kMs, true);
  a.tag = 1;
  a.interim = 2;
  sink.on_outcome(a);
  sink.on_outcome(completed(0, 0, kMs, true, 503));
  sink.on_outcome(completed(0, 0, kMs, false));  // warm-up: not recorded
  sink.on_outcome(failed(ErrorClass::kTimeout, nullptr, true));
  Outcome r = failed(ErrorClass::kRead, "connection closed", true);
  r.tag = 1;
  sink.on_outcome(r);
  EXPECT_EQ(sink.in_flight(), 0u);
  const Recorder& rec = sink.recorder();
  EXPECT_EQ(rec.counters().attempted, 4u);
  EXPECT_EQ(rec.counters().completed, 2u);
  EXPECT_EQ(rec.counters().status_errors, 1u);
  EXPECT_EQ(rec.counters().interim_responses, 2u);
  EXPECT_EQ(rec.counters().error(ErrorClass::kTimeout), 1u);
  EXPECT_EQ(rec.counters().error(ErrorClass::kRead), 1u);
  EXPECT_EQ(rec.latency().count(), 2u);
  EXPECT_EQ(rec.latency().max(), 2 * kMs);
  EXPECT_EQ(rec.service_time().count(), 0u);  // closed loop: latency is the service time
  // A reason is counted only when there is one.
  ASSERT_EQ(rec.reasons_end() - rec.reasons_begin(), 1);
  EXPECT_STREQ(rec.reasons_begin()->reason, "connection closed");
  const TagTable::Tag& b = sink.tags().tag(1);
  EXPECT_EQ(b.name, "b");
  EXPECT_EQ(b.completed, 1u);
  EXPECT_EQ(b.errors[static_cast<size_t>(ErrorClass::kRead)], 1u);
  EXPECT_EQ(collector.outcomes.size(), 5u);  // collectors see every outcome, warm-up included
}

TEST(MeasurementSink, OpenLoopKeepsServiceTimeAndLagApart) {
  SinkSettings s;
  s.open_loop = true;
  MeasurementSink sink(s);
  sink.on_attempt(Ticket{1000, true});
  // Planned at 1 ms, sent at 3 ms, done at 10 ms: latency 9 ms, service 7 ms, lag 2 ms.
  sink.on_outcome(completed(kMs, 3 * kMs, 10 * kMs, true));
  EXPECT_EQ(sink.recorder().latency().max(), 9 * kMs);
  EXPECT_EQ(sink.recorder().service_time().max(), 7 * kMs);
  EXPECT_EQ(sink.recorder().lag().max(), 2 * kMs);
}

TEST(MeasurementSink, ConnectionEventsCountOnlyWhileMeasuring) {
  SinkSettings s;
  s.measure_start_ns = 50;
  MeasurementSink sink(s);
  sink.on_connect_failed(10, "Connection refused");  // warm-up
  sink.on_connect_failed(60, "Connection refused");
  sink.on_connected(10, 5);
  sink.on_connected(60, 7);
  sink.on_bytes_read(10, 100);
  sink.on_bytes_read(60, 1000);
  sink.on_bytes_written(60, 10);
  sink.on_tls_handshake(60, 9, true);
  sink.on_opened(true, "TLSv1.3", "TLS_AES_128_GCM_SHA256");
  const Counters& c = sink.recorder().counters();
  EXPECT_EQ(c.error(ErrorClass::kConnect), 1u);
  EXPECT_EQ(sink.recorder().connect_time().count(), 1u);
  EXPECT_EQ(c.bytes_read, 1000u);
  EXPECT_EQ(c.bytes_written, 10u);
  EXPECT_EQ(c.tls_resumed, 1u);
  EXPECT_EQ(c.connections_opened, 1u);  // warm-up included: opened connections serve both
  EXPECT_EQ(c.connections_h2, 1u);
  EXPECT_STREQ(sink.recorder().tls_version(), "TLSv1.3");
}

TEST(MeasurementSink, CaptureIsAskedOfTheCollectors) {
  MeasurementSink sink{SinkSettings{}};
  FirstResponseCollector first;
  EXPECT_FALSE(sink.wants_capture(0));
  sink.add_collector(first.make(0, 1));
  EXPECT_TRUE(sink.wants_capture(0));
  EXPECT_FALSE(sink.wants_capture(1));  // the first connection only
  sink.on_captured(0, 200, {{"server", "nginx/1.22 (Debian)"}, {"X", "y"}}, 1234);
  EXPECT_EQ(first.server_software(), "nginx/1.22 (Debian)");  // the field name in any case
  EXPECT_EQ(first.document_length(), 1234);
  EXPECT_FALSE(sink.wants_capture(0));   // once
  EXPECT_EQ(first.make(1, 2), nullptr);  // other workers collect nothing
}

TEST(RequestLogCollectors, MergesWorkersInOrderOfStartOnTheWallClock) {
  RequestLogCollectors log(10);
  Collector* w0 = log.make(0, 2);
  Collector* w1 = log.make(1, 2);
  Outcome a = completed(0, 300, 900, true);
  a.start_ns = 250;  // a fresh connection: the request began with its connect
  a.connect_ns = 50;
  a.first_byte_ns = 500;
  a.body_bytes = 42;
  w0->on_outcome(a);
  w1->on_outcome(completed(0, 100, 400, true));
  w1->on_outcome(completed(0, 200, 400, false));         // warm-up: not logged
  w1->on_outcome(failed(ErrorClass::kRead, "x", true));  // failed: not logged (ab's rule)
  log.finish(RunClock{100, 1'000'000});
  const std::vector<RequestRecord>& r = log.log();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].start_unix_ns, 1'000'000u);  // mono 100 = the run's start
  EXPECT_EQ(r[1].start_unix_ns, 1'000'150u);
  EXPECT_EQ(r[1].connect_ns, 50u);
  EXPECT_EQ(r[1].wait_ns, 200u);   // sent 300 -> first byte 500
  EXPECT_EQ(r[1].total_ns, 650u);  // start 250 -> done 900
  EXPECT_EQ(r[1].body_bytes, 42u);
  EXPECT_EQ(r[1].status, 200);
}

TEST(RateSampleCollectors, SamplesCompletionsPerSecondEvery100Ms) {
  auto loop = EventLoop::create();
  ASSERT_TRUE(loop.ok());
  std::unique_ptr<EventLoop> l(loop.value());
  RateSampleCollectors rates;
  Collector* c = rates.make(0, 1);
  const uint64_t t0 = l->refresh_now_ns();
  c->on_start(*l, t0);
  for (int i = 0; i < 50; ++i) c->on_outcome(completed(0, 0, 1, true));
  c->on_outcome(completed(0, 0, 1, false));  // warm-up: not a completion of the measured phase
  Timer stop;
  stop.fn = [](Timer*, void* ctx) { static_cast<EventLoop*>(ctx)->quit(); };
  stop.ctx = l.get();
  l->arm(stop, t0 + 150 * kMs);
  l->run();
  c->on_stop(*l, l->now_ns());
  rates.finish(RunClock{});
  // One sample after 100 ms: 50 completions in 0.1 s.
  ASSERT_EQ(rates.samples().count(), 1u);
  EXPECT_EQ(rates.samples().max(), 500u);
}

}  // namespace
}  // namespace hail
