#include "stats/run_result.h"

#include <algorithm>
#include <utility>

namespace hail {

namespace {

// The settings block: whoever has one (an empty url means none yet), this result first.
void merge_settings(RunResult& into, const RunResult& other) {
  into.protocols.merge(other.protocols);
  if (other.url.empty()) return;
  if (into.url.empty()) {
    into.url = other.url;
    into.method = other.method;
    into.keep_alive = other.keep_alive;
    into.http_minor = other.http_minor;
    into.duration_target_ns = other.duration_target_ns;
    into.warmup_ns = other.warmup_ns;
    into.timeout_ns = other.timeout_ns;
    into.pipeline = other.pipeline;
    into.streams = other.streams;
    into.interval_ns = other.interval_ns;
    into.ladder = other.ladder;
    into.target_unit = other.target_unit;
    into.shard_index = other.shard_index;
    into.shard_count = other.shard_count;
    into.shard_source = other.shard_source;
    into.run_id = other.run_id;
    into.whole_connections = other.whole_connections;
    into.whole_requests = other.whole_requests;
    into.whole_rate_per_s = other.whole_rate_per_s;
    into.start_at_unix_ns = other.start_at_unix_ns;
    into.io_backend = other.io_backend;
  }
}

void merge_windows_by_index(std::vector<WindowStats>& into, const std::vector<WindowStats>& from) {
  for (size_t i = 0; i < from.size(); ++i) {
    if (i < into.size()) {
      merge_window(into[i], from[i]);
    } else {
      into.push_back(from[i]);
    }
  }
}

void merge_tags(std::vector<TagResult>& into, const std::vector<TagResult>& from) {
  for (const TagResult& tag : from) {
    auto row = std::find_if(into.begin(), into.end(),
                            [&](const TagResult& t) { return t.name == tag.name; });
    if (row == into.end()) {
      into.push_back(tag);
    } else {
      row->merge(tag);
    }
  }
  // "(other)" gathers names beyond a worker's limit: a footnote row, not one among the others.
  std::stable_partition(into.begin(), into.end(),
                        [](const TagResult& t) { return t.name != TagTable::kOtherName; });
}

void merge_into(RunResult& into, const RunResult& other) {
  merge_settings(into, other);
  into.connections += other.connections;
  into.threads += other.threads;
  into.requests_target += other.requests_target;
  into.rate_target_per_s += other.rate_target_per_s;

  if (other.start_unix_ns != 0 &&
      (into.start_unix_ns == 0 || other.start_unix_ns < into.start_unix_ns)) {
    into.start_unix_ns = other.start_unix_ns;
  }
  into.duration_ns = std::max(into.duration_ns, other.duration_ns);
  into.start_late_ns = std::max(into.start_late_ns, other.start_late_ns);
  into.interrupted = into.interrupted || other.interrupted;
  into.server_gone = into.server_gone || other.server_gone;
  into.counters.add(other.counters);
  for (const auto& [code, count] : other.status_codes) into.status_codes[code] += count;
  merge_error_reasons(into.error_reasons, other.error_reasons);
  into.latency.merge(other.latency);
  into.connect_time.merge(other.connect_time);
  into.ttfb.merge(other.ttfb);
  into.tls_handshake.merge(other.tls_handshake);
  if (into.tls_version.empty()) into.tls_version = other.tls_version;
  if (into.tls_cipher.empty()) into.tls_cipher = other.tls_cipher;

  if (other.streams_effective_min != 0 &&
      (into.streams_effective_min == 0 ||
       other.streams_effective_min < into.streams_effective_min)) {
    into.streams_effective_min = other.streams_effective_min;
  }
  into.streams_effective_max = std::max(into.streams_effective_max, other.streams_effective_max);
  into.backlog += other.backlog;
  into.service_time.merge(other.service_time);
  into.lag.merge(other.lag);

  merge_windows_by_index(into.intervals, other.intervals);
  merge_windows_by_index(into.steps, other.steps);

  if (into.script_error.empty()) into.script_error = other.script_error;
  if (into.slo.empty()) into.slo = other.slo;
  if (into.slo_abort.empty()) into.slo_abort = other.slo_abort;
  // Each host's monitors watched its own machine: kept side by side, never added.
  into.monitors.insert(into.monitors.end(), other.monitors.begin(), other.monitors.end());
  merge_tags(into.tags, other.tags);
  merge_machines(into.machines, other.machines);

  into.max_worker_cpu_utilization =
      std::max(into.max_worker_cpu_utilization, other.max_worker_cpu_utilization);
  into.naps += other.naps;
  into.max_nap_ns = std::max(into.max_nap_ns, other.max_nap_ns);
}

}  // namespace

void TagResult::merge(const TagResult& other) {
  completed += other.completed;
  for (size_t i = 0; i < kErrorClassCount; ++i) errors[i] += other.errors[i];
  for (const auto& [code, count] : other.status_codes) status_codes[code] += count;
  latency.merge(other.latency);
}

void RunResult::merge(const RunResult& other) {
  merge_into(*this, other);
}

RunResult RunResult::from_recorder(const Recorder& recorder) {
  RunResult r;
  r.counters = recorder.counters();
  r.latency = recorder.latency();
  r.connect_time = recorder.connect_time();
  r.ttfb = recorder.ttfb();
  r.service_time = recorder.service_time();
  r.lag = recorder.lag();
  r.tls_handshake = recorder.tls_handshake();
  if (recorder.tls_version() != nullptr) r.tls_version = recorder.tls_version();
  if (recorder.tls_cipher() != nullptr) r.tls_cipher = recorder.tls_cipher();
  r.streams_effective_min = recorder.streams_min();
  r.streams_effective_max = recorder.streams_max();
  const auto& codes = recorder.status_counts();
  for (size_t code = 0; code < codes.size(); ++code) {
    if (codes[code] != 0) r.status_codes[static_cast<int>(code)] = codes[code];
  }
  for (const auto* it = recorder.reasons_begin(); it != recorder.reasons_end(); ++it) {
    if (it->reason == nullptr) {
      add_error_reason(r.error_reasons, ErrorClass::kCount, kOtherReasons, it->count);
    } else {
      add_error_reason(r.error_reasons, it->error_class, it->reason, it->count);
    }
  }
  return r;
}

RunResult RunResult::from_tags(const TagTable& table) {
  RunResult r;
  r.tags.reserve(table.size());
  for (size_t id = 0; id < table.size(); ++id) {
    const TagTable::Tag& tag = table.tag(static_cast<uint16_t>(id));
    TagResult& row = r.tags.emplace_back();
    row.name = tag.name;
    row.completed = tag.completed;
    row.errors = tag.errors;
    tag.status_counts.for_each(
        [&row](int code, uint64_t count) { row.status_codes[code] = count; });
    row.latency = tag.latency;
  }
  return r;
}

void RunResult::add(const Recorder& recorder) {
  merge(from_recorder(recorder));
}

void RunResult::add_tags(const TagTable& table) {
  merge(from_tags(table));
}

}  // namespace hail
