#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/slo_expr.h"

namespace hail {
namespace {

constexpr double kMs = 1e6;
constexpr double kS = 1e9;

SloThreshold parsed(const std::string& text) {
  Result<SloThreshold> r = parse_slo(text);
  EXPECT_TRUE(r.ok()) << text << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : SloThreshold{};
}

std::string error_of(const std::string& text) {
  Result<SloThreshold> r = parse_slo(text);
  EXPECT_FALSE(r.ok()) << text << " parsed";
  return r.ok() ? std::string() : r.error().message;
}

// k6's documented threshold examples (k6.io/docs/using-k6/thresholds).

TEST(SloExpr, K6PercentileWithBareMilliseconds) {
  const SloThreshold t = parsed("p(95)<500");
  EXPECT_EQ(t.text, "p(95)<500");
  EXPECT_EQ(t.metric, SloMetric::kLatency);
  EXPECT_EQ(t.stat, SloStat::kPercentile);
  EXPECT_DOUBLE_EQ(t.percentile, 95);
  EXPECT_EQ(t.op, SloOp::kLess);
  EXPECT_DOUBLE_EQ(t.limit, 500 * kMs);
  EXPECT_FALSE(t.optional);
  EXPECT_FALSE(t.windowed());
  EXPECT_TRUE(t.tag.empty());
  EXPECT_EQ(t.metric_label(), "latency.p(95)");
}

TEST(SloExpr, FractionalPercentileWithUnit) {
  const SloThreshold t = parsed("p(99.9)<=50ms");
  EXPECT_DOUBLE_EQ(t.percentile, 99.9);
  EXPECT_EQ(t.op, SloOp::kLessEqual);
  EXPECT_DOUBLE_EQ(t.limit, 50 * kMs);
  EXPECT_EQ(t.metric_label(), "latency.p(99.9)");
}

TEST(SloExpr, ShortPercentileForm) {
  const SloThreshold t = parsed("p99<10ms");
  EXPECT_EQ(t.stat, SloStat::kPercentile);
  EXPECT_DOUBLE_EQ(t.percentile, 99);
  EXPECT_DOUBLE_EQ(t.limit, 10 * kMs);
  EXPECT_DOUBLE_EQ(parsed("p99.9<10ms").percentile, 99.9);
  EXPECT_DOUBLE_EQ(parsed("p(0)<10ms").percentile, 0);
  EXPECT_DOUBLE_EQ(parsed("p(100)<10ms").percentile, 100);
  EXPECT_DOUBLE_EQ(parsed("p( 90 )<10ms").percentile, 90);
}

TEST(SloExpr, AvgMedMinMax) {
  const SloThreshold avg = parsed("avg<2ms");
  EXPECT_EQ(avg.stat, SloStat::kAvg);
  EXPECT_DOUBLE_EQ(avg.limit, 2 * kMs);
  EXPECT_EQ(avg.metric_label(), "latency.avg");

  const SloThreshold med = parsed("med<7.5ms");
  EXPECT_EQ(med.stat, SloStat::kPercentile);
  EXPECT_DOUBLE_EQ(med.percentile, 50);
  EXPECT_DOUBLE_EQ(med.limit, 7.5 * kMs);
  EXPECT_EQ(med.metric_label(), "latency.p(50)");

  const SloThreshold max = parsed("max<1s");
  EXPECT_EQ(max.stat, SloStat::kMax);
  EXPECT_DOUBLE_EQ(max.limit, 1 * kS);

  const SloThreshold min = parsed("min>100us");
  EXPECT_EQ(min.stat, SloStat::kMin);
  EXPECT_EQ(min.op, SloOp::kGreater);
  EXPECT_DOUBLE_EQ(min.limit, 100e3);
}

TEST(SloExpr, K6MetricWithNameFilter) {
  const SloThreshold t = parsed("http_req_duration{name:checkout}: p(95)<500");
  EXPECT_EQ(t.metric, SloMetric::kLatency);
  EXPECT_EQ(t.tag, "checkout");
  EXPECT_DOUBLE_EQ(t.percentile, 95);
  EXPECT_DOUBLE_EQ(t.limit, 500 * kMs);
  EXPECT_EQ(t.metric_label(), "latency{tag=checkout}.p(95)");
}

TEST(SloExpr, HailTagFilterForms) {
  const SloThreshold t = parsed("latency{tag=checkout}: p(99)<20ms");
  EXPECT_EQ(t.tag, "checkout");
  EXPECT_DOUBLE_EQ(t.limit, 20 * kMs);
  EXPECT_EQ(parsed("latency{tag=checkout}.p(99)<20ms").tag, "checkout");
  EXPECT_EQ(parsed("latency{ tag = checkout }:p(99)<20ms").tag, "checkout");
  // A quoted name may hold what the grammar uses: braces, operators, "?", quotes.
  const SloThreshold q = parsed(R"(latency{tag="a}<b?\"c"}: p(99)<20ms)");
  EXPECT_EQ(q.tag, "a}<b?\"c");
  EXPECT_EQ(q.metric_label(), R"(latency{tag="a}<b?\"c"}.p(99))");
  // Scalars take a tag too.
  const SloThreshold rate = parsed("error_rate{tag=login}<1%");
  EXPECT_EQ(rate.metric, SloMetric::kErrorRate);
  EXPECT_EQ(rate.tag, "login");
  EXPECT_EQ(rate.metric_label(), "error_rate{tag=login}");
  EXPECT_EQ(parsed("http_reqs{name:home}: rate>=100").metric, SloMetric::kRps);
  const SloThreshold timeouts = parsed("errors.timeout{tag=x}==0");
  EXPECT_EQ(timeouts.errors, SloErrors::kTimeout);
  EXPECT_EQ(timeouts.metric_label(), "errors.timeout{tag=x}");
}

