#include <gtest/gtest.h>

#include <string>

#include "report/webbench_report.h"

namespace hail {
namespace {

RunResult result_with(uint64_t completed, uint64_t bytes_read) {
  RunResult r;
  r.duration_ns = 30'000'000'000;
  r.counters.completed = completed;
  r.counters.attempted = completed;
  r.counters.bytes_read = bytes_read;
  return r;
}

TEST(WebbenchReport, Copyright) {
  EXPECT_EQ(render_webbench_copyright(),
            "Webbench - Simple Web Benchmark 1.5\n"
            "Copyright (c) Radim Kolar 1997-2004, GPL Open Source Software.\n");
}

TEST(WebbenchReport, BannerVariants) {
  WebbenchBannerInfo info;
  info.url = "http://127.0.0.1:8080/";
  EXPECT_EQ(render_webbench_banner(info),
            "\nBenchmarking: GET http://127.0.0.1:8080/\n1 client, running 30 sec.\n");
  info.http_level = 2;
  info.clients = 10;
  info.seconds = 5;
  EXPECT_EQ(render_webbench_banner(info),
            "\nBenchmarking: GET http://127.0.0.1:8080/ (using HTTP/1.1)\n"
            "10 clients, running 5 sec.\n");
  info.http_level = 0;
  EXPECT_EQ(render_webbench_banner(info),
            "\nBenchmarking: GET http://127.0.0.1:8080/ (using HTTP/0.9)\n"
            "10 clients, running 5 sec.\n");
  // Every addition, in webbench's order (proxy before reload).
  info.method = "TRACE";
  info.http_level = 2;
  info.force = true;
  info.reload = true;
  info.proxy = true;
  info.proxy_host = "proxy.example";
  info.proxy_port = 3128;
  EXPECT_EQ(render_webbench_banner(info),
            "\nBenchmarking: TRACE http://127.0.0.1:8080/ (using HTTP/1.1)\n"
            "10 clients, running 5 sec, early socket close, via proxy server proxy.example:3128, "
            "forcing reload.\n");
  info = WebbenchBannerInfo{};
  info.method = "HEAD";
  info.url = "http://h/";
  info.clients = 0;  // "N clients" for anything but exactly 1
  EXPECT_EQ(render_webbench_banner(info),
            "\nBenchmarking: HEAD http://h/\n0 clients, running 30 sec.\n");
}

TEST(WebbenchReport, SummaryCountsAndUnits) {
  RunResult r = result_with(1000, 123456);
  r.counters.errors[static_cast<size_t>(ErrorClass::kConnect)] = 2;
  r.counters.errors[static_cast<size_t>(ErrorClass::kRead)] = 1;
  r.counters.errors[static_cast<size_t>(ErrorClass::kTimeout)] = 1;
  r.counters.errors[static_cast<size_t>(ErrorClass::kParse)] = 1;
  r.counters.status_errors = 40;  // non-2xx responses are webbench successes all the same
  // Speed counts successes and failures: 1005 per half minute.
  EXPECT_EQ(render_webbench_report(r, 30),
            "\nSpeed=2010 pages/min, 4115 bytes/sec.\nRequests: 1000 susceed, 5 failed.\n");
  const WebbenchSummary s = webbench_summary(r, 30);
  EXPECT_EQ(s.succeeded, 1000u);
  EXPECT_EQ(s.failed, 5u);
}

TEST(WebbenchReport, FloatArithmeticAsWebbenchDoes) {
  // 1 / (1 / 60.0f) is 59.999996 in float: webbench prints 5999 for 100 requests in 1 s.
  EXPECT_EQ(render_webbench_report(result_with(100, 0), 1),
            "\nSpeed=5999 pages/min, 0 bytes/sec.\nRequests: 100 susceed, 0 failed.\n");
  EXPECT_EQ(webbench_summary(result_with(30000, 0), 10).pages_per_min, 180000);
  // Bytes go through a float too: 123456789 becomes 123456792.
  EXPECT_EQ(webbench_summary(result_with(1, 123456789), 1).bytes_per_s, 123456792);
  EXPECT_EQ(webbench_summary(result_with(1, 123456789), 30).bytes_per_s, 4115226);
  // Past webbench's int (it would wrap): hail's 64-bit counts.
  EXPECT_EQ(webbench_summary(result_with(1, 6'000'000'000), 1).bytes_per_s, 6'000'000'000);
}

TEST(WebbenchReport, NothingHappened) {
  const RunResult empty;
  EXPECT_EQ(render_webbench_report(empty, 5),
            "\nSpeed=0 pages/min, 0 bytes/sec.\nRequests: 0 susceed, 0 failed.\n");
}

TEST(WebbenchReport, InterruptedRunDividesByItsTime) {
  RunResult r = result_with(100, 5000);
  r.interrupted = true;
  r.duration_ns = 2'500'000'000;
  EXPECT_EQ(render_webbench_report(r, 30),
            "\nSpeed=2400 pages/min, 2000 bytes/sec.\nRequests: 100 susceed, 0 failed.\n");
  r.duration_ns = 0;
  EXPECT_EQ(webbench_summary(r, 30).pages_per_min, 0);
}

}  // namespace
}  // namespace hail
