// The JSON report read back: writer -> reader -> reports, exactly, for many synthetic runs that set
// every field (the text report, the JSON again, and every RunResult field compared); and every
// kind of bad document refused with one line naming the key.
#include <gtest/gtest.h>
#include <zlib.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/json_reader.h"
#include "report/json_report.h"
#include "report/json_writer.h"
#include "report/text_report.h"
#include "stats/hdr_string.h"
#include "unit/report/synthetic_results.h"

namespace hail {
namespace {

using Json = nlohmann::json;

TEST(JsonWriter, ExactDoublesReadBackAsTheSameDouble) {
  JsonWriter j(0);
  j.begin_object();
  for (double v : {0.0, 20.0, 0.1, 1234567.5, 1.0 / 3, 1e-7, 1e300}) j.exact("v", v);
  j.end_object();
  EXPECT_EQ(j.str(), R"({"v":0.0,"v":20.0,"v":0.1,"v":1234567.5,"v":0.3333333333333333,"v":1e-07,)"
                     R"("v":1e+300})");
}

TEST(JsonWriter, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  std::string out;
  JsonWriter::append_escaped(
      out, "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80|\xff|\xc3|\xed\xa0\x80|\xc0\xaf");
  EXPECT_EQ(out,
            "\"a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80|\\ufffd|\\ufffd|\\ufffd\\ufffd\\ufffd|"
            "\\ufffd\\ufffd\"");
}

TEST(JsonReader, ManySyntheticRunsRoundTripExactly) {
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    test::Synth synth(seed);
    const RunResult original = synth.result();
    const std::string json = render_json_report(original);
    auto doc = read_result_document(json);
    ASSERT_TRUE(doc.ok()) << doc.error().message;
    EXPECT_EQ(doc->version, HAIL_VERSION_STRING);
    EXPECT_FALSE(doc->merge.has_value());
    test::expect_same_result(doc->result, original);
    EXPECT_EQ(render_text_report(doc->result, doc->version), render_text_report(original));
    EXPECT_EQ(render_json_document(doc.value()), json);
  }
}

TEST(JsonReader, KeepsTheVersionThatWroteTheFile) {
  test::Synth synth(7);
  ResultDocument doc{synth.result(), "9.8.7", std::nullopt};
  auto back = read_result_document(render_json_document(doc));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->version, "9.8.7");
  EXPECT_TRUE(render_text_report(back->result, back->version).starts_with("hail 9.8.7: "));
}

TEST(JsonReader, MergeSummaryRoundTrips) {
  test::Synth synth(8);
  MergeSummary m;
  m.inputs = {{"a.json", 1'700'000'000'000'000'000, 5, 10}, {"dir/b \"x\".json", 1, 2, 3}};
  m.start_spread_ns = 11;
  m.end_spread_ns = 12;
  m.measured_union_ns = 13;
  const ResultDocument doc{synth.result(), "0.1.0", m};
  const std::string json = render_json_document(doc);
  auto back = read_result_document(json);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_TRUE(back->merge.has_value());
  ASSERT_EQ(back->merge->inputs.size(), 2u);
  EXPECT_EQ(back->merge->inputs[1].file, "dir/b \"x\".json");
  EXPECT_EQ(back->merge->inputs[0].start_unix_ns, 1'700'000'000'000'000'000u);
  EXPECT_EQ(back->merge->measured_union_ns, 13u);
  EXPECT_EQ(render_json_document(back.value()), json);
}

