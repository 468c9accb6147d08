#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "report/ab_report.h"
#include "stats/error_class.h"

namespace hail {
namespace {

constexpr uint64_t kMs = 1'000'000;
constexpr uint64_t kUs = 1'000;
constexpr uint64_t kStartNs = 1'700'000'000ull * 1'000'000'000;  // Tue Nov 14 22:13:20 2023 UTC

RequestRecord record(uint64_t start_offset_ns, uint64_t connect_ns, uint64_t wait_ns,
                     uint64_t total_ns, uint64_t body_bytes, int status) {
  RequestRecord r;
  r.start_unix_ns = kStartNs + start_offset_ns;
  r.connect_ns = connect_ns;
  r.wait_ns = wait_ns;
  r.total_ns = total_ns;
  r.body_bytes = body_bytes;
  r.status = status;
  return r;
}

// A run as ab's report sees it: hail's result and what ab's collectors gathered.
struct AbData : RunResult {
  std::vector<RequestRecord> request_log;
  std::string server_software;
  int64_t document_length = -1;
  AbRun run() const { return AbRun{*this, request_log, server_software, document_length}; }
};

// Three requests: a fresh connection, a reused one, and a fresh one with a shorter 404 body.
AbData three_requests() {
  AbData r;
  r.duration_ns = 250 * kMs;
  r.counters.completed = 3;
  r.counters.errors[static_cast<size_t>(ErrorClass::kConnect)] = 2;
  r.counters.errors[static_cast<size_t>(ErrorClass::kRead)] = 1;
  r.counters.errors[static_cast<size_t>(ErrorClass::kTimeout)] = 1;
  r.counters.bytes_read = 1000;
  r.counters.bytes_written = 300;
  r.status_codes = {{200, 2}, {404, 1}};
  r.server_software = "hail/1.0 (Debian)";
  r.document_length = 100;
  r.request_log = {
      record(0, 1200 * kUs, 2000 * kUs, 5400 * kUs, 100, 200),
      record(1 * kMs, 0, 3000 * kUs, 3500 * kUs, 100, 200),
      record(2 * kMs, 800 * kUs, 1000 * kUs, 2300 * kUs, 90, 404),
  };
  return r;
}

AbReportOptions options() {
  AbReportOptions o;
  o.hostname = "127.0.0.1";
  o.port = 8080;
  o.path = "/x?y=1";
  o.concurrency = 2;
  o.keep_alive = true;
  return o;
}

TEST(AbReport, HeaderAndBenchmarkingLine) {
  EXPECT_EQ(render_ab_copyright(),
            "This is ApacheBench, Version 2.3 <$Revision$>\n"
            "Copyright 1996 Adam Twiss, Zeus Technology Ltd, http://www.zeustech.net/\n"
            "Licensed to The Apache Software Foundation, http://www.apache.org/\n\n");
  EXPECT_EQ(render_ab_benchmarking("127.0.0.1", "", 0, false),
            "Benchmarking 127.0.0.1 (be patient)...");
  EXPECT_EQ(render_ab_benchmarking("::1", "", 0, true), "Benchmarking ::1 (be patient)\n");
  EXPECT_EQ(render_ab_benchmarking("h", "proxy", 3128, false),
            "Benchmarking h [through proxy:3128] (be patient)...");
}

TEST(AbReport, SamplesInAbsFinalOrder) {
  const std::vector<AbSample> s = ab_samples(three_requests().request_log);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].time_us, 2300);
  EXPECT_EQ(s[1].time_us, 3500);
  EXPECT_EQ(s[2].time_us, 5400);
  EXPECT_EQ(s[0].ctime_us, 800);
  EXPECT_EQ(s[0].wait_us, 1000);
  EXPECT_EQ(s[0].start_us, static_cast<int64_t>(kStartNs / 1000 + 2000));
}

