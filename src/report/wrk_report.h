// wrk 4.1's and wrk2's output, byte for byte in layout: the "Running ..." banner and the report
// (thread stats, latency distribution, wrk2's HdrHistogram percentile spectrum, totals, errors,
// rates), with wrk's own unit formatting. Owner: report. Pure functions of their arguments; any
// thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "stats/histogram.h"
#include "stats/run_result.h"

namespace hail {

// "Running 10s test @ URL\n  2 threads and 10 connections\n". The URL as the user typed it (wrk
// prints argv verbatim); threads and connections as given. Plain values rather than RunOptions:
// the report library stays independent of the load library.
std::string render_wrk_banner(uint64_t duration_ns, std::string_view url, uint64_t threads,
                              uint64_t connections);

// Everything wrk prints after the run, up to and including "Transfer/sec:". rate_samples: each
// thread's requests/s per 100 ms (load/collectors.h), its Req/Sec row. latency_distribution: wrk's
// --latency table (50/75/90/99%).
std::string render_wrk_report(const RunResult& result, const Histogram& rate_samples,
                              bool latency_distribution);

// wrk2's banner: wrk's, then one line where wrk2 prints its per-thread "Thread calibration" lines
// (wrk2 spends ~10 s measuring before it records; hail's schedule needs no calibration, so it
// records from the first request and says so in a line wrk2's parsers will not mistake for one).
std::string render_wrk2_banner(uint64_t duration_ns, std::string_view url, uint64_t threads,
                               uint64_t connections);

// Everything wrk2 prints after the run. result.latency is the corrected latency (rate mode);
// latency_distribution (-L): its percentiles and the detailed spectrum of result.latency;
// uncorrected (-U): the same for result.service_time.
std::string render_wrk2_report(const RunResult& result, const Histogram& rate_samples,
                               bool latency_distribution, bool uncorrected);

// HdrHistogram's classic percentile table (hdr_percentiles_print with 5 ticks per half distance,
// as wrk2 calls it): "Value Percentile TotalCount 1/(1-Percentile)" rows in milliseconds, then the
// "#[Mean ...", "#[Max ..." and "#[Buckets ..." footer, for a histogram of nanoseconds.
std::string render_hdr_percentiles(const Histogram& histogram);

// wrk's units.c: two decimals in the largest unit the value reaches 85% of.
// 850 us -> "0.85ms"; from 1e6 us on, seconds/minutes: "1.00s", "0.85m" (never hours).
std::string wrk_format_time_us(long double us);
// No decimals: "10s", "2m" (never hours: 3600 s is "60m").
std::string wrk_format_time_s(long double seconds);
// Powers of 1000, no unit below: "999.00", "0.85k", "12.30M".
std::string wrk_format_metric(long double n);
// Powers of 1024, no unit below (wrk appends "B" itself): "512.00", "0.85K", "1.50M".
std::string wrk_format_binary(long double n);

// What wrk's print_stats shows for one distribution, in the histogram's units divided by
// `divisor` (1000: nanoseconds to wrk's microseconds).
struct WrkStats {
  uint64_t count = 0;
  long double mean = 0;
  long double stdev = 0;  // the sample deviation (n - 1), as wrk computes it
  long double max = 0;    // whole units, truncated as wrk's integer samples are
  // The share of samples within one deviation of the mean, in percent; meaningless (wrk prints
  // "-nan") when count is 0.
  long double within_stdev_percent = 0;
};
// population_stdev: the deviation over n (HdrHistogram's, which wrk2 prints for latency).
WrkStats wrk_stats(const Histogram& histogram, uint64_t divisor, bool population_stdev = false);

}  // namespace hail
