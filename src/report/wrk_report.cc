#include "report/wrk_report.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <string>

#include "core/clock.h"
#include "core/strings.h"
#include "stats/error_class.h"

namespace hail {

namespace {

// wrk's format_units: move up a unit while the amount reaches 85% of the next one, but never into
// the last unit of the list (wrk stops when the unit after next is missing).
std::string format_units(long double n, int scale, const char* base,
                         std::initializer_list<const char*> units, int precision) {
  long double amount = n;
  const char* unit = base;
  // Computed in double, as wrk does (int * 0.85): 1024 * 0.85 is a hair below 870.4.
  const long double threshold = scale * 0.85;
  const char* const* u = units.begin();
  for (size_t i = 0; i + 1 < units.size() && amount >= threshold; ++i) {
    amount /= scale;
    unit = u[i];
  }
  return string_printf("%.*Lf%s", precision, amount, unit);
}

void append(std::string& out, const char* fmt, auto... args) {
  out += string_printf(fmt, args...);
}

// wrk's print_units: the text right-aligned in `width` columns counting a two-letter unit, so
// that numbers line up whatever their unit ("1.00ms", "2.00s ", "3.00  "); longer text is cut.
void print_units(std::string& out, const std::string& text, int width) {
  const size_t len = text.size();
  int pad = 2;
  if (len >= 1 && std::isalpha(static_cast<unsigned char>(text[len - 1]))) --pad;
  if (len >= 2 && std::isalpha(static_cast<unsigned char>(text[len - 2]))) --pad;
  width -= pad;
  append(out, "%*.*s%.*s", width, width, text.c_str(), pad, "  ");
}

using Formatter = std::string (*)(long double);

void print_stats(std::string& out, const char* name, const WrkStats& s, Formatter format) {
  append(out, "    %-10s", name);
  print_units(out, format(s.mean), 8);
  print_units(out, format(s.stdev), 10);
  print_units(out, format(s.max), 9);
  if (s.count == 0) {
    out += "    -nan%\n";  // wrk divides 0 by 0 here
  } else {
    append(out, "%8.2Lf%%\n", s.within_stdev_percent);
  }
}

// wrk's error classes: hail's parse and HTTP/2 stream errors are what wrk would see as read
// errors (wrk counts a response its parser rejects as one).
uint64_t read_errors(const Counters& c) {
  return c.error(ErrorClass::kRead) + c.error(ErrorClass::kParse) + c.error(ErrorClass::kStream);
}

}  // namespace

std::string wrk_format_time_us(long double us) {
  if (us >= 1'000'000.0L) return format_units(us / 1'000'000.0L, 60, "s", {"m", "h"}, 2);
  return format_units(us, 1000, "us", {"ms", "s"}, 2);
}

std::string wrk_format_time_s(long double seconds) {
  return format_units(seconds, 60, "s", {"m", "h"}, 0);
}

std::string wrk_format_metric(long double n) {
  return format_units(n, 1000, "", {"k", "M", "G", "T", "P"}, 2);
}

std::string wrk_format_binary(long double n) {
  return format_units(n, 1024, "", {"K", "M", "G", "T", "P"}, 2);
}

WrkStats wrk_stats(const Histogram& h, uint64_t divisor) {
  WrkStats s;
  s.count = h.count();
  if (s.count == 0) return s;
  const auto d = static_cast<long double>(divisor);
  s.mean = static_cast<long double>(h.mean()) / d;
  if (s.count >= 2) {
    // Histogram::stdev is the population deviation; wrk divides by n - 1.
    const long double n = static_cast<long double>(s.count);
    const long double population = static_cast<long double>(h.stdev()) / d;
    s.stdev = std::sqrt(population * population * n / (n - 1));
  }
  s.max = static_cast<long double>(h.max() / divisor);
  if (s.stdev == 0) {
    // All samples in one slot: wrk's integer samples would all equal the mean. Slot values are
    // slot tops while the mean is over slot midpoints, so comparing them would miss.
    s.within_stdev_percent = 100;
    return s;
  }
  const long double lower = s.mean - s.stdev;
  const long double upper = s.mean + s.stdev;
  uint64_t within = 0;
  h.for_each_recorded([&](uint64_t value, uint64_t count) {
    const long double v = static_cast<long double>(value) / d;
    if (v >= lower && v <= upper) within += count;
  });
  s.within_stdev_percent =
      static_cast<long double>(within) / static_cast<long double>(s.count) * 100;
  return s;
}

std::string render_wrk_banner(uint64_t duration_ns, std::string_view url, uint64_t threads,
                              uint64_t connections) {
  std::string out = "Running " +
                    wrk_format_time_s(static_cast<long double>(duration_ns / 1'000'000'000)) +
                    " test @ " + std::string(url) + "\n";
  append(out, "  %llu threads and %llu connections\n", static_cast<unsigned long long>(threads),
         static_cast<unsigned long long>(connections));
  return out;
}

std::string render_wrk_report(const RunResult& r, const Histogram& rate_samples,
                              bool latency_distribution) {
  std::string out;
  append(out, "  Thread Stats%6s%11s%8s%12s\n", "Avg", "Stdev", "Max", "+/- Stdev");
  print_stats(out, "Latency", wrk_stats(r.latency, kNsPerUs), wrk_format_time_us);
  print_stats(out, "Req/Sec", wrk_stats(rate_samples, 1), wrk_format_metric);
  if (latency_distribution) {
    out += "  Latency Distribution\n";
    for (const long double p : {50.0L, 75.0L, 90.0L, 99.0L}) {
      const uint64_t us = r.latency.count() == 0
                              ? 0
                              : r.latency.value_at_percentile(static_cast<double>(p)) / kNsPerUs;
      append(out, "%7.0Lf%%", p);
      print_units(out, wrk_format_time_us(static_cast<long double>(us)), 10);
      out += '\n';
    }
  }

  const Counters& c = r.counters;
  const uint64_t runtime_us = r.duration_ns / kNsPerUs;
  append(out, "  %llu requests in %s, %sB read\n", static_cast<unsigned long long>(c.completed),
         wrk_format_time_us(static_cast<long double>(runtime_us)).c_str(),
         wrk_format_binary(static_cast<long double>(c.bytes_read)).c_str());
  const uint64_t connect = c.error(ErrorClass::kConnect);
  const uint64_t read = read_errors(c);
  const uint64_t write = c.error(ErrorClass::kWrite);
  const uint64_t timeout = c.error(ErrorClass::kTimeout);
  if (connect != 0 || read != 0 || write != 0 || timeout != 0) {
    append(out, "  Socket errors: connect %llu, read %llu, write %llu, timeout %llu\n",
           static_cast<unsigned long long>(connect), static_cast<unsigned long long>(read),
           static_cast<unsigned long long>(write), static_cast<unsigned long long>(timeout));
  }
  // wrk counts statuses above 399 only, whatever the label says.
  uint64_t non_success = 0;
  for (const auto& [code, count] : r.status_codes) {
    if (code > 399) non_success += count;
  }
  if (non_success != 0) {
    append(out, "  Non-2xx or 3xx responses: %llu\n", static_cast<unsigned long long>(non_success));
  }
  const long double runtime_s = static_cast<long double>(runtime_us) / 1'000'000.0L;
  const long double requests_per_s =
      runtime_us == 0 ? 0.0L : static_cast<long double>(c.completed) / runtime_s;
  const long double bytes_per_s =
      runtime_us == 0 ? 0.0L : static_cast<long double>(c.bytes_read) / runtime_s;
  append(out, "Requests/sec: %9.2Lf\n", requests_per_s);
  append(out, "Transfer/sec: %10sB\n", wrk_format_binary(bytes_per_s).c_str());
  return out;
}

}  // namespace hail