// ab's own procedure, step by step: completion order, then stable sorts by connect, processing,
// waiting and total time; medians read from each sorted order (with ab's odd-count quirk).
// ab_samples() and the report reach the same order and medians by other means.
TEST(AbReport, SamplesAndMediansMatchAbsSortChainWithTies) {
  std::srand(7);
  for (int round = 0; round < 200; ++round) {
    AbData r = three_requests();
    r.request_log.clear();
    const int n = 1 + std::rand() % 40;
    for (int i = 0; i < n; ++i) {
      // Few distinct values (whole milliseconds), so that ties are everywhere.
      const uint64_t connect = static_cast<uint64_t>(std::rand() % 3) * kMs;
      const uint64_t wait = static_cast<uint64_t>(std::rand() % 3) * kMs;
      const uint64_t total = connect + wait + static_cast<uint64_t>(std::rand() % 3) * kMs;
      r.request_log.push_back(
          record(static_cast<uint64_t>(std::rand() % 4) * kMs, connect, wait, total, 100, 200));
    }
    std::vector<AbSample> ref;
    std::vector<const RequestRecord*> done;
    for (const RequestRecord& rec : r.request_log) done.push_back(&rec);
    std::stable_sort(done.begin(), done.end(), [](const RequestRecord* a, const RequestRecord* b) {
      return a->start_unix_ns + a->total_ns < b->start_unix_ns + b->total_ns;
    });
    for (const RequestRecord* rec : done) {
      AbSample a;
      a.start_us = static_cast<int64_t>(rec->start_unix_ns / 1000);
      a.ctime_us = static_cast<int64_t>(rec->connect_ns / 1000);
      a.time_us = std::max(a.ctime_us, static_cast<int64_t>(rec->total_ns / 1000));
      a.wait_us = static_cast<int64_t>(rec->wait_ns / 1000);
      ref.push_back(a);
    }
    const auto median = [&ref](auto key) {
      std::stable_sort(ref.begin(), ref.end(),
                       [&](const AbSample& a, const AbSample& b) { return key(a) < key(b); });
      const size_t m = ref.size();
      const int64_t v =
          m > 1 && m % 2 == 1 ? (key(ref[m / 2]) + key(ref[m / 2 + 1])) / 2 : key(ref[m / 2]);
      return (v + 500) / 1000;
    };
    const int64_t med_connect = median([](const AbSample& a) { return a.ctime_us; });
    const int64_t med_processing = median([](const AbSample& a) { return a.time_us - a.ctime_us; });
    const int64_t med_wait = median([](const AbSample& a) { return a.wait_us; });
    const int64_t med_total = median([](const AbSample& a) { return a.time_us; });

    const std::vector<AbSample> got = ab_samples(r.request_log);
    ASSERT_EQ(got.size(), ref.size());
    for (size_t i = 0; i < ref.size(); ++i) {
      ASSERT_EQ(got[i].start_us, ref[i].start_us) << "round " << round << " index " << i;
      ASSERT_EQ(got[i].ctime_us, ref[i].ctime_us);
      ASSERT_EQ(got[i].time_us, ref[i].time_us);
      ASSERT_EQ(got[i].wait_us, ref[i].wait_us);
    }
    r.counters.completed = static_cast<uint64_t>(n);
    const std::string text = render_ab_report(r.run(), got, options());
    const auto median_column = [&text](const char* label) {
      const size_t at = text.find(label);
      EXPECT_NE(at, std::string::npos) << label;
      long long min = 0, mean = 0, med = 0, max = 0;
      double sd = 0;
      EXPECT_EQ(std::sscanf(text.c_str() + at + 12, "%lld %lld %lf %lld %lld", &min, &mean, &sd,
                            &med, &max),
                5);
      return static_cast<int64_t>(med);
    };
    EXPECT_EQ(median_column("Connect:    "), med_connect) << "round " << round;
    EXPECT_EQ(median_column("Processing: "), med_processing) << "round " << round;
    EXPECT_EQ(median_column("Waiting:    "), med_wait) << "round " << round;
    EXPECT_EQ(median_column("Total:      "), med_total) << "round " << round;
  }
}

