#include "stats/run_result.h"

#include <algorithm>
#include <cstring>

namespace hail {

void Counters::add(const Counters& o) {
  attempted += o.attempted;
  completed += o.completed;
  status_errors += o.status_errors;
  in_flight += o.in_flight;
  for (size_t i = 0; i < kErrorClassCount; ++i) errors[i] += o.errors[i];
  bytes_read += o.bytes_read;
  bytes_written += o.bytes_written;
  connections_opened += o.connections_opened;
  interim_responses += o.interim_responses;
  tls_handshakes += o.tls_handshakes;
  tls_resumed += o.tls_resumed;
  connections_h2 += o.connections_h2;
}

void Recorder::on_error_reason(ErrorClass c, const char* reason) {
  for (size_t i = 0; i < reason_slots_; ++i) {
    if (reasons_[i].error_class == c && reasons_[i].reason == reason) {
      ++reasons_[i].count;
      return;
    }
  }
  if (reason_slots_ < kMaxReasons - 1) {
    reasons_[reason_slots_++] = {c, reason, 1};
    return;
  }
  // Full: the last slot gathers everything else, so nothing goes uncounted.
  if (reason_slots_ == kMaxReasons - 1) reasons_[reason_slots_++] = {c, nullptr, 0};
  ++reasons_[kMaxReasons - 1].count;
}

void RunResult::add(const Recorder& recorder) {
  counters.add(recorder.counters());
  latency.merge(recorder.latency());
  connect_time.merge(recorder.connect_time());
  ttfb.merge(recorder.ttfb());
  service_time.merge(recorder.service_time());
  lag.merge(recorder.lag());
  tls_handshake.merge(recorder.tls_handshake());
  if (tls_version.empty() && recorder.tls_version() != nullptr)
    tls_version = recorder.tls_version();
  if (tls_cipher.empty() && recorder.tls_cipher() != nullptr) tls_cipher = recorder.tls_cipher();
  const auto& codes = recorder.status_counts();
  for (size_t code = 0; code < codes.size(); ++code) {
    if (codes[code] != 0) status_codes[static_cast<int>(code)] += codes[code];
  }
  for (const auto* r = recorder.reasons_begin(); r != recorder.reasons_end(); ++r) {
    std::string key =
        r->reason == nullptr ? std::string("other") : std::string(error_class_name(r->error_class));
    key.append(": ").append(r->reason == nullptr ? "other reasons" : r->reason);
    error_reasons[key] += r->count;
  }
}

void RunResult::add_tags(const TagTable& table) {
  for (size_t id = 0; id < table.size(); ++id) {
    const TagTable::Tag& tag = table.tag(static_cast<uint16_t>(id));
    auto row = std::find_if(tags.begin(), tags.end(),
                            [&](const TagResult& t) { return t.name == tag.name; });
    if (row == tags.end()) {
      tags.emplace_back();
      row = tags.end() - 1;
      row->name = tag.name;
    }
    row->completed += tag.completed;
    for (size_t i = 0; i < kErrorClassCount; ++i) row->errors[i] += tag.errors[i];
    for (size_t code = 0; code < tag.status_counts.size(); ++code) {
      if (tag.status_counts[code] != 0) {
        row->status_codes[static_cast<int>(code)] += tag.status_counts[code];
      }
    }
    row->latency.merge(tag.latency);
  }
  // "(other)" gathers names beyond a worker's limit: a footnote row, not one among the others.
  std::stable_partition(tags.begin(), tags.end(),
                        [](const TagResult& t) { return t.name != TagTable::kOtherName; });
}

}  // namespace hail