TEST(SloExpr, K6RateAndCounterMetrics) {
  const SloThreshold failed = parsed("http_req_failed: rate<0.01");
  EXPECT_EQ(failed.metric, SloMetric::kErrorRate);
  EXPECT_EQ(failed.stat, SloStat::kNone);
  EXPECT_DOUBLE_EQ(failed.limit, 0.01);
  EXPECT_EQ(failed.metric_label(), "error_rate");
  EXPECT_EQ(parsed("http_reqs: rate>=5000").metric, SloMetric::kRps);
  EXPECT_EQ(parsed("http_reqs:count>1000").metric, SloMetric::kRequests);
}

TEST(SloExpr, MetricPrefixes) {
  struct Case {
    const char* text;
    SloMetric metric;
    const char* label;
  };
  const std::vector<Case> cases = {
      {"service.p(99)<5ms", SloMetric::kService, "service.p(99)"},
      {"ttfb.p(99)<5ms", SloMetric::kTtfb, "ttfb.p(99)"},
      {"connect.max<5ms", SloMetric::kConnect, "connect.max"},
      {"lag.p99<1ms", SloMetric::kLag, "lag.p(99)"},
      {"tls.avg<5ms", SloMetric::kTls, "tls.avg"},
      {"latency.p99.9<5ms", SloMetric::kLatency, "latency.p(99.9)"},
      {"http_req_waiting: avg<5ms", SloMetric::kTtfb, "ttfb.avg"},
      {"http_req_connecting: p(90)<5ms", SloMetric::kConnect, "connect.p(90)"},
      {"http_req_tls_handshaking: med<5ms", SloMetric::kTls, "tls.p(50)"},
      {"service_time.min<5ms", SloMetric::kService, "service.min"},
  };
  for (const Case& c : cases) {
    const SloThreshold t = parsed(c.text);
    EXPECT_EQ(t.metric, c.metric) << c.text;
    EXPECT_TRUE(t.is_distribution()) << c.text;
    EXPECT_EQ(t.metric_label(), c.label) << c.text;
  }
}