// A shard's fields ("shard", "run_id", "start_at_*") read back exactly; a file without them (a
// run that was not a shard, or an older hail's) reads as the defaults.
TEST(JsonReader, ShardFieldsRoundTrip) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    test::Synth synth(seed);
    RunResult r = synth.result();
    r.shard_count = 2 + static_cast<uint32_t>(synth.below(7));
    r.shard_index = static_cast<uint32_t>(synth.below(r.shard_count));
    r.shard_source = seed % 2 ? "Slurm" : "--shard";
    r.run_id = seed % 3 ? "nightly \"42\"" : "";
    r.whole_connections = 1 + static_cast<uint32_t>(synth.below(1000));
    r.whole_requests = seed % 4 ? 0 : 1 + synth.below(1'000'000);
    r.whole_rate_per_s = seed % 5 ? 1234.5 / 7 : 0;
    r.start_at_unix_ns = seed % 2 ? r.start_unix_ns - synth.below(1'000'000) : 0;
    r.start_late_ns = r.start_at_unix_ns != 0 ? synth.below(50'000'000) : 0;
    const std::string json = render_json_report(r);
    const Json parsed = Json::parse(json);
    EXPECT_EQ(parsed["shard"]["index"], r.shard_index);
    EXPECT_EQ(parsed["shard"]["count"], r.shard_count);
    EXPECT_EQ(parsed["shard"]["whole"]["connections"], r.whole_connections);
    EXPECT_EQ(parsed.contains("run_id"), !r.run_id.empty());
    EXPECT_EQ(parsed.contains("start_at_unix_s"), r.start_at_unix_ns != 0);
    EXPECT_EQ(parsed.contains("start_late_ms"), r.start_at_unix_ns != 0);
    auto doc = read_result_document(json);
    ASSERT_TRUE(doc.ok()) << doc.error().message;
    test::expect_same_result(doc->result, r);
    EXPECT_EQ(render_json_document(doc.value()), json);
  }
  test::Synth synth(3);
  const RunResult plain = synth.result();
  const std::string json = render_json_report(plain);
  const Json parsed = Json::parse(json);
  for (const char* key : {"shard", "run_id", "start_at_unix_s", "start_late_ms", "start_at_unix_ns",
                          "start_late_ns", "shards"}) {
    EXPECT_FALSE(parsed.contains(key)) << key;
  }
  auto back = read_result_document(json);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->result.shard_count, 1u);
  EXPECT_EQ(back->result.shard_index, 0u);
  EXPECT_EQ(back->result.shard_source, "");
  EXPECT_EQ(back->result.start_at_unix_ns, 0u);
  EXPECT_FALSE(back->shards.has_value());
}

TEST(JsonReader, ShardIndexOutsideItsCountIsRefused) {
  test::Synth synth(4);
  RunResult r = synth.result();
  r.shard_count = 4;
  r.shard_index = 3;
  Json j = Json::parse(render_json_report(r));
  j["shard"]["index"] = 4;
  auto back = read_result_document(j.dump());
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.error().message, "shard.index: shard 4 of 4 (indices run from 0 to count - 1)");
}

TEST(JsonReader, ShardSummaryRoundTrips) {
  test::Synth synth(11);
  ShardSummary s;
  s.count = 4;
  s.present = {0, 1, 3};
  s.missing = {2};
  s.not_offered_share = 0.25;
  s.not_offered_amount = 1000.5;
  s.whole_amount = 4002;
  s.unit = "req/s";
  s.start_skew_ns = 3'200'001;
  s.start_at = true;
  s.inputs = {{0, "r/shard-0.json", 1'700'000'000'000'000'001, 5, 3'000'000'007, false},
              {3, "r/shard \"3\".json", 1'700'000'000'003'200'002, 3'200'006, 1'000'000, true}};
  ResultDocument doc{synth.result(), "0.1.0", std::nullopt};
  doc.shards = s;
  const std::string json = render_json_document(doc);
  const Json parsed = Json::parse(json);
  EXPECT_EQ(parsed["shards"]["missing"], Json::parse("[2]"));
  EXPECT_EQ(parsed["shards"]["present"], Json::parse("[0, 1, 3]"));
  EXPECT_EQ(parsed["shards"]["not_offered_share"], 0.25);
  EXPECT_EQ(parsed["shards"]["inputs"][1]["interrupted"], true);
  auto back = read_result_document(json);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_TRUE(back->shards.has_value());
  EXPECT_EQ(back->shards->present, s.present);
  EXPECT_EQ(back->shards->missing, s.missing);
  EXPECT_EQ(back->shards->not_offered_amount, 1000.5);
  EXPECT_EQ(back->shards->unit, "req/s");
  EXPECT_EQ(back->shards->start_skew_ns, 3'200'001u);
  ASSERT_EQ(back->shards->inputs.size(), 2u);
  EXPECT_EQ(back->shards->inputs[1].file, "r/shard \"3\".json");
  EXPECT_EQ(back->shards->inputs[1].start_unix_ns, 1'700'000'000'003'200'002u);
  EXPECT_TRUE(back->shards->inputs[1].interrupted);
  EXPECT_EQ(render_json_document(back.value()), json);
}

TEST(JsonReader, ResultJsonIsTheDocumentsResult) {
  test::Synth synth(9);
  const RunResult r = synth.result();
  auto back = read_result_json(render_json_report(r));
  ASSERT_TRUE(back.ok()) << back.error().message;
  test::expect_same_result(back.value(), r);
}

// Bytes that are not UTF-8 (a Lua tag name) are written as U+FFFD: the document stays readable.
TEST(JsonReader, NonUtf8NamesStayReadable) {
  test::Synth synth(10);
  RunResult r = synth.result();
  TagResult t;
  t.name = "bin\xff\xfe name \xc3\xa9";
  r.tags.push_back(t);
  auto back = read_result_json(render_json_report(r));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->tags.back().name, "bin\xef\xbf\xbd\xef\xbf\xbd name \xc3\xa9");
}

