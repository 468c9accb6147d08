// StartGate: holds a worker's load until a synchronized start (--start-at). It wraps the run's
// pacer: the connections open at once (TLS and HTTP/2 handshakes included) and wait, unused, for
// the start instant; from then on every call goes straight to the wrapped pacer. It also measures
// how late the worker's loop really woke at the start. Only workers of a --start-at run in the
// future have one (normal runs pay nothing). Owned by one Worker; that worker's thread only.
#pragma once

#include <cstdint>
#include <memory>

#include "load/pacer.h"
#include "net/event_loop.h"

namespace hail {

class StartGate final : public Pacer {
 public:
  StartGate(std::unique_ptr<Pacer> inner, PacerHost& host, uint64_t start_ns);
  ~StartGate() override;

  void start(uint64_t now_ns) override;
  Readiness on_ready(uint32_t c, uint64_t now_ns, uint32_t in_flight, bool fresh) override;
  Grant acquire(uint32_t c, uint64_t now_ns, Ticket* ticket) override;
  void on_outcome(uint32_t c, const Ticket& ticket) override { inner_->on_outcome(c, ticket); }
  uint64_t reconnect_delay_ns(uint32_t c) override { return inner_->reconnect_delay_ns(c); }
  bool keeps(uint32_t c) const override { return inner_->keeps(c); }
  bool wants_open(uint32_t c) const override { return inner_->wants_open(c); }
  uint64_t backlog() const override { return inner_->backlog(); }
  void retarget(double level, uint64_t now_ns) override { inner_->retarget(level, now_ns); }

  // How late after start_ns the loop ran the start (0 until it did).
  uint64_t late_ns() const { return late_ns_; }
  bool opened() const { return opened_; }

 private:
  static void on_start_timer(Timer* timer, void* ctx);

  std::unique_ptr<Pacer> inner_;
  PacerHost& host_;
  uint64_t start_ns_;
  Timer timer_;
  bool opened_ = false;
  uint64_t late_ns_ = 0;
};

}  // namespace hail