TEST(AbReport, FullReport) {
  const AbData r = three_requests();
  const std::string text = render_ab_report(r.run(), ab_samples(r.request_log), options());
  EXPECT_EQ(text,
            "\n\n"
            "Server Software:        hail/1.0\n"
            "Server Hostname:        127.0.0.1\n"
            "Server Port:            8080\n"
            "\n"
            "Document Path:          /x?y=1\n"
            "Document Length:        100 bytes\n"
            "\n"
            "Concurrency Level:      2\n"
            "Time taken for tests:   0.250 seconds\n"
            "Complete requests:      3\n"
            "Failed requests:        5\n"
            "   (Connect: 2, Receive: 1, Length: 1, Exceptions: 1)\n"
            "Non-2xx responses:      1\n"
            "Keep-Alive requests:    3\n"
            "Total transferred:      1000 bytes\n"
            "HTML transferred:       290 bytes\n"
            "Requests per second:    12.00 [#/sec] (mean)\n"
            "Time per request:       166.667 [ms] (mean)\n"
            "Time per request:       83.333 [ms] (mean, across all concurrent requests)\n"
            "Transfer rate:          3.91 [Kbytes/sec] received\n"
            "\n"
            "Connection Times (ms)\n"
            "              min  mean[+/-sd] median   max\n"
            "Connect:        0    1   0.6      1       1\n"
            "Processing:     2    3   1.4      4       4\n"
            "Waiting:        1    2   1.0      3       3\n"
            "Total:          2    4   1.6      4       5\n"
            "\n"
            "Percentage of the requests served within a certain time (ms)\n"
            "  50%      4\n"
            "  66%      4\n"
            "  75%      5\n"
            "  80%      5\n"
            "  90%      5\n"
            "  95%      5\n"
            "  98%      5\n"
            "  99%      5\n"
            " 100%      5 (longest request)\n");
}

TEST(AbReport, VariantsOfTheReport) {
  AbData r = three_requests();
  AbReportOptions o = options();
  o.keep_alive = false;
  o.variable_length = true;  // -l: no Length failures, "Variable"
  o.confidence = false;      // -S
  o.percentiles = false;     // -d
  o.send_body = true;
  o.ssl_protocol = "TLSv1.3,TLS_AES_256_GCM_SHA384,2048,256";
  o.server_temp_key = "X25519 253 bits";
  o.tls_server_name = "example.com";
  const std::string text = render_ab_report(r.run(), ab_samples(r.request_log), o);
  EXPECT_NE(text.find("Server Port:            8080\n"
                      "SSL/TLS Protocol:       TLSv1.3,TLS_AES_256_GCM_SHA384,2048,256\n"
                      "Server Temp Key:        X25519 253 bits\n"
                      "TLS Server Name:        example.com\n\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Document Length:        Variable\n"), std::string::npos);
  EXPECT_NE(text.find("Failed requests:        4\n"
                      "   (Connect: 2, Receive: 1, Length: 0, Exceptions: 1)\n"),
            std::string::npos);
  EXPECT_EQ(text.find("Keep-Alive requests:"), std::string::npos);
  EXPECT_NE(text.find("Total transferred:      1000 bytes\n"
                      "Total body sent:        300\n"
                      "HTML transferred:       290 bytes\n"),
            std::string::npos);
  EXPECT_NE(text.find("Transfer rate:          3.91 [Kbytes/sec] received\n"
                      "                        1.17 kb/s sent\n"
                      "                        5.08 kb/s total\n"),
            std::string::npos)
      << text;
  const std::string tail =
      "\nConnection Times (ms)\n"
      "              min   avg   max\n"
      "Connect:        0     1    1\n"
      "Processing:     2     3    4\n"
      "Waiting:        1     2    3\n"
      "Total:          2     4    5\n";
  ASSERT_GE(text.size(), tail.size());
  EXPECT_EQ(text.substr(text.size() - tail.size()), tail);
}