std::string base64_of(const std::vector<uint8_t>& bytes) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t v = uint32_t{bytes[i]} << 16;
    if (i + 1 < bytes.size()) v |= uint32_t{bytes[i + 1]} << 8;
    if (i + 2 < bytes.size()) v |= bytes[i + 2];
    out += k[(v >> 18) & 63];
    out += k[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? k[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? k[v & 63] : '=';
  }
  return out;
}

// HdrHistogram's compressed form around any inflated bytes (a zip bomb: megabytes of zeros).
std::string compressed(const std::vector<uint8_t>& inflated) {
  uLongf n = compressBound(static_cast<uLong>(inflated.size()));
  std::vector<uint8_t> z(n);
  EXPECT_EQ(compress2(z.data(), &n, inflated.data(), static_cast<uLong>(inflated.size()), 9), Z_OK);
  z.resize(n);
  std::vector<uint8_t> out = {0x1c, 0x84, 0x93, 0x14};
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<uint8_t>(n >> s));
  out.insert(out.end(), z.begin(), z.end());
  return base64_of(out);
}

// A small valid document to break: closed loop, one window, one tag.
Json valid_document() {
  RunResult r;
  r.url = "http://127.0.0.1:8080/";
  r.connections = 2;
  r.threads = 1;
  r.duration_ns = 1'000'000'000;
  r.target_unit = "connections";
  r.interval_ns = 1'000'000'000;
  for (uint64_t v : {1000, 2000, 3000}) r.latency.record(v);
  r.counters.completed = 3;
  r.counters.attempted = 3;
  r.status_codes[200] = 3;
  WindowStats w;
  w.end_ns = 1'000'000'000;
  w.completed = 3;
  w.latency = EncodedHistogram(r.latency);
  w.sources = 1;
  r.intervals.push_back(w);
  TagResult t;
  t.name = "GET /";
  t.completed = 3;
  t.latency = r.latency;
  t.status_codes[200] = 3;
  r.tags.push_back(t);
  return Json::parse(render_json_report(r));
}

struct BadCase {
  const char* what;
  std::function<void(Json&)> change;
  const char* message;  // the whole error line
};

