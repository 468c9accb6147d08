// Pacer: the load model of one worker — whether and when each of its connections may send, and
// whether a connection should stay open. Connections ask it and tell it every outcome; they never
// know which model runs. One Pacer per worker, owned by it; that worker's thread only. Its side
// effects (opening, waking or closing connections, timers, ending the run) go through PacerHost.
#pragma once

#include <cstdint>
#include <string>

namespace hail {

class EventLoop;

// What the load model granted a request.
struct Ticket {
  uint64_t planned_ns = 0;  // when the model wanted it sent (closed loop: when it was asked)
  bool counted = false;     // part of the measured phase (warm-up requests are not)
};

// The answer to "may this connection send one more request now?".
enum class Grant : uint8_t {
  kSend,   // yes, with the ticket filled in
  kWait,   // not now; the pacer wakes the connection (PacerHost::wake) when it may
  kIdle,   // nothing more for this connection in this run (-n spent): it stays open, unused
  kClose,  // the model wants this connection closed once nothing is in flight on it
};

// What a connection that can take requests does next (it asks after it opened, and after its
// responses were handled).
enum class Next : uint8_t {
  kFill,            // submit what the pacer grants, now
  kFillAtBatchEnd,  // ... after the current epoll batch (the server then sees many at once)
  kWaitForWake,     // nothing; the pacer wakes it
  kPauseUntil,      // nothing until Readiness::at_ns (think time), then fill
  kHoldUntil,       // as kPauseUntil, for a connection opened before the load's start (--start-at):
                    // its first request does not count the connect, which no request waited for
  kWaitForResponses,  // nothing until the requests in flight are answered
  kClose,             // close it; it opens again only if Pacer::wants_open says so
};

struct Readiness {
  Next next = Next::kFill;
  uint64_t at_ns = 0;  // kPauseUntil and kHoldUntil only
};

// The worker as a load model sees it: its connections by index (0 .. connection_count()-1), its
// event loop for timers, and the end of its run.
class PacerHost {
 public:
  virtual EventLoop& loop() = 0;
  virtual uint32_t connection_count() const = 0;
  // Connections between their connect() and its outcome (they will each want a request soon).
  virtual uint32_t connecting() const = 0;
  virtual bool is_closed(uint32_t connection) const = 0;
  // Open, with spare capacity, not pausing: a fill now would submit.
  virtual bool can_send(uint32_t connection) const = 0;
  virtual void open(uint32_t connection) = 0;             // connect a closed connection
  virtual void wake(uint32_t connection) = 0;             // fill it now (after Grant::kWait)
  virtual void close_when_idle(uint32_t connection) = 0;  // now if nothing is in flight or opening
  virtual void finish() = 0;                              // the plan is over: end this worker's run
  // CPU time of the worker's thread (a system call: for occasional samples, not per request).
  virtual uint64_t cpu_ns() const = 0;
  // The worker's run is over (asked on every request: a plain read, not a virtual call).
  bool finished() const { return finished_; }
  // A script hook failed (error) or asked to stop (""): the worker's run ends.
  virtual void stop_for_script(const std::string& error) = 0;

 protected:
  ~PacerHost() = default;
  bool finished_ = false;  // set by the host when its run ends
};

class Pacer {
 public:
  virtual ~Pacer() = default;

  // The worker's run begins: open the first connections, arm the model's timers.
  virtual void start(uint64_t now_ns) = 0;
  // Connection `c` is open and can take requests: `fresh` right after it opened, otherwise after
  // its responses were handled (in_flight of them are still out).
  virtual Readiness on_ready(uint32_t c, uint64_t now_ns, uint32_t in_flight, bool fresh) = 0;
  virtual Grant acquire(uint32_t c, uint64_t now_ns, Ticket* ticket) = 0;
  // Exactly once for every granted ticket: completed, failed, or abandoned.
  virtual void on_outcome(uint32_t c, const Ticket& ticket) = 0;
  // Pause between a response and the connection's next connect, when it cannot be reused (--think
  // without keep-alive); 0: none.
  virtual uint64_t reconnect_delay_ns(uint32_t c) = 0;
  // Should connection c stay open (a shrinking connection target closes the ones above it)?
  virtual bool keeps(uint32_t c) const = 0;
  // Should closed connection c open again (it is kept, and the plan has work left for it)?
  virtual bool wants_open(uint32_t c) const = 0;
  // Planned requests still waiting for a connection (rate models); reported at the end.
  virtual uint64_t backlog() const { return 0; }
  // The run's level changes from now on (hail search steps through levels on warm connections):
  // the total rate of an open-loop model, the number of open connections of a closed loop. A
  // model without a level ignores it.
  virtual void retarget(double /*level*/, uint64_t /*now_ns*/) {}
};

}  // namespace hail
