#include "load/worker.h"

#include <sys/prctl.h>
#include <time.h>

#include <algorithm>

#include "core/clock.h"
#include "load/load_model.h"
#include "net/uring_transport.h"

namespace hail {

namespace {
constexpr uint64_t kProgressIntervalNs = 250 * kNsPerMs;

uint64_t thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * kNsPerSec + static_cast<uint64_t>(ts.tv_nsec);
}

SinkSettings sink_settings(const RunPlan& plan, const WorkerSetup& setup) {
  SinkSettings s;
  s.measure_start_ns = plan.measure_start_ns;
  s.open_loop = plan.open_loop;
  s.coalesce_wakeups = plan.options.coalesce_wakeups;
  s.tag_names = setup.tag_names;
  s.windows = plan.windows();
  return s;
}
}  // namespace

Worker::Worker(WorkerSetup setup)
    : setup_(std::move(setup)),
      plan_(*setup_.plan),
      share_(plan_.shares[setup_.index]),
      sessions_(plan_.sessions),
      read_buffer_(new char[kReadBufferBytes]),
      sink_(std::make_unique<MeasurementSink>(sink_settings(plan_, setup_))),
      connections_(share_.max_connections) {
  if (!setup_.source)
    setup_.source = std::make_unique<RequestSource>(plan_.targets.templates.front());
  if (setup_.keep_tags) setup_.source->set_tag_table(&sink_->tags());
  for (Collector* c : setup_.collectors) sink_->add_collector(c);
  end_timer_.fn = &Worker::on_end_timer;
  end_timer_.ctx = this;
  progress_timer_.fn = &Worker::on_progress_timer;
  progress_timer_.ctx = this;
}

Worker::~Worker() {
  for (auto& c : connections_) c.shutdown();
  lingering_.reset();
  pacer_.reset();
  if (loop_) {
    loop_->cancel(end_timer_);
    loop_->cancel(progress_timer_);
  }
}

Status Worker::init() {
  auto loop = EventLoop::create(plan_.io);
  if (!loop) return loop.error();
  loop_.reset(loop.value());
  for (const TargetGroup& g : setup_.groups) {
    tls_.emplace_back();
    if (!g.tls) continue;
    // One context per worker thread: nothing of OpenSSL's is shared between workers.
    auto tls = TlsClientContext::create(*g.tls);
    if (!tls) return tls.error();
    tls_.back() = std::move(tls.value());
  }
  lingering_ = std::make_unique<LingeringClose>(loop_.get());
  env_.loop = loop_.get();
  env_.lingering = lingering_.get();
  env_.host = this;
  env_.finished = &finished_;
  env_.deferred_sends = &deferred_sends_;
  env_.sink = sink_.get();
  env_.source = setup_.source.get();
  env_.script = setup_.script;
  env_.sessions = &sessions_;
  env_.timeout_ns = plan_.options.timeout_ns;
  env_.http09 = plan_.options.http09;
  env_.retry_idempotent = plan_.options.retry_idempotent;
  env_.read_buffer = read_buffer_.get();
  env_.script_headers = &script_headers_;
  env_.script_stop = &script_stop_;
  for (uint32_t i = 0; i < connections_.size(); ++i) {
    const uint32_t g = i < share_.connection_groups.size() ? share_.connection_groups[i] : 0;
    const std::vector<SocketAddress>& addresses = setup_.groups[g].addresses;
    const SocketAddress& address = addresses[i % addresses.size()];
    std::unique_ptr<Transport> transport;
    if (tls_[g]) {
      transport = tls_[g]->new_transport();
    } else if (UringIo* uring = loop_->uring()) {
      transport = std::make_unique<UringTransport>(uring, address.family() != AF_UNIX);
    } else {
      transport = std::make_unique<TcpTransport>(address.family() != AF_UNIX);
    }
    connections_[i].init(&env_, i, g, &address, std::move(transport));
  }
  pacer_ = plan_.model->make_pacer(plan_, share_, *this, setup_.script);
  if (plan_.options.start_at_unix_ns != 0 && plan_.start_ns > mono_now_ns()) {
    PacerHost& host = *this;
    auto gate = std::make_unique<StartGate>(std::move(pacer_), host, plan_.start_ns);
    gate_ = gate.get();
    pacer_ = std::move(gate);
  }
  env_.pacer = pacer_.get();
  deferred_sends_.reserve(connections_.size());
  loop_->set_batch_end_hook(&Worker::on_batch_end, this);
  loop_->set_timely_timers(plan_.open_loop);
  return ok_status();
}

uint64_t Worker::cpu_ns() const {
  return thread_cpu_ns();
}

void Worker::stop_for_script(const std::string& error) {
  if (summary_.script_error.empty()) summary_.script_error = error;
  if (!error.empty()) progress_.script_failed.store(true, std::memory_order_relaxed);
  finish(loop_->now_ns());
}

