#include "report/json_exact.h"

#include "report/json_shard.h"
#include "report/json_writer.h"
#include "stats/hdr_string.h"

namespace hail {

namespace {

// {"count", "min_ns", "max_ns", "out_of_range", "hdr"}: HdrHistogram's string carries the counts;
// the exact extremes and the out-of-range count, which its format has no room for, stand beside
// it (the reader checks that they agree with the counts).
void write_histogram(JsonWriter& j, std::string_view key, const Histogram& h) {
  j.begin_object(key);
  j.value("count", h.count());
  j.value("min_ns", h.min());
  j.value("max_ns", h.max());
  j.value("out_of_range", h.out_of_range());
  j.value("hdr", encode_histf(h));
  j.end_object();
}

// An encoded window histogram, through `scratch` (empty before and after): one dense histogram
// reused for every window instead of one mapping per window.
void write_histogram(JsonWriter& j, std::string_view key, const EncodedHistogram& e,
                     Histogram& scratch) {
  e.add_to(scratch);
  write_histogram(j, key, scratch);
  scratch.reset();
}

void write_class_counts(JsonWriter& j, std::string_view key,
                        const std::array<uint64_t, kErrorClassCount>& errors) {
  j.begin_object(key);
  for (size_t c = 0; c < kErrorClassCount; ++c) {
    j.value(error_class_name(static_cast<ErrorClass>(c)), errors[c]);
  }
  j.end_object();
}

void write_counters(JsonWriter& j, const Counters& c) {
  j.begin_object("counters");
  for (const CounterKey& k : kCounterKeys) j.value(k.key, c.*k.member);
  write_class_counts(j, "errors", c.errors);
  j.end_object();
}

void write_error_reasons(JsonWriter& j, const std::vector<ErrorReasonCount>& rows) {
  j.begin_array("error_reason_list");
  for (const ErrorReasonCount& row : rows) {
    j.begin_object();
    j.value("class", error_reason_class_label(row.error_class));
    j.value("reason", row.reason);
    j.value("errno", row.errno_value);
    j.value("count", row.count);
    j.end_object();
  }
  j.end_array();
}

void write_run_histograms(JsonWriter& j, const RunResult& r) {
  j.begin_object("histograms");
  j.begin_object("layout");
  j.value("format", kHistogramFormat);
  j.value("unit", kHistogramUnit);
  j.value("lowest_discernible_value", kHistogramLowestDiscernible);
  j.value("highest_trackable_value", kHistogramHighestTrackable);
  j.value("significant_digits", kHistogramSignificantDigits);
  j.end_object();
  for (const RunHistogramKey& k : kRunHistogramKeys) {
    const Histogram& h = r.*k.member;
    if (h.count() > 0) write_histogram(j, k.key, h);
  }
  j.end_object();
}

void write_window(JsonWriter& j, const WindowStats& w, Histogram& scratch) {
  j.begin_object();
  j.value("start_ns", w.start_ns);
  j.value("end_ns", w.end_ns);
  j.value("warmup", w.warmup);
  j.value("completed", w.completed);
  j.value("status_errors", w.status_errors);
  write_class_counts(j, "errors", w.errors);
  j.value("open_connections", w.open_connections);
  j.exact("target_start", w.target_start);
  j.exact("target_end", w.target_end);
  j.value("sources", w.sources);
  j.begin_object("histograms");
  for (const WindowHistogramKey& k : kWindowHistogramKeys) {
    const EncodedHistogram& e = w.*k.member;
    if (e.count() > 0) write_histogram(j, k.key, e, scratch);
  }
  j.end_object();
  if (!w.tags.empty()) {
    j.begin_array("tags");
    for (const TagWindow& t : w.tags) {
      j.begin_object();
      j.value("name", t.name);
      j.value("completed", t.completed);
      j.value("status_errors", t.status_errors);
      write_class_counts(j, "errors", t.errors);
      j.begin_object("histograms");
      if (t.latency.count() > 0) write_histogram(j, "latency", t.latency, scratch);
      j.end_object();
      j.end_object();
    }
    j.end_array();
  }
  j.end_object();
}

// "windows": {"intervals": [...], "steps": [...]}, element for element the rows of hail/1's
// "timeseries" and "stages"."steps" (which keep their exact hail/1 shape).
void write_windows(JsonWriter& j, const RunResult& r) {
  Histogram scratch;
  j.begin_object("windows");
  j.begin_array("intervals");
  if (r.interval_ns > 0) {
    for (const WindowStats& w : r.intervals) write_window(j, w, scratch);
  }
  j.end_array();
  j.begin_array("steps");
  for (const WindowStats& w : r.steps) write_window(j, w, scratch);
  j.end_array();
  j.end_object();
}

void write_merge(JsonWriter& j, const MergeSummary& m) {
  j.begin_object("merge");
  j.value("start_spread_ns", m.start_spread_ns);
  j.value("end_spread_ns", m.end_spread_ns);
  j.value("measured_union_ns", m.measured_union_ns);
  j.begin_array("inputs");
  for (const MergedInput& in : m.inputs) {
    j.begin_object();
    j.value("file", in.file);
    j.value("start_unix_ns", in.start_unix_ns);
    j.value("warmup_ns", in.warmup_ns);
    j.value("duration_ns", in.duration_ns);
    j.end_object();
  }
  j.end_array();
  j.end_object();
}

}  // namespace

void write_exact_block(JsonWriter& j, const ResultDocument& doc) {
  const RunResult& r = doc.result;
  j.value("start_unix_ns", r.start_unix_ns);
  j.value("duration_ns", r.duration_ns);
  j.value("duration_target_ns", r.duration_target_ns);
  j.value("warmup_ns", r.warmup_ns);
  j.value("timeout_ns", r.timeout_ns);
  j.value("http_minor", r.http_minor);
  j.begin_array("protocols");
  for (WireProtocol p : {WireProtocol::kHttp09, WireProtocol::kHttp10, WireProtocol::kHttp11,
                         WireProtocol::kHttp2}) {
    if (r.protocols.contains(p)) j.element(wire_protocol_name(p));
  }
  j.end_array();
  j.value("pipeline_depth", r.pipeline);
  j.value("streams_per_connection", r.streams);
  j.value("streams_effective_min", r.streams_effective_min);
  j.value("streams_effective_max", r.streams_effective_max);
  j.exact("rate_target_per_s", r.rate_target_per_s);
  j.value("backlog", r.backlog);
  j.value("target_unit", r.target_unit != nullptr ? r.target_unit : "");
  j.value("ladder", r.ladder);
  j.value("interval_ns", r.interval_ns);
  j.value("max_nap_ns", r.max_nap_ns);
  // Exactly: the generator-health verdict is judged again from it when the file is read back.
  j.exact("max_worker_cpu_utilization", r.max_worker_cpu_utilization);
  j.value("script_error", r.script_error);
  if (r.server_gone) j.value("server_gone", true);
  if (!r.slo.empty()) {
    j.begin_array("slo_thresholds");
    for (const std::string& expr : r.slo) j.element(expr);
    j.end_array();
  }
  if (!r.slo_abort.empty()) j.value("slo_abort", r.slo_abort);
  write_counters(j, r.counters);
  write_error_reasons(j, r.error_reasons);
  write_run_histograms(j, r);
  write_windows(j, r);
  if (doc.merge) write_merge(j, *doc.merge);
  if (doc.shards) write_shards_json(j, *doc.shards);
}

void write_tag_histograms(JsonWriter& j, const TagResult& tag) {
  j.begin_object("histograms");
  if (tag.latency.count() > 0) write_histogram(j, "latency", tag.latency);
  j.end_object();
}

}  // namespace hail
