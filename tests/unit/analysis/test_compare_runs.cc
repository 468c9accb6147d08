// hail compare's engine on synthetic runs: identical runs are the same, a slower one regresses,
// the bootstrap is reproducible with its seed, warm-up windows are left out, too few windows and
// different loads are refused, tolerances parse, and repeated runs go through Mann-Whitney.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "analysis/compare_runs.h"
#include "stats/histogram_codec.h"

namespace hail {
namespace {

constexpr uint64_t kWindowNs = 100'000'000;

// A run of `windows` 100 ms windows of 200 requests each, request j of window i taking
// latency_ns(i, j); the first `warmup` windows are warm-up.
RunResult make_run(size_t windows, const std::function<uint64_t(size_t, size_t)>& latency_ns,
                   size_t warmup = 0) {
  RunResult r;
  r.url = "http://127.0.0.1:1/delay/10";
  r.connections = 4;
  r.interval_ns = kWindowNs;
  for (size_t i = 0; i < windows; ++i) {
    Histogram h;
    for (size_t j = 0; j < 200; ++j) h.record(latency_ns(i, j));
    WindowStats w;
    w.start_ns = i * kWindowNs;
    w.end_ns = (i + 1) * kWindowNs;
    w.warmup = i < warmup;
    w.completed = 200;
    w.latency = EncodedHistogram(h);
    w.sources = 1;
    w.update_percentiles();
    if (!w.warmup) {
      r.latency.merge(h);
      r.counters.completed += 200;
      r.duration_ns += kWindowNs;
    }
    r.intervals.push_back(std::move(w));
  }
  return r;
}

uint64_t noisy(size_t i, size_t j, double scale) {
  // Deterministic "noise": a slow drift across windows and a spread within each.
  return static_cast<uint64_t>(scale * (10'000'000.0 + 20'000.0 * static_cast<double>(i % 7) +
                                        1'000.0 * static_cast<double>((j * 7919) % 200)));
}

const MetricComparison& metric(const Comparison& c, const std::string& name) {
  for (const MetricComparison& m : c.metrics) {
    if (m.name == name && m.tag.empty()) return m;
  }
  ADD_FAILURE() << "no metric " << name;
  return c.metrics.front();
}

TEST(CompareRuns, IdenticalRunsAreTheSame) {
  const RunResult a = make_run(30, [](size_t i, size_t j) { return noisy(i, j, 1.0); });
  auto c = compare_single(a, a, CompareOptions{});
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->method, "block-bootstrap");
  EXPECT_EQ(c->block_windows, 3u);  // round(30^(1/3))
  EXPECT_FALSE(c->any_regressed());
  for (const char* name : {"p50", "p90", "mean", "rps", "error_rate"}) {
    EXPECT_EQ(metric(c.value(), name).verdict, Verdict::kSame) << name;
    EXPECT_EQ(metric(c.value(), name).change, 0) << name;
  }
}

TEST(CompareRuns, TwentyPercentSlowerRegresses) {
  const RunResult a = make_run(30, [](size_t i, size_t j) { return noisy(i, j, 1.0); });
  const RunResult b = make_run(30, [](size_t i, size_t j) { return noisy(i, j, 1.2); });
  auto c = compare_single(a, b, CompareOptions{});
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_TRUE(c->any_regressed());
  const MetricComparison& p50 = metric(c.value(), "p50");
  EXPECT_NEAR(p50.change, 0.2, 0.01);
  EXPECT_EQ(p50.verdict, Verdict::kRegressed);
  EXPECT_GT(p50.change_interval.low, 0.15);
  EXPECT_EQ(metric(c.value(), "mean").verdict, Verdict::kRegressed);
  EXPECT_EQ(metric(c.value(), "rps").verdict, Verdict::kSame);
  // 6,000 requests a run: p99 has 60 beyond it and is judged; p99.9 (6) and max (1) are
  // extremes the bootstrap cannot judge, whatever their change.
  EXPECT_EQ(metric(c.value(), "p99").verdict, Verdict::kRegressed);
  EXPECT_EQ(metric(c.value(), "p99.9").verdict, Verdict::kInconclusive);
  EXPECT_EQ(metric(c.value(), "max").verdict, Verdict::kInconclusive);
  ASSERT_FALSE(c->notes.empty());
  EXPECT_EQ(c->notes.front().rfind("p99.9, max: fewer than 10 requests", 0), 0u)
      << c->notes.front();
  // And the other way round it improved.
  auto back = compare_single(b, a, CompareOptions{});
  ASSERT_TRUE(back);
  EXPECT_EQ(metric(back.value(), "p50").verdict, Verdict::kImproved);
  EXPECT_FALSE(back->any_regressed());
  // A margin wider than the change makes it the same.
  CompareOptions wide;
  wide.tolerances["p50"] = 0.5;
  auto within = compare_single(a, b, wide);
  ASSERT_TRUE(within);
  EXPECT_EQ(metric(within.value(), "p50").verdict, Verdict::kSame);
}

TEST(CompareRuns, BootstrapIsReproducibleWithItsSeed) {
  const RunResult a = make_run(40, [](size_t i, size_t j) { return noisy(i, j, 1.0); });
  const RunResult b = make_run(40, [](size_t i, size_t j) { return noisy((i * 3) % 40, j, 1.01); });
  CompareOptions o;
  o.resamples = 500;
  auto first = compare_single(a, b, o);
  auto again = compare_single(a, b, o);
  o.seed = 2;
  auto other = compare_single(a, b, o);
  ASSERT_TRUE(first && again && other);
  bool differs = false;
  for (size_t m = 0; m < first->metrics.size(); ++m) {
    EXPECT_EQ(first->metrics[m].change_interval.low, again->metrics[m].change_interval.low);
    EXPECT_EQ(first->metrics[m].change_interval.high, again->metrics[m].change_interval.high);
    differs =
        differs || first->metrics[m].change_interval.low != other->metrics[m].change_interval.low;
  }
  EXPECT_TRUE(differs) << "another seed should move some interval";
}

TEST(CompareRuns, WarmupWindowsAreLeftOut) {
  // Warm-up windows 10x slower: left out, they change nothing.
  const RunResult a = make_run(
      35, [](size_t i, size_t j) { return noisy(i, j, i < 5 ? 10.0 : 1.0); }, 5);
  const RunResult b = make_run(30, [](size_t i, size_t j) { return noisy(i, j, 1.0); });
  auto c = compare_single(a, b, CompareOptions{});
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->base_windows, 30u);
  EXPECT_EQ(metric(c.value(), "max").base, metric(c.value(), "max").candidate);
}

TEST(CompareRuns, TooFewWindowsAreRefused) {
  const RunResult a = make_run(9, [](size_t i, size_t j) { return noisy(i, j, 1.0); });
  const RunResult b = make_run(30, [](size_t i, size_t j) { return noisy(i, j, 1.0); });
  auto c = compare_single(a, b, CompareOptions{});
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("base run has 9 measured --interval windows"), std::string::npos)
      << c.error().message;
}

TEST(CompareRuns, LoadDifferences) {
  RunResult a = make_run(10, [](size_t, size_t) { return 1000; });
  RunResult b = a;
  EXPECT_EQ(load_difference(a, b), "");
  b.rate_target_per_s = 1000;
  EXPECT_EQ(load_difference(a, b), "load closed loop vs rate 1000 req/s");
  a.rate_target_per_s = 1500;
  EXPECT_EQ(load_difference(a, b), "load rate 1500 req/s vs rate 1000 req/s");
  b = a;
  b.connections = 8;
  EXPECT_EQ(load_difference(a, b), "connections 4 vs 8");
  b = a;
  b.url = "http://127.0.0.1:1/delay/11";
  EXPECT_EQ(load_difference(a, b),
            "URL http://127.0.0.1:1/delay/10 vs http://127.0.0.1:1/delay/11");
  b = a;
  a.duration_target_ns = 10'000'000'000;
  b.duration_target_ns = 25'000'000'000;
  EXPECT_EQ(load_difference(a, b), "duration 10 s vs 25 s (more than a factor of 2)");
  b.duration_target_ns = 15'000'000'000;
  EXPECT_EQ(load_difference(a, b), "");
  b.duration_ns = a.duration_ns * 5;  // measured time (-n on a slower server) is not the load
  EXPECT_EQ(load_difference(a, b), "");
  b.threads = 7;  // how the load was produced, not what it was
  EXPECT_EQ(load_difference(a, b), "");
}

TEST(CompareRuns, HealthNotesNameDisturbedRuns) {
  RunResult r = make_run(10, [](size_t i, size_t j) { return noisy(i, j, 1.0); });
  EXPECT_TRUE(run_health_notes(r, "a.json").empty());  // closed loop, idle generator
  r.max_worker_cpu_utilization = 0.99;                 // a saturated worker limits a closed loop
  const std::vector<std::string> notes = run_health_notes(r, "a.json");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind("a.json: hail itself was the limit (generator health: cpu)", 0), 0u)
      << notes[0];
}

