// The live metrics exposition (--metrics-listen): bucket counts from a known histogram, label
// escaping, the two formats' TYPE lines and OpenMetrics' "# EOF", mix tags, Accept negotiation.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "report/openmetrics.h"

namespace hail {
namespace {

constexpr uint64_t kUs = 1000;
constexpr uint64_t kMs = 1000 * kUs;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool has_line(const std::string& text, const std::string& line) {
  for (const std::string& l : lines_of(text)) {
    if (l == line) return true;
  }
  return false;
}

MetricsSnapshot basic() {
  MetricsSnapshot s;
  s.shard = "0/1";
  return s;
}

TEST(OpenMetrics, BucketBoundsAreOneTwoFivePerDecadeThenSixty) {
  const auto b = metrics_bucket_bounds_s();
  ASSERT_EQ(b.size(), 19u);
  EXPECT_DOUBLE_EQ(b.front(), 0.0001);
  EXPECT_DOUBLE_EQ(b[1], 0.0002);
  EXPECT_DOUBLE_EQ(b[2], 0.0005);
  EXPECT_DOUBLE_EQ(b[b.size() - 2], 50);
  EXPECT_DOUBLE_EQ(b.back(), 60);
  for (size_t i = 1; i < b.size(); ++i) EXPECT_LT(b[i - 1], b[i]);
}

TEST(OpenMetrics, BucketsCountValuesAtOrBelowEachBound) {
  Histogram h;
  h.record_n(50 * kUs, 3);      // <= 100us
  h.record_n(150 * kUs, 2);     // <= 200us
  h.record_n(900 * kUs, 1);     // <= 1ms
  h.record_n(3 * kMs, 4);       // <= 5ms
  h.record_n(70'000 * kMs, 1);  // above 60 s: only +Inf
  MetricsSnapshot s = basic();
  set_duration_buckets(s, h);
  ASSERT_EQ(s.duration_buckets.size(), metrics_bucket_bounds_s().size());
  EXPECT_EQ(s.duration_buckets[0], 3u);       // 0.0001
  EXPECT_EQ(s.duration_buckets[1], 5u);       // 0.0002
  EXPECT_EQ(s.duration_buckets[2], 5u);       // 0.0005
  EXPECT_EQ(s.duration_buckets[3], 6u);       // 0.001
  EXPECT_EQ(s.duration_buckets[4], 6u);       // 0.002
  EXPECT_EQ(s.duration_buckets[5], 10u);      // 0.005
  EXPECT_EQ(s.duration_buckets.back(), 10u);  // 60
  EXPECT_EQ(s.duration_count, 11u);
  const double expected_sum = (3 * 50e-6 + 2 * 150e-6 + 900e-6 + 4 * 3e-3 + 70.0);
  EXPECT_NEAR(s.duration_sum_s, expected_sum, expected_sum * 1e-3);

  const std::string text = render_metrics(s, MetricsFormat::kPrometheus);
  EXPECT_TRUE(has_line(text, "hail_request_duration_seconds_bucket{shard=\"0/1\",le=\"0.0001\"} 3"))
      << text;
  EXPECT_TRUE(
      has_line(text, "hail_request_duration_seconds_bucket{shard=\"0/1\",le=\"0.005\"} 10"));
  EXPECT_TRUE(has_line(text, "hail_request_duration_seconds_bucket{shard=\"0/1\",le=\"60\"} 10"));
  EXPECT_TRUE(has_line(text, "hail_request_duration_seconds_bucket{shard=\"0/1\",le=\"+Inf\"} 11"));
  EXPECT_TRUE(has_line(text, "hail_request_duration_seconds_count{shard=\"0/1\"} 11"));
}

TEST(OpenMetrics, SlotStraddlingABoundCountsInTheNextBucket) {
  // Between 65,536 and 131,071 ns the HDR slots are 64 ns wide: [99904, 99967] ends below 100 us,
  // [99968, 100031] straddles it.
  Histogram h;
  h.record(64 * kUs);
  h.record(99'967);
  h.record(100'000);
  MetricsSnapshot s = basic();
  set_duration_buckets(s, h);
  EXPECT_EQ(s.duration_buckets[0], 2u);
  EXPECT_EQ(s.duration_buckets[1], 3u);
}

TEST(OpenMetrics, EmptyHistogramHasZeroBuckets) {
  MetricsSnapshot s = basic();
  set_duration_buckets(s, Histogram());
  const std::string text = render_metrics(s, MetricsFormat::kPrometheus);
  EXPECT_TRUE(
      has_line(text, "hail_request_duration_seconds_bucket{shard=\"0/1\",le=\"0.0002\"} 0"));
  EXPECT_TRUE(has_line(text, "hail_request_duration_seconds_sum{shard=\"0/1\"} 0"));
}

TEST(OpenMetrics, LabelEscaping) {
  EXPECT_EQ(escape_label_value("plain"), "plain");
  EXPECT_EQ(escape_label_value("a\"b"), "a\\\"b");
  EXPECT_EQ(escape_label_value("a\\b"), "a\\\\b");
  EXPECT_EQ(escape_label_value("a\nb"), "a\\nb");
  MetricsSnapshot s = basic();
  s.run_id = "nightly \"x\"\\1";
  s.has_tags = true;
  s.tags = {{"line\n2", 7}};
  const std::string text = render_metrics(s, MetricsFormat::kPrometheus);
  EXPECT_TRUE(has_line(text,
                       "hail_tag_requests_total{run_id=\"nightly \\\"x\\\"\\\\1\",shard=\"0/1\","
                       "tag=\"line\\n2\"} 7"))
      << text;
}

TEST(OpenMetrics, RunIdLabelOnlyWhenGiven) {
  MetricsSnapshot s = basic();
  std::string text = render_metrics(s, MetricsFormat::kPrometheus);
  EXPECT_EQ(text.find("run_id"), std::string::npos);
  EXPECT_TRUE(has_line(text, "hail_up{shard=\"0/1\"} 1"));
  s.run_id = "r1";
  s.shard = "3/8";
  s.up = false;
  text = render_metrics(s, MetricsFormat::kPrometheus);
  EXPECT_TRUE(has_line(text, "hail_up{run_id=\"r1\",shard=\"3/8\"} 0"));
}

TEST(OpenMetrics, PrometheusTypeLinesAndCounters) {
  MetricsSnapshot s = basic();
  s.requests_by_class = {0, 1, 100, 3, 4, 5};
  s.errors[static_cast<size_t>(ErrorClass::kTimeout)] = 9;
  s.in_flight = 12;
  s.open_connections = 50;
  s.target_rate_per_s = 1000;
  s.achieved_rate_per_s = 999.5;
  s.schedule_lag_s = 0.00025;
  s.cpu_seconds = 1.5;
  s.warmup = true;
  const std::string text = render_metrics(s, MetricsFormat::kPrometheus);
  for (const char* line : {
           "# TYPE hail_requests_total counter",
           "# TYPE hail_errors_total counter",
           "# TYPE hail_request_duration_seconds histogram",
           "# TYPE hail_in_flight_requests gauge",
           "# TYPE hail_open_connections gauge",
           "# TYPE hail_target_rate_per_second gauge",
           "# TYPE hail_achieved_rate_per_second gauge",
           "# TYPE hail_schedule_lag_seconds gauge",
           "# TYPE hail_cpu_seconds_total counter",
           "# TYPE hail_up gauge",
           "# TYPE hail_warmup gauge",
           "hail_requests_total{shard=\"0/1\",status_class=\"1xx\"} 1",
           "hail_requests_total{shard=\"0/1\",status_class=\"2xx\"} 100",
           "hail_requests_total{shard=\"0/1\",status_class=\"5xx\"} 5",
           "hail_errors_total{shard=\"0/1\",class=\"connect\"} 0",
           "hail_errors_total{shard=\"0/1\",class=\"timeout\"} 9",
           "hail_errors_total{shard=\"0/1\",class=\"stream\"} 0",
           "hail_in_flight_requests{shard=\"0/1\"} 12",
           "hail_open_connections{shard=\"0/1\"} 50",
           "hail_target_rate_per_second{shard=\"0/1\"} 1000",
           "hail_achieved_rate_per_second{shard=\"0/1\"} 999.5",
           "hail_schedule_lag_seconds{shard=\"0/1\"} 0.00025",
           "hail_cpu_seconds_total{shard=\"0/1\"} 1.5",
           "hail_warmup{shard=\"0/1\"} 1",
       }) {
    EXPECT_TRUE(has_line(text, line)) << line << "\n" << text;
  }
  // No "other" status class unless one was seen; no tags without a mix; no EOF.
  EXPECT_EQ(text.find("status_class=\"other\""), std::string::npos);
  EXPECT_EQ(text.find("hail_tag_requests_total"), std::string::npos);
  EXPECT_EQ(text.find("# EOF"), std::string::npos);
  // Every sample line belongs to a family declared before it.
  std::string declared;
  for (const std::string& l : lines_of(text)) {
    if (l.starts_with("# TYPE ")) {
      declared = l.substr(7, l.find(' ', 7) - 7);
      continue;
    }
    if (l.starts_with("#")) continue;
    EXPECT_TRUE(l.starts_with(declared)) << l;
  }
  s.requests_by_class[0] = 2;
  EXPECT_TRUE(has_line(render_metrics(s, MetricsFormat::kPrometheus),
                       "hail_requests_total{shard=\"0/1\",status_class=\"other\"} 2"));
}

TEST(OpenMetrics, OpenMetricsFamiliesDropTotalAndEndWithEof) {
  MetricsSnapshot s = basic();
  s.requests_by_class[2] = 4;
  const std::string text = render_metrics(s, MetricsFormat::kOpenMetrics);
  EXPECT_TRUE(has_line(text, "# TYPE hail_requests counter")) << text;
  EXPECT_TRUE(has_line(text, "# TYPE hail_errors counter"));
  EXPECT_TRUE(has_line(text, "# TYPE hail_cpu_seconds counter"));
  EXPECT_TRUE(has_line(text, "# TYPE hail_request_duration_seconds histogram"));
  EXPECT_TRUE(has_line(text, "hail_requests_total{shard=\"0/1\",status_class=\"2xx\"} 4"));
  ASSERT_GE(text.size(), 6u);
  EXPECT_EQ(text.substr(text.size() - 6), "# EOF\n");
  EXPECT_EQ(text.find("# EOF"), text.size() - 6);  // once, at the end
}

TEST(OpenMetrics, MixTagsInOrderGiven) {
  MetricsSnapshot s = basic();
  s.has_tags = true;
  s.tags = {{"home", 10}, {"search", 3}};
  const std::string text = render_metrics(s, MetricsFormat::kOpenMetrics);
  EXPECT_TRUE(has_line(text, "# TYPE hail_tag_requests counter"));
  EXPECT_TRUE(has_line(text, "hail_tag_requests_total{shard=\"0/1\",tag=\"home\"} 10"));
  EXPECT_TRUE(has_line(text, "hail_tag_requests_total{shard=\"0/1\",tag=\"search\"} 3"));
  EXPECT_LT(text.find("tag=\"home\""), text.find("tag=\"search\""));
}

TEST(OpenMetrics, AcceptNegotiation) {
  EXPECT_EQ(metrics_format_for_accept(""), MetricsFormat::kPrometheus);
  EXPECT_EQ(metrics_format_for_accept("*/*"), MetricsFormat::kPrometheus);
  EXPECT_EQ(metrics_format_for_accept("text/plain;version=0.0.4"), MetricsFormat::kPrometheus);
  // What Prometheus 2.x sends.
  EXPECT_EQ(metrics_format_for_accept("application/openmetrics-text;version=1.0.0,"
                                      "application/openmetrics-text;version=0.0.1;q=0.75,"
                                      "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"),
            MetricsFormat::kOpenMetrics);
  EXPECT_EQ(metrics_format_for_accept("text/plain, Application/OpenMetrics-Text; q=0.3"),
            MetricsFormat::kOpenMetrics);
  EXPECT_EQ(metrics_format_for_accept("application/openmetrics-text;q=0, text/plain"),
            MetricsFormat::kPrometheus);
  EXPECT_NE(std::string(metrics_content_type(MetricsFormat::kOpenMetrics))
                .find("application/openmetrics-text"),
            std::string::npos);
  EXPECT_NE(std::string(metrics_content_type(MetricsFormat::kPrometheus)).find("0.0.4"),
            std::string::npos);
}

}  // namespace
}  // namespace hail
