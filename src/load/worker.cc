#include "load/worker.h"

#include <time.h>

#include "core/clock.h"
#include "load/connection.h"

namespace hail {

namespace {
constexpr uint64_t kProgressIntervalNs = 250 * kNsPerMs;

uint64_t thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * kNsPerSec + static_cast<uint64_t>(ts.tv_nsec);
}
}  // namespace

Worker::Worker(WorkerConfig config)
    : config_(std::move(config)),
      connections_(config_.connections),
      read_buffer_(new char[kReadBufferBytes]) {
  budget_mode_ = config_.budget_mode;
  budget_left_ = config_.requests;
  end_timer_.fn = &Worker::on_end_timer;
  end_timer_.ctx = this;
  progress_timer_.fn = &Worker::on_progress_timer;
  progress_timer_.ctx = this;
}

Worker::~Worker() {
  for (auto& c : connections_) c.shutdown();
  if (loop_) {
    loop_->cancel(end_timer_);
    loop_->cancel(progress_timer_);
  }
}

Status Worker::init() {
  auto loop = EventLoop::create();
  if (!loop) return loop.error();
  loop_.reset(loop.value());
  for (uint32_t i = 0; i < config_.connections; ++i) connections_[i].init(this, i);
  deferred_sends_.reserve(config_.connections);
  loop_->set_batch_end_hook(&Worker::on_batch_end, this);
  return ok_status();
}

const SocketAddress& Worker::address_for(uint32_t connection_index) const {
  return config_.addresses[connection_index % config_.addresses.size()];
}

void Worker::run() {
  uint64_t cpu_start_ns = thread_cpu_ns();
  loop_->refresh_now_ns();
  if (config_.end_ns != 0) loop_->arm(end_timer_, config_.end_ns);
  loop_->arm(progress_timer_, loop_->now_ns() + kProgressIntervalNs);
  // A worker whose share of -n is zero (fewer requests than threads) has nothing to do.
  if (budget_mode_ && config_.requests == 0) finish(loop_->now_ns());
  for (auto& c : connections_) {
    if (finished_) break;
    c.start();
  }
  if (!finished_) loop_->run();
  uint64_t wall_ns = loop_->refresh_now_ns() - config_.start_ns;
  if (!finished_) finish(loop_->now_ns());
  for (auto& c : connections_) c.shutdown();
  loop_->cancel(end_timer_);
  loop_->cancel(progress_timer_);
  uint64_t cpu_ns = thread_cpu_ns() - cpu_start_ns;
  cpu_utilization_ = wall_ns ? static_cast<double>(cpu_ns) / static_cast<double>(wall_ns) : 0.0;
  publish_progress();
  progress_.done.store(true, std::memory_order_release);
}

void Worker::stop() {
  loop_->post([this] { finish(loop_->refresh_now_ns()); });
}

bool Worker::acquire_request(uint64_t now_ns, bool* counted) {
  if (finished_) return false;
  if (now_ns < config_.measure_start_ns) {
    *counted = false;  // warm-up: load runs, nothing is recorded
    return true;
  }
  *counted = true;
  if (budget_mode_) {
    if (budget_left_ == 0) return false;
    --budget_left_;
  }
  ++outstanding_;
  return true;
}

void Worker::on_outcome(bool counted) {
  if (!counted) return;
  --outstanding_;
  if (budget_mode_ && budget_left_ == 0 && outstanding_ == 0) finish(loop_->now_ns());
}

void Worker::on_connect_failed() {
  if (ever_connected_ || finished_) return;
  // Fail fast when the target is unreachable: once every connection has failed its first attempt
  // and none ever succeeded, waiting out the duration would only repeat the same error.
  if (++early_connect_failures_ >= config_.connections) {
    gave_up_ = true;
    finish(loop_->now_ns());
  }
}

void Worker::finish(uint64_t now_ns) {
  if (finished_) return;
  finished_ = true;
  end_ns_ = now_ns;
  uint64_t in_flight = 0;
  for (const auto& c : connections_) in_flight += c.counted_in_flight() ? 1 : 0;
  recorder_.set_in_flight(in_flight);
  loop_->quit();
}

void Worker::publish_progress() {
  const Counters& c = recorder_.counters();
  progress_.completed.store(c.completed, std::memory_order_relaxed);
  progress_.errors.store(c.request_errors() + c.error(ErrorClass::kConnect),
                         std::memory_order_relaxed);
}

void Worker::on_end_timer(Timer* /*timer*/, void* ctx) {
  auto* self = static_cast<Worker*>(ctx);
  self->finish(self->loop_->now_ns());
}

void Worker::on_batch_end(void* ctx) {
  auto* self = static_cast<Worker*>(ctx);
  // Index loop: a send may fail and reconnect, but never defers another send during this flush.
  for (size_t i = 0; i < self->deferred_sends_.size() && !self->finished_; ++i) {
    self->deferred_sends_[i]->send_deferred();
  }
  self->deferred_sends_.clear();
}

void Worker::on_progress_timer(Timer* /*timer*/, void* ctx) {
  auto* self = static_cast<Worker*>(ctx);
  self->publish_progress();
  if (!self->finished_) {
    self->loop_->arm(self->progress_timer_, self->loop_->now_ns() + kProgressIntervalNs);
  }
}

}  // namespace hail
