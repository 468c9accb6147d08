#include "report/hlog_writer.h"

#include <time.h>

#include <algorithm>
#include <string_view>

#include "core/strings.h"
#include "stats/hdr_string.h"

#ifndef HAIL_VERSION_STRING
#define HAIL_VERSION_STRING "0.0.0"
#endif

namespace hail {

namespace {

constexpr uint64_t kNsPerMs = 1'000'000;

// Whole milliseconds as "S.mmm" seconds: integer arithmetic, so that a start time of 1.7e9 s keeps
// its last digit (a double's "%.3f" would also do, but only just).
std::string seconds_from_ms(uint64_t ms) {
  return string_printf("%llu.%03llu", static_cast<unsigned long long>(ms / 1000),
                       static_cast<unsigned long long>(ms % 1000));
}

// java.util.Date.toString()'s layout ("Sun Nov 30 02:35:23 UTC 2025"), in UTC so that the log does
// not depend on the machine's time zone; the names are spelled here, not taken from the locale.
std::string java_date_utc(uint64_t ms) {
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const auto seconds = static_cast<time_t>(ms / 1000);
  struct tm t {};
  if (gmtime_r(&seconds, &t) == nullptr) return "?";
  return string_printf("%s %s %02d %02d:%02d:%02d UTC %d", kDays[t.tm_wday], kMonths[t.tm_mon],
                       t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec, t.tm_year + 1900);
}

void append_line(std::string& out, std::string_view tag, const WindowStats& w,
                 const EncodedHistogram& histogram) {
  out += "Tag=";
  out += tag;
  out += string_printf(
      ",%.3f,%.3f,%.3f,", static_cast<double>(w.start_ns) / 1e9,
      static_cast<double>(w.duration_ns()) / 1e9,
      hlog_interval_max_ms(histogram.max(), histogram.count(), histogram.highest_trackable_ns()));
  out += encode_histf(histogram.decode());
  out += '\n';
}

}  // namespace

double hlog_interval_max_ms(uint64_t max_ns, uint64_t count, uint64_t highest_trackable_ns) {
  if (count == 0) return 0.0;
  const uint64_t slot_value = std::min(max_ns, highest_trackable_ns);
  return static_cast<double>(Histogram::highest_equivalent(Histogram::index_of(slot_value))) /
         static_cast<double>(kNsPerMs);
}

std::string render_hlog(const RunResult& result) {
  const uint64_t start_ms = result.start_unix_ns / kNsPerMs;
  std::string out;
  out += "#[Logged with hail " HAIL_VERSION_STRING "]\n";
  out += "#[Histogram log format version 1.3]\n";
  out += "#[StartTime: " + seconds_from_ms(start_ms) + " (seconds since epoch), " +
         java_date_utc(start_ms) + "]\n";
  // Interval times count from the load's start, as the time series' do; BaseTime says so, rather
  // than leaving readers to guess from how far they lie before StartTime.
  out += "#[BaseTime: " + seconds_from_ms(start_ms) + " (seconds since epoch)]\n";
  out +=
      "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n";
  const bool open_loop = result.rate_mode();
  for (const WindowStats& w : result.intervals) {
    if (w.warmup) continue;
    append_line(out, "latency", w, w.latency);
    if (open_loop) {
      append_line(out, "service", w, w.service);
      append_line(out, "lag", w, w.lag);
    }
  }
  return out;
}

}  // namespace hail
