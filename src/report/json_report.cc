#include "report/json_report.h"

#include "report/error_reason_text.h"
#include "report/json_exact.h"
#include "report/json_machine.h"
#include "report/json_shard.h"
#include "report/json_writer.h"
#include "report/monitor_report.h"
#include "report/percentiles.h"
#include "report/timeseries_writer.h"
#include "report/verdict_report.h"

#ifndef HAIL_VERSION_STRING
#define HAIL_VERSION_STRING "0.0.0"
#endif

namespace hail {

namespace {
double us(double ns) {
  return ns / 1000.0;
}

void write_distribution(JsonWriter& j, const char* key, const Histogram& h) {
  j.begin_object(key);
  j.value("count", h.count());
  if (h.count() == 0) {
    j.null("min").null("mean").null("stdev").null("max");
    for (const auto& p : kReportPercentiles) j.null(p.json_key);
  } else {
    j.value("min", us(static_cast<double>(h.min())));
    j.value("mean", us(h.mean()));
    j.value("stdev", us(h.stdev()));
    j.value("max", us(static_cast<double>(h.max())));
    for (const auto& p : kReportPercentiles) {
      j.value(p.json_key, us(static_cast<double>(h.value_at_percentile(p.percentile))));
    }
  }
  j.end_object();
}

// "stages": one object per --stages stage / --ladder step (measured phase only).
void write_stages(JsonWriter& j, const RunResult& r) {
  j.begin_object("stages");
  j.value("kind", r.ladder ? "ladder" : "stages");
  j.value("target_unit", r.target_unit ? r.target_unit : "");
  j.begin_array("steps");
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const WindowStats& s = r.steps[i];
    j.begin_object();
    j.value("index", static_cast<uint64_t>(i));
    j.value("start_s", static_cast<double>(s.start_ns) / 1e9);
    j.value("end_s", static_cast<double>(s.end_ns) / 1e9);
    j.value("target_start", s.target_start);
    j.value("target_end", s.target_end);
    j.value("completed", s.completed);
    j.value("requests_per_s", s.requests_per_s());
    j.value("errors", s.error_total());
    j.begin_object("errors_by_class");
    for (size_t c = 0; c < kErrorClassCount; ++c) {
      j.value(error_class_name(static_cast<ErrorClass>(c)), s.errors[c]);
    }
    j.end_object();
    j.value("status_errors", s.status_errors);
    j.begin_object("latency_us");
    if (s.completed == 0) {
      j.null("p50").null("p90").null("p99").null("max");
    } else {
      j.value("p50", us(static_cast<double>(s.p50_ns)));
      j.value("p90", us(static_cast<double>(s.p90_ns)));
      j.value("p99", us(static_cast<double>(s.p99_ns)));
      j.value("max", us(static_cast<double>(s.max_ns)));
    }
    j.end_object();
    j.end_object();
  }
  j.end_array();
  j.end_object();
}

// "tags": one object per tag (--urls line, Lua hail.tag), in the order the run first used them.
void write_tags(JsonWriter& j, const RunResult& r) {
  j.begin_array("tags");
  for (const TagResult& t : r.tags) {
    j.begin_object();
    j.value("name", t.name);
    j.value("completed", t.completed);
    j.value("requests_per_s", r.requests_per_s(t));
    j.begin_object("errors");  // only the classes that happened: most tags have none
    for (size_t c = 0; c < kErrorClassCount; ++c) {
      if (t.errors[c] != 0) j.value(error_class_name(static_cast<ErrorClass>(c)), t.errors[c]);
    }
    j.end_object();
    j.begin_object("status");
    for (const auto& [code, count] : t.status_codes) j.value(std::to_string(code), count);
    j.end_object();
    write_distribution(j, "latency_us", t.latency);
    write_tag_histograms(j, t);
    j.end_object();
  }
  j.end_array();
}
}  // namespace

std::string render_json_report(const RunResult& result) {
  return render_json_document(ResultDocument{result, HAIL_VERSION_STRING, std::nullopt});
}

