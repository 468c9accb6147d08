#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "report/json_report.h"
#include "report/text_report.h"
#include "report/timeseries_writer.h"

namespace hail {
namespace {

constexpr uint64_t kMs = 1'000'000;

size_t error_index(ErrorClass c) {
  return static_cast<size_t>(c);
}

// Three --interval windows: a warm-up one, a measured one with errors of every kind but write, and
// an empty one (no completed request: latency is absent).
RunResult windowed_result() {
  RunResult r;
  r.url = "http://127.0.0.1:8080/";
  r.connections = 20;
  r.threads = 1;
  r.duration_ns = 1750 * kMs;
  r.target_unit = "connections";
  r.interval_ns = 1000 * kMs;

  WindowStats warm;
  warm.start_ns = 0;
  warm.end_ns = 1000 * kMs;
  warm.warmup = true;
  warm.completed = 100;
  warm.p50_ns = 1'234'567;
  warm.p90_ns = 2'000'000;
  warm.p99_ns = 3'500'500;
  warm.max_ns = 9'000'001;
  warm.open_connections = 10;
  warm.target_start = 10;
  warm.target_end = 10;

  WindowStats busy;
  busy.start_ns = 1000 * kMs;
  busy.end_ns = 2500 * kMs;
  busy.completed = 300;
  busy.status_errors = 7;
  busy.errors[error_index(ErrorClass::kConnect)] = 1;
  busy.errors[error_index(ErrorClass::kRead)] = 2;
  busy.errors[error_index(ErrorClass::kTimeout)] = 4;
  busy.errors[error_index(ErrorClass::kParse)] = 5;
  busy.p50_ns = 500'000;
  busy.p90_ns = 750'250;
  busy.p99_ns = 999'999;
  busy.max_ns = 12'345'678;
  busy.open_connections = 20;
  busy.target_start = 20.5;
  busy.target_end = 20.5;

  WindowStats empty;
  empty.start_ns = 2500 * kMs;
  empty.end_ns = 2750 * kMs;
  empty.open_connections = 3;
  empty.target_start = 20.5;
  empty.target_end = 0;

  r.intervals = {warm, busy, empty};
  return r;
}

constexpr const char* kCsvHeader =
    "t_start_s,t_end_s,warmup,completed,requests_per_s,errors,errors_connect,errors_read,"
    "errors_write,errors_timeout,errors_parse,errors_stream,status_errors,latency_p50_us,latency_"
    "p90_us,"
    "latency_p99_us,latency_max_us,open_connections,target\n";

constexpr const char* kJsonlRows[] = {
    R"({"t_start_s":0.000,"t_end_s":1.000,"warmup":true,"completed":100,"requests_per_s":100.000,)"
    R"("errors":0,"errors_connect":0,"errors_read":0,"errors_write":0,"errors_timeout":0,)"
    R"("errors_parse":0,"errors_stream":0,"status_errors":0,"latency_p50_us":1234.567,"latency_p90_us":2000.000,)"
    R"("latency_p99_us":3500.500,"latency_max_us":9000.001,"open_connections":10,"target":10.000})",
    R"({"t_start_s":1.000,"t_end_s":2.500,"warmup":false,"completed":300,)"
    R"("requests_per_s":200.000,"errors":12,"errors_connect":1,"errors_read":2,"errors_write":0,)"
    R"("errors_timeout":4,"errors_parse":5,"errors_stream":0,"status_errors":7,"latency_p50_us":500.000,)"
    R"("latency_p90_us":750.250,"latency_p99_us":999.999,"latency_max_us":12345.678,)"
    R"("open_connections":20,"target":20.500})",
    R"({"t_start_s":2.500,"t_end_s":2.750,"warmup":false,"completed":0,"requests_per_s":0.000,)"
    R"("errors":0,"errors_connect":0,"errors_read":0,"errors_write":0,"errors_timeout":0,)"
    R"("errors_parse":0,"errors_stream":0,"status_errors":0,"latency_p50_us":null,"latency_p90_us":null,)"
    R"("latency_p99_us":null,"latency_max_us":null,"open_connections":3,"target":0.000})",
};

TEST(TimeseriesWriter, CsvHasHeaderAndOneRowPerInterval) {
  EXPECT_EQ(render_timeseries_csv(windowed_result()),
            std::string(kCsvHeader) +
                "0.000,1.000,1,100,100.000,0,0,0,0,0,0,0,0,1234.567,2000.000,3500.500,9000.001,10,"
                "10.000\n"
                "1.000,2.500,0,300,200.000,12,1,2,0,4,5,0,7,500.000,750.250,999.999,12345.678,20,"
                "20.500\n"
                "2.500,2.750,0,0,0.000,0,0,0,0,0,0,0,0,,,,,3,0.000\n");
}

TEST(TimeseriesWriter, JsonLinesHasOneCompactObjectPerLine) {
  EXPECT_EQ(render_timeseries_jsonl(windowed_result()),
            std::string(kJsonlRows[0]) + "\n" + kJsonlRows[1] + "\n" + kJsonlRows[2] + "\n");
}

TEST(TimeseriesWriter, TargetIsAbsentWithoutAPlan) {
  RunResult r = windowed_result();
  r.target_unit = "";
  r.intervals.resize(1);
  const std::string csv = render_timeseries_csv(r);
  EXPECT_EQ(csv.substr(csv.find('\n') + 1),
            "0.000,1.000,1,100,100.000,0,0,0,0,0,0,0,0,1234.567,2000.000,3500.500,9000.001,10,\n");
  const std::string jsonl = render_timeseries_jsonl(r);
  EXPECT_EQ(jsonl.substr(jsonl.find("\"open_connections\"")),
            "\"open_connections\":10,\"target\":null}\n");
}

TEST(TimeseriesWriter, NoIntervalsGiveAHeaderOnlyCsvAndAnEmptyJsonLinesFile) {
  RunResult r;
  EXPECT_EQ(render_timeseries_csv(r), kCsvHeader);
  EXPECT_EQ(render_timeseries_jsonl(r), "");
}

TEST(TimeseriesFormat, ChosenByExtension) {
  const struct {
    const char* path;
    TimeseriesFormat format;
  } kCases[] = {
      {"series.csv", TimeseriesFormat::kCsv},
      {"/tmp/run.1/SERIES.CSV", TimeseriesFormat::kCsv},
      {"series.jsonl", TimeseriesFormat::kJsonLines},
      {"series.ndjson", TimeseriesFormat::kJsonLines},
      {"series.json", TimeseriesFormat::kJsonLines},
      {"out/Series.JsonL", TimeseriesFormat::kJsonLines},
  };
  for (const auto& c : kCases) {
    auto format = timeseries_format_for_path(c.path);
    ASSERT_TRUE(format.ok()) << c.path << ": " << format.error().message;
    EXPECT_EQ(format.value(), c.format) << c.path;
  }
}

TEST(TimeseriesFormat, OtherExtensionsAreAOneLineError) {
  const struct {
    const char* path;
    const char* message;
  } kCases[] = {
      {"x.txt", R"(--timeseries "x.txt": unknown file type (use .csv or .jsonl))"},
      {"series", R"(--timeseries "series": unknown file type (use .csv or .jsonl))"},
      {"csv", R"(--timeseries "csv": unknown file type (use .csv or .jsonl))"},
      {"x.csv.gz", R"(--timeseries "x.csv.gz": unknown file type (use .csv or .jsonl))"},
      {"x.csv/", R"(--timeseries "x.csv/": unknown file type (use .csv or .jsonl))"},
      {"", R"(--timeseries "": unknown file type (use .csv or .jsonl))"},
      {"a\nb.txt", R"(--timeseries "a\x0ab.txt": unknown file type (use .csv or .jsonl))"},
  };
  for (const auto& c : kCases) {
    auto format = timeseries_format_for_path(c.path);
    ASSERT_FALSE(format.ok()) << c.path;
    EXPECT_EQ(format.error().message, c.message);
  }
}

// The JSON report's "timeseries" elements are the JSON Lines rows, pretty-printed.
TEST(JsonReport, TimeseriesRepeatsTheJsonLinesRowsAfterTheIntervalLength) {
  const std::string json = render_json_report(windowed_result());
  EXPECT_NE(json.find("  \"interval_s\": 1.000,\n  \"timeseries\": [\n    {\n"
                      "      \"t_start_s\": 0.000,\n      \"t_end_s\": 1.000,\n"
                      "      \"warmup\": true,\n"),
            std::string::npos)
      << json;
  const size_t begin = json.find("\"timeseries\": [");
  ASSERT_NE(begin, std::string::npos);
  std::string array;
  for (char ch : json.substr(begin + std::string("\"timeseries\": ").size())) {
    if (ch != ' ' && ch != '\n') array.push_back(ch);
  }
  EXPECT_EQ(array, std::string("[") + kJsonlRows[0] + "," + kJsonlRows[1] + "," + kJsonlRows[2] +
                       "]}");  // the series is the report's last key
}

TEST(JsonReport, NoTimeseriesOrStagesWithoutThem) {
  RunResult r = windowed_result();
  r.interval_ns = 0;
  const std::string json = render_json_report(r);
  EXPECT_EQ(json.find("interval_s"), std::string::npos);
  EXPECT_EQ(json.find("timeseries"), std::string::npos);
  EXPECT_EQ(json.find("stages"), std::string::npos);
}

TEST(JsonReport, EmptySeriesIsAnEmptyArray) {
  RunResult r = windowed_result();
  r.intervals.clear();
  EXPECT_NE(render_json_report(r).find("  \"interval_s\": 1.000,\n  \"timeseries\": []\n}\n"),
            std::string::npos);
}

// Two ladder steps (closed loop): one with traffic and errors, one where nothing completed.
RunResult ladder_result() {
  RunResult r = windowed_result();
  r.interval_ns = 0;
  r.intervals.clear();
  r.ladder = true;
  WindowStats first;
  first.start_ns = 1000 * kMs;
  first.end_ns = 3000 * kMs;
  first.completed = 5000;
  first.status_errors = 2;
  first.errors[error_index(ErrorClass::kRead)] = 3;
  first.errors[error_index(ErrorClass::kTimeout)] = 1;
  first.p50_ns = 222'590;
  first.p90_ns = 343'040;
  first.p99_ns = 493'570;
  first.max_ns = 6'640'000;
  first.target_start = 10;
  first.target_end = 10;
  WindowStats second = first;
  second.start_ns = 3000 * kMs;
  second.end_ns = 3500 * kMs;
  second.completed = 0;
  second.status_errors = 0;
  second.errors = {};
  second.errors[error_index(ErrorClass::kConnect)] = 9;
  second.target_start = 20;
  second.target_end = 20;
  r.steps = {first, second};
  return r;
}

TEST(JsonReport, StagesListEveryStepWithTargetRateErrorsAndLatency) {
  const std::string json = render_json_report(ladder_result());
  const char* expected = R"(  "stages": {
    "kind": "ladder",
    "target_unit": "connections",
    "steps": [
      {
        "index": 0,
        "start_s": 1.000,
        "end_s": 3.000,
        "target_start": 10.000,
        "target_end": 10.000,
        "completed": 5000,
        "requests_per_s": 2500.000,
        "errors": 4,
        "errors_by_class": {
          "connect": 0,
          "read": 3,
          "write": 0,
          "timeout": 1,
          "parse": 0,
          "stream": 0
        },
        "status_errors": 2,
        "latency_us": {
          "p50": 222.590,
          "p90": 343.040,
          "p99": 493.570,
          "max": 6640.000
        }
      },
      {
        "index": 1,
        "start_s": 3.000,
        "end_s": 3.500,
        "target_start": 20.000,
        "target_end": 20.000,
        "completed": 0,
        "requests_per_s": 0.000,
        "errors": 9,
        "errors_by_class": {
          "connect": 9,
          "read": 0,
          "write": 0,
          "timeout": 0,
          "parse": 0,
          "stream": 0
        },
        "status_errors": 0,
        "latency_us": {
          "p50": null,
          "p90": null,
          "p99": null,
          "max": null
        }
      }
    ]
  },
  "notes": [])";
  EXPECT_NE(json.find(expected), std::string::npos) << json;
}

