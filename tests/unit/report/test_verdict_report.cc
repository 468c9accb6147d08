// The verdict sections of the reports: render_verdicts_text (threshold table, Verdict line,
// --slo-abort line, steps), write_verdicts_json (keys, nulls; parsed back with nlohmann-json) and
// render_junit (well-formed XML, escaping, failure counts, the generator-health case).
#include <gtest/gtest.h>

#include <cctype>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/json_writer.h"
#include "report/verdict_report.h"
#include "unit/analysis/slo_fixtures.h"

namespace hail {
namespace {

using Json = nlohmann::json;
using slo_test::kMs;
using slo_test::kS;
using slo_test::run_of;
using slo_test::steady;
using slo_test::window;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

size_t occurrences(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// Five one-second windows of fast (1 ms) responses.
RunResult passing_run(std::vector<std::string> slo) {
  RunResult run = run_of(steady(5));
  run.url = "http://127.0.0.1:8080/";
  run.slo = std::move(slo);
  return run;
}

// A ladder of two steps (100 then 200 req/s): the second has 10% of its responses at 20 ms.
RunResult ladder_run(std::vector<std::string> slo) {
  std::vector<WindowStats> w;
  for (uint64_t i = 0; i < 4; ++i)
    w.push_back(window(i * kS, kS, i < 2 ? 100 : 90, i < 2 ? 0 : 10));
  RunResult run = run_of(w);
  run.ladder = true;
  run.target_unit = "req/s";
  for (size_t step = 0; step < 2; ++step) {
    WindowStats s;
    merge_window(s, w[step * 2]);
    merge_window(s, w[step * 2 + 1]);
    s.target_start = s.target_end = step == 0 ? 100 : 200;
    run.steps.push_back(s);
  }
  run.slo = std::move(slo);
  return run;
}

std::string text_of(const RunResult& run) {
  return render_verdicts_text(run, judge_run(run));
}

Json json_of(const RunResult& run) {
  JsonWriter j;
  j.begin_object();
  write_verdicts_json(j, run, judge_run(run));
  j.end_object();
  return Json::parse(j.str());  // throws (and fails the test) on invalid JSON
}

// A small well-formedness check: one root element after the declaration; tags nest and close in
// order; attribute values are double-quoted; no raw '<' in values or text, and '&' only as one of
// XML's five entities; no control characters but tab, CR and LF. Returns "" or what is wrong.
std::string xml_problem(const std::string& xml) {
  size_t i = 0;
  auto entity_ok = [&](size_t at) {
    for (const char* e : {"&lt;", "&gt;", "&amp;", "&quot;", "&apos;"}) {
      if (xml.compare(at, std::string(e).size(), e) == 0) return true;
    }
    return false;
  };
  auto char_ok = [&](size_t at) {
    const auto c = static_cast<unsigned char>(xml[at]);
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return false;
    return xml[at] != '&' || entity_ok(at);
  };
  if (xml.starts_with("<?xml")) i = xml.find("?>") + 2;
  std::vector<std::string> open;
  bool root_seen = false;
  while (i < xml.size()) {
    if (xml[i] != '<') {
      if (open.empty() && !std::isspace(static_cast<unsigned char>(xml[i]))) {
        return "text outside the root at " + std::to_string(i);
      }
      if (!char_ok(i)) return "bad character at " + std::to_string(i);
      ++i;
      continue;
    }
    const bool closing = i + 1 < xml.size() && xml[i + 1] == '/';
    size_t j = i + (closing ? 2 : 1);
    const size_t name_start = j;
    while (j < xml.size() && (std::isalnum(static_cast<unsigned char>(xml[j])) || xml[j] == '-' ||
                              xml[j] == '_' || xml[j] == '.' || xml[j] == ':')) {
      ++j;
    }
    const std::string name = xml.substr(name_start, j - name_start);
    if (name.empty()) return "raw '<' at " + std::to_string(i);
    if (closing) {
      if (open.empty() || open.back() != name || j >= xml.size() || xml[j] != '>') {
        return "unexpected </" + name + ">";
      }
      open.pop_back();
      i = j + 1;
      continue;
    }
    if (open.empty() && root_seen) return "a second root <" + name + ">";
    root_seen = true;
    for (;;) {  // attributes
      while (j < xml.size() && xml[j] == ' ') ++j;
      if (j >= xml.size()) return "unterminated <" + name;
      if (xml[j] == '>' || xml.compare(j, 2, "/>") == 0) break;
      const size_t eq = xml.find('=', j);
      if (eq == std::string::npos || eq + 1 >= xml.size() || xml[eq + 1] != '"') {
        return "unquoted attribute in <" + name + ">";
      }
      size_t k = eq + 2;
      for (; k < xml.size() && xml[k] != '"'; ++k) {
        if (xml[k] == '<' || !char_ok(k)) return "bad attribute value in <" + name + ">";
      }
      if (k >= xml.size()) return "unterminated attribute in <" + name + ">";
      j = k + 1;
    }
    if (xml[j] == '>') {
      open.push_back(name);
      i = j + 1;
    } else {
      i = j + 2;
    }
  }
  if (!open.empty()) return "<" + open.back() + "> never closed";
  return root_seen ? "" : "no root element";
}

TEST(XmlCheck, CatchesWhatItIsFor) {
  EXPECT_EQ(xml_problem("<a x=\"1\"><b/>t &amp; u</a>"), "");
  EXPECT_NE(xml_problem("<a><b></a></b>"), "");
  EXPECT_NE(xml_problem("<a x=\"p<1\"/>"), "");
  EXPECT_NE(xml_problem("<a>x & y</a>"), "");
  EXPECT_NE(xml_problem("<a>x < y</a>"), "");
  EXPECT_NE(xml_problem("<a/><b/>"), "");
  EXPECT_NE(xml_problem("<a>\x01</a>"), "");
}

TEST(VerdictText, EmptyWithoutThresholds) {
  RunResult run = passing_run({});
  run.max_worker_cpu_utilization = 0.99;  // even with hail the limit
  EXPECT_EQ(text_of(run), "");
}

TEST(VerdictText, TableAndPassingVerdict) {
  const std::string text = text_of(passing_run({"p(99)<10ms", "error_rate<1%"}));
  EXPECT_TRUE(contains(text, "Thresholds (--slo)")) << text;
  EXPECT_TRUE(contains(text, "  ok   p(99)<10ms ")) << text;
  EXPECT_TRUE(contains(text, "  ok   error_rate<1% ")) << text;
  EXPECT_TRUE(contains(text, "1.00ms")) << text;
  EXPECT_TRUE(contains(text, "Verdict: PASS (2 thresholds held)")) << text;
  EXPECT_TRUE(contains(text, "Generator health: ok")) << text;
  EXPECT_FALSE(contains(text, "FAIL")) << text;
  EXPECT_FALSE(contains(text, "--slo-abort")) << text;
  EXPECT_TRUE(text.ends_with("\n\n"));
}

TEST(VerdictText, FailingRowsAndVerdict) {
  std::vector<WindowStats> w = steady(5);
  w[2] = window(2 * kS, kS, 99, 1, 200 * kMs);
  RunResult run = run_of(w);
  run.slo = {"max<100ms", "p(99)<10ms", "service.p(99)<5ms"};
  const std::string text = text_of(run);
  EXPECT_TRUE(contains(text, "  FAIL max<100ms ")) << text;
  EXPECT_TRUE(contains(text, "first breach at 3.0s")) << text;
  EXPECT_TRUE(contains(text, "  ok   p(99)<10ms ")) << text;
  // A closed-loop run has no service times: no samples, and the detail line says why.
  EXPECT_TRUE(contains(text, "  FAIL service.p(99)<5ms ")) << text;
  EXPECT_TRUE(contains(text, "no samples")) << text;
  EXPECT_TRUE(contains(text, "open-loop runs")) << text;
  EXPECT_TRUE(contains(text, "Verdict: FAIL (2 of 3 thresholds failed)")) << text;
  run.slo = {"max<100ms"};
  EXPECT_TRUE(contains(text_of(run), "Verdict: FAIL (1 of 1 threshold failed)"));
}

TEST(VerdictText, AbortLine) {
  RunResult run = passing_run({"max<500us"});
  run.slo_abort = "\"max<500us\": max reached 1.00ms at 1.0 s";
  const std::string text = text_of(run);
  EXPECT_TRUE(contains(text, "Stopped early by --slo-abort: \"max<500us\": max reached 1.00ms"))
      << text;
}

TEST(VerdictText, StepsAndTheHighestPassingOne) {
  const std::string text = text_of(ladder_run({"p(99)<10ms"}));
  EXPECT_TRUE(contains(text, "Ladder against the thresholds")) << text;
  EXPECT_TRUE(contains(text, "     1 (100 req/s): ok\n")) << text;
  EXPECT_TRUE(contains(text, "     2 (200 req/s): FAIL p(99)<10ms\n")) << text;
  EXPECT_TRUE(contains(text, "Highest step meeting every threshold: 1 (100 req/s)")) << text;
  const std::string none = text_of(ladder_run({"max<500us"}));
  EXPECT_TRUE(contains(none, "No step met every threshold")) << none;
  EXPECT_FALSE(contains(none, "Highest step")) << none;
  RunResult stages = ladder_run({"p(99)<10ms"});
  stages.ladder = false;
  EXPECT_TRUE(contains(text_of(stages), "Stages against the thresholds"));
}

TEST(VerdictText, HealthChecksWhenHailWasTheLimit) {
  RunResult run = passing_run({"p(99)<10ms"});
  run.max_worker_cpu_utilization = 0.99;
  const std::string text = text_of(run);
  EXPECT_TRUE(contains(text, "Generator health: LIMITED BY HAIL")) << text;
  EXPECT_TRUE(contains(text, "  FAIL cpu ")) << text;
}

TEST(VerdictJson, KeysAndNulls) {
  RunResult run =
      passing_run({"p(99)<10ms", "service.p(99)<5ms", "error_rate<1%", "rps>0", "timeouts==0"});
  const Json doc = json_of(run);
  ASSERT_TRUE(doc.contains("slo"));
  const Json& slo = doc["slo"];
  EXPECT_EQ(slo["ok"], false);
  EXPECT_EQ(slo["aborted"], false);
  EXPECT_FALSE(slo.contains("abort_reason"));
  EXPECT_FALSE(slo.contains("steps"));
  ASSERT_EQ(slo["checks"].size(), 5u);
  const Json& p99 = slo["checks"][0];
  EXPECT_EQ(p99["expr"], "p(99)<10ms");
  EXPECT_EQ(p99["metric"], "latency.p(99)");
  EXPECT_NEAR(p99["value"].get<double>(), 1e6, 1e3);
  EXPECT_EQ(p99["unit"], "ns");
  EXPECT_EQ(p99["value_text"], "1.00ms");
  EXPECT_EQ(p99["ok"], true);
  EXPECT_TRUE(p99["first_breach_s"].is_null());
  const Json& service = slo["checks"][1];
  EXPECT_TRUE(service["value"].is_null());
  EXPECT_FALSE(service.contains("value_text"));
  EXPECT_EQ(service["ok"], false);
  EXPECT_TRUE(service["detail"].is_string());
  EXPECT_EQ(slo["checks"][2]["unit"], "fraction");
  EXPECT_EQ(slo["checks"][2]["value"], 0.0);
  EXPECT_EQ(slo["checks"][3]["unit"], "req/s");
  EXPECT_DOUBLE_EQ(slo["checks"][3]["value"].get<double>(), 100.0);
  EXPECT_EQ(slo["checks"][4]["unit"], "count");
  ASSERT_TRUE(doc.contains("generator_health"));
  EXPECT_EQ(doc["generator_health"]["limited_by_hail"], false);
  ASSERT_EQ(doc["generator_health"]["checks"].size(), 4u);
  EXPECT_EQ(doc["generator_health"]["checks"][0]["name"], "cpu");
}

TEST(VerdictJson, NoSloObjectWithoutThresholds) {
  const Json doc = json_of(passing_run({}));
  EXPECT_FALSE(doc.contains("slo"));
  EXPECT_TRUE(doc.contains("generator_health"));
}

TEST(VerdictJson, AbortStepsAndFirstBreach) {
  RunResult run = ladder_run({"p(99)<10ms", "max<5ms"});
  run.slo_abort = "\"max<5ms\": max reached 20.00ms at 3.0 s";
  const Json doc = json_of(run);
  const Json& slo = doc["slo"];
  EXPECT_EQ(slo["aborted"], true);
  EXPECT_EQ(slo["abort_reason"], run.slo_abort);
  EXPECT_DOUBLE_EQ(slo["checks"][1]["first_breach_s"].get<double>(), 3.0);
  ASSERT_EQ(slo["steps"].size(), 2u);
  EXPECT_EQ(slo["steps"][0]["step"], 1);
  EXPECT_EQ(slo["steps"][0]["ok"], true);
  EXPECT_EQ(slo["steps"][1]["step"], 2);
  EXPECT_EQ(slo["steps"][1]["ok"], false);
  EXPECT_EQ(slo["steps"][1]["checks"].size(), 2u);
  EXPECT_EQ(slo["highest_passing_step"], 1);
  const Json none = json_of(ladder_run({"max<500us"}));
  ASSERT_TRUE(none["slo"].contains("highest_passing_step"));
  EXPECT_TRUE(none["slo"]["highest_passing_step"].is_null());
}

TEST(Junit, WellFormedWithEscapedExpressionsAndUrl) {
  RunResult run = passing_run({"p(99)<10ms", "max<500us"});
  run.url = "http://h/?a=<1>&b=\"2\"";
  const std::string xml = render_junit(run);
  EXPECT_EQ(xml_problem(xml), "") << xml;
  EXPECT_TRUE(contains(xml, "value=\"http://h/?a=&lt;1&gt;&amp;b=&quot;2&quot;\"")) << xml;
  EXPECT_TRUE(contains(xml, "name=\"p(99)&lt;10ms\"")) << xml;
  EXPECT_TRUE(contains(xml, "<testsuite name=\"hail slo\" tests=\"3\" failures=\"1\"")) << xml;
  EXPECT_TRUE(contains(xml, "<testsuites name=\"hail\" tests=\"3\" failures=\"1\">")) << xml;
  EXPECT_EQ(occurrences(xml, "<testcase "), 3u);
  EXPECT_EQ(occurrences(xml, "<failure "), 1u);
  EXPECT_TRUE(contains(xml, "type=\"threshold\">latency.max = 1.00ms")) << xml;
  EXPECT_FALSE(contains(xml, "<system-out>")) << xml;
}

TEST(Junit, UnreadableExpressionQuotesAreEscaped) {
  // The unreadable check is named by the parser's message, which quotes the expression.
  const std::string xml = render_junit(passing_run({"p(99)<10xs"}));
  EXPECT_EQ(xml_problem(xml), "") << xml;
  EXPECT_TRUE(contains(xml, "&quot;p(99)&lt;10xs&quot;")) << xml;
  EXPECT_TRUE(contains(xml, "failures=\"1\"")) << xml;
}

TEST(Junit, GeneratorHealthCaseAndAbort) {
  RunResult run = passing_run({"p(99)<10ms"});
  run.max_worker_cpu_utilization = 0.99;
  run.slo_abort = "\"max<1s\": max reached 2.00s at 5.0 s & more";
  run.url = std::string("http://h/\x01x");
  const std::string xml = render_junit(run);
  EXPECT_EQ(xml_problem(xml), "") << xml;
  EXPECT_TRUE(contains(xml, "name=\"generator health\"")) << xml;
  EXPECT_TRUE(contains(xml, "<failure message=\"limited by hail\" type=\"generator\">cpu: "))
      << xml;
  EXPECT_TRUE(contains(xml, "tests=\"2\" failures=\"1\"")) << xml;
  EXPECT_TRUE(contains(xml, "<system-out>stopped early by --slo-abort: &quot;max&lt;1s&quot;"))
      << xml;
  EXPECT_TRUE(contains(xml, "&amp; more</system-out>")) << xml;
  run.max_worker_cpu_utilization = 0.1;
  EXPECT_TRUE(contains(render_junit(run), "tests=\"2\" failures=\"0\""));
}

TEST(Junit, NoThresholdsLeavesTheHealthCase) {
  const std::string xml = render_junit(passing_run({}));
  EXPECT_EQ(xml_problem(xml), "") << xml;
  EXPECT_EQ(occurrences(xml, "<testcase "), 1u);
  EXPECT_TRUE(contains(xml, "tests=\"1\" failures=\"0\"")) << xml;
}

}  // namespace
}  // namespace hail