TEST(AbReport, WarningsWhenMeanAndMedianDisagree) {
  AbData r;
  r.duration_ns = kMs;
  r.counters.completed = 3;
  r.document_length = 0;
  r.request_log = {record(0, 0, 100 * kUs, 1400 * kUs, 0, 200),
                   record(0, 0, 100 * kUs, 1400 * kUs, 0, 200),
                   record(0, 0, 100 * kUs, 1600 * kUs, 0, 200)};
  AbReportOptions o = options();
  o.keep_alive = false;
  const std::string text = render_ab_report(r.run(), ab_samples(r.request_log), o);
  // mean 1466 us -> 1 ms; ab's median for an odd count averages elements 1 and 2: 1500 -> 2 ms.
  EXPECT_NE(text.find("Total:          1    1   0.1      2       2\n"
                      "ERROR: The median and mean for the processing time are more than twice "
                      "the standard\n"
                      "       deviation apart. These results are NOT reliable.\n"
                      "ERROR: The median and mean for the total time are more than twice the "
                      "standard\n"
                      "       deviation apart. These results are NOT reliable.\n"),
            std::string::npos)
      << text;
}

TEST(AbReport, NothingCompleted) {
  AbData r;
  r.duration_ns = kMs;
  AbReportOptions o = options();
  o.keep_alive = false;
  const std::string text = render_ab_report(r.run(), {}, o);
  EXPECT_TRUE(
      text.ends_with("Complete requests:      0\n"
                     "Failed requests:        0\n"
                     "Total transferred:      0 bytes\n"
                     "HTML transferred:       0 bytes\n"))
      << text;
  EXPECT_NE(text.find("Document Length:        0 bytes\n"), std::string::npos);
  EXPECT_EQ(render_ab_csv({}), "Percentage served,Time in ms\n");
}

TEST(AbReport, HtmlReport) {
  EXPECT_EQ(render_ab_html_copyright(),
            "<p>\n"
            " This is ApacheBench, Version 2.3 <i>&lt;$Revision$&gt;</i><br>\n"
            " Copyright 1996 Adam Twiss, Zeus Technology Ltd, http://www.zeustech.net/<br>\n"
            " Licensed to The Apache Software Foundation, http://www.apache.org/<br>\n"
            "</p>\n<p>\n");
  const AbData r = three_requests();
  AbHtmlAttributes html;
  html.table = "border=1";
  const std::string th = "<tr ><th colspan=2 bgcolor=white>";
  const std::string td = "</th><td colspan=2 bgcolor=white>";
  EXPECT_EQ(render_ab_html_report(r.run(), ab_samples(r.request_log), options(), html),
            "\n\n<table border=1>\n" + th + "Server Software:" + td + "hail/1.0</td></tr>\n" + th +
                "Server Hostname:" + td + "127.0.0.1</td></tr>\n" + th + "Server Port:" + td +
                "8080</td></tr>\n" + th + "Document Path:" + td + "/x?y=1</td></tr>\n" + th +
                "Document Length:" + td + "100 bytes</td></tr>\n" + th + "Concurrency Level:" + td +
                "2</td></tr>\n" + th + "Time taken for tests:" + td + "0.250 seconds</td></tr>\n" +
                th + "Complete requests:" + td + "3</td></tr>\n" + th + "Failed requests:" + td +
                "5</td></tr>\n" +
                "<tr ><td colspan=4 bgcolor=white >   (Connect: 2, Length: 1, Exceptions: 1)"
                "</td></tr>\n" +
                th + "Non-2xx responses:" + td + "1</td></tr>\n" + th +
                "Keep-Alive requests:" + td + "3</td></tr>\n" + th + "Total transferred:" + td +
                "1000 bytes</td></tr>\n" + th + "HTML transferred:" + td + "290 bytes</td></tr>\n" +
                th + "Requests per second:" + td + "12.00</td></tr>\n" + th +
                "Transfer rate:" + td + "3.91 kb/s received</td></tr>\n" +
                "<tr ><th bgcolor=white colspan=4>Connection Times (ms)</th></tr>\n"
                "<tr ><th bgcolor=white>&nbsp;</th> <th bgcolor=white>min</th>   "
                "<th bgcolor=white>avg</th>   <th bgcolor=white>max</th></tr>\n"
                "<tr ><th bgcolor=white>Connect:</th><td bgcolor=white>    0</td>"
                "<td bgcolor=white>    0</td><td bgcolor=white>    1</td></tr>\n"
                "<tr ><th bgcolor=white>Processing:</th><td bgcolor=white>    2</td>"
                "<td bgcolor=white>    3</td><td bgcolor=white>    4</td></tr>\n"
                "<tr ><th bgcolor=white>Total:</th><td bgcolor=white>    2</td>"
                "<td bgcolor=white>    3</td><td bgcolor=white>    5</td></tr>\n"
                "</table>\n");
}

