#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "report/wrk_report.h"

namespace hail {
namespace {

// Latency samples at the midpoints of their histogram slots, so that the histogram's mean and
// deviation are exact: 1000.192 us (x1000), 2000.384 us (x2000), 2999.296 us (x1000).
// mean 2000.064 us, sample stdev 706.878 us, half the samples within one stdev.
// A run as wrk's report sees it: hail's result and each thread's Req/Sec samples.
struct WrkData : RunResult {
  Histogram rate_samples;
};

WrkData sample_result() {
  WrkData r;
  r.url = "http://127.0.0.1:8080/";
  r.connections = 10;
  r.threads = 2;
  r.duration_ns = 2'000'000'000;
  r.latency.record_n(1'000'192, 1000);
  r.latency.record_n(2'000'384, 2000);
  r.latency.record_n(2'999'296, 1000);
  // wrk2's -U: the uncorrected latency (service time), 1000.192 us for all 4000.
  r.service_time.record_n(1'000'192, 4000);
  // Req/Sec samples (exact below 2048): mean 1100, sample stdev 71.07, 50% within.
  r.rate_samples.record_n(1000, 25);
  r.rate_samples.record_n(1100, 50);
  r.rate_samples.record_n(1200, 25);
  Counters& c = r.counters;
  c.completed = 4000;
  c.attempted = 4015;
  c.bytes_read = 1'234'567;
  c.errors[static_cast<size_t>(ErrorClass::kConnect)] = 1;
  c.errors[static_cast<size_t>(ErrorClass::kRead)] = 2;
  c.errors[static_cast<size_t>(ErrorClass::kParse)] = 3;
  c.errors[static_cast<size_t>(ErrorClass::kWrite)] = 4;
  c.errors[static_cast<size_t>(ErrorClass::kTimeout)] = 5;
  r.status_codes[200] = 3980;
  r.status_codes[302] = 10;
  r.status_codes[404] = 7;
  r.status_codes[503] = 3;
  return r;
}

TEST(WrkReport, LineByLine) {
  const std::string expected =
      "  Thread Stats   Avg      Stdev     Max   +/- Stdev\n"
      "    Latency     2.00ms  706.88us   3.00ms   50.00%\n"
      "    Req/Sec     1.10k    71.07     1.20k    50.00%\n"
      "  Latency Distribution\n"
      "     50%    2.00ms\n"
      "     75%    2.00ms\n"
      "     90%    3.00ms\n"
      "     99%    3.00ms\n"
      "  4000 requests in 2.00s, 1.18MB read\n"
      "  Socket errors: connect 1, read 5, write 4, timeout 5\n"
      "  Non-2xx or 3xx responses: 10\n"
      "Requests/sec:   2000.00\n"
      "Transfer/sec:    602.82KB\n";
  EXPECT_EQ(render_wrk_report(sample_result(), sample_result().rate_samples, true), expected);
}

TEST(WrkReport, OptionalLinesOnlyWhenThereIsSomethingToSay) {
  WrkData r = sample_result();
  r.counters.errors = {};
  r.status_codes.clear();
  r.status_codes[200] = 3990;
  r.status_codes[101] = 10;  // wrk counts only statuses above 399, whatever its label says
  const std::string expected =
      "  Thread Stats   Avg      Stdev     Max   +/- Stdev\n"
      "    Latency     2.00ms  706.88us   3.00ms   50.00%\n"
      "    Req/Sec     1.10k    71.07     1.20k    50.00%\n"
      "  4000 requests in 2.00s, 1.18MB read\n"
      "Requests/sec:   2000.00\n"
      "Transfer/sec:    602.82KB\n";
  EXPECT_EQ(render_wrk_report(r, r.rate_samples, false), expected);
}

// What wrk 4.1 prints when no response completed (captured from the real wrk): it divides 0 by 0
// for the "+/- Stdev" column.
TEST(WrkReport, NothingCompleted) {
  WrkData r;
  r.duration_ns = 1'000'000'000;
  const std::string expected =
      "  Thread Stats   Avg      Stdev     Max   +/- Stdev\n"
      "    Latency     0.00us    0.00us   0.00us    -nan%\n"
      "    Req/Sec     0.00      0.00     0.00      -nan%\n"
      "  Latency Distribution\n"
      "     50%    0.00us\n"
      "     75%    0.00us\n"
      "     90%    0.00us\n"
      "     99%    0.00us\n"
      "  0 requests in 1.00s, 0.00B read\n"
      "Requests/sec:      0.00\n"
      "Transfer/sec:       0.00B\n";
  EXPECT_EQ(render_wrk_report(r, r.rate_samples, true), expected);
}

TEST(WrkReport, OneSampleIsAllWithinTheDeviation) {
  WrkData r;
  r.duration_ns = 1'000'000'000;
  // The mean is the slot's midpoint (123.437 ms), the maximum the exact value.
  r.latency.record(123'456'789);
  r.rate_samples.record(10);
  r.counters.completed = 1;
  const std::string report = render_wrk_report(r, r.rate_samples, false);
  EXPECT_NE(report.find("    Latency   123.44ms    0.00us 123.46ms  100.00%\n"), std::string::npos)
      << report;
  EXPECT_NE(report.find("    Req/Sec    10.00      0.00    10.00    100.00%\n"), std::string::npos)
      << report;
}

TEST(WrkReport, Banner) {
  EXPECT_EQ(render_wrk_banner(10'000'000'000, "http://127.0.0.1:8080", 2, 10),
            "Running 10s test @ http://127.0.0.1:8080\n  2 threads and 10 connections\n");
  EXPECT_EQ(render_wrk_banner(120'000'000'000, "https://h/x?y", 1, 1),
            "Running 2m test @ https://h/x?y\n  1 threads and 1 connections\n");
  EXPECT_EQ(render_wrk_banner(3'600'000'000'000, "http://h/", 4, 400).substr(0, 16),
            "Running 60m test");
}

TEST(WrkUnits, FormatTimeUs) {
  const struct {
    long double us;
    const char* text;
  } cases[] = {
      {0, "0.00us"},
      {1, "1.00us"},
      {849.994L, "849.99us"},
      {849.999L, "850.00us"},  // below 85% of a ms: stays in us
      {850, "0.85ms"},
      {45'320, "45.32ms"},
      {999'999, "1000.00ms"},  // never into seconds from the us scale
      {1'000'000, "1.00s"},
      {2'500'000, "2.50s"},
      {50'990'000, "50.99s"},
      {51'000'000, "0.85m"},
      {3'600'000'000, "60.00m"},  // never into hours
  };
  for (const auto& c : cases) EXPECT_EQ(wrk_format_time_us(c.us), c.text) << c.text;
}

TEST(WrkUnits, FormatTimeS) {
  const struct {
    long double s;
    const char* text;
  } cases[] = {
      {0, "0s"},    {10, "10s"},   {50, "50s"},    {51, "1m"}, {90, "2m"},  // 1.5 rounds to even
      {150, "2m"},                                                          // 2.5 rounds to even
      {600, "10m"}, {3600, "60m"}, {7200, "120m"},
  };
  for (const auto& c : cases) EXPECT_EQ(wrk_format_time_s(c.s), c.text) << c.text;
}

TEST(WrkUnits, FormatMetricAndBinary) {
  const struct {
    long double n;
    const char* metric;
    const char* binary;
  } cases[] = {
      {0, "0.00", "0.00"},          {849.99L, "849.99", "849.99"},  {850, "0.85k", "850.00"},
      {870, "0.87k", "870.00"},     {870.4L, "0.87k", "0.85K"},     {1023, "1.02k", "1.00K"},
      {53'650, "53.65k", "52.39K"}, {999'999, "1.00M", "0.95M"},    {1'572'864, "1.57M", "1.50M"},
      {1e12L, "1.00T", "0.91T"},    {1e15L, "1000.00T", "909.49T"},  // the last unit (P) is never
                                                                     // used
  };
  for (const auto& c : cases) {
    EXPECT_EQ(wrk_format_metric(c.n), c.metric) << c.metric;
    EXPECT_EQ(wrk_format_binary(c.n), c.binary) << c.binary;
  }
}

TEST(WrkStats, SampleDeviationAndShareWithin) {
  Histogram h;
  h.record_n(1000, 25);
  h.record_n(1100, 50);
  h.record_n(1200, 25);
  WrkStats s = wrk_stats(h, 1);
  EXPECT_EQ(s.count, 100u);
  EXPECT_DOUBLE_EQ(static_cast<double>(s.mean), 1100.0);
  EXPECT_NEAR(static_cast<double>(s.stdev), 71.0669, 1e-4);
  EXPECT_DOUBLE_EQ(static_cast<double>(s.max), 1200.0);
  EXPECT_DOUBLE_EQ(static_cast<double>(s.within_stdev_percent), 50.0);
  // The divisor truncates the maximum to whole units, as wrk's integer microseconds do.
  Histogram ns;
  ns.record(1999);
  EXPECT_DOUBLE_EQ(static_cast<double>(wrk_stats(ns, 1000).max), 1.0);
}

}  // namespace
}  // namespace hail

// wrk2's report (render_wrk2_report) for the same run, read as a rate-mode result: latency is the
// corrected one (population stdev 706.79 us), service_time the uncorrected one.
namespace hail {
namespace {

const char* const kHead =
    "  Thread Stats   Avg      Stdev     Max   +/- Stdev\n"
    "    Latency     2.00ms  706.79us   3.00ms   50.00%\n"
    "    Req/Sec     1.10k    71.07     1.20k    50.00%\n";

const char* const kCorrected =
    "  Latency Distribution (HdrHistogram - Recorded Latency)\n"
    " 50.000%    2.00ms\n"
    " 75.000%    2.00ms\n"
    " 90.000%    3.00ms\n"
    " 99.000%    3.00ms\n"
    " 99.900%    3.00ms\n"
    " 99.990%    3.00ms\n"
    " 99.999%    3.00ms\n"
    "100.000%    3.00ms\n"
    "\n"
    "  Detailed Percentile spectrum:\n"
    "       Value   Percentile   TotalCount 1/(1-Percentile)\n"
    "\n"
    "       1.000     0.000000         1000         1.00\n"
    "       1.000     0.100000         1000         1.11\n"
    "       1.000     0.200000         1000         1.25\n"
    "       2.001     0.300000         3000         1.43\n"
    "       2.001     0.400000         3000         1.67\n"
    "       2.001     0.500000         3000         2.00\n"
    "       2.001     0.550000         3000         2.22\n"
    "       2.001     0.600000         3000         2.50\n"
    "       2.001     0.650000         3000         2.86\n"
    "       2.001     0.700000         3000         3.33\n"
    "       2.001     0.750000         3000         4.00\n"
    "       3.000     0.775000         4000         4.44\n"
    "       3.000     1.000000         4000          inf\n"
    "#[Mean    =        2.000, StdDeviation   =        0.707]\n"
    "#[Max     =        2.999, Total count    =         4000]\n"
    "#[Buckets =           33, SubBuckets     =         2048]\n"
    "----------------------------------------------------------\n";

const char* const kUncorrected =
    "\n"
    "  Latency Distribution (HdrHistogram - Uncorrected Latency (measured without taking delayed "
    "starts into account))\n"
    " 50.000%    1.00ms\n"
    " 75.000%    1.00ms\n"
    " 90.000%    1.00ms\n"
    " 99.000%    1.00ms\n"
    " 99.900%    1.00ms\n"
    " 99.990%    1.00ms\n"
    " 99.999%    1.00ms\n"
    "100.000%    1.00ms\n"
    "\n"
    "  Detailed Percentile spectrum:\n"
    "       Value   Percentile   TotalCount 1/(1-Percentile)\n"
    "\n"
    "       1.000     0.000000         4000         1.00\n"
    "       1.000     1.000000         4000          inf\n"
    "#[Mean    =        1.000, StdDeviation   =        0.000]\n"
    "#[Max     =        1.000, Total count    =         4000]\n"
    "#[Buckets =           33, SubBuckets     =         2048]\n"
    "----------------------------------------------------------\n";

const char* const kTail =
    "  4000 requests in 2.00s, 1.18MB read\n"
    "  Socket errors: connect 1, read 5, write 4, timeout 5\n"
    "  Non-2xx or 3xx responses: 10\n"
    "Requests/sec:   2000.00\n"
    "Transfer/sec:    602.82KB\n";

TEST(Wrk2Report, PlainLineByLine) {
  const WrkData r = sample_result();
  EXPECT_EQ(render_wrk2_report(r, r.rate_samples, false, false), std::string(kHead) + kTail);
}

TEST(Wrk2Report, LatencySpectrumLineByLine) {
  const WrkData r = sample_result();
  EXPECT_EQ(render_wrk2_report(r, r.rate_samples, true, false),
            std::string(kHead) + kCorrected + kTail);
}

TEST(Wrk2Report, UncorrectedSpectrumFollowsTheCorrectedOne) {
  const WrkData r = sample_result();
  EXPECT_EQ(render_wrk2_report(r, r.rate_samples, true, true),
            std::string(kHead) + kCorrected + kUncorrected + kTail);
}

// HdrHistogram's reporting levels: twice as dense each time the distance to 100% halves, 5 ticks
// per half distance, one row per level reached (several from one slot); the slot that completes
// the count gives one row, then the 100% row.
TEST(Wrk2Report, SpectrumLevelsOfAWideDistribution) {
  Histogram h;
  for (uint64_t v = 1; v <= 100'000; ++v) h.record(v * 1000);  // 1 us .. 100 ms, uniform
  const std::string table = render_hdr_percentiles(h);
  // Rows checked against a separate model of HdrHistogram_c's iterator (57 rows).
  EXPECT_NE(table.find("      50.004     0.500000        50003         2.00\n"), std::string::npos)
      << table;
  EXPECT_NE(table.find("      99.090     0.990625        99090       106.67\n"), std::string::npos)
      << table;
  EXPECT_NE(table.find("     100.008     1.000000       100000          inf\n"), std::string::npos)
      << table;
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 2 + 57 + 3);
  EXPECT_NE(table.find("#[Max     =      100.000, Total count    =       100000]\n"),
            std::string::npos)
      << table;
}

// The Percentile and TotalCount columns against HdrHistogram_c's own hdr_percentiles_print (the
// copy in wrk2 44a94c1, run once outside this repository) for microsecond values 1..1047 with
// counts (v * 7919) % 50 + 1, plus 100000 at 900 us: hail's nanosecond slots are finer, but at
// these values each holds one microsecond value, so the rows must agree.
TEST(Wrk2Report, SpectrumColumnsMatchHdrHistogramC) {
  const struct {
    const char* percentile;
    uint64_t total_count;
  } expected[] = {
      {"0.000000", 20},     {"0.100000", 12704},  {"0.200000", 122950}, {"0.300000", 122950},
      {"0.400000", 122950}, {"0.500000", 122950}, {"0.550000", 122950}, {"0.600000", 122950},
      {"0.650000", 122950}, {"0.700000", 122950}, {"0.750000", 122950}, {"0.775000", 122950},
      {"0.800000", 122950}, {"0.825000", 122950}, {"0.850000", 122950}, {"0.875000", 122950},
      {"0.887500", 122950}, {"0.900000", 122950}, {"0.912500", 122950}, {"0.925000", 122950},
      {"0.937500", 122950}, {"0.943750", 122950}, {"0.950000", 122950}, {"0.956250", 122950},
      {"0.962500", 122950}, {"0.968750", 122950}, {"0.971875", 123205}, {"0.975000", 123567},
      {"0.978125", 123959}, {"0.981250", 124365}, {"0.984375", 124785}, {"0.985938", 124967},
      {"0.987500", 125165}, {"0.989062", 125379}, {"0.990625", 125559}, {"0.992188", 125755},
      {"0.992969", 125842}, {"0.993750", 125967}, {"0.994531", 126060}, {"0.995313", 126150},
      {"0.996094", 126242}, {"0.996484", 126305}, {"0.996875", 126342}, {"0.997266", 126389},
      {"0.997656", 126440}, {"0.998047", 126509}, {"0.998242", 126509}, {"0.998437", 126550},
      {"0.998633", 126599}, {"0.998828", 126599}, {"0.999023", 126617}, {"0.999121", 126654},
      {"0.999219", 126654}, {"0.999316", 126654}, {"0.999414", 126660}, {"0.999512", 126685},
      {"0.999561", 126685}, {"0.999609", 126685}, {"0.999658", 126729}, {"1.000000", 126729}};
  Histogram h;
  for (uint64_t us = 1; us <= 1047; ++us) h.record_n(us * 1000, us * 7919 % 50 + 1);
  h.record_n(900'000, 100'000);
  const std::string table = render_hdr_percentiles(h);
  std::vector<std::pair<std::string, uint64_t>> rows;
  size_t start = table.find("\n\n") + 2;
  for (size_t end; (end = table.find('\n', start)) != std::string::npos; start = end + 1) {
    const std::string line = table.substr(start, end - start);
    if (line.starts_with("#")) break;
    char percentile[16];
    unsigned long long count = 0;
    double value = 0;
    ASSERT_EQ(std::sscanf(line.c_str(), "%lf %15s %llu", &value, percentile, &count), 3) << line;
    rows.emplace_back(percentile, count);
  }
  ASSERT_EQ(rows.size(), std::size(expected)) << table;
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].first, expected[i].percentile) << i;
    EXPECT_EQ(rows[i].second, expected[i].total_count) << i;
  }
  EXPECT_NE(table.find("#[Mean    =        0.821, StdDeviation   =        0.207]\n"),
            std::string::npos)
      << table;
}

TEST(Wrk2Report, EmptyHistogramIsOneRow) {
  const std::string expected =
      "       Value   Percentile   TotalCount 1/(1-Percentile)\n"
      "\n"
      "       0.000     1.000000            0          inf\n"
      "#[Mean    =         -nan, StdDeviation   =         -nan]\n"
      "#[Max     =        0.000, Total count    =            0]\n"
      "#[Buckets =           33, SubBuckets     =         2048]\n";
  EXPECT_EQ(render_hdr_percentiles(Histogram()), expected);
}

TEST(Wrk2Report, BannerSaysNoCalibration) {
  EXPECT_EQ(render_wrk2_banner(30'000'000'000, "http://127.0.0.1:8080/", 2, 100),
            "Running 30s test @ http://127.0.0.1:8080/\n"
            "  2 threads and 100 connections\n"
            "  (hail: no thread calibration needed; latency is recorded from the first request)\n");
}

}  // namespace
}  // namespace hail
