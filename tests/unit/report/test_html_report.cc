// The HTML report: the data the page embeds equals the run's (counts, percentiles, steps), long
// runs are aggregated without losing a spike, and the page is self-contained (inline scripts and
// styles, a policy that forbids requests, nothing that ends its data early).
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "report/html_data.h"
#include "report/html_report.h"
#include "stats/histogram.h"
#include "synthetic_results.h"

namespace hail {
namespace {

using nlohmann::json;

json data_of(const RunResult& r) {
  return json::parse(render_html_data(r, "9.9.9"));
}

// n one-second windows of `per_window` requests at `latency_ns`, one spike at `spike_index`.
RunResult steady(size_t n, uint64_t per_window, uint64_t latency_ns, size_t spike_index) {
  RunResult r;
  r.url = "http://127.0.0.1:1/</script><b>";
  r.interval_ns = 1'000'000'000;
  for (size_t i = 0; i < n; ++i) {
    Histogram h;
    h.record_n(latency_ns, per_window);
    if (i == spike_index) h.record(latency_ns * 1000);
    WindowStats w;
    w.start_ns = i * 1'000'000'000ULL;
    w.end_ns = w.start_ns + 1'000'000'000ULL;
    w.completed = h.count();
    w.latency = EncodedHistogram(h);
    w.update_percentiles();
    w.open_connections = 10;
    r.intervals.push_back(std::move(w));
    r.latency.merge(h);
  }
  r.counters.completed = r.latency.count();
  r.duration_ns = n * 1'000'000'000ULL;
  return r;
}

TEST(HtmlData, SeriesEqualTheWindows) {
  test::Synth synth(7);
  RunResult r = synth.result();
  const json d = data_of(r);
  const json& s = d["series"];
  ASSERT_EQ(s["t"].size(), r.intervals.size());
  for (size_t i = 0; i < r.intervals.size(); ++i) {
    const WindowStats& w = r.intervals[i];
    EXPECT_NEAR(s["t"][i].get<double>(), static_cast<double>(w.end_ns) / 1e9, 1e-5 * (1 + i));
    const double span = static_cast<double>(w.end_ns - w.start_ns) / 1e9;
    EXPECT_NEAR(s["rps"][i].get<double>() * span, static_cast<double>(w.completed),
                1e-4 * (1 + static_cast<double>(w.completed)));
    if (w.latency.count() == 0) {
      EXPECT_TRUE(s["p99"][i].is_null());
      continue;
    }
    EXPECT_NEAR(s["p99"][i].get<double>(),
                static_cast<double>(w.latency.value_at_percentile(99)) / 1e6,
                1e-5 * s["p99"][i].get<double>() + 1e-9);
    EXPECT_NEAR(s["p999"][i].get<double>(),
                static_cast<double>(w.latency.value_at_percentile(99.9)) / 1e6,
                1e-5 * s["p999"][i].get<double>() + 1e-9);
    EXPECT_NEAR(s["max"][i].get<double>(), static_cast<double>(w.latency.max()) / 1e6,
                1e-5 * s["max"][i].get<double>() + 1e-9);
    // The heatmap row counts add up to the window's requests.
    double cells = 0;
    for (const json& c : s["heatmap"]["counts"][i]) cells += c.get<double>();
    EXPECT_NEAR(cells, static_cast<double>(w.latency.count()), 1e-3 * cells + 1e-9);
  }
  // The spectrum's whole-run curve is the run's histogram.
  const json& sp = d["spectrum"];
  ASSERT_FALSE(sp["curves"].empty());
  const json& levels = sp["percentiles"];
  EXPECT_DOUBLE_EQ(levels[0].get<double>(), 0);
  EXPECT_NEAR(levels[levels.size() - 1].get<double>(), 99.999, 1e-9);
  for (size_t k = 0; k < levels.size(); k += 10) {
    const double want =
        static_cast<double>(r.latency.value_at_percentile(levels[k].get<double>())) / 1e6;
    EXPECT_NEAR(sp["curves"][0]["ms"][k].get<double>(), want, 1e-5 * want + 1e-9);
  }
}

TEST(HtmlData, StepsAndTheirVerdicts) {
  RunResult r;
  for (uint64_t seed = 1; r.steps.size() < 2 && seed < 50; ++seed) r = test::Synth(seed).result();
  ASSERT_GE(r.steps.size(), 2u);
  r.slo = {"p(99)<1ns"};  // every step with requests fails
  const json d = data_of(r);
  const json& st = d["steps"];
  ASSERT_EQ(st["target"].size(), r.steps.size());
  for (size_t i = 0; i < r.steps.size(); ++i) {
    EXPECT_NEAR(st["achieved"][i].get<double>(), r.steps[i].requests_per_s(),
                1e-5 * r.steps[i].requests_per_s() + 1e-9);
    if (r.steps[i].latency.count() > 0) {
      EXPECT_EQ(st["ok"][i], false) << i;
    }
  }
}

TEST(HtmlData, LongRunsAreAggregatedAndKeepTheirSpikes) {
  // A day of one-second windows: at most kHtmlMaxPoints points, counts conserved, the one slow
  // request of the day still the maximum of its display window.
  const RunResult r = steady(86'400, 50, 2'000'000, 51'234);
  const std::string page = render_html_report(r);
  EXPECT_LT(page.size(), 1024u * 1024);  // the issue allows 10 MB; it takes far less
  const json d = data_of(r);
  const json& s = d["series"];
  ASSERT_LE(s["t"].size(), kHtmlMaxPoints);
  ASSERT_GT(s["t"].size(), kHtmlMaxPoints / 2);
  EXPECT_EQ(s["windows"].get<double>(), 86'400);
  double total = 0;
  double top = 0;
  for (size_t i = 0; i < s["t"].size(); ++i) {
    total += s["rps"][i].get<double>() * (s["t"][i].get<double>() - s["t_start"][i].get<double>());
    top = std::max(top, s["max"][i].get<double>());
  }
  EXPECT_NEAR(total, static_cast<double>(r.counters.completed), 1e-4 * total);
  EXPECT_NEAR(top, 2000.0, 2000.0 / 512);  // the 2 s spike, within the histogram's precision
}

TEST(HtmlData, CompareSpectraAndShift) {
  const RunResult base = steady(20, 10, 1'000'000, 99);
  const RunResult candidate = steady(20, 10, 1'100'000, 99);
  Comparison c;
  for (const char* name : {"p50", "p90", "p99", "p99.9", "mean", "rps"}) {
    MetricComparison m;
    m.name = name;
    m.is_time = std::string(name) != "rps";
    m.change = 0.1;
    m.change_interval = {0.08, 0.12};
    m.tolerance = 0.05;
    m.verdict = Verdict::kRegressed;
    c.metrics.push_back(m);
  }
  const RunResult bases[] = {base};
  const RunResult candidates[] = {candidate};
  const json d = json::parse(render_compare_html_data(c, bases, candidates, "table", "1"));
  EXPECT_EQ(d["kind"], "compare");
  ASSERT_EQ(d["spectrum"]["curves"].size(), 2u);
  EXPECT_EQ(d["spectrum"]["curves"][0]["side"], "base");
  EXPECT_EQ(d["spectrum"]["curves"][1]["side"], "candidate");
  // Percentiles only, on the spectrum's axis: 1/(1-p).
  const json& shift = d["shift"];
  ASSERT_EQ(shift["x"].size(), 4u);
  EXPECT_DOUBLE_EQ(shift["x"][0].get<double>(), 2);
  EXPECT_DOUBLE_EQ(shift["x"][3].get<double>(), 1000);
  EXPECT_DOUBLE_EQ(shift["change"][1].get<double>(), 10);
  EXPECT_DOUBLE_EQ(shift["low"][1].get<double>(), 8);
  EXPECT_DOUBLE_EQ(shift["tolerance"][2].get<double>(), 5);
  EXPECT_EQ(shift["verdicts"][3], "regressed");
  const std::string page = render_compare_html(c, bases, candidates, "table");
  EXPECT_NE(page.find("Content-Security-Policy"), std::string::npos);
}

// Each --slo threshold is a row of the table with its verdict, and a line at its limit (in the
// chart's unit) on the chart of the series it bounds; those with no series over time get none.
TEST(HtmlData, ThresholdsAreLinesOnTheChartsTheyBound) {
  RunResult r = steady(20, 10, 1'000'000, 3);  // 1 ms requests, one of 1 s
  r.slo = {"p(99)<50ms",
           "max<100ms",
           "p(95)<2ms",
           "rps>=5",
           "error_rate<1%",
           "ttfb.p(99)<1s",
           "latency{tag=a}: p(99)<1s",
           "p(99)<"};
  const json d = data_of(r);
  const json& th = d["thresholds"];
  ASSERT_EQ(th.size(), 8u);
  auto expect_line = [&](size_t i, const char* chart, const char* series, double limit) {
    SCOPED_TRACE(th[i].dump());
    EXPECT_EQ(th[i]["chart"], chart);
    EXPECT_EQ(th[i]["series"], series);
    EXPECT_NEAR(th[i]["limit"].get<double>(), limit, 1e-9);
  };
  EXPECT_EQ(th[0]["expr"], "p(99)<50ms");
  EXPECT_EQ(th[0]["metric"], "latency.p(99)");
  EXPECT_EQ(th[0]["ok"], true);
  EXPECT_FALSE(th[0]["measured"].get<std::string>().empty());
  expect_line(0, "latency", "p99", 50);
  EXPECT_EQ(th[1]["ok"], false);  // the 1 s request
  expect_line(1, "latency", "max", 100);
  expect_line(2, "latency", "", 2);  // no p95 series: the line alone
  EXPECT_EQ(th[3]["ok"], true);
  expect_line(3, "throughput", "rps", 5);
  expect_line(4, "error_rate", "error_rate", 1);  // percent, as its chart
  expect_line(5, "", "", 0);                      // ttfb has no windows
  expect_line(6, "", "", 0);                      // nor has a tag
  EXPECT_TRUE(th[7]["expr"].get<std::string>().starts_with(
      "\"p(99)<\""));  // does not parse: a failed row, no line
  EXPECT_EQ(th[7]["ok"], false);
  expect_line(7, "", "", 0);
  // The error-rate chart's series, one point per display window: no errors here.
  ASSERT_EQ(d["error_rate"].size(), d["series"]["t"].size());
  for (const json& v : d["error_rate"]) EXPECT_EQ(v.get<double>(), 0);
}

TEST(HtmlData, NoThresholdsNoErrorRateChart) {
  const json d = data_of(steady(3, 10, 1'000'000, 99));
  EXPECT_TRUE(d["thresholds"].empty());
  EXPECT_FALSE(d.contains("error_rate"));
}

TEST(HtmlData, SearchThresholdsAreUnjudgedLimits) {
  SearchVerdict verdict;
  const json d = json::parse(render_search_html_data(verdict, "http://127.0.0.1:1/", "req/s", "",
                                                     "9.9.9", {"p99<20ms", "rps>=100"}));
  const json& th = d["thresholds"];
  ASSERT_EQ(th.size(), 2u);
  EXPECT_TRUE(th[0]["ok"].is_null());
  EXPECT_EQ(th[0]["chart"], "latency");
  EXPECT_EQ(th[0]["limit"], 20);
  EXPECT_EQ(th[1]["chart"], "throughput");
}

TEST(HtmlData, MachinesBesideTheVersion) {
  RunResult r = steady(3, 10, 1'000'000, 99);
  r.machines = {{"Xeon", 8, "Linux 6.1.0", "a"}, {"EPYC", 64, "Linux 6.1.0", "b<>"}};
  const json d = data_of(r);
  EXPECT_EQ(d["version"], "9.9.9");
  ASSERT_EQ(d["machines"].size(), 2u);
  EXPECT_EQ(d["machines"][0]["cpu_model"], "Xeon");
  EXPECT_EQ(d["machines"][0]["cpus"], 8);
  EXPECT_EQ(d["machines"][1]["kernel"], "Linux 6.1.0");
  EXPECT_EQ(d["machines"][1]["hostname"], "b<>");
}

TEST(HtmlPage, SelfContained) {
  const RunResult r = steady(20, 10, 1'000'000, 3);
  const std::string page = render_html_report(r);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("Content-Security-Policy\" content=\"default-src 'none'"), std::string::npos);
  // No external resource: no src= or href= attribute, no @import, no url( in the styles.
  EXPECT_EQ(page.find(" src="), std::string::npos);
  EXPECT_EQ(page.find(" href="), std::string::npos);
  EXPECT_EQ(page.find("@import"), std::string::npos);
  // The URL is escaped where it is HTML, and cannot end the data's script element.
  EXPECT_NE(page.find("http://127.0.0.1:1/&lt;/script&gt;&lt;b&gt;"), std::string::npos);
  const size_t data = page.find("id=\"hail-data\">");
  ASSERT_NE(data, std::string::npos);
  const size_t end = page.find("</script>", data);
  const std::string embedded = page.substr(data + 15, end - data - 15);
  EXPECT_EQ(json::parse(embedded)["url"], r.url);
  EXPECT_NE(page.find("var uPlot="), std::string::npos);
}

}  // namespace
}  // namespace hail
