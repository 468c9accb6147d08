// The per-tag section of both reports: the text table (80 columns, long names shortened in the
// middle, statuses wrapped under their column) and the JSON "tags" array; neither appears, and
// nothing else changes, when the run has no tags.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "report/json_report.h"
#include "report/text_report.h"

namespace hail {
namespace {

RunResult base_result() {
  RunResult r;
  r.url = "http://127.0.0.1:8080/";
  r.connections = 10;
  r.threads = 2;
  r.duration_target_ns = 10'000'000'000;
  r.duration_ns = 10'000'000'000;
  r.counters.attempted = 12;
  r.counters.completed = 11;
  r.counters.errors[static_cast<size_t>(ErrorClass::kTimeout)] = 1;
  r.status_codes[200] = 10;
  r.status_codes[404] = 1;
  for (uint64_t i = 1; i <= 11; ++i) r.latency.record(i * 100'000);
  return r;
}

TagResult tag(const std::string& name, std::map<int, uint64_t> statuses, uint64_t latency_ns) {
  TagResult t;
  t.name = name;
  for (const auto& [code, count] : statuses) {
    t.completed += count;
    for (uint64_t i = 0; i < count; ++i) t.latency.record(latency_ns);
  }
  t.status_codes = std::move(statuses);
  return t;
}

RunResult tagged_result() {
  RunResult r = base_result();
  r.tags.push_back(tag("GET /a", {{200, 9}, {404, 1}}, 250'000));
  TagResult post = tag("POST http://h:1/x", {}, 0);
  post.errors[static_cast<size_t>(ErrorClass::kTimeout)] = 1;
  r.tags.push_back(post);
  r.tags.push_back(tag("GET http://example.com/a/very/long/path/to/users/12345 (line 7)",
                       {{200, 1}}, 1'500'000));
  return r;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

TEST(TagReport, TextTableRows) {
  const std::string text = render_text_report(tagged_result());
  for (const std::string& l : lines_of(text)) EXPECT_LE(l.size(), 80u) << l;
  const std::string expected =
      "  Tag                     Count     Req/s      50%      99% Errors Status\n"
      "  GET /a                     10      1.00 250.00us 250.00us      0 200:9,404:1\n"
      "  POST http://h:1/x           0      0.00        -        -      1 -\n"
      "  GET http:...(line 7)        1      0.10   1.50ms   1.50ms      0 200:1\n"
      "\n"
      "  11 requests in";
  EXPECT_NE(text.find(expected), std::string::npos) << text;
  // The section comes after the latency block.
  EXPECT_LT(text.find("First byte"), text.find("  Tag "));
}

TEST(TagReport, ManyStatusesWrapUnderTheirColumn) {
  RunResult r = base_result();
  std::map<int, uint64_t> statuses;
  for (int code = 200; code < 600; code += 25) statuses[code] = 123'456;
  r.tags.push_back(tag("GET /many", statuses, 1'000));
  r.tags.back().name = std::string("odd\n\x01name");
  const std::string text = render_text_report(r);
  const std::vector<std::string> lines = lines_of(text);
  size_t row = 0;
  while (row < lines.size() && lines[row].find("odd??name") == std::string::npos) ++row;
  ASSERT_LT(row, lines.size()) << text;
  const size_t column = lines[row].find("200:123456");
  ASSERT_NE(column, std::string::npos) << text;
  std::string joined = lines[row].substr(column);
  size_t continuation = 0;
  for (size_t i = row + 1; i < lines.size() && lines[i].starts_with(std::string(column, ' '));
       ++i) {
    joined += lines[i].substr(column);
    ++continuation;
  }
  EXPECT_GT(continuation, 5u) << text;
  std::string expected;
  for (const auto& [code, count] : statuses) {
    if (!expected.empty()) expected += ',';
    expected += std::to_string(code) + ":" + std::to_string(count);
  }
  EXPECT_EQ(joined, expected);
  for (const std::string& l : lines) EXPECT_LE(l.size(), 80u) << l;
}

TEST(TagReport, JsonTagsArray) {
  const std::string json = render_json_report(tagged_result());
  const char* expected =
      "  \"tags\": [\n"
      "    {\n"
      "      \"name\": \"GET /a\",\n"
      "      \"completed\": 10,\n"
      "      \"requests_per_s\": 1.000,\n"
      "      \"errors\": {},\n"
      "      \"status\": {\n"
      "        \"200\": 9,\n"
      "        \"404\": 1\n"
      "      },\n"
      "      \"latency_us\": {\n"
      "        \"count\": 10,\n";
  EXPECT_NE(json.find(expected), std::string::npos) << json;
  const char* errors =
      "      \"name\": \"POST http://h:1/x\",\n"
      "      \"completed\": 0,\n"
      "      \"requests_per_s\": 0.000,\n"
      "      \"errors\": {\n"
      "        \"timeout\": 1\n"
      "      },\n"
      "      \"status\": {},\n"
      "      \"latency_us\": {\n"
      "        \"count\": 0,\n"
      "        \"min\": null,\n";
  EXPECT_NE(json.find(errors), std::string::npos) << json;
  for (const char* key : {"\"p50\": 250.000", "\"p99.99\": 1500.", "(line 7)"}) {
    EXPECT_NE(json.find(key), std::string::npos) << key << "\n" << json;
  }
  // Before "notes", after the summary.
  EXPECT_LT(json.find("\"client\""), json.find("\"tags\""));
  EXPECT_LT(json.find("\"tags\""), json.find("\"notes\""));
}

TEST(TagReport, NothingWithoutTags) {
  const RunResult plain = base_result();
  RunResult tagged = tagged_result();
  EXPECT_EQ(render_text_report(plain).find("Tag "), std::string::npos);
  EXPECT_EQ(render_json_report(plain).find("\"tags\""), std::string::npos);
  // Removing the tags gives back the untagged report exactly.
  tagged.tags.clear();
  EXPECT_EQ(render_text_report(tagged), render_text_report(plain));
  EXPECT_EQ(render_json_report(tagged), render_json_report(plain));
}

}  // namespace
}  // namespace hail
