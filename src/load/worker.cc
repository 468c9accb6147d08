#include "load/worker.h"

#include <sys/prctl.h>
#include <time.h>

#include <algorithm>

#include "core/clock.h"
#include "load/connection.h"

namespace hail {

namespace {
constexpr uint64_t kProgressIntervalNs = 250 * kNsPerMs;
constexpr uint64_t kMinWakeGapNs = 50 * kNsPerUs;
// wrk samples each thread's request rate every 100 ms (its RECORD_INTERVAL_MS).
constexpr uint64_t kRateSampleNs = 100 * kNsPerMs;

uint64_t thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * kNsPerSec + static_cast<uint64_t>(ts.tv_nsec);
}
}  // namespace

Worker::Worker(WorkerConfig config)
    : config_(std::move(config)),
      connections_(std::max(config_.connections, config_.max_connections)),
      read_buffer_(new char[kReadBufferBytes]),
      coalescer_(config_.coalesce_wakeups) {
  group_of_ = config_.connection_groups;
  group_of_.resize(connections_.size(), 0);
  source_ =
      config_.source ? std::move(config_.source) : std::make_unique<RequestSource>(config_.request);
  for (const std::string& name : config_.tag_names) tags_.intern(name);
  if (config_.keep_tags) source_->set_tag_table(&tags_);
  // ab's log: reserve the worker's share of -n up front (untouched pages cost no memory, as ab's
  // calloc of every request's record), so that logging never copies the log as it grows.
  if (config_.keep_request_log && config_.budget_mode) {
    request_log_.reserve(std::min<uint64_t>(config_.requests, uint64_t{1} << 26));
  }
  rate_sample_timer_.fn = &Worker::on_rate_sample_timer;
  rate_sample_timer_.ctx = this;
  budget_mode_ = config_.budget_mode;
  budget_left_ = config_.requests;
  end_timer_.fn = &Worker::on_end_timer;
  end_timer_.ctx = this;
  progress_timer_.fn = &Worker::on_progress_timer;
  progress_timer_.ctx = this;
  schedule_timer_.fn = &Worker::on_schedule_timer;
  schedule_timer_.ctx = this;
  target_timer_.fn = &Worker::on_target_timer;
  target_timer_.ctx = this;
  interval_timer_.fn = &Worker::on_interval_timer;
  interval_timer_.ctx = this;
  step_timer_.fn = &Worker::on_step_timer;
  step_timer_.ctx = this;
  if (config_.rate_per_s > 0) {
    RateScheduleOptions o;
    o.arrival = config_.arrival;
    o.slice = config_.slice;
    uint64_t seed = config_.seed != 0 ? config_.seed : mono_now_ns();
    std::mt19937_64 rng(seed + config_.slice.index);
    if (config_.stages.empty()) {
      schedule_.emplace(config_.rate_per_s, config_.start_ns, o, rng);
    } else {
      schedule_.emplace(StageCurve(config_.stages, config_.stages_initial), config_.start_ns, o,
                        rng);
    }
    queue_.resize(1024);
    idle_.reserve(connections_.size());
  } else if (!config_.stages.empty()) {
    target_schedule_.emplace(StageCurve(config_.stages, config_.stages_initial), config_.start_ns);
  }
}

Worker::~Worker() {
  for (auto& c : connections_) c.shutdown();
  if (loop_) {
    loop_->cancel(end_timer_);
    loop_->cancel(progress_timer_);
    loop_->cancel(schedule_timer_);
    loop_->cancel(target_timer_);
    loop_->cancel(interval_timer_);
    loop_->cancel(step_timer_);
    loop_->cancel(rate_sample_timer_);
  }
}

Status Worker::init() {
  auto loop = EventLoop::create();
  if (!loop) return loop.error();
  loop_.reset(loop.value());
  for (const TargetGroup& g : config_.groups) {
    tls_.emplace_back();
    if (!g.tls) continue;
    // One context per worker thread: nothing of OpenSSL's is shared between workers.
    auto tls = TlsClientContext::create(*g.tls);
    if (!tls) return tls.error();
    tls_.back() = std::move(tls.value());
  }
  for (uint32_t i = 0; i < connections_.size(); ++i) connections_[i].init(this, i);
  deferred_sends_.reserve(config_.connections);
  loop_->set_batch_end_hook(&Worker::on_batch_end, this);
  return ok_status();
}

