#include "report/wrk_report.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <limits>
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

void print_percentiles(std::string& out, const Histogram& h,
                       std::initializer_list<long double> percentiles, const char* label_format) {
  for (const long double p : percentiles) {
    const uint64_t us =
        h.count() == 0 ? 0 : h.value_at_percentile(static_cast<double>(p)) / kNsPerUs;
    append(out, label_format, p);
    print_units(out, wrk_format_time_us(static_cast<long double>(us)), 10);
    out += '\n';
  }
}

// Requests, errors, statuses and rates: the same lines in wrk and wrk2.
void print_totals(std::string& out, const RunResult& r);

constexpr double kNsPerMsDouble = 1e6;
constexpr int64_t kTicksPerHalfDistance = 5;  // wrk2's argument to hdr_percentiles_print
constexpr const char* kWrk2Rule = "----------------------------------------------------------\n";

// HdrHistogram's percentile iterator: reporting levels get twice as dense each time the distance
// to 100% halves.
int64_t half_distance(double percentile) {
  const auto halvings =
      static_cast<int64_t>(std::log(100.0 / (100.0 - percentile)) / std::log(2.0));
  return int64_t{1} << (halvings + 1);
}

// HdrHistogram's bucket_count for a histogram of (1, highest trackable value, 3 digits).
int hdr_bucket_count(const Histogram& h) {
  uint64_t smallest_untrackable = uint64_t{1} << Histogram::kSubBucketBits;
  int buckets = 1;
  while (smallest_untrackable <= h.highest_trackable_ns()) {
    smallest_untrackable <<= 1;
    ++buckets;
  }
  return buckets;
}

void print_spectrum(std::string& out, const Histogram& h, const char* description) {
  append(out, "  Latency Distribution (HdrHistogram - %s)\n", description);
  print_percentiles(out, h, {50.0L, 75.0L, 90.0L, 99.0L, 99.9L, 99.99L, 99.999L, 100.0L},
                    "%7.3Lf%%");
  out += "\n  Detailed Percentile spectrum:\n";
  out += render_hdr_percentiles(h);
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

WrkStats wrk_stats(const Histogram& h, uint64_t divisor, bool population_stdev) {
  WrkStats s;
  s.count = h.count();
  if (s.count == 0) return s;
  const auto d = static_cast<long double>(divisor);
  s.mean = static_cast<long double>(h.mean()) / d;
  if (population_stdev) {
    s.stdev = static_cast<long double>(h.stdev()) / d;
  } else if (s.count >= 2) {
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
    print_percentiles(out, r.latency, {50.0L, 75.0L, 90.0L, 99.0L}, "%7.0Lf%%");
  }
  print_totals(out, r);
  return out;
}

std::string render_wrk2_banner(uint64_t duration_ns, std::string_view url, uint64_t threads,
                               uint64_t connections) {
  return render_wrk_banner(duration_ns, url, threads, connections) +
         "  (hail: no thread calibration needed; latency is recorded from the first request)\n";
}

std::string render_wrk2_report(const RunResult& r, const Histogram& rate_samples,
                               bool latency_distribution, bool uncorrected) {
  std::string out;
  append(out, "  Thread Stats%6s%11s%8s%12s\n", "Avg", "Stdev", "Max", "+/- Stdev");
  print_stats(out, "Latency", wrk_stats(r.latency, kNsPerUs, true), wrk_format_time_us);
  print_stats(out, "Req/Sec", wrk_stats(rate_samples, 1), wrk_format_metric);
  if (latency_distribution) {
    print_spectrum(out, r.latency, "Recorded Latency");
    out += kWrk2Rule;
  }
  if (uncorrected) {
    out += '\n';
    print_spectrum(out, r.service_time,
                   "Uncorrected Latency (measured without taking delayed starts into account)");
    out += kWrk2Rule;
  }
  print_totals(out, r);
  return out;
}

std::string render_hdr_percentiles(const Histogram& h) {
  std::string out = string_printf("%12s %12s %12s %12s\n\n", "Value", "Percentile", "TotalCount",
                                  "1/(1-Percentile)");
  auto row = [&out](uint64_t value_ns, double percentile, uint64_t count_to) {
    const double share = percentile / 100.0;
    append(out, "%12.3f %12f %12llu %12.2f\n", static_cast<double>(value_ns) / kNsPerMsDouble,
           share, static_cast<unsigned long long>(count_to), 1.0 / (1.0 - share));
  };
  const uint64_t total = h.count();
  uint64_t last_value_ns = 0;
  if (total != 0) {
    double next = 0;
    uint64_t count_to = 0;
    h.for_each_recorded([&](uint64_t value_ns, uint64_t count) {
      count_to += count;
      last_value_ns = value_ns;
      const double current = 100.0 * static_cast<double>(count_to) / static_cast<double>(total);
      while (next <= current) {
        row(value_ns, next, count_to);
        next += 100.0 / static_cast<double>(kTicksPerHalfDistance * half_distance(next));
        // HdrHistogram's iterator stops at the slot that completes the count: one row there.
        if (count_to == total) break;
      }
    });
  }
  row(last_value_ns, 100.0, total);
  const double mean =
      total == 0 ? -std::numeric_limits<double>::quiet_NaN() : h.mean() / kNsPerMsDouble;
  const double stdev =
      total == 0 ? -std::numeric_limits<double>::quiet_NaN() : h.stdev() / kNsPerMsDouble;
  append(out, "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n", mean, stdev);
  append(out, "#[Max     = %12.3f, Total count    = %12llu]\n",
         static_cast<double>(h.max()) / kNsPerMsDouble, static_cast<unsigned long long>(total));
  append(out, "#[Buckets = %12d, SubBuckets     = %12d]\n", hdr_bucket_count(h),
         1 << Histogram::kSubBucketBits);
  return out;
}

namespace {

void print_totals(std::string& out, const RunResult& r) {
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
}

}  // namespace

}  // namespace hail