TEST(SloExpr, Scalars) {
  const SloThreshold rate = parsed("error_rate<0.1%");
  EXPECT_EQ(rate.metric, SloMetric::kErrorRate);
  EXPECT_DOUBLE_EQ(rate.limit, 0.001);
  EXPECT_FALSE(rate.is_distribution());
  EXPECT_DOUBLE_EQ(parsed("error_rate<0.001").limit, 0.001);
  EXPECT_DOUBLE_EQ(parsed("error_rate<1").limit, 1);
  EXPECT_DOUBLE_EQ(parsed("error_rate<=100%").limit, 1);

  const SloThreshold rps = parsed("rps>=5000");
  EXPECT_EQ(rps.metric, SloMetric::kRps);
  EXPECT_EQ(rps.op, SloOp::kGreaterEqual);
  EXPECT_DOUBLE_EQ(rps.limit, 5000);

  const SloThreshold timeouts = parsed("timeouts==0");
  EXPECT_EQ(timeouts.metric, SloMetric::kErrors);
  EXPECT_EQ(timeouts.errors, SloErrors::kTimeout);
  EXPECT_EQ(timeouts.op, SloOp::kEqual);
  EXPECT_EQ(timeouts.metric_label(), "errors.timeout");

  struct Case {
    const char* text;
    SloMetric metric;
    SloErrors errors;
    const char* label;
  };
  const std::vector<Case> cases = {
      {"requests>=1000", SloMetric::kRequests, SloErrors::kAll, "requests"},
      {"errors<10", SloMetric::kErrors, SloErrors::kAll, "errors"},
      {"errors.all<10", SloMetric::kErrors, SloErrors::kAll, "errors"},
      {"errors.connect==0", SloMetric::kErrors, SloErrors::kConnect, "errors.connect"},
      {"errors.read==0", SloMetric::kErrors, SloErrors::kRead, "errors.read"},
      {"errors.write==0", SloMetric::kErrors, SloErrors::kWrite, "errors.write"},
      {"errors.timeout==0", SloMetric::kErrors, SloErrors::kTimeout, "errors.timeout"},
      {"errors.parse==0", SloMetric::kErrors, SloErrors::kParse, "errors.parse"},
      {"errors.stream==0", SloMetric::kErrors, SloErrors::kStream, "errors.stream"},
      {"errors.status==0", SloMetric::kErrors, SloErrors::kStatus, "errors.status"},
      {"status_errors<10", SloMetric::kErrors, SloErrors::kStatus, "errors.status"},
  };
  for (const Case& c : cases) {
    const SloThreshold t = parsed(c.text);
    EXPECT_EQ(t.metric, c.metric) << c.text;
    EXPECT_EQ(t.errors, c.errors) << c.text;
    EXPECT_EQ(t.stat, SloStat::kNone) << c.text;
    EXPECT_EQ(t.metric_label(), c.label) << c.text;
  }
}

TEST(SloExpr, Operators) {
  EXPECT_EQ(parsed("p99<1").op, SloOp::kLess);
  EXPECT_EQ(parsed("p99<=1").op, SloOp::kLessEqual);
  EXPECT_EQ(parsed("p99>1").op, SloOp::kGreater);
  EXPECT_EQ(parsed("p99>=1").op, SloOp::kGreaterEqual);
  EXPECT_EQ(parsed("errors==0").op, SloOp::kEqual);
  EXPECT_EQ(parsed("errors===0").op, SloOp::kEqual);  // k6's strict equality
  EXPECT_EQ(parsed("errors!=0").op, SloOp::kNotEqual);
}

TEST(SloExpr, DurationUnits) {
  EXPECT_DOUBLE_EQ(parsed("p99<250ns").limit, 250);
  EXPECT_DOUBLE_EQ(parsed("p99<250us").limit, 250e3);
  EXPECT_DOUBLE_EQ(parsed("p99<250\xc2\xb5s").limit, 250e3);
  EXPECT_DOUBLE_EQ(parsed("p99<1.5ms").limit, 1.5e6);
  EXPECT_DOUBLE_EQ(parsed("p99<1.5").limit, 1.5e6);  // bare: milliseconds, as k6
  EXPECT_DOUBLE_EQ(parsed("p99<2s").limit, 2e9);
  EXPECT_DOUBLE_EQ(parsed("p99<2m").limit, 120e9);
  EXPECT_DOUBLE_EQ(parsed("p99<1h").limit, 3600e9);
  EXPECT_DOUBLE_EQ(parsed("p99<10MS").limit, 10e6);  // units are case-insensitive
}

