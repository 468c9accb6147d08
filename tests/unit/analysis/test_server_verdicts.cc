// Server-side verdicts from monitor series: the summary lines' numbers, who was the limit, RSS and
// p99 drift flagged when they grow and called flat (with the growth that could hide) when they do
// not, and the server.* thresholds.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "analysis/probe_verdict.h"
#include "analysis/server_verdicts.h"
#include "analysis/slo_eval.h"
#include "analysis/slo_expr.h"

namespace hail {
namespace {

constexpr uint64_t kSecond = 1'000'000'000;
constexpr double kMiB = 1024.0 * 1024.0;

// A process series of n one-second windows (the first warm-up), cpu and rss given per window.
RunResult run_with(size_t n, double cpu_pct, double rss_start, double rss_per_s, double noise) {
  RunResult r;
  r.interval_ns = kSecond;
  MonitorSeries s;
  s.source = "pid:1";
  s.kind = "process";
  s.metrics = {"cpu_core_pct", "cpu_machine_pct", "rss_bytes", "fds"};
  for (size_t i = 0; i < n; ++i) {
    MonitorWindow w;
    w.start_ns = i * kSecond;
    w.end_ns = (i + 1) * kSecond;
    w.warmup = i == 0;
    // A deterministic wiggle: alternating signs, no trend.
    const double wiggle = noise * ((i % 3 == 0) ? 1 : (i % 3 == 1 ? -1 : 0));
    w.values = {cpu_pct, cpu_pct / 2, rss_start + rss_per_s * static_cast<double>(i) + wiggle,
                static_cast<double>(10 + i % 2)};
    s.windows.push_back(w);
    WindowStats ws;
    ws.start_ns = w.start_ns;
    ws.end_ns = w.end_ns;
    ws.warmup = w.warmup;
    ws.completed = 100;
    ws.p99_ns = 4'000'000 + (i % 2) * 10'000;
    r.intervals.push_back(ws);
  }
  r.monitors.push_back(s);
  return r;
}

TEST(ServerVerdicts, Summary) {
  RunResult r = run_with(11, 50, 100 * kMiB, 0, 0);
  r.monitors[0].windows[5].values[0] = 80;
  const ProcessSummary p = summarize_process(r.monitors[0]);
  EXPECT_EQ(p.windows, 10u);  // the warm-up window left out
  EXPECT_DOUBLE_EQ(p.cpu_max_pct, 80);
  EXPECT_DOUBLE_EQ(p.cpu_mean_pct, 53);
  EXPECT_DOUBLE_EQ(p.rss_start_bytes, 100 * kMiB);
  EXPECT_DOUBLE_EQ(p.fds_start, 11);
  EXPECT_DOUBLE_EQ(p.fds_end, 10);
  EXPECT_DOUBLE_EQ(p.fds_max, 11);
}

TEST(ServerVerdicts, WhoWasTheLimit) {
  RunResult r = run_with(6, 99, kMiB, 0, 0);
  r.max_worker_cpu_utilization = 0.4;
  ServerVerdicts v = judge_server(r);
  ASSERT_TRUE(v.limit);
  EXPECT_EQ(v.limit->limit, "server");
  EXPECT_EQ(v.limit->text,
            "server CPU at 99% of one core (50% of the machine) while hail's busiest worker at "
            "40%: the server is the limit");
  r = run_with(6, 30, kMiB, 0, 0);
  r.max_worker_cpu_utilization = 0.97;
  EXPECT_EQ(judge_server(r).limit->limit, "hail");
  r.max_worker_cpu_utilization = 0.2;
  EXPECT_EQ(judge_server(r).limit->limit, "neither");
}

TEST(ServerVerdicts, LeakIsFlaggedFlatIsNot) {
  // 1 MiB/s for 20 s with 100 KiB of noise: 3600 MiB/h.
  ServerVerdicts leak = judge_server(run_with(21, 10, 50 * kMiB, kMiB, 100 * 1024));
  ASSERT_TRUE(leak.rss);
  EXPECT_TRUE(leak.rss->drifted);
  EXPECT_NEAR(leak.rss->per_hour / kMiB, 3600, 50);
  EXPECT_EQ(leak.rss->text.rfind("server RSS grew 36", 0), 0u) << leak.rss->text;
  ServerVerdicts flat = judge_server(run_with(21, 10, 50 * kMiB, 0, 100 * 1024));
  ASSERT_TRUE(flat.rss);
  EXPECT_FALSE(flat.rss->drifted);
  EXPECT_GT(flat.rss->unnoticed_per_hour, 0);
  EXPECT_NE(flat.rss->text.find("flat"), std::string::npos);
  EXPECT_NE(flat.rss->text.find("unnoticed"), std::string::npos);
  // Significant but tiny (a few pages settling): not called growth.
  ServerVerdicts pages = judge_server(run_with(21, 10, 50 * kMiB, 4096, 0));
  EXPECT_FALSE(pages.rss->drifted);
  // p99: flat here (alternating 4.00 / 4.01 ms).
  ASSERT_TRUE(flat.p99);
  EXPECT_FALSE(flat.p99->drifted) << flat.p99->text;
}

TEST(ServerVerdicts, P99Rise) {
  RunResult r = run_with(21, 10, kMiB, 0, 0);
  for (size_t i = 0; i < r.intervals.size(); ++i) {
    r.intervals[i].p99_ns = 4'000'000 + i * 150'000 + (i % 2) * 20'000;
  }
  const ServerVerdicts v = judge_server(r);
  ASSERT_TRUE(v.p99);
  EXPECT_TRUE(v.p99->drifted);
  EXPECT_EQ(v.p99->text.rfind("p99 rose from 4.", 0), 0u) << v.p99->text;
}

TEST(ServerVerdicts, Thresholds) {
  const RunResult leak = run_with(21, 95, 50 * kMiB, kMiB, 0);
  auto check = [&](const char* expr, const RunResult& r) {
    auto t = parse_slo(expr);
    EXPECT_TRUE(t) << expr << ": " << t.error().message;
    return evaluate_slos({*t}, r).checks.at(0);
  };
  EXPECT_FALSE(check("server.cpu<90%", leak).ok);
  EXPECT_TRUE(check("server.cpu<99", leak).ok);
  EXPECT_TRUE(check("server.cpu_max<=95%", leak).ok);
  EXPECT_FALSE(check("server.rss_growth<10MiB/h", leak).ok);
  EXPECT_TRUE(check("server.rss_growth<4GiB/h", leak).ok);
  EXPECT_TRUE(check("server.rss<100MiB", leak).ok);
  EXPECT_TRUE(check("server.fds<=11", leak).ok);
  const RunResult empty;
  const SloCheck none = check("server.cpu<90%", empty);
  EXPECT_FALSE(none.ok);  // no monitor: no samples, not a pass
  EXPECT_NE(none.detail.find("--monitor"), std::string::npos);
  EXPECT_TRUE(check("server.cpu?<90%", empty).ok);
  for (const char* bad : {"server.cpu<90ms", "server.rss<10parsecs", "server.rss_growth<1MiB/s",
                          "server.cpu<90% over 10s", "server.cpu{tag=a}<90%"}) {
    EXPECT_FALSE(parse_slo(bad)) << bad;
  }
}

}  // namespace
}  // namespace hail

