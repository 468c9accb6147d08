// hail search's reports on hand-built verdicts: the header, one row per probe, the verdict (found
// or not, each SearchLimit) and the JSON document, for rate and connections searches; the JSON
// is parsed back with nlohmann-json.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/search_report.h"

namespace hail {
namespace {

using Json = nlohmann::json;

constexpr uint64_t kMs = 1'000'000;
constexpr uint64_t kS = 1'000'000'000;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

SearchContext rate_context() {
  SearchContext c;
  c.version = "1.2.3";
  c.url = "http://127.0.0.1:8080/";
  c.slo = {"p(99)<10ms", "error_rate<1%"};
  c.threads = 2;
  c.connections = 50;
  c.max_connections = 1000;
  return c;
}

SearchContext connections_context() {
  SearchContext c = rate_context();
  c.by_connections = true;
  return c;
}

ProbeRecord record(ProbeKind kind, double target, ProbeVerdict verdict, double achieved,
                   const std::string& reason = "") {
  ProbeRecord r;
  r.probe.kind = kind;
  r.probe.first_kind = kind;
  r.probe.target = target;
  r.probe.settle_ns = 2 * kS;
  r.probe.measure_ns = 10 * kS;
  r.outcome.verdict = verdict;
  r.outcome.achieved = achieved;
  r.outcome.reason = reason;
  r.outcome.duration_ns = 12 * kS;
  r.outcome.stats.p50_ns = 1 * kMs;
  r.outcome.stats.p90_ns = 2 * kMs;
  r.outcome.stats.p99_ns = 5 * kMs;
  r.outcome.stats.p999_ns = 9 * kMs;
  r.outcome.stats.max_ns = 30 * kMs;
  r.outcome.stats.error_rate = 0.0025;
  r.outcome.stats.lag_p99_ns = 300'000;
  r.outcome.stats.hail_cpu = 0.42;
  r.decided = verdict;
  return r;
}

// Passed at 1000/s, failed at 1100/s (the server), confirmed at 1000/s.
SearchVerdict found_verdict() {
  SearchVerdict v;
  v.found = true;
  v.max_passing = 1000;
  v.lower = 1000;
  v.upper = 1100;
  v.limited_by = SearchLimit::kServer;
  v.limit_reason = "p(99)<10ms: 12.31ms";
  v.confirmed = true;
  v.elapsed_ns = 90 * kS;
  v.probes = {record(ProbeKind::kEstimate, 0, ProbeVerdict::kPass, 2000),
              record(ProbeKind::kBracket, 1000, ProbeVerdict::kPass, 999.5),
              record(ProbeKind::kBracket, 1100, ProbeVerdict::kFail, 1099, "p(99)<10ms: 12.31ms"),
              record(ProbeKind::kConfirm, 1000, ProbeVerdict::kPass, 1000.2)};
  return v;
}

SearchVerdict not_found_verdict() {
  SearchVerdict v;
  v.upper = 1;
  v.limited_by = SearchLimit::kServer;
  v.limit_reason = "error_rate<1%: 100%";
  v.elapsed_ns = 12 * kS;
  v.probes = {record(ProbeKind::kBracket, 1, ProbeVerdict::kFail, 0, "error_rate<1%: 100%")};
  return v;
}

TEST(SearchReport, RateHeader) {
  const std::string h = render_search_header(rate_context());
  EXPECT_TRUE(h.starts_with("hail 1.2.3: search @ http://127.0.0.1:8080/\n")) << h;
  EXPECT_TRUE(contains(h, "2 threads, open loop")) << h;
  EXPECT_TRUE(contains(h, "50 connections, up to 1000")) << h;
  EXPECT_TRUE(contains(h, "thresholds: p(99)<10ms, error_rate<1%\n")) << h;
  EXPECT_TRUE(contains(h, "    target ")) << h;
  EXPECT_TRUE(contains(h, "lag p99")) << h;
  EXPECT_FALSE(contains(h, "conns")) << h;
}

TEST(SearchReport, ConnectionsHeader) {
  SearchContext c = connections_context();
  c.threads = 1;
  const std::string h = render_search_header(c);
  EXPECT_TRUE(contains(h, "1 thread, closed loop, the level is the number of connections")) << h;
  EXPECT_FALSE(contains(h, "open loop")) << h;
  EXPECT_TRUE(contains(h, "     conns ")) << h;
}

TEST(SearchReport, RateRows) {
  const SearchContext c = rate_context();
  const SearchVerdict v = found_verdict();
  const std::string pass = render_search_row(c, v.probes[1], 2);
  EXPECT_TRUE(pass.starts_with("    2 bracket      1000.0      999.5")) << pass;
  for (const char* part :
       {"1.00ms", "2.00ms", "5.00ms", "9.00ms", "30.00ms", "0.25%", "300.00us", "42%", "pass\n"}) {
    EXPECT_TRUE(contains(pass, part)) << part << " in " << pass;
  }
  EXPECT_EQ(std::count(pass.begin(), pass.end(), '\n'), 1);
  // A failed probe: its reason on a line of its own.
  const std::string fail = render_search_row(c, v.probes[2], 3);
  EXPECT_TRUE(contains(fail, "  fail\n        p(99)<10ms: 12.31ms\n")) << fail;
  // The estimate has no target, no lag and no verdict of its own.
  const std::string estimate = render_search_row(c, v.probes[0], 1);
  EXPECT_TRUE(estimate.starts_with("    1 estimate          -     2000.0")) << estimate;
  EXPECT_TRUE(contains(estimate, "estimate\n")) << estimate;
  EXPECT_FALSE(contains(estimate, "300.00us")) << estimate;
}

TEST(SearchReport, RowShowsWhatTheControllerDecided) {
  ProbeRecord r = record(ProbeKind::kExtend, 1000, ProbeVerdict::kInconclusive, 1000,
                         "p(99)<10ms: 9.90ms (1% over the limit, 0.8%..1.2% at 95% confidence)");
  r.decided = ProbeVerdict::kFail;
  const std::string row = render_search_row(rate_context(), r, 5);
  EXPECT_TRUE(contains(row, "inconclusive -> fail\n")) << row;
  EXPECT_TRUE(contains(row, "at 95% confidence)\n")) << row;
  // A pass keeps no reason line even if one was given.
  ProbeRecord pass = record(ProbeKind::kBisect, 1000, ProbeVerdict::kPass, 1000, "a note");
  EXPECT_FALSE(contains(render_search_row(rate_context(), pass, 6), "a note"));
}

TEST(SearchReport, ConnectionsRow) {
  const ProbeRecord r = record(ProbeKind::kBracket, 64, ProbeVerdict::kPass, 12345.6);
  const std::string row = render_search_row(connections_context(), r, 1);
  EXPECT_TRUE(row.starts_with("    1 bracket          64    12345.6")) << row;
  EXPECT_FALSE(contains(row, "64.0")) << row;
  EXPECT_FALSE(contains(row, "300.00us")) << row;  // closed loop: no lag
}

TEST(SearchReport, VerdictFoundAndConfirmed) {
  const std::string t = render_search_verdict(rate_context(), found_verdict());
  EXPECT_TRUE(contains(t,
                       "Highest rate meeting every threshold: 1000.0 req/s (confirmed by the "
                       "final, longer probe)\n"))
      << t;
  EXPECT_TRUE(contains(t, "Bracket: [1000.0, 1100.0) req/s\n")) << t;
  EXPECT_TRUE(contains(t, "Limited by the server: p(99)<10ms: 12.31ms at 1100.0 req/s\n")) << t;
  EXPECT_TRUE(contains(t, "4 probes in 1.50m\n")) << t;
}

TEST(SearchReport, VerdictUnconfirmedAndInconclusiveUpper) {
  SearchVerdict v = found_verdict();
  v.confirmed = false;
  v.upper_inconclusive = true;
  const std::string t = render_search_verdict(rate_context(), v);
  EXPECT_TRUE(contains(t, "(not confirmed by a longer probe)")) << t;
  EXPECT_TRUE(contains(t, "(the upper end was too close to call)")) << t;
  // Nothing failed above it: no bracket line.
  v.upper = 0;
  v.limited_by = SearchLimit::kMaxLevel;
  const std::string top = render_search_verdict(rate_context(), v);
  EXPECT_FALSE(contains(top, "Bracket")) << top;
  EXPECT_TRUE(contains(top, "Limited by --max (every rate up to it passed)")) << top;
}

TEST(SearchReport, VerdictNotFound) {
  const std::string t = render_search_verdict(rate_context(), not_found_verdict());
  EXPECT_TRUE(contains(t, "No rate met every threshold")) << t;
  EXPECT_FALSE(contains(t, "Highest")) << t;
  EXPECT_TRUE(contains(t, "1 probes in 12.00s")) << t;
  EXPECT_TRUE(contains(t, "No rate met every threshold (the lowest probed failed)\n")) << t;
  EXPECT_TRUE(contains(render_search_verdict(connections_context(), not_found_verdict()),
                       "No level met every threshold"));
}

TEST(SearchReport, VerdictNotFoundWithoutAFailure) {
  // hail was the limit from the first probe: nothing failed, and the text must not say so.
  SearchVerdict v;
  v.limited_by = SearchLimit::kHail;
  v.hail_limit = 700;
  v.limit_reason = "hail's CPU 98% busy, sent 700 of 1000 req/s";
  v.probes = {
      record(ProbeKind::kBracket, 1000, ProbeVerdict::kGeneratorBound, 700, v.limit_reason)};
  const std::string t = render_search_verdict(rate_context(), v);
  EXPECT_TRUE(contains(t, "No rate met every threshold\n")) << t;
  EXPECT_FALSE(contains(t, "failed")) << t;
  EXPECT_TRUE(contains(t, "Limited by hail, at 700.0 req/s")) << t;
  // The generator-bound row shows why.
  const std::string row = render_search_row(rate_context(), v.probes[0], 1);
  EXPECT_TRUE(contains(row, "  hail\n        hail's CPU 98% busy")) << row;
}

TEST(SearchReport, EachLimit) {
  SearchVerdict v = found_verdict();
  v.limited_by = SearchLimit::kHail;
  v.hail_limit = 850;
  v.limit_reason = "hail's CPU 97% busy";
  EXPECT_TRUE(contains(render_search_verdict(rate_context(), v),
                       "Limited by hail, at 850.0 req/s: hail's CPU 97% busy (the server's"));
  v.limited_by = SearchLimit::kMaxLevel;
  EXPECT_TRUE(contains(render_search_verdict(connections_context(), v),
                       "Limited by --max-connections (every level up to it passed)"));
  v.limited_by = SearchLimit::kBudget;
  v.limit_reason = "";
  EXPECT_TRUE(
      contains(render_search_verdict(rate_context(), v), "Limited by the --budget ran out\n"));
  v.limit_reason = "no time for a confirmation";
  EXPECT_TRUE(contains(render_search_verdict(rate_context(), v),
                       "Limited by the --budget ran out: no time for a confirmation\n"));
  v.limited_by = SearchLimit::kNone;
  EXPECT_TRUE(contains(render_search_verdict(rate_context(), v), "Limited by -\n"));
  SearchContext interrupted = rate_context();
  interrupted.interrupted = true;
  const std::string t = render_search_verdict(interrupted, v);
  EXPECT_TRUE(contains(t, "Limited by interrupted\n")) << t;
  EXPECT_TRUE(contains(t, "(interrupted)\n")) << t;
  v.limited_by = SearchLimit::kServer;
  v.limit_reason = "p(99)<10ms: 12ms";
  EXPECT_TRUE(contains(render_search_verdict(connections_context(), v),
                       "Limited by the server: p(99)<10ms: 12ms at 1100 connections"));
}

TEST(SearchJson, RateSearchFound) {
  const Json doc = Json::parse(render_search_json(rate_context(), found_verdict()));
  EXPECT_EQ(doc["schema"], "hail-search/1");
  EXPECT_EQ(doc["version"], "1.2.3");
  EXPECT_EQ(doc["url"], "http://127.0.0.1:8080/");
  EXPECT_EQ(doc["domain"], "rate");
  EXPECT_EQ(doc["unit"], "req/s");
  EXPECT_EQ(doc["slo"], Json::array({"p(99)<10ms", "error_rate<1%"}));
  EXPECT_EQ(doc["threads"], 2);
  EXPECT_EQ(doc["connections"], 50);
  EXPECT_EQ(doc["max_connections"], 1000);
  EXPECT_EQ(doc["interrupted"], false);
  const Json& s = doc["search"];
  EXPECT_EQ(s["found"], true);
  EXPECT_DOUBLE_EQ(s["max_rate_per_s"].get<double>(), 1000);
  EXPECT_DOUBLE_EQ(s["lower_per_s"].get<double>(), 1000);
  EXPECT_DOUBLE_EQ(s["upper_per_s"].get<double>(), 1100);
  EXPECT_EQ(s["limited_by"], "server");
  EXPECT_EQ(s["limit_reason"], "p(99)<10ms: 12.31ms");
  EXPECT_FALSE(s.contains("hail_limit_per_s"));
  EXPECT_FALSE(s.contains("max_connections"));
  EXPECT_EQ(s["confirmed"], true);
  EXPECT_EQ(s["upper_inconclusive"], false);
  EXPECT_DOUBLE_EQ(s["elapsed_s"].get<double>(), 90);
  ASSERT_EQ(s["probes"].size(), 4u);
  const Json& p = s["probes"][2];
  EXPECT_EQ(p["kind"], "bracket");
  EXPECT_EQ(p["look"], 0);
  EXPECT_DOUBLE_EQ(p["target"].get<double>(), 1100);
  EXPECT_DOUBLE_EQ(p["settle_s"].get<double>(), 2);
  EXPECT_DOUBLE_EQ(p["measure_s"].get<double>(), 10);
  EXPECT_DOUBLE_EQ(p["achieved_per_s"].get<double>(), 1099);
  EXPECT_EQ(p["verdict"], "fail");
  EXPECT_EQ(p["decided"], "fail");
  EXPECT_EQ(p["reason"], "p(99)<10ms: 12.31ms");
  EXPECT_DOUBLE_EQ(p["p50_us"].get<double>(), 1000);
  EXPECT_DOUBLE_EQ(p["p99_9_us"].get<double>(), 9000);
  EXPECT_DOUBLE_EQ(p["max_us"].get<double>(), 30000);
  EXPECT_DOUBLE_EQ(p["error_rate"].get<double>(), 0.0025);
  EXPECT_DOUBLE_EQ(p["lag_p99_us"].get<double>(), 300);
  EXPECT_DOUBLE_EQ(p["hail_cpu"].get<double>(), 0.42);
  EXPECT_DOUBLE_EQ(p["duration_s"].get<double>(), 12);
  EXPECT_EQ(s["probes"][0]["kind"], "estimate");
}

TEST(SearchJson, NotFoundIsNull) {
  const Json doc = Json::parse(render_search_json(rate_context(), not_found_verdict()));
  const Json& s = doc["search"];
  EXPECT_EQ(s["found"], false);
  ASSERT_TRUE(s.contains("max_rate_per_s"));
  EXPECT_TRUE(s["max_rate_per_s"].is_null());
  EXPECT_DOUBLE_EQ(s["lower_per_s"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(s["upper_per_s"].get<double>(), 1);
  EXPECT_EQ(s["probes"].size(), 1u);
}

TEST(SearchJson, ConnectionsSearch) {
  SearchVerdict v = found_verdict();
  v.max_passing = v.lower = 48;
  v.upper = 49;
  v.limited_by = SearchLimit::kMaxLevel;
  const Json doc = Json::parse(render_search_json(connections_context(), v));
  EXPECT_EQ(doc["domain"], "connections");
  EXPECT_EQ(doc["unit"], "connections");
  EXPECT_FALSE(doc.contains("connections"));  // the level itself: no pool
  EXPECT_FALSE(doc.contains("max_connections"));
  const Json& s = doc["search"];
  EXPECT_DOUBLE_EQ(s["max_connections"].get<double>(), 48);
  EXPECT_DOUBLE_EQ(s["lower_connections"].get<double>(), 48);
  EXPECT_DOUBLE_EQ(s["upper_connections"].get<double>(), 49);
  EXPECT_FALSE(s.contains("max_rate_per_s"));
  EXPECT_FALSE(s.contains("lower_per_s"));
  EXPECT_EQ(s["limited_by"], "max");
}

TEST(SearchJson, HailLimitAndInterruption) {
  SearchVerdict v = found_verdict();
  v.limited_by = SearchLimit::kHail;
  v.hail_limit = 850.5;
  SearchContext c = rate_context();
  c.interrupted = true;
  c.url = "http://h/\"q\"\\";
  const Json doc = Json::parse(render_search_json(c, v));
  EXPECT_EQ(doc["url"], "http://h/\"q\"\\");
  EXPECT_EQ(doc["interrupted"], true);
  EXPECT_EQ(doc["search"]["limited_by"], "hail");
  EXPECT_DOUBLE_EQ(doc["search"]["hail_limit_per_s"].get<double>(), 850.5);
}

}  // namespace
}  // namespace hail