TEST(AbReport, CsvFile) {
  const std::string csv = render_ab_csv(ab_samples(three_requests().request_log));
  std::string expected = "Percentage served,Time in ms\n";
  for (int i = 0; i <= 100; ++i) {
    // ab's rows: element (int)(0.5 + n * i / 100); past the end, the longest request.
    const char* ms = i < 17 ? "2.300" : i < 50 ? "3.500" : "5.400";
    expected += std::to_string(i) + "," + ms + "\n";
  }
  EXPECT_EQ(csv, expected);
}

TEST(AbReport, GnuplotFile) {
  const char* old_tz = std::getenv("TZ");
  const std::string saved = old_tz != nullptr ? old_tz : "";
  setenv("TZ", "UTC", 1);
  tzset();
  const std::string tsv = render_ab_gnuplot(ab_samples(three_requests().request_log));
  if (old_tz != nullptr) {
    setenv("TZ", saved.c_str(), 1);
  } else {
    unsetenv("TZ");
  }
  tzset();
  EXPECT_EQ(tsv,
            "starttime\tseconds\tctime\tdtime\tttime\twait\n"
            "Tue Nov 14 22:13:20 2023\t1700000000\t1\t2\t2\t1\n"
            "Tue Nov 14 22:13:20 2023\t1700000000\t0\t4\t4\t3\n"
            "Tue Nov 14 22:13:20 2023\t1700000000\t1\t4\t5\t2\n");
}

TEST(AbReport, FailuresAndKeepAlive) {
  AbData r = three_requests();
  AbFailures f = ab_failures(r.run(), false);
  EXPECT_EQ(f.connect, 2u);
  EXPECT_EQ(f.receive, 1u);
  EXPECT_EQ(f.length, 1u);
  EXPECT_EQ(f.exceptions, 1u);
  EXPECT_EQ(f.total(), 5u);
  EXPECT_EQ(ab_failures(r.run(), true).length, 0u);
  EXPECT_EQ(ab_keep_alive_requests(r.run(), 2), 3u);
  EXPECT_EQ(ab_keep_alive_requests(r.run(), 1), 2u);  // one connection closed by the server
  // No connection ever carried a second request: the server does not keep connections alive.
  for (RequestRecord& rec : r.request_log) rec.connect_ns = 5;
  EXPECT_EQ(ab_keep_alive_requests(r.run(), 2), 0u);
}

TEST(AbReport, ServerSoftware) {
  EXPECT_EQ(ab_server_software("Apache/2.4.62 (Debian)"), "Apache/2.4.62");
  EXPECT_EQ(ab_server_software("nginx"), "nginx");
  EXPECT_EQ(ab_server_software(""), "");
  EXPECT_EQ(ab_server_software("caf\xc3\xa9 x"), "caf");
}

}  // namespace
}  // namespace hail
