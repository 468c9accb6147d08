// RunResult::merge, field by field: two results with distinct non-zero values in every field, and
// the merged value of each checked against its rule (sum, first, larger, union, ...).
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "stats/run_result.h"

namespace hail {
namespace {

// Counters is nothing but uint64_t counts: seen as an array, every field (present and future) gets
// a distinct value and is checked.
constexpr size_t kCounterFields = sizeof(Counters) / sizeof(uint64_t);
static_assert(sizeof(Counters) == kCounterFields * sizeof(uint64_t));

Counters counters_with(uint64_t scale) {
  uint64_t fields[kCounterFields];
  for (size_t i = 0; i < kCounterFields; ++i) fields[i] = (i + 1) * scale;
  Counters c;
  std::memcpy(&c, fields, sizeof c);
  return c;
}

std::vector<uint64_t> fields_of(const Counters& c) {
  std::vector<uint64_t> fields(kCounterFields);
  std::memcpy(fields.data(), &c, sizeof c);
  return fields;
}

WindowStats window(uint64_t start_ns, uint64_t latency_ns, uint64_t completed) {
  WindowStats w;
  w.start_ns = start_ns;
  w.end_ns = start_ns + 1000;
  w.completed = completed;
  Histogram h;
  h.record_n(latency_ns, completed);
  w.latency = EncodedHistogram(h);
  w.update_percentiles();
  w.sources = 1;
  return w;
}

TagResult tag(const std::string& name, uint64_t completed, uint64_t latency_ns) {
  TagResult t;
  t.name = name;
  t.completed = completed;
  t.errors[static_cast<size_t>(ErrorClass::kRead)] = completed;
  t.status_codes[200] = completed;
  t.latency.record_n(latency_ns, completed);
  return t;
}

// k = 1 or 2: every field set, to values that tell the two apart.
RunResult full(uint64_t k) {
  RunResult r;
  r.url = "http://host" + std::to_string(k) + "/";
  r.method = k == 1 ? "POST" : "PUT";
  r.connections = static_cast<uint32_t>(10 * k);
  r.threads = static_cast<uint32_t>(k);
  r.keep_alive = k == 2;
  r.http_minor = k == 1 ? 0 : 1;
  r.requests_target = 1000 * k;
  r.duration_target_ns = 7000 * k;
  r.warmup_ns = 11 * k;
  r.timeout_ns = 13 * k;
  r.start_unix_ns = k == 1 ? 5'000 : 4'000;
  r.duration_ns = k == 1 ? 900 : 800;
  r.interrupted = k == 2;
  r.server_gone = k == 1;
  r.counters = counters_with(k == 1 ? 1 : 100);
  r.status_codes = {{200, k}, {static_cast<int>(300 + k), 1}};
  add_error_reason(r.error_reasons, ErrorClass::kConnect, "Connection refused", k);
  add_error_reason(r.error_reasons, ErrorClass::kParse, "bad " + std::to_string(k), 1);
  r.latency.record(1'000 * k);
  r.connect_time.record(2'000 * k);
  r.ttfb.record(3'000 * k);
  r.tls_handshake.record(4'000 * k);
  r.tls_version = k == 1 ? "" : "TLSv1.3";  // first known: 2's
  r.tls_cipher = k == 1 ? "CIPHER-1" : "CIPHER-2";
  r.protocols = ProtocolSet(k == 1 ? WireProtocol::kHttp11 : WireProtocol::kHttp2);
  r.pipeline = static_cast<uint32_t>(1 + k);
  r.streams = static_cast<uint32_t>(10 + k);
  r.streams_effective_min = k == 1 ? 5 : 3;
  r.streams_effective_max = k == 1 ? 6 : 8;
  r.rate_target_per_s = 100.0 * static_cast<double>(k);
  r.backlog = 3 * k;
  r.service_time.record(5'000 * k);
  r.lag.record(6'000 * k);
  r.interval_ns = 1'000'000 * k;
  for (uint64_t i = 0; i < k; ++i) r.intervals.push_back(window(i * 1000, 7'000 * k, k));
  r.steps.push_back(window(0, 8'000 * k, 2 * k));
  r.ladder = k == 1;
  r.target_unit = k == 1 ? "req/s" : "connections";
  r.script_error = k == 1 ? "" : "x.lua:1: boom";       // first known: 2's
  if (k == 2) r.slo = {"p(99)<10ms", "error_rate<1%"};  // first known: 2's
  r.slo_abort = k == 1 ? "" : "\"max<1s\": max was 2s by 3.0 s";
  if (k == 1) {
    r.tags = {tag("a", 1, 1'000), tag(std::string(TagTable::kOtherName), 1, 9'000)};
  } else {
    r.tags = {tag("b", 2, 2'000), tag("a", 2, 3'000)};
  }
  r.max_worker_cpu_utilization = k == 1 ? 0.25 : 0.75;
  r.naps = 7 * k;
  r.max_nap_ns = k == 1 ? 900 : 100;
  r.shard_index = k - 1;
  r.shard_count = 4;
  r.shard_source = k == 1 ? "Slurm" : "Open MPI";
  r.run_id = "run" + std::to_string(k);
  r.start_at_unix_ns = 1000 * k;
  r.start_late_ns = k == 1 ? 50 : 20;
  r.whole_connections = 10 * k;
  r.whole_requests = 100 * k;
  r.whole_rate_per_s = 1000.0 * k;
  r.notes = {"note " + std::to_string(k)};
  const MachineInfo shared{"EPYC", 8, "Linux 6.1", "both"};
  const MachineInfo own{"Xeon", static_cast<uint32_t>(k), "Linux 5.10", "host" + std::to_string(k)};
  r.machines =
      k == 1 ? std::vector<MachineInfo>{own, shared} : std::vector<MachineInfo>{shared, own};
  MonitorSeries monitor;
  monitor.source = "pid:" + std::to_string(k);
  r.monitors = {monitor};
  return r;
}

TEST(RunResultMerge, EveryFieldFollowsItsRule) {
  // A field added to RunResult changes its size: give it a rule in merge() and a check here, then
  // update this figure.
  EXPECT_EQ(sizeof(RunResult), 1224u) << "a RunResult field was added or removed";

  RunResult m = full(1);
  m.merge(full(2));
  // What was asked for: the first result's; the protocol says both were spoken.
  EXPECT_EQ(m.url, "http://host1/");
  EXPECT_EQ(m.shard_index, 0u);  // the shard fields are the first result's; lateness the larger
  EXPECT_EQ(m.shard_source, "Slurm");
  EXPECT_EQ(m.run_id, "run1");
  EXPECT_EQ(m.start_at_unix_ns, 1000u);
  EXPECT_EQ(m.start_late_ns, 50u);
  EXPECT_EQ(m.whole_connections, 10u);
  EXPECT_EQ(m.whole_requests, 100u);
  EXPECT_EQ(m.whole_rate_per_s, 1000.0);
  EXPECT_EQ(m.method, "POST");
  EXPECT_FALSE(m.keep_alive);
  EXPECT_EQ(m.http_minor, 0);
  EXPECT_EQ(m.duration_target_ns, 7000u);
  EXPECT_EQ(m.warmup_ns, 11u);
  EXPECT_EQ(m.timeout_ns, 13u);
  EXPECT_EQ(m.protocols.name(), "h2+http/1.1");
  EXPECT_EQ(m.pipeline, 2u);
  EXPECT_EQ(m.streams, 11u);
  // The servers' stream limits: the lowest and the highest; 0 (no HTTP/2 connection) is no limit.
  EXPECT_EQ(m.streams_effective_min, 3u);
  EXPECT_EQ(m.streams_effective_max, 8u);
  RunResult h1_only;
  h1_only.merge(m);
  RunResult none;
  h1_only.merge(none);
  EXPECT_EQ(h1_only.streams_effective_min, 3u);
  EXPECT_EQ(m.interval_ns, 1'000'000u);
  EXPECT_TRUE(m.ladder);
  EXPECT_STREQ(m.target_unit, "req/s");
  // Shares of the load: summed.
  EXPECT_EQ(m.connections, 30u);
  EXPECT_EQ(m.threads, 3u);
  EXPECT_EQ(m.requests_target, 3000u);
  EXPECT_DOUBLE_EQ(m.rate_target_per_s, 300.0);
  // Times and flags.
  EXPECT_EQ(m.start_unix_ns, 4'000u);  // the earlier
  EXPECT_EQ(m.duration_ns, 900u);      // the longer
  EXPECT_TRUE(m.interrupted);
  EXPECT_TRUE(m.server_gone);
  // Counts.
  const std::vector<uint64_t> counters = fields_of(m.counters);
  for (size_t i = 0; i < kCounterFields; ++i) EXPECT_EQ(counters[i], (i + 1) * 101) << i;
  EXPECT_EQ(m.status_codes, (std::map<int, uint64_t>{{200, 3}, {301, 1}, {302, 1}}));
  ASSERT_EQ(m.error_reasons.size(), 3u);
  EXPECT_EQ(m.error_reasons[0].reason, "Connection refused");  // "connect: ..." sorts first
  EXPECT_EQ(m.error_reasons[0].count, 3u);
  EXPECT_EQ(m.error_reasons[0].errno_value, ECONNREFUSED);
  EXPECT_EQ(m.error_reasons[1].reason, "bad 1");
  EXPECT_EQ(m.error_reasons[2].reason, "bad 2");
  EXPECT_EQ(m.backlog, 9u);
  EXPECT_EQ(m.naps, 21u);
  // Monitors: side by side, each host's own (1's, then 2's).
  ASSERT_EQ(m.monitors.size(), 2u);
  EXPECT_EQ(m.monitors[0].source, "pid:1");
  EXPECT_EQ(m.monitors[1].source, "pid:2");
  // Histograms: both values in each.
  const auto both = [](const Histogram& h, uint64_t unit) {
    return h.count() == 2 && h.min() == unit && h.max() == 2 * unit;
  };
  EXPECT_TRUE(both(m.latency, 1'000));
  EXPECT_TRUE(both(m.connect_time, 2'000));
  EXPECT_TRUE(both(m.ttfb, 3'000));
  EXPECT_TRUE(both(m.tls_handshake, 4'000));
  EXPECT_TRUE(both(m.service_time, 5'000));
  EXPECT_TRUE(both(m.lag, 6'000));
  // Windows by index: window 0 of both merged, window 1 only from the second.
  ASSERT_EQ(m.intervals.size(), 2u);
  EXPECT_EQ(m.intervals[0].completed, 3u);
  EXPECT_EQ(m.intervals[0].sources, 2u);
  EXPECT_EQ(m.intervals[0].p50_ns, 14'000u);  // 1 at 7 us, 2 at 14 us
  EXPECT_EQ(m.intervals[0].latency.min(), 7'000u);
  EXPECT_EQ(m.intervals[1].completed, 2u);
  EXPECT_EQ(m.intervals[1].sources, 1u);
  ASSERT_EQ(m.steps.size(), 1u);
  EXPECT_EQ(m.steps[0].completed, 6u);
  EXPECT_EQ(m.steps[0].max_ns, 16'000u);
  // First known.
  EXPECT_EQ(m.tls_version, "TLSv1.3");
  EXPECT_EQ(m.tls_cipher, "CIPHER-1");
  EXPECT_EQ(m.script_error, "x.lua:1: boom");
  EXPECT_EQ(m.slo, (std::vector<std::string>{"p(99)<10ms", "error_rate<1%"}));
  EXPECT_EQ(m.slo_abort, "\"max<1s\": max was 2s by 3.0 s");
  // Tags by name, first-use order, "(other)" last.
  ASSERT_EQ(m.tags.size(), 3u);
  EXPECT_EQ(m.tags[0].name, "a");
  EXPECT_EQ(m.tags[0].completed, 3u);
  EXPECT_EQ(m.tags[0].errors[static_cast<size_t>(ErrorClass::kRead)], 3u);
  EXPECT_EQ(m.tags[0].status_codes, (std::map<int, uint64_t>{{200, 3}}));
  EXPECT_EQ(m.tags[0].latency.count(), 3u);
  EXPECT_EQ(m.tags[0].latency.max(), 3'000u);
  EXPECT_EQ(m.tags[1].name, "b");
  EXPECT_EQ(m.tags[2].name, TagTable::kOtherName);
  // Generator health: the larger.
  EXPECT_DOUBLE_EQ(m.max_worker_cpu_utilization, 0.75);
  EXPECT_EQ(m.max_nap_ns, 900u);
  // Notes are the runner's, written from merged data: not merged.
  EXPECT_EQ(m.notes, (std::vector<std::string>{"note 1"}));
  // Machines: each distinct one once, in first-seen order (shards from several hosts).
  ASSERT_EQ(m.machines.size(), 3u);
  EXPECT_EQ(m.machines[0].hostname, "host1");
  EXPECT_EQ(m.machines[1].hostname, "both");
  EXPECT_EQ(m.machines[2].hostname, "host2");
}

TEST(RunResultMerge, SettingsComeFromWhicheverResultHasThem) {
  // A worker's result has no settings (no url): the runner's come through, whatever the order.
  RunResult worker = RunResult::from_recorder(Recorder{});
  RunResult m;
  m.merge(full(2));
  m.merge(worker);
  EXPECT_EQ(m.url, "http://host2/");
  EXPECT_EQ(m.method, "PUT");
  EXPECT_TRUE(m.keep_alive);
  EXPECT_EQ(m.protocols.name(), "h2");
  EXPECT_EQ(m.pipeline, 3u);
  EXPECT_STREQ(m.target_unit, "connections");
  EXPECT_EQ(m.connections, 20u);

  // The protocols spoken: the union of both sets.
  const ProtocolSet h2(WireProtocol::kHttp2);
  const ProtocolSet h11(WireProtocol::kHttp11);
  const ProtocolSet h10(WireProtocol::kHttp10);
  ProtocolSet both = h2;
  both.add(WireProtocol::kHttp11);
  const auto mixed = [](ProtocolSet a, ProtocolSet b) {
    RunResult x = full(1);
    RunResult y = full(2);
    x.protocols = a;
    y.protocols = b;
    x.merge(y);
    return x.protocols.name();
  };
  EXPECT_EQ(mixed(h2, h2), "h2");
  EXPECT_EQ(mixed(h10, h11), "http/1.0");  // both HTTP/1: the oldest
  EXPECT_EQ(mixed(h11, h2), "h2+http/1.1");
  EXPECT_EQ(mixed(both, h2), "h2+http/1.1");
  EXPECT_EQ(mixed(h2, both), "h2+http/1.1");
  EXPECT_EQ(mixed(ProtocolSet(), h2), "h2");  // a worker's result knows of none
}

TEST(ProtocolSet, NamesWhatWasSpoken) {
  EXPECT_EQ(ProtocolSet().name(), "http/1.1");
  EXPECT_EQ(ProtocolSet(WireProtocol::kHttp09).name(), "http/0.9");
  ProtocolSet s(WireProtocol::kHttp10);
  EXPECT_FALSE(s.speaks_h2());
  s.add(WireProtocol::kHttp2);
  EXPECT_EQ(s.name(), "h2+http/1.0");
  EXPECT_EQ(s.http1(), WireProtocol::kHttp10);
  EXPECT_TRUE(s.contains(WireProtocol::kHttp2));
  EXPECT_FALSE(s.contains(WireProtocol::kHttp11));
}

TEST(RunResultMerge, ErrorReasonsKeepTheOrderOfTheirRenderedTexts) {
  const std::vector<std::pair<ErrorClass, std::string>> reasons = {
      {ErrorClass::kTimeout, "timed out"},
      {ErrorClass::kRead, "Connection reset by peer"},
      {ErrorClass::kCount, "other reasons"},
      {ErrorClass::kConnect, "No route to host"},
      {ErrorClass::kParse, "bad chunk size"},
      {ErrorClass::kConnect, "Connection refused"},
      {ErrorClass::kStream, "REFUSED_STREAM"},
      {ErrorClass::kWrite, "Broken pipe"},
      {ErrorClass::kRead, "closed before response"},
  };
  std::map<std::string, uint64_t> rendered;  // the order the reports always had
  RunResult m;
  for (size_t i = 0; i < reasons.size(); ++i) {
    RunResult one;
    add_error_reason(one.error_reasons, reasons[i].first, reasons[i].second, i + 1);
    m.merge(one);
    rendered[std::string(error_reason_class_label(reasons[i].first)) + ": " + reasons[i].second] +=
        i + 1;
  }
  ASSERT_EQ(m.error_reasons.size(), rendered.size());
  size_t i = 0;
  for (const auto& [text, count] : rendered) {
    const ErrorReasonCount& row = m.error_reasons[i++];
    EXPECT_EQ(std::string(error_reason_class_label(row.error_class)) + ": " + row.reason, text);
    EXPECT_EQ(row.count, count);
  }
  EXPECT_EQ(find_error_reason(m.error_reasons, ErrorClass::kWrite, "Broken pipe")->errno_value,
            EPIPE);
  EXPECT_EQ(find_error_reason(m.error_reasons, ErrorClass::kTimeout, "timed out")->errno_value, 0);
  EXPECT_EQ(errno_of_reason("Connection timed out"), ETIMEDOUT);
  EXPECT_EQ(errno_of_reason("other reasons"), 0);
}

}  // namespace
}  // namespace hail
