// The front-ends' collectors: ab's record of every measured request and the facts of its first
// response, and wrk's per-thread request-rate samples. Each factory is created by the front-end
// that needs it and read by that front-end's report after the run (see collector.h for threads).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "load/collector.h"
#include "stats/histogram.h"
#include "stats/request_log.h"

namespace hail {

// Every measured request that completed, in order of start (ab's Connection Times table, -g, -e).
class RequestLogCollectors final : public CollectorFactory {
 public:
  // expected_requests (-n, 0: unknown): each worker reserves its share up front (untouched pages
  // cost no memory, as ab's calloc of every request's record), so logging never copies the log as
  // it grows.
  explicit RequestLogCollectors(uint64_t expected_requests = 0);
  ~RequestLogCollectors() override;
  Collector* make(uint32_t worker, uint32_t workers) override;
  void finish(const RunClock& clock) override;

  // After finish(): wall-clock start times, sorted by start (stable).
  std::vector<RequestRecord>& log() { return log_; }

 private:
  class PerWorker;
  uint64_t expected_requests_;
  std::vector<std::unique_ptr<PerWorker>> workers_;
  std::vector<RequestRecord> log_;
};

// The first response's Server field and decoded body length, captured once on worker 0's first
// connection (warm-up included): ab's "Server Software" and "Document Length".
class FirstResponseCollector final : public CollectorFactory, private Collector {
 public:
  Collector* make(uint32_t worker, uint32_t workers) override;

  const std::string& server_software() const { return server_; }
  int64_t document_length() const { return body_bytes_; }  // -1: no response was captured

 private:
  bool wants_capture(uint32_t connection) const override {
    return connection == 0 && body_bytes_ < 0;
  }
  void on_captured(uint32_t connection, int status,
                   const std::vector<std::pair<std::string, std::string>>& headers,
                   uint64_t body_bytes) override;

  std::string server_;
  int64_t body_bytes_ = -1;
};

// Requests completed per second in each 100 ms of each worker's measured phase (wrk's per-thread
// Req/Sec samples, for its Thread Stats table and scripts' done()).
class RateSampleCollectors final : public CollectorFactory {
 public:
  RateSampleCollectors();
  ~RateSampleCollectors() override;
  Collector* make(uint32_t worker, uint32_t workers) override;
  void finish(const RunClock& clock) override;

  const Histogram& samples() const { return samples_; }  // after finish()

 private:
  class PerWorker;
  std::vector<std::unique_ptr<PerWorker>> workers_;
  Histogram samples_;
};

}  // namespace hail
