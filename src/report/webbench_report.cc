#include "report/webbench_report.h"

#include <cinttypes>
#include <cstdio>

#include "core/strings.h"

namespace hail {

namespace {

// webbench computes in float and truncates: (int)(n / (benchtime / 60.0f)). Doing the same in
// float gives its exact digits for the same counts (a float has 24 bits of mantissa, so large
// counts are rounded as webbench rounds them). hail's counts are 64-bit where webbench's int
// wraps, and the result is clamped instead of overflowing.
int64_t truncate_float(float value) {
  if (!(value > 0.0f)) return 0;  // also NaN
  constexpr float kMax = 9.2e18f;
  if (value >= kMax) return static_cast<int64_t>(kMax);
  return static_cast<int64_t>(value);
}

}  // namespace

std::string render_webbench_copyright() {
  return "Webbench - Simple Web Benchmark 1.5\n"
         "Copyright (c) Radim Kolar 1997-2004, GPL Open Source Software.\n";
}

std::string render_webbench_banner(const WebbenchBannerInfo& info) {
  std::string out = "\nBenchmarking: " + info.method + " " + info.url;
  if (info.http_level == 0) out += " (using HTTP/0.9)";
  if (info.http_level == 2) out += " (using HTTP/1.1)";
  out += "\n";
  out += info.clients == 1 ? std::string("1 client") : std::to_string(info.clients) + " clients";
  out += ", running " + std::to_string(info.seconds) + " sec";
  if (info.force) out += ", early socket close";
  if (info.proxy) {
    out += ", via proxy server " + info.proxy_host + ":" + std::to_string(info.proxy_port);
  }
  if (info.reload) out += ", forcing reload";
  out += ".\n";
  return out;
}

WebbenchSummary webbench_summary(const RunResult& result, int64_t seconds) {
  const Counters& c = result.counters;
  WebbenchSummary s;
  s.succeeded = c.completed;
  for (uint64_t n : c.errors) s.failed += n;
  const float divisor_s =
      result.interrupted ? static_cast<float>(result.duration_s()) : static_cast<float>(seconds);
  if (divisor_s > 0.0f) {
    s.pages_per_min =
        truncate_float(static_cast<float>(s.succeeded + s.failed) / (divisor_s / 60.0f));
    s.bytes_per_s = truncate_float(static_cast<float>(c.bytes_read) / divisor_s);
  }
  return s;
}

std::string render_webbench_report(const RunResult& result, int64_t seconds) {
  const WebbenchSummary s = webbench_summary(result, seconds);
  return string_printf("\nSpeed=%" PRId64 " pages/min, %" PRId64 " bytes/sec.\nRequests: %" PRIu64
                       " susceed, %" PRIu64 " failed.\n",
                       s.pages_per_min, s.bytes_per_s, s.succeeded, s.failed);
}

}  // namespace hail
