#include "load/collectors.h"

#include <strings.h>

#include <algorithm>

#include "core/clock.h"
#include "net/event_loop.h"

namespace hail {

namespace {
// wrk samples each thread's request rate every 100 ms (its RECORD_INTERVAL_MS).
constexpr uint64_t kRateSampleNs = 100 * kNsPerMs;
// Reserve at most this many records per worker up front (3 GiB of address space at 48 bytes).
constexpr uint64_t kMaxReservedRecords = uint64_t{1} << 26;
}  // namespace

// ---- RequestLogCollectors ----

class RequestLogCollectors::PerWorker final : public Collector {
 public:
  void on_outcome(const Outcome& o) override {
    if (!o.counted || !o.completed()) return;
    RequestRecord r;
    r.start_unix_ns = o.start_ns;  // monotonic here; finish() moves it to the wall clock
    r.connect_ns = o.connect_ns;
    r.wait_ns = o.first_byte_ns > o.sent_ns ? o.first_byte_ns - o.sent_ns : 0;
    r.total_ns = o.done_ns - o.start_ns;
    r.body_bytes = o.body_bytes;
    r.status = o.status;
    log.push_back(r);
  }
  std::vector<RequestRecord> log;
};

RequestLogCollectors::RequestLogCollectors(uint64_t expected_requests)
    : expected_requests_(expected_requests) {}
RequestLogCollectors::~RequestLogCollectors() = default;

Collector* RequestLogCollectors::make(uint32_t worker, uint32_t workers) {
  workers_.push_back(std::make_unique<PerWorker>());
  if (expected_requests_ > 0 && workers > 0) {
    const uint64_t share =
        expected_requests_ / workers + (worker < expected_requests_ % workers ? 1 : 0);
    workers_.back()->log.reserve(std::min(share, kMaxReservedRecords));
  }
  return workers_.back().get();
}

void RequestLogCollectors::finish(const RunClock& clock) {
  if (workers_.size() == 1) {
    log_ = std::move(workers_.front()->log);  // no copy: ab's log can be millions long
  } else {
    size_t logged = 0;
    for (const auto& w : workers_) logged += w->log.size();
    log_.reserve(logged);
    for (auto& w : workers_) {
      log_.insert(log_.end(), w->log.begin(), w->log.end());
      std::vector<RequestRecord>().swap(w->log);  // freed after appending
    }
  }
  workers_.clear();
  for (RequestRecord& r : log_) r.start_unix_ns = clock.to_unix_ns(r.start_unix_ns);
  std::stable_sort(log_.begin(), log_.end(), [](const RequestRecord& a, const RequestRecord& b) {
    return a.start_unix_ns < b.start_unix_ns;
  });
}

// ---- FirstResponseCollector ----

Collector* FirstResponseCollector::make(uint32_t worker, uint32_t /*workers*/) {
  // The first connection of the first worker looks: there is one "first response".
  return worker == 0 ? static_cast<Collector*>(this) : nullptr;
}

void FirstResponseCollector::on_captured(
    uint32_t /*connection*/, int /*status*/,
    const std::vector<std::pair<std::string, std::string>>& headers, uint64_t body_bytes) {
  if (body_bytes_ >= 0) return;
  for (const auto& [name, value] : headers) {
    if (strcasecmp(name.c_str(), "Server") == 0) server_ = value;
  }
  body_bytes_ = static_cast<int64_t>(body_bytes);
}

// ---- RateSampleCollectors ----

class RateSampleCollectors::PerWorker final : public Collector {
 public:
  PerWorker() {
    timer_.fn = &PerWorker::on_timer;
    timer_.ctx = this;
  }
  void on_start(EventLoop& loop, uint64_t measure_start_ns) override {
    loop_ = &loop;
    last_ns_ = measure_start_ns;
    loop.arm(timer_, measure_start_ns + kRateSampleNs);
  }
  void on_outcome(const Outcome& o) override {
    if (o.counted && o.completed()) ++completed_;
  }
  void on_stop(EventLoop& loop, uint64_t /*now_ns*/) override { loop.cancel(timer_); }

  Histogram samples;

 private:
  static void on_timer(Timer* timer, void* ctx) {
    auto* self = static_cast<PerWorker*>(ctx);
    // Completions per second over the 100 ms just ended (the first sample starts when measuring
    // does). Like wrk, a window in which nothing completed is no sample (a stalled server shows
    // in the latency, not as zeros that drag Req/Sec down); the next sample then covers the longer
    // window.
    const uint64_t now_ns = timer->deadline_ns;
    if (self->completed_ > self->sampled_) {
      const double seconds = static_cast<double>(now_ns - self->last_ns_) / 1e9;
      self->samples.record(
          static_cast<uint64_t>(static_cast<double>(self->completed_ - self->sampled_) / seconds));
      self->sampled_ = self->completed_;
      self->last_ns_ = now_ns;
    }
    self->loop_->arm(self->timer_, now_ns + kRateSampleNs);
  }

  EventLoop* loop_ = nullptr;
  Timer timer_;
  uint64_t completed_ = 0;
  uint64_t sampled_ = 0;  // completions at the last sample
  uint64_t last_ns_ = 0;  // when the last sample was taken (at first: measuring's start)
};

RateSampleCollectors::RateSampleCollectors() = default;
RateSampleCollectors::~RateSampleCollectors() = default;

Collector* RateSampleCollectors::make(uint32_t /*worker*/, uint32_t /*workers*/) {
  workers_.push_back(std::make_unique<PerWorker>());
  return workers_.back().get();
}

void RateSampleCollectors::finish(const RunClock& /*clock*/) {
  samples_.reset();
  for (const auto& w : workers_) samples_.merge(w->samples);
}

}  // namespace hail
