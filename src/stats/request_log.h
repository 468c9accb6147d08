// RequestRecord: one measured request's timeline, kept only when a front-end asks for every
// request (ab's Connection Times table, its -g and -e files). Each worker appends to its own log
// during the run; the runner merges them after join. Plain values: any thread once merged.
#pragma once

#include <cstdint>

namespace hail {

struct RequestRecord {
  // When the request began as ab counts it: the connect of a fresh connection, or the send on a
  // reused keep-alive one (CLOCK_REALTIME, ns since the epoch).
  uint64_t start_unix_ns = 0;
  uint64_t connect_ns = 0;  // TCP (and TLS) connect of a fresh connection; 0 when reused
  uint64_t wait_ns = 0;     // request sent -> first response byte
  uint64_t total_ns = 0;    // start -> response complete
  uint64_t body_bytes = 0;  // decoded body length
  int status = 0;
};

}  // namespace hail
