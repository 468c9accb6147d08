// A toy load model, to show what adding one takes (one class, no change to Connection or Worker):
// every connection sends exactly `per_connection` requests, one at a time, then closes and opens
// again — a keep-alive limit (nginx's keepalive_requests) imposed by the client. An optional
// -n-style budget ends the run. Used by test_requests_per_connection_model.cc only.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "load/budget.h"
#include "load/load_model.h"
#include "load/run_plan.h"

namespace hail {

class RequestsPerConnectionPacer final : public Pacer {
 public:
  RequestsPerConnectionPacer(PacerHost& host, uint64_t measure_start_ns, uint32_t connections,
                             uint32_t per_connection, RequestBudget budget)
      : host_(host),
        measure_start_ns_(measure_start_ns),
        connections_(connections),
        per_connection_(per_connection),
        budget_(budget),
        sent_(host.connection_count(), 0) {}

  void start(uint64_t /*now_ns*/) override {
    for (uint32_t c = 0; c < connections_ && !host_.finished(); ++c) host_.open(c);
  }
  Readiness on_ready(uint32_t c, uint64_t /*now_ns*/, uint32_t in_flight, bool fresh) override {
    if (fresh) sent_[c] = 0;  // a new connection: its count starts again
    if (sent_[c] < per_connection_) return {fresh ? Next::kFill : Next::kFillAtBatchEnd};
    return {in_flight == 0 ? Next::kClose : Next::kWaitForResponses};
  }
  Grant acquire(uint32_t c, uint64_t now_ns, Ticket* ticket) override {
    if (host_.finished()) return Grant::kIdle;
    if (sent_[c] >= per_connection_) return Grant::kClose;
    ticket->planned_ns = now_ns;
    ticket->counted = now_ns >= measure_start_ns_;
    if (ticket->counted && !budget_.take()) return Grant::kIdle;
    ++sent_[c];
    return Grant::kSend;
  }
  void on_outcome(uint32_t /*c*/, const Ticket& ticket) override {
    if (ticket.counted && budget_.on_outcome()) host_.finish();
  }
  uint64_t reconnect_delay_ns(uint32_t /*c*/) override { return 0; }
  bool keeps(uint32_t /*c*/) const override { return true; }
  bool wants_open(uint32_t /*c*/) const override {
    return !host_.finished() && budget_.room_for_connection(host_.connecting());
  }

 private:
  PacerHost& host_;
  uint64_t measure_start_ns_;
  uint32_t connections_;
  uint32_t per_connection_;
  RequestBudget budget_;
  std::vector<uint32_t> sent_;  // per connection, since it opened
};

class RequestsPerConnectionModel final : public LoadModel {
 public:
  explicit RequestsPerConnectionModel(uint32_t per_connection) : per_connection_(per_connection) {}
  std::unique_ptr<Pacer> make_pacer(const RunPlan& plan, const WorkerShare& share, PacerHost& host,
                                    ThreadScript* /*script*/) const override {
    RequestBudget budget =
        plan.options.requests > 0 ? RequestBudget(share.requests) : RequestBudget();
    return std::make_unique<RequestsPerConnectionPacer>(host, plan.measure_start_ns,
                                                        share.connections, per_connection_, budget);
  }

 private:
  uint32_t per_connection_;
};

}  // namespace hail
