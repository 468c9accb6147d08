// webbench 1.5's output: the copyright lines (stderr), the "Benchmarking: ..." banner and its
// two-line summary (Speed in pages/min and bytes/sec, Requests succeeded and failed), with its
// formulas and its spelling. Owner: report. Pure functions of their arguments; any thread.
#pragma once

#include <cstdint>
#include <string>

#include "stats/run_result.h"

namespace hail {

// "Webbench - Simple Web Benchmark 1.5" and the copyright line: webbench prints them on stderr
// before it looks at the URL.
std::string render_webbench_copyright();

// What the banner shows, as webbench prints it (plain values: the report library stays
// independent of the command-line library).
struct WebbenchBannerInfo {
  std::string method = "GET";  // GET, HEAD, OPTIONS or TRACE
  std::string url;             // as typed
  int http_level = 1;          // 0 = HTTP/0.9, 1 = HTTP/1.0 (not named), 2 = HTTP/1.1
  int64_t clients = 1;
  int64_t seconds = 30;
  bool force = false;  // ", early socket close"
  bool proxy = false;  // ", via proxy server HOST:PORT"
  std::string proxy_host;
  int64_t proxy_port = 80;
  bool reload = false;  // ", forcing reload"
};

// "\nBenchmarking: GET URL (using HTTP/1.1)\n1 client, running 30 sec.\n" (stdout).
std::string render_webbench_banner(const WebbenchBannerInfo& info);

// webbench's counts for a hail run. A request webbench counts as "susceed" is one whose response
// it read to the end, whatever its status: hail's completed requests. Everything else it counts
// as failed: every hail error, connect errors included (hail's are retried with a backoff where
// webbench retries at once, so it sees fewer). Speed counts both, per minute.
struct WebbenchSummary {
  int64_t pages_per_min = 0;
  int64_t bytes_per_s = 0;
  uint64_t succeeded = 0;
  uint64_t failed = 0;
};
// seconds: the -t value, webbench's divisor; an interrupted run divides by the time it measured.
WebbenchSummary webbench_summary(const RunResult& result, int64_t seconds);

// "\nSpeed=N pages/min, B bytes/sec.\nRequests: S susceed, F failed.\n" (webbench's spelling).
std::string render_webbench_report(const RunResult& result, int64_t seconds);

}  // namespace hail