TEST(SloExpr, CountSuffixesAndRates) {
  EXPECT_DOUBLE_EQ(parsed("rps>=5k").limit, 5000);
  EXPECT_DOUBLE_EQ(parsed("rps>=2.5K").limit, 2500);
  EXPECT_DOUBLE_EQ(parsed("requests>=1.5M").limit, 1.5e6);
  EXPECT_DOUBLE_EQ(parsed("rps>=5000/s").limit, 5000);
  EXPECT_DOUBLE_EQ(parsed("rps>=5k/s").limit, 5000);
  EXPECT_DOUBLE_EQ(parsed("errors<2k").limit, 2000);
}

TEST(SloExpr, SpacesBetweenTokens) {
  const SloThreshold t = parsed("  p(99) < 10 ms over 10 s for 5 s  ");
  EXPECT_EQ(t.text, "p(99) < 10 ms over 10 s for 5 s");
  EXPECT_DOUBLE_EQ(t.limit, 10 * kMs);
  EXPECT_EQ(t.over_ns, 10'000'000'000u);
  EXPECT_EQ(t.for_ns, 5'000'000'000u);
  EXPECT_DOUBLE_EQ(parsed("error_rate < 0.5 %").limit, 0.005);
  EXPECT_DOUBLE_EQ(parsed("rps >= 5 k").limit, 5000);
  EXPECT_DOUBLE_EQ(parsed("p99 < 10 over 1m").limit, 10 * kMs);
}

TEST(SloExpr, OptionalMark) {
  const SloThreshold t = parsed("service.p(99)?<5ms");
  EXPECT_TRUE(t.optional);
  EXPECT_EQ(t.metric, SloMetric::kService);
  EXPECT_TRUE(parsed("p99 ? < 5ms").optional);
  EXPECT_TRUE(parsed("error_rate?<1%").optional);
  EXPECT_TRUE(parsed("latency{tag=x}: p(99)?<5ms").optional);
}

TEST(SloExpr, WindowsAndSustain) {
  const SloThreshold over = parsed("p(99)<10ms over 10s");
  EXPECT_EQ(over.over_ns, 10'000'000'000u);
  EXPECT_EQ(over.for_ns, 0u);
  EXPECT_TRUE(over.windowed());

  const SloThreshold sustain = parsed("p(99)<10ms for 5s");
  EXPECT_EQ(sustain.over_ns, 0u);
  EXPECT_EQ(sustain.for_ns, 5'000'000'000u);
  EXPECT_TRUE(sustain.windowed());

  const SloThreshold both = parsed("error_rate<1% for 2s over 500ms");
  EXPECT_EQ(both.over_ns, 500'000'000u);
  EXPECT_EQ(both.for_ns, 2'000'000'000u);
  EXPECT_EQ(parsed("rps>=100 over 1m").over_ns, 60'000'000'000u);
  EXPECT_EQ(parsed("lag.p99<1ms over 10s").metric, SloMetric::kLag);
  EXPECT_EQ(parsed("service.avg<1ms for 3s").metric, SloMetric::kService);
  EXPECT_EQ(parsed("timeouts==0 over 30s").errors, SloErrors::kTimeout);
}

TEST(SloExpr, MetricsInWindows) {
  EXPECT_TRUE(slo_metric_in_windows(SloMetric::kLatency));
  EXPECT_TRUE(slo_metric_in_windows(SloMetric::kService));
  EXPECT_TRUE(slo_metric_in_windows(SloMetric::kLag));
  EXPECT_TRUE(slo_metric_in_windows(SloMetric::kErrorRate));
  EXPECT_TRUE(slo_metric_in_windows(SloMetric::kRps));
  EXPECT_TRUE(slo_metric_in_windows(SloMetric::kRequests));
  EXPECT_TRUE(slo_metric_in_windows(SloMetric::kErrors));
  EXPECT_FALSE(slo_metric_in_windows(SloMetric::kTtfb));
  EXPECT_FALSE(slo_metric_in_windows(SloMetric::kConnect));
  EXPECT_FALSE(slo_metric_in_windows(SloMetric::kTls));
}

TEST(SloExpr, Holds) {
  EXPECT_TRUE(slo_holds(SloOp::kLess, 1, 2));
  EXPECT_FALSE(slo_holds(SloOp::kLess, 2, 2));
  EXPECT_TRUE(slo_holds(SloOp::kLessEqual, 2, 2));
  EXPECT_FALSE(slo_holds(SloOp::kLessEqual, 3, 2));
  EXPECT_TRUE(slo_holds(SloOp::kGreater, 3, 2));
  EXPECT_FALSE(slo_holds(SloOp::kGreater, 2, 2));
  EXPECT_TRUE(slo_holds(SloOp::kGreaterEqual, 2, 2));
  EXPECT_FALSE(slo_holds(SloOp::kGreaterEqual, 1, 2));
  EXPECT_TRUE(slo_holds(SloOp::kEqual, 0, 0));
  EXPECT_FALSE(slo_holds(SloOp::kEqual, 1, 0));
  EXPECT_TRUE(slo_holds(SloOp::kNotEqual, 1, 0));
  EXPECT_FALSE(slo_holds(SloOp::kNotEqual, 0, 0));
}

TEST(SloExpr, FormatsValuesInTheMetricsUnit) {
  EXPECT_EQ(format_slo_value(parsed("p99<10ms"), 12.346e6), "12.35ms");
  EXPECT_EQ(format_slo_value(parsed("error_rate<1%"), 0.0012), "0.12%");
  EXPECT_EQ(format_slo_value(parsed("rps>1"), 5012.34), "5012.3 req/s");
  EXPECT_EQ(format_slo_value(parsed("timeouts==0"), 3), "3");
  EXPECT_STREQ(slo_op_text(SloOp::kLessEqual), "<=");
  EXPECT_STREQ(slo_op_text(SloOp::kNotEqual), "!=");
}

// Errors: one line that starts with the quoted expression and names the bad part.
struct BadCase {
  const char* text;
  const char* names;  // a part the message must contain
};

class SloExprErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(SloExprErrors, OneLineQuotingTheExpressionAndNamingTheBadPart) {
  const BadCase& c = GetParam();
  const std::string message = error_of(c.text);
  std::string expr(c.text);
  // quote() of the trimmed text
  while (!expr.empty() && expr.front() == ' ') expr.erase(0, 1);
  while (!expr.empty() && expr.back() == ' ') expr.pop_back();
  std::string quoted = "\"";
  for (char ch : expr) {
    if (ch == '"' || ch == '\\') quoted += '\\';
    quoted += ch;
  }
  quoted += "\": ";
  EXPECT_EQ(message.rfind(quoted, 0), 0u) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_NE(message.find(c.names), std::string::npos) << message << " lacks " << c.names;
}

INSTANTIATE_TEST_SUITE_P(
    Bad, SloExprErrors,
    ::testing::Values(
        BadCase{"", "empty threshold"}, BadCase{"   ", "empty threshold"},
        BadCase{"p(99)", "no comparison"}, BadCase{"p(99)=10ms", "unknown operator \"=\""},
        BadCase{"p(99)!10ms", "unknown operator \"!\""}, BadCase{"p(99)<", "no value"},
        BadCase{"<10ms", "nothing before the operator"},
        BadCase{"p(99)<10xs", "unknown unit \"xs\""},
        BadCase{"p(99)<abc", "expected a number after the operator, got \"abc\""},
        BadCase{"p(99)<-5ms", "negative value \"-5ms\""},
        BadCase{"p(99)<1.2.3ms", "bad number \"1.2.3\""},
        BadCase{"p(101)<10ms", "percentile \"101\" is not within 0..100"},
        BadCase{"p(abc)<10ms", "bad percentile \"p(abc)\""},
        BadCase{"p()<10ms", "bad percentile \"p()\""}, BadCase{"p(99<10ms", "unclosed \"p(99\""},
        BadCase{"p(99)x<10ms", "unexpected \"x\" after \"p(99)\""},
        BadCase{"p99k<10ms", "bad percentile \"p99k\""},
        BadCase{"p95.x<10ms", "bad percentile \"p95.x\""},
        BadCase{"foo<1", "unknown statistic \"foo\""},
        BadCase{"foo.p(99)<1", "unknown metric \"foo\""},
        BadCase{"latency<10ms", "\"latency\" needs a statistic"},
        BadCase{"latency.<10ms", "no statistic after \"latency\""},
        BadCase{"service:<10ms", "no statistic after \"service\""},
        BadCase{"latency.rate<10ms", "\"rate\" applies to k6's counters"},
        BadCase{"error_rate.p(99)<1", "takes no statistic \"p(99)\""},
        BadCase{"http_req_failed: count<1", "http_req_failed takes \"rate\""},
        BadCase{"http_reqs: p(99)<1", "http_reqs takes \"rate\""},
        BadCase{"error_rate<5", "\"5\" is above 1"},
        BadCase{"error_rate<101%", "\"101%\" is above 100%"},
        BadCase{"error_rate<1ms", "unknown unit \"ms\""}, BadCase{"rps>5G", "unknown unit \"G\""},
        BadCase{"timeouts<1%", "unknown unit \"%\""},
        BadCase{"p(99)<10ms over", "\"over\" needs a duration"},
        BadCase{"p(99)<10ms for", "\"for\" needs a duration"},
        BadCase{"p(99)<10ms over 10", "not \"10\""},
        BadCase{"p(99)<10ms over 10x", "bad duration \"10x\""},
        BadCase{"p(99)<10ms over 0s", "above 0"},
        BadCase{"p(99)<10ms over 10s over 5s", "\"over\" given twice"},
        BadCase{"p(99)<10ms during 10s", "unexpected \"during\""},
        BadCase{"p(99)<10ms 10s", "unexpected \"10s\""},
        BadCase{"p(99)?<10ms?", "unknown unit \"ms?\""},
        BadCase{"p(9?9)<10ms", "\"?\" goes right before the operator"},
        BadCase{"latency{tag=checkout: p(99)<10ms", "unclosed \"{\""},
        BadCase{"latency}: p(99)<10ms", "\"}\" without a \"{\""},
        BadCase{"latency{tag=\"a}: p(99)<10ms", "unclosed quote"},
        BadCase{"latency{tag=}: p(99)<10ms", "empty tag name"},
        BadCase{"latency{url=/x}: p(99)<10ms", "unknown filter key \"url\""},
        BadCase{"latency{checkout}: p(99)<10ms", "a filter is {tag=NAME}"},
        BadCase{"{tag=x}: p(99)<10ms", "name the metric before"},
        BadCase{"latency{tag=x} p(99)<10ms", "unexpected \"p(99)\" after the filter"},
        BadCase{"service{tag=x}: p(99)<10ms", "per-tag thresholds have latency but not service"},
        BadCase{"latency{tag=x}: p(99)<10ms over 10s", "per-tag thresholds are whole-run only"},
        BadCase{"ttfb.p(99)<10ms over 10s", "ttfb has no per-window data"},
        BadCase{"connect.max<10ms for 5s", "connect has no per-window data"},
        BadCase{"tls.avg<10ms for 5s", "tls has no per-window data"}));

TEST(SloExpr, ErrorQuotesControlCharactersSoTheMessageStaysOneLine) {
  const std::string message = error_of("p(99)<10ms\nfoo");
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_EQ(message.rfind("\"p(99)<10ms\\x0afoo\": ", 0), 0u) << message;
}

}  // namespace
}  // namespace hail