TEST(CompareRuns, Tolerances) {
  auto t = parse_tolerances("p99=5%,rps=0.03,error_rate=0.1%");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_DOUBLE_EQ(t->at("p99"), 0.05);
  EXPECT_DOUBLE_EQ(t->at("rps"), 0.03);
  EXPECT_DOUBLE_EQ(t->at("error_rate"), 0.001);
  EXPECT_TRUE(parse_tolerances("service.p99=10%"));
  EXPECT_FALSE(parse_tolerances("p98=5%"));
  EXPECT_FALSE(parse_tolerances("p99=-5%"));
  EXPECT_FALSE(parse_tolerances("p99=5%%"));
  EXPECT_FALSE(parse_tolerances("p99"));
  EXPECT_FALSE(parse_tolerances(""));
  EXPECT_NE(parse_tolerances("p98=5%").error().message.find("unknown metric \"p98\""),
            std::string::npos);
}

TEST(CompareRuns, RepeatedRunsUseMannWhitney) {
  std::vector<RunResult> base, slower, same;
  for (size_t k = 0; k < 5; ++k) {
    const double jitter = 1.0 + 0.004 * static_cast<double>(k);
    base.push_back(make_run(3, [&](size_t i, size_t j) { return noisy(i, j, jitter); }));
    slower.push_back(make_run(3, [&](size_t i, size_t j) { return noisy(i, j, 1.2 * jitter); }));
    same.push_back(make_run(3, [&](size_t i, size_t j) { return noisy(i, j, jitter + 0.002); }));
  }
  auto c = compare_repeated(base, slower, CompareOptions{});
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->method, "mann-whitney");
  const MetricComparison& p50 = metric(c.value(), "p50");
  EXPECT_NEAR(p50.p_value, 2.0 / 252, 1e-12);  // 5 against 5, separated
  EXPECT_EQ(p50.verdict, Verdict::kRegressed);
  auto s = compare_repeated(base, same, CompareOptions{});
  ASSERT_TRUE(s);
  EXPECT_EQ(metric(s.value(), "p50").verdict, Verdict::kSame);
  EXPECT_FALSE(s->any_regressed());
  // 3 against 3 can never be significant: a note says so, and nothing regresses.
  auto few =
      compare_repeated(std::span(base).first(3), std::span(slower).first(3), CompareOptions{});
  ASSERT_TRUE(few);
  EXPECT_FALSE(few->any_regressed());
  EXPECT_FALSE(few->notes.empty());
}