std::unique_ptr<Transport> Worker::new_transport(uint32_t connection_index) {
  const uint32_t g = group_of_[connection_index];
  if (tls_[g]) return tls_[g]->new_transport();
  return std::make_unique<TcpTransport>(config_.groups[g].addresses.front().family() != AF_UNIX);
}

std::unique_ptr<ClientSession> Worker::new_h2_session() {
  return std::make_unique<H2ClientSession>(config_.h2);
}

const SocketAddress& Worker::address_for(uint32_t connection_index) const {
  const std::vector<SocketAddress>& a = config_.groups[group_of_[connection_index]].addresses;
  return a[connection_index % a.size()];
}

void Worker::stop_for_script(const std::string& error) {
  if (script_error_.empty()) script_error_ = error;
  if (!error.empty()) progress_.script_failed.store(true, std::memory_order_relaxed);
  finish(loop_->now_ns());
}

uint64_t Worker::think_ns_next() {
  ThreadScript* script = config_.script;
  if (script == nullptr || !script->has_delay() || rate_mode()) return config_.think_ns;
  auto ms = script->delay_ms();
  if (!ms) {
    stop_for_script(ms.error().message);
    return 0;
  }
  // wrk takes delay()'s milliseconds as a whole number; negative or NaN means none.
  const double v = *ms;
  return v > 0 && v < 3.6e6 ? static_cast<uint64_t>(v) * kNsPerMs : 0;
}

void Worker::run() {
  // Rate mode plans sends to the microsecond, and wake-up naps are bounded to a share of the
  // latency: the default 50 us timer slack would add to both, so ask the kernel for none on this
  // thread.
  if (rate_mode() || config_.coalesce_wakeups) prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  uint64_t cpu_start_ns = thread_cpu_ns();
  loop_->refresh_now_ns();
  if (config_.end_ns != 0) loop_->arm(end_timer_, config_.end_ns);
  loop_->arm(progress_timer_, loop_->now_ns() + kProgressIntervalNs);
  // A worker whose share of -n is zero (fewer requests than threads) has nothing to do.
  const uint64_t now_ns = loop_->now_ns();
  if (config_.interval_ns != 0) {
    interval_warmup_ = config_.start_ns < config_.measure_start_ns;
    intervals_.begin(config_.start_ns, interval_warmup_);
    loop_->arm(interval_timer_,
               next_interval_boundary(now_ns, config_.start_ns, config_.measure_start_ns,
                                      config_.interval_ns));
  }
  const std::vector<uint64_t>& steps = config_.step_boundaries_ns;
  if (steps.size() >= 2) {
    steps_.begin(steps[0], false);
    next_step_ = 1;
    // The last boundary is the end of the run: finish() closes the last step.
    if (steps.size() > 2) loop_->arm(step_timer_, steps[1]);
  }
  uint32_t initial = config_.connections;
  if (target_schedule_) {
    target_ = share_of(target_schedule_->target_at(now_ns));
    initial = std::min(initial, target_);
    uint64_t next_ns = target_schedule_->next_change_ns(now_ns);
    if (next_ns != kNoMoreRequests) loop_->arm(target_timer_, next_ns);
  }
  if (budget_mode_ && config_.requests == 0) finish(now_ns);
  for (uint32_t i = 0; i < initial && !finished_; ++i) {
    ++started_connections_;
    connections_[i].start();
  }
  if (rate_mode() && !finished_) loop_->arm(schedule_timer_, schedule_->next_planned_ns());
  loop_->arm(rate_sample_timer_, config_.measure_start_ns + kRateSampleNs);
  if (!finished_) loop_->run();
  uint64_t wall_ns = loop_->refresh_now_ns() - config_.start_ns;
  if (!finished_) finish(loop_->now_ns());
  for (auto& c : connections_) c.shutdown();
  loop_->cancel(end_timer_);
  loop_->cancel(progress_timer_);
  loop_->cancel(schedule_timer_);
  loop_->cancel(target_timer_);
  loop_->cancel(interval_timer_);
  loop_->cancel(step_timer_);
  loop_->cancel(rate_sample_timer_);
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
    ++in_flight_;
    return true;
  }
  *counted = true;
  if (budget_mode_) {
    if (budget_left_ == 0) return false;
    --budget_left_;
  }
  ++outstanding_;
  ++in_flight_;
  return true;
}