TEST(JsonReport, RampStagesAreKindStages) {
  RunResult r = ladder_result();
  r.ladder = false;
  r.target_unit = "req/s";
  r.steps[1].target_start = 100;
  r.steps[1].target_end = 2500.5;
  const std::string json = render_json_report(r);
  EXPECT_NE(json.find("  \"stages\": {\n    \"kind\": \"stages\",\n"
                      "    \"target_unit\": \"req/s\",\n"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"target_start\": 100.000,\n        \"target_end\": 2500.500,"),
            std::string::npos)
      << json;
}

std::string step_table_of(const std::string& text) {
  const size_t begin = text.find("\n\n  Ladder");
  const size_t stages = text.find("\n\n  Stages");
  const size_t at = begin != std::string::npos ? begin : stages;
  if (at == std::string::npos) return "";
  return text.substr(at + 2, text.find("\n\n", at + 2) - at - 1);
}

TEST(TextReport, LadderTableHasOneRowPerStep) {
  RunResult r = ladder_result();
  WindowStats third = r.steps[0];
  third.start_ns = 3500 * kMs;
  third.end_ns = 4500 * kMs;
  third.completed = 123'457;
  third.p50_ns = 999'999;
  third.p90_ns = 1'500'000;
  third.p99_ns = 25'000'000;
  third.max_ns = 2'000'000'000;
  third.target_start = 400;
  third.target_end = 400;
  r.steps.push_back(third);
  const std::string text = render_text_report(r);
  EXPECT_EQ(step_table_of(text),
            "  Ladder (connections)\n"
            "  Step          Target       Req/s      50%      90%      99%      Max   Errors\n"
            "     1              10     2500.00 222.59us 343.04us 493.57us   6.64ms        4\n"
            "     2              20        0.00        -        -        -        -        9\n"
            "     3             400   123457.00   1.00ms   1.50ms  25.00ms    2.00s        4\n")
      << text;
  // Placed after the throughput lines; the rest of the report is unchanged.
  EXPECT_NE(text.find("Transfer/sec:"), std::string::npos);
  EXPECT_LT(text.find("Transfer/sec:"), text.find("  Ladder (connections)"));
  EXPECT_LT(text.find("  Ladder (connections)"), text.find("  Status codes"));
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) EXPECT_LE(line.size(), 80u) << line;
}