TEST(CompareRuns, RepeatedRunsCompareTagsEveryRunHas) {
  const auto tagged = [](double scale, bool with_b) {
    RunResult r = make_run(3, [&](size_t i, size_t j) { return noisy(i, j, scale); });
    for (const char* name : {"a", "b"}) {
      if (std::string(name) == "b" && !with_b) continue;
      TagResult t;
      t.name = name;
      t.completed = 100;
      t.status_codes[200] = 100;
      for (size_t j = 0; j < 100; ++j) t.latency.record(noisy(0, j, name[0] == 'a' ? scale : 1));
      r.tags.push_back(std::move(t));
    }
    return r;
  };
  std::vector<RunResult> base, cand;
  for (size_t k = 0; k < 5; ++k) {
    base.push_back(tagged(1.0 + 0.001 * static_cast<double>(k), true));
    cand.push_back(tagged(1.3 + 0.001 * static_cast<double>(k), k != 2));  // b missing once
  }
  auto c = compare_repeated(base, cand, CompareOptions{});
  ASSERT_TRUE(c) << c.error().message;
  bool saw_a = false;
  for (const MetricComparison& m : c->metrics) {
    EXPECT_NE(m.tag, "b") << "tag b is not in every run";
    if (m.tag == "a" && m.name == "p50") {
      saw_a = true;
      EXPECT_EQ(m.verdict, Verdict::kRegressed);
    }
  }
  EXPECT_TRUE(saw_a);
}

