// parse_search_flags: hail search's defaults, the rate and connections domains (--by, a bare
// --connections, --max-connections as the level cap), --precision, the run flags it refuses, its
// --slo checks, and hail's native run flags parsed as in a run.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cli/search_command.h"

namespace hail {
namespace {

constexpr uint64_t kMs = 1'000'000;
constexpr uint64_t kS = 1'000'000'000;
const std::string kUrl = "http://127.0.0.1:8080/";

// `args` with an --slo threshold and the URL added.
std::vector<std::string> with_slo(std::vector<std::string> args) {
  args.insert(args.begin(), {"--slo", "p(99)<10ms"});
  args.push_back(kUrl);
  return args;
}

SearchCommand parse_ok(const std::vector<std::string>& args) {
  auto r = parse_search_flags(args);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r.value() : SearchCommand{};
}

std::string parse_err(const std::vector<std::string>& args) {
  auto r = parse_search_flags(args);
  EXPECT_FALSE(r.ok());
  if (r.ok()) return "";
  EXPECT_EQ(r.error().message.find('\n'), std::string::npos) << r.error().message;
  return r.error().message;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(SearchFlags, Defaults) {
  const SearchCommand c = parse_ok(with_slo({}));
  const SearchConfig& s = c.plan.config;
  EXPECT_EQ(s.domain, SearchDomain::kRate);
  EXPECT_EQ(s.probe_ns, 10 * kS);
  EXPECT_EQ(s.settle_ns, 2 * kS);
  EXPECT_EQ(s.confirm_ns, 30 * kS);
  EXPECT_EQ(s.budget_ns, 300 * kS);
  EXPECT_DOUBLE_EQ(s.precision, 0.02);
  EXPECT_EQ(s.from, 0);  // from a closed-loop estimate
  EXPECT_EQ(s.min, 1);
  EXPECT_TRUE(std::isinf(s.max));
  EXPECT_EQ(c.plan.run.connections, 50u);
  EXPECT_EQ(c.plan.run.max_connections, 1000u);  // max(-c, 1000)
  EXPECT_EQ(c.plan.interval_ns, 1 * kS);         // a tenth of a probe
  ASSERT_EQ(c.plan.thresholds.size(), 1u);
  EXPECT_EQ(c.slo, std::vector<std::string>{"p(99)<10ms"});
  EXPECT_EQ(c.plan.run.url.to_string(), kUrl);
  EXPECT_EQ(c.json_path, "");
  EXPECT_FALSE(c.quiet);
  EXPECT_FALSE(c.show_help);
}

TEST(SearchFlags, PoolGrowsToMaxOfConnectionsAnd1000) {
  EXPECT_EQ(parse_ok(with_slo({"-c", "2000"})).plan.run.max_connections, 2000u);
  EXPECT_EQ(parse_ok(with_slo({"-c", "20"})).plan.run.max_connections, 1000u);
  // In a rate search --max-connections is the pool's limit, not a level.
  const SearchCommand c = parse_ok(with_slo({"--max-connections", "300"}));
  EXPECT_EQ(c.plan.run.max_connections, 300u);
  EXPECT_TRUE(std::isinf(c.plan.config.max));
}

TEST(SearchFlags, SearchSpans) {
  const SearchCommand c =
      parse_ok(with_slo({"--probe", "2s", "--settle", "0s", "--confirm=5s", "--budget", "1m",
                         "--from", "500", "--min", "100", "--max", "2k"}));
  const SearchConfig& s = c.plan.config;
  EXPECT_EQ(s.probe_ns, 2 * kS);
  EXPECT_EQ(s.settle_ns, 0u);
  EXPECT_EQ(s.confirm_ns, 5 * kS);
  EXPECT_EQ(s.budget_ns, 60 * kS);
  EXPECT_EQ(s.from, 500);
  EXPECT_EQ(s.min, 100);
  EXPECT_EQ(s.max, 2000);
  EXPECT_EQ(c.plan.interval_ns, 200 * kMs);
  EXPECT_TRUE(contains(parse_err(with_slo({"--probe", "0s"})), "--probe"));
  EXPECT_TRUE(contains(parse_err(with_slo({"--from", "-5"})), "--from"));
  EXPECT_TRUE(contains(parse_err(with_slo({"--by", "latency"})), "--by"));
  EXPECT_TRUE(contains(parse_err({"--slo", "p(99)<10ms", kUrl, "--budget"}), "--budget needs"));
  // The budget must hold a probe and the confirmation (10 s + 30 s, with settles).
  EXPECT_TRUE(contains(parse_err(with_slo({"--budget", "30s"})), "budget")) << "budget";
  EXPECT_TRUE(contains(parse_err(with_slo({"--by", "connections", "--from", "2.5"})), "whole"));
}

TEST(SearchFlags, ByConnections) {
  for (const std::vector<std::string>& args :
       {with_slo({"--by", "connections"}), with_slo({"--by=connections"}),
        with_slo({"--connections"}),
        std::vector<std::string>{"--slo", "p(99)<10ms", kUrl, "--connections"}}) {
    const SearchCommand c = parse_ok(args);
    EXPECT_EQ(c.plan.config.domain, SearchDomain::kConnections) << args[2];
    EXPECT_EQ(c.plan.config.max, 1000);
    EXPECT_EQ(c.plan.config.min, 1);
    EXPECT_EQ(c.plan.config.from, 1);  // from --min
    EXPECT_EQ(c.plan.run.rate_per_s, 0);
  }
  EXPECT_EQ(parse_ok(with_slo({"--by", "rate"})).plan.config.domain, SearchDomain::kRate);
}

TEST(SearchFlags, ConnectionsWithANumberIsMinusC) {
  const SearchCommand c = parse_ok(with_slo({"--connections", "20"}));
  EXPECT_EQ(c.plan.config.domain, SearchDomain::kRate);
  EXPECT_EQ(c.plan.run.connections, 20u);
}

TEST(SearchFlags, MaxConnectionsCapsAConnectionsSearch) {
  for (const std::vector<std::string>& args :
       {with_slo({"--by", "connections", "--max-connections", "64"}),
        with_slo({"--connections", "--max-connections=64"}),
        with_slo({"--max-connections", "64", "--connections"}),
        with_slo({"--max-connections", "64", "--by", "connections"}),
        with_slo({"--max-connections=64", "--by=connections"})}) {
    const SearchCommand c = parse_ok(args);
    EXPECT_EQ(c.plan.config.domain, SearchDomain::kConnections);
    EXPECT_EQ(c.plan.config.max, 64) << args[2] << " " << args[3];
  }
  EXPECT_TRUE(
      contains(parse_err({"--slo", "p(99)<10ms", kUrl, "--connections", "--max-connections"}),
               "--max-connections"));
  EXPECT_TRUE(contains(parse_err(with_slo({"--max-connections", "0", "--by", "connections"})),
                       "--max-connections"));
  // --max, the search's own flag, says it first.
  EXPECT_EQ(parse_ok(with_slo({"--max", "50", "--by", "connections", "--max-connections", "64"}))
                .plan.config.max,
            50);
}

TEST(SearchFlags, MaxConnectionsStaysThePoolWithMinusCSpelledLong) {
  // --connections 20 is -c: a rate search, where --max-connections is the pool's limit.
  const SearchCommand c = parse_ok(with_slo({"--connections", "20", "--max-connections", "200"}));
  EXPECT_EQ(c.plan.config.domain, SearchDomain::kRate);
  EXPECT_EQ(c.plan.run.connections, 20u);
  EXPECT_EQ(c.plan.run.max_connections, 200u);
  EXPECT_TRUE(std::isinf(c.plan.config.max));
}

TEST(SearchFlags, Precision) {
  EXPECT_DOUBLE_EQ(parse_ok(with_slo({"--precision", "5%"})).plan.config.precision, 0.05);
  EXPECT_DOUBLE_EQ(parse_ok(with_slo({"--precision", "0.05"})).plan.config.precision, 0.05);
  EXPECT_DOUBLE_EQ(parse_ok(with_slo({"--precision=0.5%"})).plan.config.precision, 0.005);
  for (const char* bad : {"0", "0%", "100%", "1", "5", "abc", "-1%"}) {
    EXPECT_TRUE(contains(parse_err(with_slo({"--precision", bad})), "--precision")) << bad;
  }
}

TEST(SearchFlags, RefusesRunFlagsInOneLine) {
  struct Case {
    std::vector<std::string> words;
    std::string flag;  // as the error names it
  };
  const Case cases[] = {{{"-n", "100"}, "-n"},
                        {{"-n100"}, "-n"},
                        {{"--requests", "100"}, "--requests"},
                        {{"-d", "5s"}, "-d"},
                        {{"--duration=5s"}, "--duration"},
                        {{"-R", "100"}, "-R"},
                        {{"-R100"}, "-R"},
                        {{"--rate", "100"}, "--rate"},
                        {{"--stages", "5s:100"}, "--stages"},
                        {{"--ladder", "1:2"}, "--ladder"},
                        {{"--warmup", "1s"}, "--warmup"},
                        {{"--interval", "1s"}, "--interval"},
                        {{"--hlog", "out.hlog"}, "--hlog"},
                        {{"--junit", "j.xml"}, "--junit"},
                        {{"--slo-abort"}, "--slo-abort"},
                        {{"--timeseries", "t.csv"}, "--timeseries"},
                        {{"--step-duration", "1s"}, "--step-duration"},
                        {{"--repeat", "2"}, "--repeat"}};
  for (const Case& c : cases) {
    std::vector<std::string> args = with_slo({});
    args.insert(args.begin() + 2, c.words.begin(), c.words.end());
    const std::string e = parse_err(args);
    EXPECT_TRUE(e.starts_with(c.flag + " is not a hail search flag")) << c.words[0] << ": " << e;
  }
}

TEST(SearchFlags, NeedsASearchableSlo) {
  EXPECT_TRUE(contains(parse_err({kUrl}), "at least one --slo"));
  EXPECT_TRUE(contains(parse_err({"-c", "10", kUrl}), "--slo"));
  const std::string ttfb = parse_err({"--slo", "ttfb.p(99)<5ms", kUrl});
  EXPECT_TRUE(ttfb.starts_with("--slo \"ttfb.p(99)<5ms\"")) << ttfb;
  const std::string tag = parse_err({"--slo", "latency{tag=a}: p(99)<5ms", kUrl});
  EXPECT_TRUE(contains(tag, "per-tag")) << tag;
  EXPECT_TRUE(parse_err({"--slo", "p(99)<10xs", kUrl}).starts_with("--slo ")) << "unit";
  const SearchCommand two = parse_ok({"--slo", "p(99)<10ms", "--slo", "error_rate<1%", kUrl});
  EXPECT_EQ(two.plan.thresholds.size(), 2u);
  EXPECT_EQ(two.plan.thresholds[1].metric, SloMetric::kErrorRate);
}

TEST(SearchFlags, FromAboveMax) {
  EXPECT_TRUE(
      contains(parse_err(with_slo({"--from", "500", "--max", "100"})), "--from is above --max"));
  EXPECT_TRUE(contains(parse_err(with_slo({"--by", "connections", "--from", "2000"})),
                       "--from is above --max"));
  EXPECT_EQ(parse_ok(with_slo({"--from", "100", "--max", "100"})).plan.config.from, 100);
}

TEST(SearchFlags, NativeFlagsStillParsed) {
  const SearchCommand c = parse_ok(
      with_slo({"-c", "20", "-t", "2", "-H", "X-A: 1", "--arrival", "poisson", "-q", "--h2"}));
  EXPECT_EQ(c.plan.run.connections, 20u);
  EXPECT_EQ(c.plan.run.threads, 2u);
  ASSERT_EQ(c.plan.run.request.headers.size(), 1u);
  EXPECT_EQ(c.plan.run.request.headers[0].first, "X-A");
  EXPECT_TRUE(c.quiet);
  EXPECT_EQ(c.plan.run.arrival, Arrival::kPoisson);
  EXPECT_TRUE(contains(parse_err(with_slo({"--no-such-flag"})), "--no-such-flag"));
}

TEST(SearchFlags, HeaderValueThatLooksLikeAFlagStaysAHeader) {
  const SearchCommand c =
      parse_ok(with_slo({"-H", "--from: x", "-H", "-n: 1", "--header", "--connections: y"}));
  ASSERT_EQ(c.plan.run.request.headers.size(), 3u);
  EXPECT_EQ(c.plan.run.request.headers[0].first, "--from");
  EXPECT_EQ(c.plan.run.request.headers[0].second, "x");
  EXPECT_EQ(c.plan.run.request.headers[1].first, "-n");
  EXPECT_EQ(c.plan.run.request.headers[2].first, "--connections");
  EXPECT_EQ(c.plan.config.from, 0);
  EXPECT_EQ(c.plan.config.domain, SearchDomain::kRate);
}

TEST(SearchFlags, Json) {
  EXPECT_EQ(parse_ok(with_slo({"--json", "-"})).json_path, "-");
  EXPECT_EQ(parse_ok(with_slo({"--json=out.json"})).json_path, "out.json");
  EXPECT_TRUE(contains(parse_err(with_slo({"--json="})), "--json"));
}

TEST(SearchFlags, Help) {
  EXPECT_TRUE(parse_ok({"--help"}).show_help);
  EXPECT_TRUE(parse_ok({"-h"}).show_help);
}

}  // namespace
}  // namespace hail
