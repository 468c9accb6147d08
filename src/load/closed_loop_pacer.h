// ClosedLoopPacer: the closed-loop load models (ab -c, wrk -c): every connection sends its next
// request as soon as its previous one is answered, optionally after a think time (--think, or a
// wrk script's delay()), optionally within an exact budget (-n), and optionally with the number of
// open connections following a stage curve (--stages / --ladder / --repeat without -R), planned by
// ConnectionTargetSchedule. Owned by one worker; its thread only.
#pragma once

#include <cstdint>
#include <optional>

#include "load/budget.h"
#include "load/pacer.h"
#include "load/schedule.h"
#include "net/event_loop.h"

namespace hail {

class ThreadScript;

struct ClosedLoopSettings {
  uint64_t measure_start_ns = 0;  // requests granted before this are warm-up (not counted)
  uint32_t connections = 1;       // this worker's connections (with a curve: its share of the peak)
  RequestBudget budget;           // -n: this worker's share
  uint64_t think_ns = 0;          // pause between a response and the connection's next request
  ThreadScript* script = nullptr;  // a wrk script whose delay() sets the pause instead
  // A connection-target curve (absolute times) and which share of each target is this worker's.
  std::optional<ConnectionTargetSchedule> targets;
  WorkerSlice slice;
};

class ClosedLoopPacer final : public Pacer {
 public:
  ClosedLoopPacer(PacerHost& host, ClosedLoopSettings settings);
  ~ClosedLoopPacer() override;

  void start(uint64_t now_ns) override;
  Readiness on_ready(uint32_t c, uint64_t now_ns, uint32_t in_flight, bool fresh) override;
  Grant acquire(uint32_t c, uint64_t now_ns, Ticket* ticket) override;
  void on_outcome(uint32_t c, const Ticket& ticket) override;
  uint64_t reconnect_delay_ns(uint32_t c) override;
  bool keeps(uint32_t c) const override { return c < target_; }
  // A new total of open connections from now on (this worker's share of it).
  void retarget(double connections, uint64_t now_ns) override;
  bool wants_open(uint32_t c) const override {
    return keeps(c) && !host_.finished() &&
           settings_.budget.room_for_connection(host_.connecting());
  }

 private:
  // The pause before the next request: --think, or the script's delay() (which may fail and stop
  // the run).
  uint64_t next_think_ns();
  uint32_t share_of(uint64_t total) const;
  void apply_target(uint32_t target);
  static void on_target_timer(Timer* timer, void* ctx);

  PacerHost& host_;
  ClosedLoopSettings settings_;
  bool pauses_ = false;           // think time or a script delay() applies
  uint32_t target_ = UINT32_MAX;  // connections with a lower index run; UINT32_MAX: all
  Timer target_timer_;
};

}  // namespace hail