TEST(JsonReader, RefusesBadDocumentsWithOneLineNamingTheKey) {
  const std::string bomb = compressed(std::vector<uint8_t>(20'000'000, 0));
  const BadCase kCases[] = {
      {"wrong root", [](Json& j) { j = Json::array(); },
       "document: expected an object, got an array"},
      {"no schema", [](Json& j) { j.erase("schema"); },
       "document: no \"schema\" key: not a hail JSON report"},
      {"hail/1", [](Json& j) { j["schema"] = "hail/1"; },
       "schema: hail/1 has no histograms to read back; this hail reads hail/2 (run again with "
       "this version)"},
      {"unknown schema", [](Json& j) { j["schema"] = "hail/3"; },
       "schema: unknown schema \"hail/3\" (this hail reads hail/2)"},
      {"schema type", [](Json& j) { j["schema"] = 2; }, "schema: expected a string, got 2"},
      {"missing", [](Json& j) { j["counters"].erase("completed"); }, "counters.completed: missing"},
      {"negative", [](Json& j) { j["counters"]["completed"] = -3; },
       "counters.completed: expected a whole number of at least 0, got -3"},
      {"past 2^64",
       [](Json& j) { j["counters"]["completed"] = Json::parse("18446744073709551616"); },
       "counters.completed: number too large (above 2^64 - 1): 1.8446744073709552e+19"},
      {"fraction", [](Json& j) { j["counters"]["attempted"] = 1.5; },
       "counters.attempted: expected a whole number, got 1.5"},
      {"string", [](Json& j) { j["counters"]["attempted"] = "3"; },
       "counters.attempted: expected a whole number, got the string \"3\""},
      {"null", [](Json& j) { j["duration_ns"] = nullptr; },
       "duration_ns: expected a whole number, got null"},
      {"u32", [](Json& j) { j["connections"] = 1ull << 32; },
       "connections: must be at most 4294967295, got 4294967296"},
      {"span", [](Json& j) { j["warmup_ns"] = 1ull << 63; },
       "warmup_ns: must be at most 3155760000000000000, got 9223372036854775808"},
      {"bool", [](Json& j) { j["keep_alive"] = "yes"; },
       "keep_alive: expected true or false, got the string \"yes\""},
      {"negative double", [](Json& j) { j["rate_target_per_s"] = -1.0; },
       "rate_target_per_s: expected a number of at least 0, got -1.0"},
      {"bad base64", [](Json& j) { j["histograms"]["latency"]["hdr"] = "HISTF!!!"; },
       "histograms.latency.hdr: not base64 (a character outside it)"},
      {"not HISTF", [](Json& j) { j["histograms"]["latency"]["hdr"] = "AAAAAAAAAAAA"; },
       "histograms.latency.hdr: not a compressed HdrHistogram V2 encoding (unknown cookie)"},
      {"broken zlib",
       [](Json& j) {
         j["histograms"]["latency"]["hdr"] =
             base64_of({0x1c, 0x84, 0x93, 0x14, 0, 0, 0, 3, 1, 2, 3});
       },
       "histograms.latency.hdr: histogram string's zlib stream is broken or truncated"},
      {"zip bomb",
       [&bomb](Json& j) { j["windows"]["intervals"][0]["histograms"]["latency"]["hdr"] = bomb; },
       "windows.intervals[0].histograms.latency.hdr: histogram string inflates past any histogram "
       "(refused)"},
      {"count", [](Json& j) { j["histograms"]["latency"]["count"] = 4; },
       "histograms.latency.count: 4 disagrees with the 3 values of hdr"},
      {"minimum", [](Json& j) { j["histograms"]["latency"]["min_ns"] = 5; },
       "histograms.latency: minimum outside the lowest non-empty slot"},
      {"out of range", [](Json& j) { j["histograms"]["latency"]["out_of_range"] = 1; },
       "histograms.latency: out-of-range count disagrees with the extremes"},
      {"layout",
       [](Json& j) { j["histograms"]["layout"]["highest_trackable_value"] = 3600000000000; },
       "histograms.layout.highest_trackable_value: histograms of another layout (3600000000000; "
       "this hail's is 4398046511104)"},
      {"digits", [](Json& j) { j["histograms"]["layout"]["significant_digits"] = 2; },
       "histograms.layout.significant_digits: histograms of another layout (2; this hail's is 3)"},
      {"unit", [](Json& j) { j["histograms"]["layout"]["unit"] = "us"; },
       "histograms.layout.unit: histograms of layout \"us\" (this hail reads \"ns\")"},
      {"completed vs latency", [](Json& j) { j["counters"]["completed"] = 2; },
       "counters.completed: disagrees with the latency histogram's count (3)"},
      {"window", [](Json& j) { j["windows"]["intervals"][0]["completed"] = 1; },
       "windows.intervals[0].completed: disagrees with the latency histogram's count (3)"},
      {"window times", [](Json& j) { j["windows"]["intervals"][0]["start_ns"] = 2'000'000'000; },
       "windows.intervals[0].end_ns: the window ends before it starts"},
      {"series without interval", [](Json& j) { j["interval_ns"] = 0; },
       "windows.intervals: a time series, but interval_ns is 0"},
      {"tag", [](Json& j) { j["tags"][0]["errors"]["bogus"] = 1; },
       "tags[0].errors.bogus: unknown error class"},
      {"tag name", [](Json& j) { j["tags"].push_back(j["tags"][0]); },
       "tags[1].name: a second tag of this name"},
      {"tag count", [](Json& j) { j["tags"][0]["completed"] = 9; },
       "tags[0].completed: disagrees with the latency histogram's count (3)"},
      {"status", [](Json& j) { j["status_codes"]["0200"] = 1; },
       "status_codes.0200: not a status code"},
      {"status range", [](Json& j) { j["status_codes"]["1000"] = 1; },
       "status_codes.1000: not a status code"},
      {"protocol", [](Json& j) { j["protocols"] = {"h3"}; },
       "protocols[0]: unknown protocol \"h3\""},
      {"unit name", [](Json& j) { j["target_unit"] = "furlongs"; },
       "target_unit: unknown target unit \"furlongs\""},
      {"reason class",
       [](Json& j) {
         j["error_reason_list"] =
             Json::parse(R"([{"class": "x", "reason": "y", "errno": 0, "count": 1}])");
       },
       "error_reason_list[0].class: unknown error class"},
      {"notes", [](Json& j) { j["notes"] = {1}; }, "notes[0]: expected a string, got 1"},
      {"windows", [](Json& j) { j["windows"] = Json::array(); },
       "windows: expected an object, got an array"},
  };
  for (const BadCase& c : kCases) {
    Json j = valid_document();
    c.change(j);
    auto r = read_result_document(j.dump(2));
    ASSERT_FALSE(r.ok()) << c.what;
    EXPECT_EQ(r.error().message, c.message) << c.what;
  }
}

TEST(JsonReader, TheValidDocumentIsValid) {
  auto r = read_result_document(valid_document().dump());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->result.counters.completed, 3u);
}