void Worker::on_outcome(bool counted) {
  --in_flight_;
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
  for (const auto& c : connections_) in_flight += c.counted_in_flight();
  recorder_.set_in_flight(in_flight);
  if (intervals_.active()) intervals_.close_window(now_ns, open_connections_, false, true);
  if (steps_.active()) steps_.close_window(now_ns, open_connections_, false, true);
  loop_->quit();
}

uint32_t Worker::share_of(uint64_t total) const {
  const uint64_t n = config_.slice.count, i = config_.slice.index;
  uint64_t share = total / n + (i < total % n ? 1 : 0);
  return static_cast<uint32_t>(std::min<uint64_t>(share, connections_.size()));
}

void Worker::apply_target(uint32_t target) {
  const uint32_t old = target_;
  target_ = target;
  for (uint32_t i = old; i < target && !finished_; ++i) {
    if (connections_[i].closed() && wants_more()) connections_[i].start();
  }
  for (uint32_t i = target; i < old; ++i) connections_[i].retire_if_idle();
}

void Worker::on_target_timer(Timer* /*timer*/, void* ctx) {
  auto* self = static_cast<Worker*>(ctx);
  if (self->finished_) return;
  uint64_t now_ns = self->loop_->refresh_now_ns();
  self->apply_target(self->share_of(self->target_schedule_->target_at(now_ns)));
  uint64_t next_ns = self->target_schedule_->next_change_ns(now_ns);
  if (next_ns != kNoMoreRequests) self->loop_->arm(self->target_timer_, next_ns);
}

void Worker::roll_to_measured() {
  // The first measured outcome arrived before the interval timer at the start of measuring fired:
  // switch windows now, so that no measured request lands in a warm-up window.
  interval_warmup_ = false;
  intervals_.close_window(config_.measure_start_ns, open_connections_, false, false);
}

void Worker::on_interval_timer(Timer* timer, void* ctx) {
  auto* self = static_cast<Worker*>(ctx);
  if (self->finished_) return;
  const WorkerConfig& c = self->config_;
  const uint64_t boundary_ns = timer->deadline_ns;
  if (c.end_ns != 0 && boundary_ns >= c.end_ns) return;  // finish() closes the last window
  if (boundary_ns > self->intervals_.current_start_ns()) {
    self->interval_warmup_ = boundary_ns < c.measure_start_ns;
    self->intervals_.close_window(boundary_ns, self->open_connections_, self->interval_warmup_,
                                  false);
  }
  self->loop_->arm(
      self->interval_timer_,
      next_interval_boundary(boundary_ns, c.start_ns, c.measure_start_ns, c.interval_ns));
}

void Worker::on_step_timer(Timer* /*timer*/, void* ctx) {
  auto* self = static_cast<Worker*>(ctx);
  if (self->finished_) return;
  const std::vector<uint64_t>& steps = self->config_.step_boundaries_ns;
  self->steps_.close_window(steps[self->next_step_], self->open_connections_, false, false);
  ++self->next_step_;
  if (self->next_step_ + 1 < steps.size())
    self->loop_->arm(self->step_timer_, steps[self->next_step_]);
}

