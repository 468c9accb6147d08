// hail merge's rules: exact histograms (percentiles of the merge are those of one histogram fed
// both sample sets), windows aligned on wall-clock time, rates over the union of the measured
// intervals, load that adds up only when runs overlap, refusals and warnings.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "report/json_reader.h"
#include "report/json_report.h"
#include "report/run_merge.h"
#include "report/text_report.h"
#include "unit/report/synthetic_results.h"

namespace hail {
namespace {

constexpr uint64_t kMs = 1'000'000;
constexpr uint64_t kSecond = 1'000'000'000;
constexpr uint64_t kT0 = 1'750'000'000 * kSecond;

// A closed-loop run of `n` requests with latencies spread over [latency_ns, latency_ns + 10%).
RunResult run(uint64_t start_unix_ns, uint64_t duration_ns, uint64_t n, uint64_t latency_ns) {
  RunResult r;
  r.url = "http://127.0.0.1:8080/delay";
  r.connections = 10;
  r.threads = 2;
  r.start_unix_ns = start_unix_ns;
  r.duration_ns = duration_ns;
  r.duration_target_ns = duration_ns;
  r.target_unit = "connections";
  for (uint64_t i = 0; i < n; ++i) r.latency.record(latency_ns + (latency_ns / 10) * i / n);
  r.counters.completed = n;
  r.counters.attempted = n;
  r.status_codes[200] = n;
  return r;
}

MergeInput input(std::string name, RunResult r) {
  return MergeInput{std::move(name), ResultDocument{std::move(r), "0.1.0", std::nullopt}};
}

WindowStats window(uint64_t start_ns, uint64_t length_ns, bool warmup, uint64_t n,
                   uint64_t latency_ns) {
  WindowStats w;
  w.start_ns = start_ns;
  w.end_ns = start_ns + length_ns;
  w.warmup = warmup;
  w.completed = n;
  Histogram h;
  h.record_n(latency_ns, n);
  w.latency = EncodedHistogram(h);
  w.sources = 1;
  w.update_percentiles();
  return w;
}

TEST(RunMerge, PercentilesAreThoseOfOneHistogramOfBothSampleSets) {
  const RunResult fast = run(kT0, 10 * kSecond, 3000, 5 * kMs);
  const RunResult slow = run(kT0 + 3 * kMs, 10 * kSecond, 1000, 20 * kMs);
  auto merged = merge_runs({input("fast.json", fast), input("slow.json", slow)}, "0.1.0");
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  const Histogram& m = merged->merged.result.latency;
  Histogram both = fast.latency;
  both.merge(slow.latency);
  test::expect_same_histogram(m, both, "merged latency");
  EXPECT_NEAR(static_cast<double>(m.value_at_percentile(50)), 5.25e6, 0.3e6);
  EXPECT_NEAR(static_cast<double>(m.value_at_percentile(90)), 20.8e6, 1.3e6);
  // Averaging the two runs' medians would say 12.5 ms (and their p90s 14 ms).
  EXPECT_LT(m.value_at_percentile(50), 6 * kMs);
  EXPECT_GT(m.value_at_percentile(90), 19 * kMs);
  EXPECT_EQ(merged->merged.result.counters.completed, 4000u);
  EXPECT_EQ(merged->merged.result.status_codes.at(200), 4000u);
}

TEST(RunMerge, EveryMeasurementAddsUp) {
  test::Synth synth(21);
  RunResult a = synth.result();
  RunResult b = synth.result();
  b.interval_ns = a.interval_ns;
  if (a.interval_ns == 0) b.intervals.clear();
  if (a.interval_ns != 0 && b.intervals.empty()) b.intervals.push_back(window(0, 1, false, 0, 0));
  auto merged = merge_runs({input("a", a), input("b", b)}, "0.1.0");
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  const RunResult& m = merged->merged.result;
  EXPECT_EQ(m.counters.completed, a.counters.completed + b.counters.completed);
  EXPECT_EQ(m.counters.attempted, a.counters.attempted + b.counters.attempted);
  EXPECT_EQ(m.counters.bytes_read, a.counters.bytes_read + b.counters.bytes_read);
  EXPECT_EQ(m.latency.count(), a.latency.count() + b.latency.count());
  EXPECT_EQ(m.ttfb.count(), a.ttfb.count() + b.ttfb.count());
  EXPECT_EQ(m.connect_time.count(), a.connect_time.count() + b.connect_time.count());
  uint64_t statuses = 0;
  for (const auto& [code, n] : m.status_codes) statuses += n;
  EXPECT_EQ(statuses, m.counters.completed);
  uint64_t windowed = 0;
  for (const WindowStats& w : m.intervals) windowed += w.completed;
  uint64_t given = 0;
  for (const RunResult* r : {&a, &b}) {
    for (const WindowStats& w : r->intervals) given += w.completed;
  }
  EXPECT_EQ(windowed, given);
}

TEST(RunMerge, WindowsMoveToTheNearestCellOfOneGrid) {
  // Three runs with 1 s windows, started 0, 0.3 s and 0.7 s after the first: the second's windows
  // move 0.3 s earlier, the third's 0.3 s later; none moves more than half an interval.
  std::vector<WindowStats> a, b, c, d;
  for (uint64_t i = 0; i < 3; ++i) {
    a.push_back(window(i * kSecond, kSecond, false, 1, 1 * kMs));
    b.push_back(window(i * kSecond, kSecond, false, 10, 2 * kMs));
    c.push_back(window(i * kSecond, kSecond, false, 100, 3 * kMs));
    d.push_back(window(i * kSecond, kSecond, false, 1000, 4 * kMs));
  }
  auto merged = align_intervals(
      {{kT0, &a}, {kT0 + 300 * kMs, &b}, {kT0 + 700 * kMs, &c}, {kT0 + 1500 * kMs, &d}}, kSecond,
      kT0);
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  const std::vector<WindowStats>& w = merged.value();
  // Cells: a 0,1,2; b 0,1,2; c 1,2,3; d (1.5 s: a half rounds up) 2,3,4.
  ASSERT_EQ(w.size(), 5u);
  const uint64_t expected[] = {11, 111, 1111, 1100, 1000};
  for (size_t i = 0; i < w.size(); ++i) {
    EXPECT_EQ(w[i].completed, expected[i]) << i;
    EXPECT_EQ(w[i].start_ns, i * kSecond) << i;
    EXPECT_EQ(w[i].end_ns, (i + 1) * kSecond) << i;
    EXPECT_EQ(w[i].latency.count(), expected[i]) << i;
  }
  EXPECT_EQ(w[2].sources, 4u);
  EXPECT_EQ(w[2].max_ns, 4 * kMs);
}

TEST(RunMerge, ShortWindowsKeepTheirLength) {
  std::vector<WindowStats> a = {window(0, kSecond, false, 1, kMs),
                                window(kSecond, 250 * kMs, false, 1, kMs)};
  auto merged = align_intervals({{kT0 + 100 * kMs, &a}}, kSecond, kT0);
  ASSERT_TRUE(merged.ok());
  ASSERT_EQ(merged->size(), 2u);
  EXPECT_EQ((*merged)[1].start_ns, kSecond);
  EXPECT_EQ((*merged)[1].end_ns, kSecond + 250 * kMs);
}

TEST(RunMerge, WarmupWindowsNeverMergeWithMeasuredOnes) {
  // A's measured window and B's warm-up window land in the same cell: two rows, warm-up first.
  std::vector<WindowStats> a = {window(0, kSecond, false, 5, kMs)};
  std::vector<WindowStats> b = {window(0, kSecond, true, 7, kMs),
                                window(kSecond, kSecond, false, 9, kMs)};
  auto merged = align_intervals({{kT0, &a}, {kT0 + 200 * kMs, &b}}, kSecond, kT0);
  ASSERT_TRUE(merged.ok());
  ASSERT_EQ(merged->size(), 3u);
  EXPECT_TRUE((*merged)[0].warmup);
  EXPECT_EQ((*merged)[0].completed, 7u);
  EXPECT_FALSE((*merged)[1].warmup);
  EXPECT_EQ((*merged)[1].completed, 5u);
  EXPECT_EQ((*merged)[2].completed, 9u);
}

TEST(RunMerge, SeriesOfRunsMergeOnTheirWallClockGrid) {
  RunResult a = run(kT0, 3 * kSecond, 30, kMs);
  RunResult b = run(kT0 + 600 * kMs, 3 * kSecond, 30, kMs);
  for (RunResult* r : {&a, &b}) {
    r->interval_ns = kSecond;
    for (uint64_t i = 0; i < 3; ++i)
      r->intervals.push_back(window(i * kSecond, kSecond, false, 10, kMs));
  }
  auto merged = merge_runs({input("a", a), input("b", b)}, "0.1.0");
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  const RunResult& m = merged->merged.result;
  EXPECT_EQ(m.interval_ns, kSecond);
  ASSERT_EQ(m.intervals.size(), 4u);  // b's windows moved 0.4 s later: cells 1, 2, 3
  EXPECT_EQ(m.intervals[0].completed, 10u);
  EXPECT_EQ(m.intervals[1].completed, 20u);
  EXPECT_EQ(m.intervals[3].completed, 10u);
  EXPECT_EQ(m.start_unix_ns, kT0);
}

TEST(RunMerge, RatesCountOverTheUnionOfTheMeasuredIntervals) {
  // One after another with a 5 s gap: 2 x 10 s measured; the gap does not count.
  RunResult a = run(kT0, 10 * kSecond, 1000, kMs);
  RunResult b = run(kT0 + 15 * kSecond, 10 * kSecond, 3000, kMs);
  auto sequential = merge_runs({input("a", a), input("b", b)}, "0.1.0");
  ASSERT_TRUE(sequential.ok());
  EXPECT_EQ(sequential->merged.result.duration_ns, 20 * kSecond);
  EXPECT_DOUBLE_EQ(sequential->merged.result.requests_per_s(), 200.0);
  EXPECT_EQ(sequential->merged.merge->start_spread_ns, 15 * kSecond);
  EXPECT_EQ(sequential->merged.merge->end_spread_ns, 15 * kSecond);
  // Overlapping by 8 s, with warm-ups: measured [1 s, 11 s) and [3 s, 13 s) -> 12 s.
  a.warmup_ns = kSecond;
  b.start_unix_ns = kT0 + 2 * kSecond;
  b.warmup_ns = kSecond;
  auto overlapping = merge_runs({input("a", a), input("b", b)}, "0.1.0");
  ASSERT_TRUE(overlapping.ok());
  EXPECT_EQ(overlapping->merged.result.duration_ns, 12 * kSecond);
  EXPECT_EQ(overlapping->merged.merge->start_spread_ns, 2 * kSecond);
  EXPECT_EQ(overlapping->merged.merge->end_spread_ns, 2 * kSecond);
  EXPECT_EQ(overlapping->merged.result.notes.front(),
            "merged 2 runs: start skew 2.00s, end skew 2.00s, 12.00s measured");
}

TEST(RunMerge, LoadAddsUpOnlyForRunsAtTheSameTime) {
  RunResult a = run(kT0, 10 * kSecond, 10, kMs);
  RunResult b = run(kT0 + kSecond, 10 * kSecond, 10, kMs);
  a.rate_target_per_s = 1000;
  b.rate_target_per_s = 500;
  auto together = merge_runs({input("a", a), input("b", b)}, "0.1.0");
  ASSERT_TRUE(together.ok());
  EXPECT_EQ(together->merged.result.connections, 20u);
  EXPECT_EQ(together->merged.result.threads, 4u);
  EXPECT_EQ(together->merged.result.rate_target_per_s, 1500.0);
  b.start_unix_ns = kT0 + 10 * kSecond;  // starts as a ends
  auto apart = merge_runs({input("a", a), input("b", b)}, "0.1.0");
  ASSERT_TRUE(apart.ok());
  EXPECT_EQ(apart->merged.result.connections, 10u);
  EXPECT_EQ(apart->merged.result.rate_target_per_s, 1000.0);
  EXPECT_EQ(apart->merged.result.requests_target, 0u);
}

TEST(RunMerge, StepsMergeByIndexOnTheMergedTimeline) {
  RunResult a = run(kT0, 4 * kSecond, 20, kMs);
  RunResult b = run(kT0 + 500 * kMs, 4 * kSecond, 20, kMs);
  for (RunResult* r : {&a, &b}) {
    r->ladder = true;
    r->steps = {window(0, 2 * kSecond, false, 10, kMs),
                window(2 * kSecond, 2 * kSecond, false, 10, kMs)};
    r->steps[0].target_start = r->steps[0].target_end = 5;
  }
  auto merged = merge_runs({input("a", a), input("b", b)}, "0.1.0");
  ASSERT_TRUE(merged.ok());
  const std::vector<WindowStats>& steps = merged->merged.result.steps;
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].completed, 20u);
  EXPECT_EQ(steps[0].start_ns, 0u);
  EXPECT_EQ(steps[0].end_ns, 2500 * kMs);
  EXPECT_EQ(steps[0].target_start, 10.0);
  EXPECT_EQ(steps[1].start_ns, 2 * kSecond);
  EXPECT_EQ(steps[1].end_ns, 4500 * kMs);
}