TEST(JsonReader, RefusesWhatIsNotJson) {
  const std::string valid = valid_document().dump(2);
  struct {
    std::string text;
    const char* message;
  } const kCases[] = {
      {"", "not valid JSON: the file is empty"},
      {" \n", "not valid JSON: the file is empty"},
      {valid.substr(0, valid.size() / 2),
       "not valid JSON: parse error at line "},  // truncated: the position follows
      {"{\"schema\": \"hail/2\", \"x\": NaN}", "not valid JSON: parse error at line 1, column 27"},
      {"{\"schema\": \"hail/2\", \"x\": 1e400}", "not valid JSON: number overflow parsing '1e400'"},
      {std::string(100, '[') + std::string(100, ']'),
       "document: nested more than 32 levels deep: not a hail report"},
      {"{\"schema\": \"\xff\"}", "not valid JSON: parse error at line 1, column 13"},
      {valid + "x", "not valid JSON: parse error at line "},
  };
  for (const auto& c : kCases) {
    auto r = read_result_document(c.text);
    ASSERT_FALSE(r.ok()) << c.text.substr(0, 80);
    EXPECT_TRUE(r.error().message.starts_with(c.message)) << r.error().message;
    EXPECT_EQ(r.error().message.find('\n'), std::string::npos) << r.error().message;
  }
}

}  // namespace
}  // namespace hail