// Single runs with two tags: "slow" got 30 % slower in the candidate, "steady" did not; a tag
// only the base has gets no line, and a result without per-window tag shares gets a note.
TEST(CompareRuns, SingleRunsCompareTagsFromTheirWindowShares) {
  const auto tagged = [](double slow_scale) {
    RunResult r = make_run(30, [](size_t i, size_t j) { return noisy(i, j, 1.0); });
    for (const char* name : {"slow", "steady"}) {
      TagResult t;
      t.name = name;
      r.tags.push_back(std::move(t));
    }
    for (size_t i = 0; i < r.intervals.size(); ++i) {
      for (size_t k = 0; k < 2; ++k) {
        Histogram h;
        for (size_t j = 0; j < 100; ++j) h.record(noisy(i, j, k == 0 ? slow_scale : 1.0));
        TagWindow tw;
        tw.name = r.tags[k].name;
        tw.completed = 100;
        tw.latency = EncodedHistogram(h);
        r.tags[k].completed += 100;
        r.tags[k].latency.merge(h);
        r.intervals[i].tags.push_back(std::move(tw));
      }
    }
    return r;
  };
  const RunResult a = tagged(1.0);
  RunResult b = tagged(1.3);
  TagResult only_base;
  only_base.name = "gone";
  RunResult a_more = a;
  a_more.tags.push_back(only_base);
  auto c = compare_single(a_more, b, CompareOptions{});
  ASSERT_TRUE(c) << c.error().message;
  std::map<std::string, Verdict> p50;
  for (const MetricComparison& m : c->metrics) {
    EXPECT_NE(m.tag, "gone");
    if (m.name == "p50") p50[m.tag] = m.verdict;
    EXPECT_NE(m.name.rfind("service.", 0), 0u);
  }
  EXPECT_EQ(p50["slow"], Verdict::kRegressed);
  EXPECT_EQ(p50["steady"], Verdict::kSame);
  // The tag lines come from the tags' shares alone: the synthetic runs' own windows are equal.
  EXPECT_EQ(p50[""], Verdict::kSame);
  // Reproducible per line with the seed.
  auto again = compare_single(a_more, b, CompareOptions{});
  ASSERT_TRUE(again);
  ASSERT_EQ(again->metrics.size(), c->metrics.size());
  for (size_t m = 0; m < c->metrics.size(); ++m) {
    EXPECT_EQ(again->metrics[m].change_interval.low, c->metrics[m].change_interval.low);
  }
  // Windows without tag shares (an older result): no tag lines, and a note says why.
  for (WindowStats& w : b.intervals) w.tags.clear();
  auto old = compare_single(a, b, CompareOptions{});
  ASSERT_TRUE(old);
  for (const MetricComparison& m : old->metrics) EXPECT_TRUE(m.tag.empty()) << m.tag;
  bool noted = false;
  for (const std::string& n : old->notes) {
    noted = noted || n.rfind("no per-tag lines for slow, steady", 0) == 0;
  }
  EXPECT_TRUE(noted);
}

}  // namespace
}  // namespace hail
