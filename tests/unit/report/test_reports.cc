#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "report/json_report.h"
#include "report/json_writer.h"
#include "report/text_report.h"

namespace hail {
namespace {

RunResult sample_result() {
  RunResult r;
  r.url = "http://127.0.0.1:8080/index.html";
  r.connections = 50;
  r.threads = 2;
  r.duration_target_ns = 10'000'000'000;
  r.duration_ns = 10'000'000'000;
  r.timeout_ns = 5'000'000'000;
  r.counters.attempted = 1060;
  r.counters.completed = 1000;
  r.counters.status_errors = 10;
  r.counters.in_flight = 50;
  r.counters.errors[static_cast<size_t>(ErrorClass::kTimeout)] = 10;
  r.counters.errors[static_cast<size_t>(ErrorClass::kConnect)] = 3;
  r.counters.bytes_read = 1'500'000;
  r.counters.connections_opened = 63;
  r.status_codes[200] = 990;
  r.status_codes[500] = 10;
  add_error_reason(r.error_reasons, ErrorClass::kConnect, "Connection refused", 3);
  for (uint64_t i = 1; i <= 1000; ++i) r.latency.record(i * 1000);  // 1..1000 us
  r.connect_time.record(50'000);
  r.ttfb.record(40'000);
  return r;
}

TEST(JsonWriter, EscapesAndNests) {
  JsonWriter j(0);
  j.begin_object().value("a\"b", "x\ny\x01").begin_array("l").element("1").end_array();
  j.value("n", uint64_t{7}).value("f", 1.5).value("t", true).null("z").end_object();
  EXPECT_EQ(j.str(), R"({"a\"b":"x\ny\u0001","l":["1"],"n":7,"f":1.500,"t":true,"z":null})");
}

TEST(JsonReport, HasTheDocumentedShape) {
  std::string json = render_json_report(sample_result());
  for (const char* needle : {"\"schema\": \"hail/2\"",
                             "\"url\": \"http://127.0.0.1:8080/index.html\"",
                             "\"duration_s\": 10.000",
                             "\"connections\": 50",
                             "\"threads\": 2",
                             "\"connections_opened\": 63",
                             "\"attempted\": 1060",
                             "\"completed\": 1000",
                             "\"in_flight\": 50",
                             "\"timeout\": 10",
                             "\"connect\": 3",
                             "\"status\": 10",
                             "\"200\": 990",
                             "\"500\": 10",
                             "\"requests_per_s\": 100.000",
                             "\"bytes_per_s\": 150000.000",
                             "\"latency_us\"",
                             "\"p99.99\"",
                             "\"p50\": 500.",
                             "\"accounting_ok\": true",
                             "\"connect: Connection refused\": 3"}) {
    EXPECT_NE(json.find(needle), std::string::npos) << needle << "\n" << json;
  }
}

TEST(TextReport, FitsEightyColumnsAndShowsAccounting) {
  std::string text = render_text_report(sample_result());
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) EXPECT_LE(line.size(), 80u) << line;
  for (const char* needle :
       {"Requests/sec:", "Transfer/sec:", "200: 990", "500: 10", "timeout 10", "status 10",
        "1060 attempted = 1000 completed + 10 failed + 50 in flight", "63 opened", "99.99%",
        "Connection refused"}) {
    EXPECT_NE(text.find(needle), std::string::npos) << needle << "\n" << text;
  }
  EXPECT_EQ(text.find("MISMATCH"), std::string::npos);
}

TEST(TextReport, KeepsALongUrlWhole) {
  RunResult r = sample_result();
  r.url = "http://127.0.0.1:8080/" + std::string(1000, 'a');
  EXPECT_NE(render_text_report(r).find(" test @ " + r.url + "\n"), std::string::npos);
}

TEST(TextReport, FlagsBrokenAccounting) {
  RunResult r = sample_result();
  r.counters.attempted += 1;
  EXPECT_NE(render_text_report(r).find("MISMATCH"), std::string::npos);
  EXPECT_NE(render_json_report(r).find("\"accounting_ok\": false"), std::string::npos);
}

TEST(Reports, RateModeAddsTargetAchievedBacklogAndTwoDistributions) {
  RunResult r = sample_result();
  r.rate_target_per_s = 1'234'567.5;
  r.backlog = 12'345'678;
  r.service_time.record(10'000);
  r.lag.record(2'000);
  std::string text = render_text_report(r);
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) EXPECT_LE(line.size(), 80u) << line;
  for (const char* needle :
       {"target 1234567.5/s", "backlog 12345678", "Service", "Lag", "corrected"}) {
    EXPECT_NE(text.find(needle), std::string::npos) << needle << "\n" << text;
  }
  std::string json = render_json_report(r);
  for (const char* needle : {"\"rate\": {", "\"target_per_s\": 1234567.500",
                             "\"backlog\": 12345678", "\"service_time_us\"", "\"lag_us\""}) {
    EXPECT_NE(json.find(needle), std::string::npos) << needle << "\n" << json;
  }
  EXPECT_EQ(render_json_report(sample_result()).find("\"rate\": {"), std::string::npos);
}

}  // namespace
}  // namespace hail