void Worker::on_rate_sample_timer(Timer* timer, void* ctx) {
  auto* self = static_cast<Worker*>(ctx);
  if (self->finished_) return;
  const uint64_t completed = self->recorder_.counters().completed;
  // Completions per second over the 100 ms just ended (the first sample starts when measuring
  // does). Like wrk, a window in which nothing completed is no sample (a stalled server shows in
  // the latency, not as zeros that drag Req/Sec down); the next sample then covers the longer
  // window.
  const uint64_t now_ns = timer->deadline_ns;
  if (completed > self->rate_sample_completed_) {
    const uint64_t start_ns = self->rate_sample_start_ns_ != 0 ? self->rate_sample_start_ns_
                                                               : self->config_.measure_start_ns;
    const double seconds = static_cast<double>(now_ns - start_ns) / 1e9;
    self->rate_samples_.record(static_cast<uint64_t>(
        static_cast<double>(completed - self->rate_sample_completed_) / seconds));
    self->rate_sample_completed_ = completed;
    self->rate_sample_start_ns_ = now_ns;
  }
  self->loop_->arm(self->rate_sample_timer_, timer->deadline_ns + kRateSampleNs);
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

void Worker::push_planned(uint64_t planned_ns) {
  if (queue_size_ == queue_.size()) {
    // The backlog outgrew the ring: double it (rare; the steady state allocates nothing).
    std::vector<uint64_t> bigger(queue_.size() * 2);
    for (size_t i = 0; i < queue_size_; ++i) bigger[i] = queue_[(queue_head_ + i) % queue_.size()];
    queue_.swap(bigger);
    queue_head_ = 0;
  }
  queue_[(queue_head_ + queue_size_) & (queue_.size() - 1)] = planned_ns;
  ++queue_size_;
}

uint64_t Worker::pop_planned() {
  uint64_t planned_ns = queue_[queue_head_];
  queue_head_ = (queue_head_ + 1) & (queue_.size() - 1);
  --queue_size_;
  return planned_ns;
}

void Worker::plan_due(uint64_t now_ns) {
  while (schedule_->next_planned_ns() <= now_ns) {
    uint64_t planned_ns = schedule_->next_planned_ns();
    if (budget_mode_ && planned_ns >= config_.measure_start_ns) {
      // -n with -R: exactly this worker's share of measured requests is planned, no more.
      if (counted_planned_ == config_.requests) return;
      ++counted_planned_;
    }
    push_planned(planned_ns);
    schedule_->advance();
  }
}

void Worker::dispatch() {
  while (queue_size_ > 0 && !idle_.empty() && !finished_) {
    Connection* c = idle_.back();
    if (!c->ready_for_request()) {
      idle_.pop_back();
      c->idle_listed = false;
      continue;
    }
    c->send_planned(pop_planned());
  }
  // Requests wait for a connection: open more, up to the cap, instead of letting them queue.
  while (queue_size_ > idle_.size() + connecting_ && started_connections_ < connections_.size() &&
         !finished_) {
    connections_[started_connections_++].start();
  }
}

void Worker::on_idle(Connection* connection) {
  while (queue_size_ > 0 && connection->ready_for_request() && !finished_) {
    connection->send_planned(pop_planned());
  }
  if (connection->ready_for_request() && !connection->idle_listed) {
    connection->idle_listed = true;
    idle_.push_back(connection);
  }
}

void Worker::on_schedule_timer(Timer* /*timer*/, void* ctx) {
  auto* self = static_cast<Worker*>(ctx);
  if (self->finished_) return;
  self->plan_due(self->loop_->refresh_now_ns());
  self->dispatch();
  uint64_t next_ns = self->schedule_->next_planned_ns();
  bool budget_done = self->budget_mode_ && self->counted_planned_ == self->config_.requests;
  if (next_ns != kNoMoreRequests && !budget_done) {
    // Requests planned less than kMinWakeGapNs after this wake-up go out together at the next one:
    // a wake-up per request costs more CPU than the request itself at high rates (on VMs above
    // all), and the lag distribution reports what the grouping costs in timing.
    self->loop_->arm(self->schedule_timer_,
                     std::max(next_ns, self->loop_->now_ns() + kMinWakeGapNs));
  }
}

void Worker::on_batch_end(void* ctx) {
  auto* self = static_cast<Worker*>(ctx);
  // Index loop: a send may fail and reconnect, but never defers another send during this flush.
  for (size_t i = 0; i < self->deferred_sends_.size() && !self->finished_; ++i) {
    self->deferred_sends_[i]->send_deferred();
  }
  self->deferred_sends_.clear();
  const uint64_t nap_ns = self->coalescer_.nap_ns(self->in_flight_);
  self->loop_->set_idle_nap_ns(nap_ns);
  self->max_nap_ns_ = std::max(self->max_nap_ns_, nap_ns);
}

void Worker::on_progress_timer(Timer* /*timer*/, void* ctx) {
  auto* self = static_cast<Worker*>(ctx);
  self->publish_progress();
  if (!self->finished_) {
    self->loop_->arm(self->progress_timer_, self->loop_->now_ns() + kProgressIntervalNs);
  }
}

}  // namespace hail
