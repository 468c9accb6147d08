// Live metrics as text: a MetricsSnapshot (what --metrics-listen serves) rendered in Prometheus'
// text exposition format 0.0.4 or in OpenMetrics 1.0, and the duration buckets built from hail's
// exact latency histogram. Owner: report. Pure functions and plain values: any thread.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stats/error_class.h"
#include "stats/histogram.h"
#include "stats/time_series.h"

namespace hail {

enum class MetricsFormat { kPrometheus, kOpenMetrics };

// Upper bounds (seconds) of hail_request_duration_seconds' buckets, +Inf excluded: 1, 2, 5 per
// decade from 100 us to 50 s, then 60 s.
std::span<const double> metrics_bucket_bounds_s();

// One tag's (--urls line, hail.tag) completed responses.
struct TagCount {
  std::string tag;
  uint64_t completed = 0;
};

// Everything one scrape shows. Counters are cumulative since the load started, warm-up included.
struct MetricsSnapshot {
  std::string run_id;                     // empty: the run_id label is left out
  std::string shard;                      // "I/N", "0/1" unsharded
  StatusClassCounts requests_by_class{};  // status_class_index(): [1..5] 1xx..5xx, [0] other
  std::array<uint64_t, kErrorClassCount> errors{};
  // hail_request_duration_seconds: cumulative count at each metrics_bucket_bounds_s() bound,
  // then the total (+Inf) and the sum of the values in seconds.
  std::vector<uint64_t> duration_buckets;  // one per bound; empty: every bucket 0
  uint64_t duration_count = 0;
  double duration_sum_s = 0;
  uint64_t in_flight = 0;
  uint64_t open_connections = 0;
  double target_rate_per_s = 0;    // rate mode: this shard's target; 0 in a closed loop
  double achieved_rate_per_s = 0;  // the last whole window's completed responses per second
  double schedule_lag_s = 0;       // rate mode: p99 of the last whole window's scheduler lag
  double cpu_seconds = 0;          // this process' user + system CPU time
  bool up = true;                  // false once the run ended (lingering)
  bool warmup = false;             // the run is in its warm-up
  bool has_tags = false;           // a request mix: hail_tag_requests_total is shown
  std::vector<TagCount> tags;
};

// Sets duration_buckets, duration_count and duration_sum_s from `latency` (ns). A value counts
// towards a bound when the highest value of its HDR slot is at or below it (slots are 1/2048 of
// their value wide, so a value within 0.05% above a bound may count in the next bucket); the sum
// is over slot midpoints (Histogram::mean()).
void set_duration_buckets(MetricsSnapshot& snapshot, const Histogram& latency);

// The exposition, every line ending with '\n'; OpenMetrics ends with "# EOF".
std::string render_metrics(const MetricsSnapshot& snapshot, MetricsFormat format);

// The format a scraper's Accept header asks for: OpenMetrics when it names
// application/openmetrics-text (with a q above 0), else Prometheus' text format.
MetricsFormat metrics_format_for_accept(std::string_view accept);

// The Content-Type header value of `format`.
const char* metrics_content_type(MetricsFormat format);

// A label value with '\\', '"' and newlines escaped (both formats' rules).
std::string escape_label_value(std::string_view value);

}  // namespace hail