namespace hail {
namespace {

// hail search: a probe is judged on the monitor rows sampled at its own windows' ends.
TEST(ServerVerdicts, SearchProbeUsesItsOwnRows) {
  RunResult r = run_with(10, 50, kMiB, 0, 0);
  // Windows 5..9 are the probe; the server was busier then.
  for (size_t i = 5; i < 10; ++i) r.monitors[0].windows[i].values[0] = 95;
  auto cpu = parse_slo("server.cpu<90%");
  ASSERT_TRUE(cpu);
  EXPECT_TRUE(check_searchable(cpu.value()));
  const std::span<const WindowStats> early(r.intervals.data() + 1, 4);
  const std::span<const WindowStats> late(r.intervals.data() + 5, 5);
  EXPECT_EQ(judge_probe({cpu.value()}, early, {}, r.monitors).judgement, Judgement::kPass);
  const ProbeJudgementResult busy = judge_probe({cpu.value()}, late, {}, r.monitors);
  EXPECT_EQ(busy.judgement, Judgement::kFail);
  EXPECT_EQ(busy.reason, "server.cpu<90%: 95.0%");
  // Without monitors: no samples, a failure (not a silent pass).
  EXPECT_EQ(judge_probe({cpu.value()}, late).judgement, Judgement::kFail);
  EXPECT_FALSE(check_searchable(parse_slo("ttfb.p(99)<1ms").value()));
}

}  // namespace
}  // namespace hail
