// Collectors: what a front-end needs of a run beyond hail's own statistics (ab's record of every
// request and its first response's facts, wrk's per-thread request rates). A front-end registers a
// CollectorFactory in RunOptions; each worker gets its own Collector from it and feeds it on the
// worker's thread; after every worker has stopped, the front-end reads what the factory gathered.
// The engine knows only these interfaces, never a front-end's fields.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "load/outcome.h"

namespace hail {

class EventLoop;

// One worker's collector: its thread only, during the run.
class Collector {
 public:
  virtual ~Collector() = default;
  // The worker's run begins; measuring starts at measure_start_ns (monotonic). A collector may arm
  // timers on `loop` (cancelled in on_stop at the latest).
  virtual void on_start(EventLoop& /*loop*/, uint64_t /*measure_start_ns*/) {}
  // Every request's outcome, warm-up included (Outcome::counted tells them apart).
  virtual void on_outcome(const Outcome& /*outcome*/) {}
  // Whether connection `connection` must capture its next response's header fields and body
  // (asked when the connection opens and after each captured response).
  virtual bool wants_capture(uint32_t /*connection*/) const { return false; }
  virtual void on_captured(uint32_t /*connection*/, int /*status*/,
                           const std::vector<std::pair<std::string, std::string>>& /*headers*/,
                           uint64_t /*body_bytes*/) {}
  // The worker's run ended at now_ns.
  virtual void on_stop(EventLoop& /*loop*/, uint64_t /*now_ns*/) {}
};

// Times of the run, to turn a collector's monotonic stamps into wall-clock ones.
struct RunClock {
  uint64_t start_ns = 0;       // monotonic: the load's start (warm-up included)
  uint64_t start_unix_ns = 0;  // the same instant on CLOCK_REALTIME
  uint64_t to_unix_ns(uint64_t mono_ns) const { return mono_ns - start_ns + start_unix_ns; }
};

// Owned by the front-end (shared with RunOptions); make() is called on the main thread before the
// workers start, finish() on the main thread after they have all stopped.
class CollectorFactory {
 public:
  virtual ~CollectorFactory() = default;
  // The collector of worker `worker` (of `workers`), or null when that worker has nothing to
  // collect; the factory keeps ownership.
  virtual Collector* make(uint32_t worker, uint32_t workers) = 0;
  // Every worker has stopped: merge what the collectors gathered.
  virtual void finish(const RunClock& /*clock*/) {}
};

}  // namespace hail
