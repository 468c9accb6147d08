#include "stats/recorder.h"

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
  retried += o.retried;
  unsolicited += o.unsolicited;
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

}  // namespace hail