TEST(RunMerge, RefusesWhatCannotBeMergedExactly) {
  RunResult a = run(kT0, kSecond, 10, kMs);
  RunResult b = run(kT0, kSecond, 10, kMs);
  a.interval_ns = kSecond;
  b.interval_ns = 500 * kMs;
  auto different = merge_runs({input("a.json", a), input("b.json", b)}, "0.1.0");
  ASSERT_FALSE(different.ok());
  EXPECT_EQ(different.error().message,
            "cannot merge time series of different intervals: b.json has 500.00ms, a.json 1.00s");
  b.interval_ns = 0;
  auto one_sided = merge_runs({input("a.json", a), input("b.json", b)}, "0.1.0");
  ASSERT_FALSE(one_sided.ok());
  EXPECT_EQ(one_sided.error().message,
            "cannot merge a.json, which has a time series, with b.json, which has none");
  a.interval_ns = 0;
  a.counters.bytes_read = ~uint64_t{0};
  b.counters.bytes_read = 1;
  auto overflow = merge_runs({input("a.json", a), input("b.json", b)}, "0.1.0");
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.error().message,
            "cannot merge b.json: its counts added to the others' overflow");
  EXPECT_FALSE(merge_runs({}, "0.1.0").ok());
}

TEST(RunMerge, RefusesHistogramTotalsPastWhatHdrHistogramCounts) {
  RunResult a = run(kT0, kSecond, 0, kMs);
  RunResult b = run(kT0, kSecond, 0, kMs);
  a.connect_time.record_n(1000, uint64_t{1} << 62);
  b.connect_time.record_n(1000, uint64_t{1} << 62);
  auto merged = merge_runs({input("a.json", a), input("b.json", b)}, "0.1.0");
  EXPECT_FALSE(merged.ok());
  std::vector<WindowStats> wa = {window(0, kSecond, false, uint64_t{1} << 62, kMs)};
  std::vector<WindowStats> wb = wa;
  EXPECT_FALSE(align_intervals({{kT0, &wa}, {kT0, &wb}}, kSecond, kT0).ok());
}

