#include "stats/run_result.h"

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
}

void Recorder::on_error_reason(ErrorClass c, int errno_value) {
  on_error_reason(c, std::strerror(errno_value));
}

void Recorder::on_error_reason(ErrorClass c, const char* reason) {
  ++error_reasons_[std::string(error_class_name(c)) + ": " + reason];
}

void RunResult::add(const Recorder& recorder) {
  counters.add(recorder.counters());
  latency.merge(recorder.latency());
  connect_time.merge(recorder.connect_time());
  ttfb.merge(recorder.ttfb());
  const auto& codes = recorder.status_counts();
  for (size_t code = 0; code < codes.size(); ++code) {
    if (codes[code] != 0) status_codes[static_cast<int>(code)] += codes[code];
  }
  for (const auto& [reason, count] : recorder.error_reasons()) error_reasons[reason] += count;
}

}  // namespace hail
