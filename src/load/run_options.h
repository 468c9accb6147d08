// RunOptions: the one description of a load run. Every front-end (native flags today; wrk, ab and
// webbench later) only fills this struct; the runner only reads it. Plain value: any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/url.h"
#include "http/request.h"
#include "load/schedule.h"
#include "load/stage_spec.h"

namespace hail {

struct RunOptions {
  Url url;
  RequestSpec request;  // method, headers, body, HTTP version, keep-alive
  uint32_t connections = 50;
  uint32_t threads = 0;                   // 0: one per core, never more than connections
  uint64_t duration_ns = 10'000'000'000;  // measured phase; 0 with requests > 0: no time limit
  uint64_t requests = 0;                  // -n: exact number of requests, 0 = duration mode
  uint64_t timeout_ns = 5'000'000'000;
  uint64_t warmup_ns = 0;
  bool progress = false;  // live progress line on stderr
  // Open loop (-R): requests planned at this total rate from the start; 0 = closed loop.
  double rate_per_s = 0;
  Arrival arrival = Arrival::kFixed;
  uint32_t max_connections = 0;  // rate mode may open up to this many (0: -c)
  uint64_t seed = 0;             // Poisson arrivals: 0 = seeded from the clock
  // Rate mode with --stages: the rate ramps linearly from rate_per_s through each stage's target
  // (k6's ramping-arrival-rate model); the run lasts as long as the stages.
  std::vector<Stage> stages;
};

}  // namespace hail