void Worker::run() {
  // Rate mode plans sends to the microsecond, and wake-up naps are bounded to a share of the
  // latency: the default 50 us timer slack would add to both, so ask the kernel for none on this
  // thread.
  if (plan_.open_loop || plan_.options.coalesce_wakeups) {
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  }
  const uint64_t cpu_start_ns = thread_cpu_ns();
  loop_->refresh_now_ns();
  if (plan_.end_ns != 0) loop_->arm(end_timer_, plan_.end_ns);
  loop_->arm(progress_timer_, loop_->now_ns() + kProgressIntervalNs);
  const uint64_t now_ns = loop_->now_ns();
  sink_->start(*loop_, now_ns);
  pacer_->start(now_ns);
  if (!finished_) loop_->run();
  const uint64_t wall_ns = loop_->refresh_now_ns() - plan_.start_ns;
  if (!finished_) finish(loop_->now_ns());
  summary_.backlog = pacer_->backlog();
  if (gate_ != nullptr) summary_.start_late_ns = gate_->late_ns();
  for (auto& c : connections_) c.shutdown();
  loop_->cancel(end_timer_);
  loop_->cancel(progress_timer_);
  gate_ = nullptr;
  pacer_.reset();  // cancels its timers while the loop is alive
  const uint64_t cpu_ns = thread_cpu_ns() - cpu_start_ns;
  summary_.cpu_utilization =
      wall_ns ? static_cast<double>(cpu_ns) / static_cast<double>(wall_ns) : 0.0;
  summary_.naps = loop_->naps();
  publish_progress();
  progress_.done.store(true, std::memory_order_release);
}

void Worker::take_closed_windows(std::vector<WindowSeries::Window>* intervals,
                                 std::vector<WindowSeries::Window>* steps) {
  *intervals = sink_->windows().intervals().take_closed();
  *steps = sink_->windows().steps().take_closed();
}

void Worker::retarget(double level) {
  loop_->post([this, level] {
    if (!finished_) pacer_->retarget(level, loop_->refresh_now_ns());
  });
}

void Worker::stop() {
  loop_->post([this] { finish(loop_->refresh_now_ns()); });
}

void Worker::on_connect_finished(bool ok) {
  --connecting_;
  if (ok) {
    ever_connected_ = true;
    connects_failing_since_ns_ = 0;
    return;
  }
  if (finished_) return;
  if (ever_connected_) {
    give_up_if_server_gone();
    return;
  }
  // Fail fast when the target is unreachable: once every connection has failed its first attempt
  // and none ever succeeded, waiting out the duration would only repeat the same error.
  if (++early_connect_failures_ >= share_.connections) {
    summary_.gave_up = true;
    finish(loop_->now_ns());
  }
}

// A run with a time limit measures an outage to its end (a restart in a soak is data). A run
// bounded only by -n would retry forever once the server is gone: it gives up when every
// connect attempt has failed for longer than the request timeout and no connection is open.
void Worker::give_up_if_server_gone() {
  if (plan_.end_ns != 0) return;
  const uint64_t now_ns = loop_->now_ns();
  if (connects_failing_since_ns_ == 0) {
    connects_failing_since_ns_ = now_ns;
    return;
  }
  if (now_ns - connects_failing_since_ns_ < plan_.options.timeout_ns) return;
  for (const Connection& c : connections_) {
    if (c.established()) return;
  }
  summary_.server_gone = true;
  finish(now_ns);
}

void Worker::finish(uint64_t now_ns) {
  if (finished_) return;
  finished_ = true;
  summary_.end_ns = now_ns;
  uint64_t in_flight = 0;
  for (const auto& c : connections_) in_flight += c.counted_in_flight();
  sink_->stop(*loop_, now_ns, in_flight);
  loop_->quit();
}

void Worker::publish_progress() {
  const Counters& c = sink_->recorder().counters();
  progress_.completed.store(c.completed, std::memory_order_relaxed);
  progress_.errors.store(c.request_errors() + c.error(ErrorClass::kConnect),
                         std::memory_order_relaxed);
  const uint64_t settled = c.completed + c.request_errors() + c.retried;
  progress_.in_flight.store(c.attempted > settled ? c.attempted - settled : 0,
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
  const uint64_t nap_ns = self->loop_->backend() == IoBackend::kUring ? self->sink_->batch_wait_ns()
                                                                      : self->sink_->nap_ns();
  self->loop_->set_idle_nap_ns(
      nap_ns, static_cast<uint32_t>(std::min<uint64_t>(self->sink_->in_flight(), UINT32_MAX)));
  self->summary_.max_nap_ns = std::max(self->summary_.max_nap_ns, nap_ns);
}

void Worker::on_progress_timer(Timer* /*timer*/, void* ctx) {
  auto* self = static_cast<Worker*>(ctx);
  self->publish_progress();
  if (!self->finished_) {
    self->loop_->arm(self->progress_timer_, self->loop_->now_ns() + kProgressIntervalNs);
  }
}

}  // namespace hail
