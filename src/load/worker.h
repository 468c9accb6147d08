// Worker: one load thread. It owns its event loop, its connections, its Pacer (the load model's
// decisions for its share of the run), its MeasurementSink, its request source and read buffer;
// nothing of it is shared while it runs. The runner reads its sink and summary only after run()
// has returned; the progress counters are the one thing other threads may read live.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "http/session_factory.h"
#include "load/connection.h"
#include "load/measurement_sink.h"
#include "load/pacer.h"
#include "load/request_source.h"
#include "load/run_plan.h"
#include "load/start_gate.h"
#include "load/targets.h"
#include "net/event_loop.h"
#include "net/lingering_close.h"
#include "net/tls.h"

namespace hail {

struct WorkerSetup {
  const RunPlan* plan = nullptr;  // outlives the worker
  uint32_t index = 0;
  std::vector<TargetGroup> groups;  // the plan's (a script may give this thread its own address)
  std::unique_ptr<RequestSource> source;
  // The wrk script's state of this thread (owned by the runner's ScriptRun; only this worker's
  // thread touches it during the run). Null without -s.
  ThreadScript* script = nullptr;
  // Per-tag statistics: --urls lines (interned in line order) and hail.tag names.
  bool keep_tags = false;
  std::vector<std::string> tag_names;
  std::vector<Collector*> collectors;  // this worker's, from the front-ends' factories
};

// Live counters for the progress line, published by the worker a few times a second.
struct WorkerProgress {
  std::atomic<uint64_t> completed{0};
  std::atomic<uint64_t> errors{0};
  std::atomic<uint64_t> in_flight{0};  // requests sent and not yet answered or failed
  std::atomic<bool> done{false};
  std::atomic<bool> script_failed{false};  // a script hook failed: the runner stops every worker
};

// What the runner learns of a worker besides its measurements, once it has stopped.
struct WorkerSummary {
  uint64_t end_ns = 0;           // when its run ended (monotonic)
  double cpu_utilization = 0.0;  // its thread's CPU time / wall time of the run
  uint64_t naps = 0;             // wake-up coalescing naps taken
  uint64_t max_nap_ns = 0;       // the longest nap allowed
  bool gave_up = false;          // every connection failed before any succeeded
  // A run bounded only by its request count stopped because the server was gone: every
  // connection attempt failed for longer than the request timeout with no connection open.
  bool server_gone = false;
  uint64_t backlog = 0;        // planned requests still waiting for a connection
  uint64_t start_late_ns = 0;  // --start-at: how late its loop ran the start (StartGate)
  std::string script_error;    // why a script stopped the run ("" if it did not)
};

class Worker final : private PacerHost, private ConnectionHost {
 public:
  static constexpr size_t kReadBufferBytes = 64 * 1024;

  explicit Worker(WorkerSetup setup);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Creates the event loop, TLS contexts, connections and the pacer (on the calling thread; the
  // loop is only used by run()).
  Status init();
  // The thread body: connects, runs the load until the plan ends or stop() is called.
  void run();
  // Thread-safe: end the measured phase now (SIGINT).
  void stop();
  // Thread-safe: the load model's level changes (Pacer::retarget) as soon as the worker sees it.
  void retarget(double level);

  const MeasurementSink& sink() const { return *sink_; }
  const WorkerProgress& progress() const { return progress_; }
  const WorkerSummary& summary() const { return summary_; }
  // Thread-safe: the windows closed since the last call, the time series' and the stages'; the
  // runner merges them as they close, so that no worker keeps a long run's series.
  void take_closed_windows(std::vector<WindowSeries::Window>* intervals,
                           std::vector<WindowSeries::Window>* steps);

 private:
  // PacerHost
  EventLoop& loop() override { return *loop_; }
  uint32_t connection_count() const override { return static_cast<uint32_t>(connections_.size()); }
  uint32_t connecting() const override { return connecting_; }
  bool is_closed(uint32_t c) const override { return connections_[c].closed(); }
  bool can_send(uint32_t c) const override { return connections_[c].ready_for_request(); }
  void open(uint32_t c) override { connections_[c].start(); }
  void wake(uint32_t c) override { connections_[c].wake(); }
  void close_when_idle(uint32_t c) override { connections_[c].close_when_idle(); }
  void finish() override { finish(loop_->now_ns()); }
  uint64_t cpu_ns() const override;
  // PacerHost and ConnectionHost: a script hook failed (error) or asked to stop ("").
  void stop_for_script(const std::string& error) override;
  // ConnectionHost
  void on_connect_started() override { ++connecting_; }
  void on_connect_finished(bool ok) override;
  void give_up_if_server_gone();

  void finish(uint64_t now_ns);
  void publish_progress();
  static void on_end_timer(Timer* timer, void* ctx);
  static void on_progress_timer(Timer* timer, void* ctx);
  static void on_batch_end(void* ctx);

  WorkerSetup setup_;
  const RunPlan& plan_;
  const WorkerShare& share_;
  SessionFactory sessions_;
  std::unique_ptr<EventLoop> loop_;
  std::unique_ptr<LingeringClose> lingering_;           // after loop_: goes first
  std::vector<std::unique_ptr<TlsClientContext>> tls_;  // per target group (null: cleartext)
  std::unique_ptr<char[]> read_buffer_;
  std::unique_ptr<MeasurementSink> sink_;
  ConnectionEnv env_;
  std::vector<Connection> connections_;
  std::unique_ptr<Pacer> pacer_;             // after connections_: destroyed first
  StartGate* gate_ = nullptr;                // --start-at ahead: pacer_ itself, else null
  std::vector<Connection*> deferred_sends_;  // capacity reserved for every connection up front
  std::vector<ScriptResponseHeader> script_headers_;  // ConnectionEnv's scratch
  std::string script_stop_;
  WorkerProgress progress_;
  WorkerSummary summary_;
  bool ever_connected_ = false;
  uint32_t connecting_ = 0;  // connections between connect() and its outcome
  uint32_t early_connect_failures_ = 0;
  uint64_t connects_failing_since_ns_ = 0;  // 0: the last connect attempt succeeded
  Timer end_timer_;
  Timer progress_timer_;
};

}  // namespace hail