std::string render_json_document(const ResultDocument& doc) {
  const RunResult& r = doc.result;
  const Counters& c = r.counters;
  JsonWriter j;
  j.begin_object();
  j.value("schema", kJsonSchema);
  j.value("version", doc.version);
  j.value("url", r.url);
  j.value("method", r.method);
  const ProtocolSet& p = r.protocols;
  j.value("http_version", p == ProtocolSet(WireProtocol::kHttp2)    ? "2"
                          : p == ProtocolSet(WireProtocol::kHttp09) ? "0.9"
                          : r.http_minor == 0                       ? "1.0"
                                                                    : "1.1");
  j.value("protocol", p.name());
  if (r.pipeline > 1) j.value("pipeline", r.pipeline);
  if (p.speaks_h2()) j.value("streams", r.streams);
  if (p.speaks_h2() && r.streams_effective_min != 0) {
    j.begin_object("streams_effective");
    j.value("min", r.streams_effective_min);
    j.value("max", r.streams_effective_max);
    j.end_object();
  }
  j.value("keep_alive", r.keep_alive);
  j.value("start_unix_s", static_cast<double>(r.start_unix_ns) / 1e9);
  j.value("duration_s", r.duration_s());
  j.value("warmup_s", static_cast<double>(r.warmup_ns) / 1e9);
  j.value("timeout_s", static_cast<double>(r.timeout_ns) / 1e9);
  j.value("connections", r.connections);
  j.value("threads", r.threads);
  j.value("connections_opened", c.connections_opened);
  if (c.connections_h2 > 0) j.value("connections_h2", c.connections_h2);
  j.value("interrupted", r.interrupted);
  write_shard_fields(j, r);
  j.begin_object("requests");
  j.value("attempted", c.attempted);
  j.value("completed", c.completed);
  j.value("in_flight", c.in_flight);
  j.value("retried", c.retried);
  j.value("unsolicited", c.unsolicited);
  if (r.requests_target > 0) j.value("target", r.requests_target);
  j.value("interim_responses", c.interim_responses);
  j.end_object();
  j.begin_object("errors");
  for (size_t i = 0; i < kErrorClassCount; ++i) {
    j.value(error_class_name(static_cast<ErrorClass>(i)), c.errors[i]);
  }
  j.value("status", c.status_errors);
  j.end_object();
  j.begin_object("error_reasons");
  for (const ErrorReasonCount& row : r.error_reasons) j.value(error_reason_text(row), row.count);
  j.end_object();
  j.begin_object("status_codes");
  for (const auto& [code, count] : r.status_codes) j.value(std::to_string(code), count);
  j.end_object();
  j.begin_object("throughput");
  j.value("requests_per_s", r.requests_per_s());
  j.value("bytes_per_s", r.bytes_per_s());
  j.value("bytes_read", c.bytes_read);
  j.value("bytes_written", c.bytes_written);
  j.end_object();
  write_distribution(j, "latency_us", r.latency);
  if (r.rate_mode()) {
    // Rate runs: latency_us above is the corrected distribution (planned send -> complete).
    j.begin_object("rate");
    j.value("target_per_s", r.rate_target_per_s);
    j.value("achieved_per_s", r.requests_per_s());
    j.value("backlog", r.backlog);
    j.end_object();
    write_distribution(j, "service_time_us", r.service_time);
    write_distribution(j, "lag_us", r.lag);
  }
  write_distribution(j, "connect_us", r.connect_time);
  if (!r.tls_version.empty()) {
    j.begin_object("tls");
    j.value("version", r.tls_version);
    j.value("cipher", r.tls_cipher);
    j.value("handshakes", c.tls_handshakes);
    j.value("resumed", c.tls_resumed);
    j.end_object();
    write_distribution(j, "tls_handshake_us", r.tls_handshake);
  }
  write_distribution(j, "ttfb_us", r.ttfb);
  j.value("accounting_ok", r.accounting_holds());
  j.begin_object("client");
  j.value("max_worker_cpu_utilization", r.max_worker_cpu_utilization);
  if (!r.io_backend.empty()) j.value("io", r.io_backend);
  j.value("naps", r.naps);
  j.value("max_nap_us", static_cast<double>(r.max_nap_ns) / 1e3);
  j.end_object();
  write_machines_json(j, r.machines);
  write_exact_block(j, doc);
  if (!r.steps.empty()) write_stages(j, r);
  if (!r.tags.empty()) write_tags(j, r);
  j.begin_array("notes");
  for (const auto& note : r.notes) j.element(note);
  j.end_array();
  write_verdicts_json(j, r, judge_run(r));
  write_monitors_json(j, r);
  if (r.interval_ns > 0) {
    // Last: the series can be long, and the summary above stays readable.
    j.value("interval_s", static_cast<double>(r.interval_ns) / 1e9);
    j.begin_array("timeseries");
    for (const WindowStats& w : r.intervals) write_interval_json(j, r, w);
    j.end_array();
  }
  j.end_object();
  return j.str();
}

}  // namespace hail