TEST(RunMerge, WarnsOncePerDifferingSetting) {
  RunResult a = run(kT0, kSecond, 10, kMs);
  RunResult b = run(kT0, kSecond, 10, kMs);
  b.url = "http://127.0.0.1:8080/other";
  b.method = "POST";
  b.rate_target_per_s = 100;
  b.timeout_ns = 2 * kSecond;
  a.timeout_ns = 5 * kSecond;
  auto merged = merge_runs({input("a.json", a), input("b.json", b), input("c.json", a)}, "0.1.0");
  ASSERT_TRUE(merged.ok());
  const std::vector<std::string> expected = {
      "b.json has URL http://127.0.0.1:8080/other, a.json http://127.0.0.1:8080/delay",
      "b.json has method POST, a.json GET",
      "b.json has timeout 2.00s, a.json 5.00s",
      "b.json has load model open loop (-R), a.json closed loop",
  };
  EXPECT_EQ(merged->warnings, expected);
}

TEST(RunMerge, NotesSayHowTheRunsLayAndKeepEachRunsOwn) {
  RunResult a = run(kT0, 10 * kSecond, 10, kMs);
  RunResult b = run(kT0 + 250 * kMs, 10 * kSecond, 10, kMs);
  a.notes = {"hail itself may have limited the load"};
  b.notes = {"hail itself may have limited the load"};
  auto merged = merge_runs({input("a.json", a), input("b.json", b)}, "0.1.0");
  ASSERT_TRUE(merged.ok());
  const std::vector<std::string> expected = {
      "merged 2 runs: start skew 250.00ms, end skew 250.00ms, 10.25s measured",
      "a.json: hail itself may have limited the load",
      "b.json: hail itself may have limited the load",
  };
  EXPECT_EQ(merged->merged.result.notes, expected);
  const std::string text = render_text_report(merged->merged.result);
  EXPECT_NE(text.find("  Note: merged 2 runs: start skew 250.00ms, end skew 250.00ms, 10.25s measured\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  20 requests in 10.25s"), std::string::npos) << text;
}

