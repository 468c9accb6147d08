// judge_probe (one hail search probe's windows against the --slo thresholds: pass, fail or too
// close to call, and the numbers of its report row) and check_searchable (which thresholds a
// search can judge probe by probe), on hand-built windows.
#include <gtest/gtest.h>

#include <iterator>
#include <string>
#include <vector>

#include "analysis/probe_verdict.h"
#include "slo_fixtures.h"

namespace hail {
namespace {

using slo_test::kMs;
using slo_test::kS;
using slo_test::kTimeout;
using slo_test::slo;
using slo_test::slos;
using slo_test::window;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// n consecutive one-second windows, each `fast` responses at 1 ms and `slow` at `slow_ns`.
std::vector<WindowStats> windows(size_t n, uint64_t fast, uint64_t slow = 0,
                                 uint64_t slow_ns = 20 * kMs) {
  std::vector<WindowStats> out;
  for (size_t i = 0; i < n; ++i) out.push_back(window(i * kS, kS, fast, slow, slow_ns));
  return out;
}

ProbeJudgementResult judge(const std::string& threshold, const std::vector<WindowStats>& w) {
  return judge_probe(slos({threshold}), w);
}

TEST(ProbeVerdict, ClearPass) {
  const ProbeJudgementResult r = judge("p(99)<10ms", windows(10, 1000));
  EXPECT_EQ(r.judgement, Judgement::kPass);
  EXPECT_EQ(r.reason, "");
}

TEST(ProbeVerdict, ClearFailNamesTheThresholdAndItsValue) {
  // 10% of the responses at 20 ms: p99 is 20 ms, far over 10 ms.
  const ProbeJudgementResult r = judge("p(99)<10ms", windows(10, 900, 100));
  EXPECT_EQ(r.judgement, Judgement::kFail);
  EXPECT_TRUE(r.reason.starts_with("p(99)<10ms: 20.")) << r.reason;
  EXPECT_FALSE(contains(r.reason, "confidence")) << r.reason;
}

TEST(ProbeVerdict, PercentileNearTheLimitIsInconclusiveAndSaysWhy) {
  // Exactly 1% over 10 ms: the point value (p99 = 1 ms) passes, but the true share over the limit
  // may well be above 1%.
  const ProbeJudgementResult r = judge("p(99)<10ms", windows(10, 990, 10));
  EXPECT_EQ(r.judgement, Judgement::kInconclusive);
  EXPECT_TRUE(r.reason.starts_with("p(99)<10ms: 1.00ms")) << r.reason;
  EXPECT_TRUE(contains(r.reason, "1% over the limit")) << r.reason;
  EXPECT_TRUE(contains(r.reason, "at 95% confidence")) << r.reason;
  EXPECT_TRUE(contains(r.reason, "%..")) << r.reason;  // the interval's two ends
  // Half as many slow responses: the whole interval is below 1%.
  EXPECT_EQ(judge("p(99)<10ms", windows(10, 995, 5)).judgement, Judgement::kPass);
  // Twice as many: the whole interval is above it.
  EXPECT_EQ(judge("p(99)<10ms", windows(10, 980, 20)).judgement, Judgement::kFail);
}

// A p99 threshold far above every value, on 50 requests: none beyond the limit, yet 50 cannot show
// that fewer than 1 % are (Clopper-Pearson's upper end is 7.1 %); 368 can. The reason says so.
TEST(ProbeVerdict, TooFewRequestsForATailThresholdSaysHowMany) {
  const ProbeJudgementResult few = judge("p(99)<500ms", windows(5, 10));
  EXPECT_EQ(few.judgement, Judgement::kInconclusive);
  EXPECT_NE(few.reason.find("50 requests cannot show it at this confidence, 368 can"),
            std::string::npos)
      << few.reason;
  const ProbeJudgementResult enough = judge("p(99)<500ms", windows(5, 80));
  EXPECT_EQ(enough.judgement, Judgement::kPass) << enough.reason;
}

TEST(ProbeVerdict, ConfidenceComesFromTheOptions) {
  JudgeOptions loose;
  loose.confidence = 0.5;
  const ProbeJudgementResult r = judge_probe(slos({"p(99)<10ms"}), windows(10, 990, 10), loose);
  ASSERT_EQ(r.judgement, Judgement::kInconclusive);
  EXPECT_TRUE(contains(r.reason, "at 50% confidence")) << r.reason;
}

TEST(ProbeVerdict, PercentileOfServiceAndLag) {
  std::vector<WindowStats> w = windows(10, 1000);
  for (WindowStats& x : w) {
    Histogram service;
    service.record_n(8 * kMs, 1000);
    x.service = EncodedHistogram(service);
    Histogram lag;
    lag.record_n(50'000, 1000);
    x.lag = EncodedHistogram(lag);
  }
  EXPECT_EQ(judge("service.p(99)<5ms", w).judgement, Judgement::kFail);
  EXPECT_EQ(judge("service.p(99)<10ms", w).judgement, Judgement::kPass);
  EXPECT_EQ(judge("lag.p(99)<100us", w).judgement, Judgement::kPass);
  EXPECT_EQ(judge("lag.p(99)<10us", w).judgement, Judgement::kFail);
}

TEST(ProbeVerdict, LimitEqualToEveryValueFailsAStrictThreshold) {
  // Every response took exactly 1 ms: p50 is 1 ms, which is not < 1 ms, but is <= 1 ms.
  const ProbeJudgementResult strict = judge("p(50)<1ms", windows(10, 1000));
  EXPECT_EQ(strict.judgement, Judgement::kFail) << strict.reason;
  EXPECT_EQ(judge("p(50)<=1ms", windows(10, 1000)).judgement, Judgement::kPass);
}

TEST(ProbeVerdict, ZerothPercentileIsTheMinimum) {
  // p(0) is the fastest response: 5 ms here, over 1 ms whatever the share.
  EXPECT_EQ(judge("p(0)<1ms", windows(10, 0, 1000, 5 * kMs)).judgement, Judgement::kFail);
  EXPECT_EQ(judge("p(0)<1ms", windows(10, 1, 999, 5 * kMs)).judgement, Judgement::kFail);
  EXPECT_EQ(judge("p(0)<2ms", windows(10, 1, 999, 5 * kMs)).judgement, Judgement::kPass);
}

TEST(ProbeVerdict, MetricWithoutSamplesFailsUnlessOptional) {
  // Closed-loop windows carry no service times: a missing metric fails, "?" makes it pass.
  const ProbeJudgementResult missing = judge("service.p(99)<5ms", windows(10, 1000));
  EXPECT_EQ(missing.judgement, Judgement::kFail);
  EXPECT_TRUE(contains(missing.reason, "no samples")) << missing.reason;
  EXPECT_EQ(judge("service.p(99)?<5ms", windows(10, 1000)).judgement, Judgement::kPass);
}

TEST(ProbeVerdict, ErrorRateIsJudgedAsAProportion) {
  // 1% failed, limit 1%: the point value fails (1% is not < 1%), the interval straddles it.
  std::vector<WindowStats> w = windows(10, 990);
  for (WindowStats& x : w) x.errors[kTimeout] = 10;
  const ProbeJudgementResult edge = judge("error_rate<1%", w);
  EXPECT_EQ(edge.judgement, Judgement::kInconclusive);
  EXPECT_TRUE(contains(edge.reason, "confidence")) << edge.reason;
  EXPECT_EQ(judge("error_rate<5%", w).judgement, Judgement::kPass);
  EXPECT_EQ(judge("error_rate<0.5%", w).judgement, Judgement::kFail);
  // No failure in 10,000 outcomes: surely below 0.1%.
  EXPECT_EQ(judge("error_rate<0.1%", windows(10, 1000)).judgement, Judgement::kPass);
  // A zero limit is an observation: <= 0 holds without a failure, < 0 never holds.
  EXPECT_EQ(judge("error_rate<=0", windows(10, 1000)).judgement, Judgement::kPass);
  EXPECT_EQ(judge("error_rate<0", windows(10, 1000)).judgement, Judgement::kFail);
}

TEST(ProbeVerdict, ErrorRateCountsStatusErrorsAndEveryClass) {
  std::vector<WindowStats> w = windows(10, 1000);
  for (WindowStats& x : w) x.status_errors = 50;  // 5% answered 5xx
  EXPECT_EQ(judge("error_rate<1%", w).judgement, Judgement::kFail);
  std::vector<WindowStats> connect = windows(10, 1000);
  for (WindowStats& x : connect) x.errors[slo_test::kConnect] = 50;
  EXPECT_EQ(judge("error_rate<1%", connect).judgement, Judgement::kFail);
}

TEST(ProbeVerdict, RpsIsJudgedAsTheWindowsMean) {
  // Steady windows: the mean is known exactly.
  EXPECT_EQ(judge("rps>=900", windows(10, 1000)).judgement, Judgement::kPass);
  EXPECT_EQ(judge("rps<900", windows(10, 1000)).judgement, Judgement::kFail);
  // Windows spread around 900/s: the totals' rate is exactly 900/s (the point value passes),
  // the mean's interval straddles the limit.
  std::vector<WindowStats> spread;
  const uint64_t counts[] = {800, 1000, 850, 950, 900, 820, 980, 900};
  for (size_t i = 0; i < std::size(counts); ++i) {
    spread.push_back(window(i * kS, kS, counts[i]));
  }
  const ProbeJudgementResult r = judge("rps>=900", spread);
  EXPECT_EQ(r.judgement, Judgement::kInconclusive);
  EXPECT_TRUE(contains(r.reason, "windows' mean 900.0")) << r.reason;
  // One window has no spread to judge by, however clear its value.
  EXPECT_EQ(judge("rps>=10", windows(1, 1000)).judgement, Judgement::kInconclusive);
}

TEST(ProbeVerdict, MaxIsDecidedByObservation) {
  // One response in 10,000 over the limit: a percentile might call that noise, max does not.
  std::vector<WindowStats> w = windows(10, 1000);
  w[4] = window(4 * kS, kS, 999, 1, 60 * kMs);
  const ProbeJudgementResult r = judge("max<50ms", w);
  EXPECT_EQ(r.judgement, Judgement::kFail);
  EXPECT_TRUE(r.reason.starts_with("max<50ms: 60.")) << r.reason;
  // Three responses are enough to pass it: no interval is needed.
  EXPECT_EQ(judge("max<50ms", windows(1, 3)).judgement, Judgement::kPass);
  EXPECT_EQ(judge("avg<2ms", windows(1, 3)).judgement, Judgement::kPass);
  EXPECT_EQ(judge("timeouts==0", windows(1, 3)).judgement, Judgement::kPass);
}

TEST(ProbeVerdict, NoWindowsOrNoOutcomesAreInconclusive) {
  const ProbeJudgementResult none = judge_probe(slos({"max<50ms"}), {});
  EXPECT_EQ(none.judgement, Judgement::kInconclusive);
  EXPECT_FALSE(none.reason.empty());
  EXPECT_EQ(none.achieved_per_s, 0);
  const ProbeJudgementResult empty = judge("max<50ms", windows(5, 0));
  EXPECT_EQ(empty.judgement, Judgement::kInconclusive);
  EXPECT_TRUE(contains(empty.reason, "no request")) << empty.reason;
  // A window of errors alone has outcomes: it is judged (and fails).
  std::vector<WindowStats> errors = windows(5, 0);
  for (WindowStats& x : errors) x.errors[kTimeout] = 10;
  EXPECT_EQ(judge("error_rate<1%", errors).judgement, Judgement::kFail);
}

TEST(ProbeVerdict, FailBeatsInconclusiveBeatsPass) {
  std::vector<WindowStats> w = windows(10, 990, 10);  // p99 inconclusive at 10 ms
  for (WindowStats& x : w) x.errors[kTimeout] = 100;  // ~9% errors
  const ProbeJudgementResult fail =
      judge_probe(slos({"max<1s", "p(99)<10ms", "error_rate<1%", "max<5ms"}), w);
  EXPECT_EQ(fail.judgement, Judgement::kFail);
  EXPECT_TRUE(fail.reason.starts_with("error_rate<1%: ")) << fail.reason;  // the first failing
  const ProbeJudgementResult unsure =
      judge_probe(slos({"max<1s", "p(99)<10ms", "error_rate<20%", "p(99)<10.0ms"}), w);
  EXPECT_EQ(unsure.judgement, Judgement::kInconclusive);
  EXPECT_TRUE(unsure.reason.starts_with("p(99)<10ms: ")) << unsure.reason;
  const ProbeJudgementResult pass = judge_probe(slos({"max<1s", "error_rate<20%"}), w);
  EXPECT_EQ(pass.judgement, Judgement::kPass);
  EXPECT_EQ(pass.reason, "");
}

TEST(ProbeVerdict, StatsOfTheRow) {
  // Two half-second windows: 1,000 responses (500 at 1 ms, 400 at 2 ms, 90 at 5 ms, 9 at 10 ms,
  // 1 at 100 ms), 10 timeouts, 5 of the responses with a 5xx.
  std::vector<WindowStats> w;
  for (int i = 0; i < 2; ++i) {
    WindowStats x;
    x.start_ns = static_cast<uint64_t>(i) * kS / 2;
    x.end_ns = x.start_ns + kS / 2;
    Histogram latency;
    Histogram lag;
    if (i == 0) {
      latency.record_n(1 * kMs, 500);
      lag.record_n(10'000, 500);
    } else {
      latency.record_n(2 * kMs, 400);
      latency.record_n(5 * kMs, 90);
      latency.record_n(10 * kMs, 9);
      latency.record_n(100 * kMs, 1);
      lag.record_n(10'000, 480);
      lag.record_n(3 * kMs, 20);  // 2% of the lags: p99 is 3 ms
      x.errors[kTimeout] = 10;
      x.status_errors = 5;
    }
    x.completed = latency.count();
    x.latency = EncodedHistogram(latency);
    x.service = EncodedHistogram(latency);
    x.lag = EncodedHistogram(lag);
    x.update_percentiles();
    x.sources = 1;
    w.push_back(x);
  }
  const ProbeJudgementResult r = judge_probe(slos({"p(99)<1s"}), w);
  EXPECT_EQ(r.judgement, Judgement::kPass);
  // Within the histogram's resolution (3 significant digits).
  EXPECT_NEAR(static_cast<double>(r.stats.p50_ns), 1e6, 1e3);
  EXPECT_NEAR(static_cast<double>(r.stats.p90_ns), 2e6, 2e3);
  EXPECT_NEAR(static_cast<double>(r.stats.p99_ns), 5e6, 5e3);
  EXPECT_NEAR(static_cast<double>(r.stats.p999_ns), 10e6, 10e3);
  EXPECT_EQ(r.stats.max_ns, 100 * kMs);
  EXPECT_NEAR(static_cast<double>(r.stats.lag_p99_ns), 3e6, 3e3);
  EXPECT_DOUBLE_EQ(r.stats.error_rate, 15.0 / 1010.0);
  EXPECT_DOUBLE_EQ(r.achieved_per_s, 1000.0);
  EXPECT_DOUBLE_EQ(r.outcomes_per_s, 1010.0);
  EXPECT_EQ(r.stats.hail_cpu, 0);  // the driver's to fill
}

TEST(CheckSearchable, AcceptsWhatTheWindowsCarry) {
  for (const char* text :
       {"p(99)<10ms", "service.p(99)<5ms", "lag.p(99)<1ms", "max<1s", "error_rate<1%", "rps>=100",
        "timeouts==0", "errors.read==0", "requests>10", "p(99)<10ms over 2s"}) {
    const Status s = check_searchable(slo(text));
    EXPECT_TRUE(s.ok()) << text << ": " << (s.ok() ? "" : s.error().message);
  }
}

TEST(CheckSearchable, RefusesMetricsWithoutWindowsInOneLine) {
  for (const char* text :
       {"ttfb.p(99)<5ms", "connect.p(99)<5ms", "tls.max<50ms", "http_req_waiting: p(95)<5ms"}) {
    const Status s = check_searchable(slo(text));
    ASSERT_FALSE(s.ok()) << text;
    EXPECT_TRUE(contains(s.error().message, std::string("\"") + text + "\"")) << s.error().message;
    EXPECT_TRUE(contains(s.error().message, "no per-window data")) << s.error().message;
    EXPECT_FALSE(contains(s.error().message, "\n")) << s.error().message;
  }
}

TEST(CheckSearchable, RefusesPerTagThresholds) {
  for (const char* text : {"latency{tag=checkout}: p(99)<20ms", "error_rate{name:api}<1%"}) {
    const Status s = check_searchable(slo(text));
    ASSERT_FALSE(s.ok()) << text;
    EXPECT_TRUE(contains(s.error().message, "per-tag")) << s.error().message;
    EXPECT_TRUE(s.error().message.starts_with("\"")) << s.error().message;
    EXPECT_FALSE(contains(s.error().message, "\n")) << s.error().message;
  }
}

}  // namespace
}  // namespace hail