TEST(TextReport, StageTableShowsRampsAsFromTo) {
  RunResult r = ladder_result();
  r.ladder = false;
  r.target_unit = "req/s";
  r.steps[0].target_start = 0;
  r.steps[0].target_end = 120'000;
  r.steps[1].target_start = 120'000;
  r.steps[1].target_end = 1'234'567;
  WindowStats hold = r.steps[0];
  hold.target_start = 2.5;
  hold.target_end = 2.5;
  r.steps.push_back(hold);
  const std::string text = render_text_report(r);
  EXPECT_EQ(step_table_of(text),
            "  Stages (req/s)\n"
            "  Step          Target       Req/s      50%      90%      99%      Max   Errors\n"
            "     1       0->120000     2500.00 222.59us 343.04us 493.57us   6.64ms        4\n"
            "     2 120000->1234567        0.00        -        -        -        -        9\n"
            "     3             2.5     2500.00 222.59us 343.04us 493.57us   6.64ms        4\n")
      << text;
}

TEST(TextReport, NoStepTableOrSeriesWithoutSteps) {
  RunResult r = windowed_result();  // has a time series, no steps
  const std::string text = render_text_report(r);
  EXPECT_EQ(text.find("Ladder"), std::string::npos);
  EXPECT_EQ(text.find("Stages"), std::string::npos);
  EXPECT_EQ(text.find("1234.567"), std::string::npos);
  r.interval_ns = 0;
  r.intervals.clear();
  EXPECT_EQ(render_text_report(r), text);
}

}  // namespace
}  // namespace hail