TEST(RunMerge, TheMergedDocumentReadsBackExactly) {
  test::Synth synth(33);
  RunResult a = synth.result();
  RunResult b = synth.result();
  b.interval_ns = a.interval_ns;
  if (a.interval_ns == 0) b.intervals.clear();
  auto merged = merge_runs({input("a.json", a), input("b.json", b)}, "0.1.0");
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  const std::string json = render_json_document(merged->merged);
  auto back = read_result_document(json);
  ASSERT_TRUE(back.ok()) << back.error().message;
  test::expect_same_result(back->result, merged->merged.result);
  EXPECT_EQ(render_json_document(back.value()), json);
}

TEST(RunMerge, UnionAndPeakHelpers) {
  EXPECT_EQ(union_length_ns({}), 0u);
  EXPECT_EQ(union_length_ns({{0, 10}, {5, 15}, {20, 30}, {30, 31}, {7, 7}}), 26u);
  EXPECT_EQ(union_length_ns({{20, 30}, {0, 100}}), 100u);
  EXPECT_EQ(peak_concurrent_sum({{0, 10, 1}, {10, 20, 2}}), 2.0);  // one after the other
  EXPECT_EQ(peak_concurrent_sum({{0, 10, 1}, {9, 20, 2}, {5, 9, 4}}), 5.0);
  EXPECT_EQ(peak_concurrent_sum({{5, 5, 3}}), 3.0);  // empty: counts for 1 ns
}

}  // namespace
}  // namespace hail
