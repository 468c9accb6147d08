// HdrHistogram interval logs (--hlog FILE, and `hail merge --hlog`): a RunResult's measured
// --interval windows as HdrHistogram's log format 1.3, the text org.HdrHistogram.HistogramLogWriter
// writes and HistogramLogReader / HistogramLogProcessor read. Owner: report. Pure: any thread.
#pragma once

#include <cstdint>
#include <string>

#include "stats/run_result.h"

namespace hail {

// The log, in this order:
//   #[Logged with hail VERSION]                       a comment, as jHiccup and others start theirs
//   #[Histogram log format version 1.3]
//   #[StartTime: S (seconds since epoch), DATE]       S: result.start_unix_ns (the load's start,
//   #[BaseTime: S (seconds since epoch)]              warm-up included), in ms; DATE in UTC
//   "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
//   Tag=latency,START,LENGTH,MAX,HISTF...             one per measured window, then in rate mode
//   Tag=service,...  Tag=lag,...                      the window's service-time and lag lines
// START and LENGTH are seconds relative to BaseTime (so START is the time series' t_start_s),
// three decimals. Histogram values are nanoseconds. MAX is in milliseconds, three decimals, and is
// what HistogramLogWriter writes by default (getMaxValue() / 1e6): the highest value equivalent to
// the maximum's slot, 0.000 for an empty window. Warm-up windows are left out: HdrHistogram's tools
// add up every line they read. Every measured window has its lines, even one where nothing
// completed (an empty histogram), so that the log's timeline has no holes.
std::string render_hlog(const RunResult& result);

// Interval_Max as HistogramLogWriter writes it for a histogram whose largest value is max_ns:
// the highest value of max_ns's slot (highest_trackable_ns's slot beyond it), in ms.
double hlog_interval_max_ms(uint64_t max_ns, uint64_t count,
                            uint64_t highest_trackable_ns = Histogram::kDefaultHighestTrackableNs);

}  // namespace hail
