// Outcome: everything measured about one request, produced exactly once per request by its
// Connection and handed to the worker's MeasurementSink (and through it to the front-ends'
// collectors). Plain value; built and consumed on the worker's thread.
#pragma once

#include <cstdint>

#include "stats/error_class.h"

namespace hail {

struct Outcome {
  // Monotonic times. planned: when the load model wanted the request sent (closed loop: = sent).
  uint64_t planned_ns = 0;
  uint64_t sent_ns = 0;
  uint64_t first_byte_ns = 0;  // 0: no response byte arrived
  uint64_t done_ns = 0;        // completed, or failed
  // When the request began as ab counts it: the connect of a fresh connection (the request was the
  // first on it), else the send; and that connect's duration (0 on a reused connection).
  uint64_t start_ns = 0;
  uint64_t connect_ns = 0;
  int status = 0;                         // completed: the final status code
  ErrorClass error = ErrorClass::kCount;  // kCount: completed; else the error class
  const char* reason = nullptr;           // failed: why (static storage), or null
  uint32_t interim = 0;                   // 1xx responses before the final one
  uint64_t body_bytes = 0;                // decoded body length (HTTP/1; 0 where not counted)
  uint32_t connection = 0;                // the connection's index in its worker
  uint16_t tag = 0xFFFF;                  // RequestSource::kNoTag: not counted per tag
  bool counted = false;                   // in the measured phase

  bool completed() const { return error == ErrorClass::kCount; }
  // Send -> complete: what the server took, whatever the plan wanted.
  uint64_t service_ns() const { return done_ns - sent_ns; }
  // Planned send -> complete: the latency a user of an open-loop plan waited (closed loop: the
  // same as service_ns).
  uint64_t latency_ns() const { return done_ns - planned_ns; }
};

}  // namespace hail
