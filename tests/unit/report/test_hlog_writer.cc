// The --hlog renderer: HistogramLogWriter's header and line layout, warm-up windows left out,
// service and lag lines in rate mode, and every line's histogram decoding to its window's counts.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "report/hlog_writer.h"
#include "stats/hdr_string.h"

namespace hail {
namespace {

constexpr uint64_t kMs = 1'000'000;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string field; std::getline(in, field, ',');) out.push_back(field);
  return out;
}

std::vector<std::pair<uint64_t, uint64_t>> counts_of(const Histogram& h) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  h.for_each_recorded([&out](uint64_t value, uint64_t count) { out.emplace_back(value, count); });
  return out;
}

WindowStats window(uint64_t start_ms, uint64_t end_ms, bool warmup,
                   const std::vector<uint64_t>& latencies_ns) {
  WindowStats w;
  w.start_ns = start_ms * kMs;
  w.end_ns = end_ms * kMs;
  w.warmup = warmup;
  Histogram h;
  for (uint64_t v : latencies_ns) h.record(v);
  w.completed = h.count();
  w.latency = EncodedHistogram(h);
  w.update_percentiles();
  w.sources = 1;
  return w;
}

// A warm-up window, two measured ones (the second empty) and a short last one.
RunResult windowed_result() {
  RunResult r;
  r.start_unix_ns = 1'764'470'123'456'789'012;
  r.interval_ns = 1000 * kMs;
  r.warmup_ns = 1000 * kMs;
  r.intervals.push_back(window(0, 1000, true, {5'000, 6'000}));
  r.intervals.push_back(window(1000, 2000, false, {0, 1, 2047, 2048, 123'456'789, 2'500'001}));
  r.intervals.push_back(window(2000, 3000, false, {}));
  r.intervals.push_back(window(3000, 3250, false, {uint64_t{1} << 42}));
  return r;
}

TEST(HlogWriter, HeaderAsHistogramLogWriterWritesIt) {
  const std::vector<std::string> lines = lines_of(render_hlog(windowed_result()));
  ASSERT_GE(lines.size(), 5u);
  EXPECT_TRUE(lines[0].starts_with("#[Logged with hail ")) << lines[0];
  EXPECT_EQ(lines[1], "#[Histogram log format version 1.3]");
  EXPECT_EQ(lines[2],
            "#[StartTime: 1764470123.456 (seconds since epoch), Sun Nov 30 02:35:23 UTC 2025]");
  EXPECT_EQ(lines[3], "#[BaseTime: 1764470123.456 (seconds since epoch)]");
  EXPECT_EQ(lines[4],
            "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
            "\"Interval_Compressed_Histogram\"");
}

TEST(HlogWriter, OneLinePerMeasuredWindowDecodingToItsCounts) {
  const RunResult r = windowed_result();
  const std::vector<std::string> lines = lines_of(render_hlog(r));
  ASSERT_EQ(lines.size(), 5u + 3u);  // the warm-up window has no line
  const char* expected_times[][2] = {{"1.000", "1.000"}, {"2.000", "1.000"}, {"3.000", "0.250"}};
  // HistogramLogWriter's Interval_Max: the highest value of the maximum's slot, in ms.
  const char* expected_max[] = {"123.470", "0.000", "4402341.478"};
  for (size_t i = 0; i < 3; ++i) {
    const std::vector<std::string> f = fields_of(lines[5 + i]);
    ASSERT_EQ(f.size(), 5u) << lines[5 + i];
    EXPECT_EQ(f[0], "Tag=latency");
    EXPECT_EQ(f[1], expected_times[i][0]);
    EXPECT_EQ(f[2], expected_times[i][1]);
    EXPECT_EQ(f[3], expected_max[i]);
    ASSERT_TRUE(f[4].starts_with("HISTF")) << f[4];
    Histogram decoded;
    ASSERT_TRUE(decode_histf(f[4], decoded).ok());
    EXPECT_EQ(counts_of(decoded), counts_of(r.intervals[i + 1].latency.decode()));
  }
}

TEST(HlogWriter, RateModeAddsServiceAndLagLines) {
  RunResult r = windowed_result();
  r.rate_target_per_s = 1000;
  Histogram service, lag;
  service.record(4'000);
  lag.record(7);
  lag.record(9);
  r.intervals[1].service = EncodedHistogram(service);
  r.intervals[1].lag = EncodedHistogram(lag);
  const std::vector<std::string> lines = lines_of(render_hlog(r));
  ASSERT_EQ(lines.size(), 5u + 3u * 3u);
  const char* tags[] = {"Tag=latency", "Tag=service", "Tag=lag"};
  for (size_t i = 0; i < 9; ++i) {
    EXPECT_EQ(fields_of(lines[5 + i])[0], tags[i % 3]) << i;
  }
  Histogram decoded_lag;
  ASSERT_TRUE(decode_histf(fields_of(lines[7])[4], decoded_lag).ok());
  EXPECT_EQ(counts_of(decoded_lag), counts_of(lag));
  EXPECT_EQ(fields_of(lines[6])[3], "0.004");  // service max 4 us
  EXPECT_EQ(fields_of(lines[9])[3], "0.000");  // an empty window's service line is still there
}

TEST(HlogWriter, NoWindowsGiveTheHeaderOnly) {
  RunResult r;
  const std::vector<std::string> lines = lines_of(render_hlog(r));
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[2], "#[StartTime: 0.000 (seconds since epoch), Thu Jan 01 00:00:00 UTC 1970]");
}

TEST(HlogWriter, IntervalMaxIsTheSlotsHighestValue) {
  EXPECT_EQ(hlog_interval_max_ms(0, 0), 0.0);
  EXPECT_EQ(hlog_interval_max_ms(0, 1), 0.0);
  EXPECT_DOUBLE_EQ(hlog_interval_max_ms(2047, 1), 0.002047);
  EXPECT_DOUBLE_EQ(hlog_interval_max_ms(2048, 1), 0.002049);  // slots two wide from 2048
  EXPECT_DOUBLE_EQ(hlog_interval_max_ms(123'456'789, 1), 123.469823);
  // Beyond the layout: the top slot, as the histogram counts it.
  EXPECT_EQ(hlog_interval_max_ms(uint64_t{1} << 50, 1), hlog_interval_max_ms(uint64_t{1} << 42, 1));
}

}  // namespace
}  // namespace hail
