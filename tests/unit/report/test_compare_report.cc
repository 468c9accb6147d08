// hail compare's renderings: the text table (columns, units, change in % or percentage points,
// verdict counts, notes) and the JSON's keys ("comparison": {"metrics": [...]}), infinite changes
// as null.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "report/compare_report.h"

namespace hail {
namespace {

Comparison sample() {
  Comparison c;
  c.method = "block-bootstrap";
  c.base_runs = c.candidate_runs = 1;
  c.base_windows = 30;
  c.candidate_windows = 31;
  c.block_windows = 3;
  c.resamples = 2000;
  c.seed = 1;
  MetricComparison p50;
  p50.name = "p50";
  p50.base = 10'000'000;
  p50.candidate = 11'000'000;
  p50.change = 0.1;
  p50.change_interval = {0.08, 0.12};
  p50.tolerance = 0.05;
  p50.verdict = Verdict::kRegressed;
  MetricComparison rps;
  rps.name = "rps";
  rps.is_time = false;
  rps.lower_is_better = false;
  rps.base = 200;
  rps.candidate = 200;
  rps.change_interval = {-0.01, 0.01};
  rps.tolerance = 0.03;
  rps.verdict = Verdict::kSame;
  MetricComparison errors;
  errors.name = "error_rate";
  errors.is_time = false;
  errors.absolute = true;
  errors.base = 0;
  errors.candidate = 0.002;
  errors.change = 0.002;
  errors.change_interval = {0.0005, std::numeric_limits<double>::infinity()};
  errors.tolerance = 0.001;
  errors.verdict = Verdict::kInconclusive;
  c.metrics = {p50, rps, errors};
  c.notes.push_back("a note");
  return c;
}

TEST(CompareReport, TextTable) {
  const std::string text = render_compare_text(sample(), {{"a.json"}, {"b.json"}});
  EXPECT_NE(text.find("Comparing a.json (base) with b.json (candidate)"), std::string::npos);
  EXPECT_NE(text.find("30 and 31 measured windows, blocks of 3, 2000 resamples, seed 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("metric      base     candidate  change    95% interval"), std::string::npos)
      << text;
  EXPECT_NE(text.find("p50         10.00ms  11.00ms    +10.0%    [+8.0%, +12.0%]"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("200.0/s"), std::string::npos) << text;
  EXPECT_NE(text.find("+0.200pp"), std::string::npos) << text;
  EXPECT_NE(text.find("+inf]"), std::string::npos) << text;
  EXPECT_NE(text.find("1 regressed, 0 improved, 1 same, 1 inconclusive"), std::string::npos);
  EXPECT_NE(text.find("Note: a note"), std::string::npos);
}

TEST(CompareReport, Json) {
  const std::string json = render_compare_json(sample(), {{"a.json"}, {"b.json"}});
  for (const char* key :
       {"\"comparison\": {", "\"metrics\": [", "\"name\": \"p50\"", "\"base\": 1e+07",
        "\"candidate\": 1.1e+07", "\"change\": 0.1", "\"ci_low\": 0.08", "\"ci_high\": 0.12",
        "\"verdict\": \"regressed\"", "\"ci_high\": null", "\"change_kind\": \"absolute\"",
        "\"regressed\": true", "\"files\": [", "\"block_windows\": 3"}) {
    EXPECT_NE(json.find(key), std::string::npos) << key << "\n" << json;
  }
}

}  // namespace
}  // namespace hail
