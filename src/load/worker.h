// Worker: one load thread. It owns its event loop, its connections, its request bytes, its read
// buffer and its Recorder; nothing of it is shared while it runs. The runner reads the recorder
// only after run() has returned; the progress counters are the one thing other threads may read
// live.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "http/h2_client_session.h"
#include "http/request.h"
#include "load/request_source.h"
#include "load/run_options.h"
#include "load/schedule.h"
#include "load/stage_spec.h"
#include "load/wake_coalescer.h"
#include "net/address.h"
#include "net/event_loop.h"
#include "net/tls.h"
#include "stats/recorder.h"
#include "stats/request_log.h"
#include "stats/tag_stats.h"
#include "stats/time_series.h"

namespace hail {

class Connection;

// Where a share of the connections goes: the URL's host, or one host of a --urls file.
struct TargetGroup {
  // The runner passes one address (pick_address); connections take several round-robin.
  std::vector<SocketAddress> addresses;
  std::shared_ptr<const TlsClientConfig> tls;  // null: cleartext
  double weight = 1;                           // share of the connections
};

struct WorkerConfig {
  uint32_t index = 0;
  uint32_t connections = 1;
  std::vector<TargetGroup> groups;  // at least one
  // The group of each of this worker's connections (connection_groups() in targets.h); empty:
  // all in group 0.
  std::vector<uint16_t> connection_groups;
  RequestTemplate request;                // built once per run (used when `source` is null)
  std::unique_ptr<RequestSource> source;  // --urls mixes, scripts' request()
  // The wrk script's state of this thread (owned by the runner's ScriptRun; only this worker's
  // thread touches it during the run). Null without -s.
  ThreadScript* script = nullptr;
  // Per-tag statistics: --urls lines (interned in line order) and hail.tag names.
  bool keep_tags = false;
  std::vector<std::string> tag_names;
  // ab's needs: a record of every measured request, and the Server field and body length of the
  // first response (captured on this worker's connection 0 only).
  bool keep_request_log = false;
  bool first_response_facts = false;
  bool keep_alive = true;  // false: one connection per request
  HttpProtocol protocol = HttpProtocol::kAuto;
  uint32_t pipeline = 1;  // HTTP/1.1 requests in flight per connection
  bool http09 = false;
  H2Settings h2;  // streams per connection, window size
  uint64_t timeout_ns = 0;
  bool budget_mode = false;       // -n: send exactly `requests`, then finish
  uint64_t requests = 0;          // this worker's share of -n (may be 0 when -n < -t)
  uint64_t start_ns = 0;          // when load starts (warm-up begins)
  uint64_t measure_start_ns = 0;  // when recording starts (start + warm-up)
  uint64_t end_ns = 0;            // when the measured phase ends; 0 = no time limit
  // Rate mode (rate_per_s > 0 is the total over all workers; this worker plans its slice).
  double rate_per_s = 0;
  Arrival arrival = Arrival::kFixed;
  WorkerSlice slice;
  uint32_t max_connections = 0;  // this worker's cap (connections when 0 or smaller)
  uint64_t seed = 0;
  // --stages / --ladder: the curve of the total rate (rate mode) or of the total number of open
  // connections (closed loop), starting at start_ns from stages_initial. A warm-up is the curve's
  // first stage (a hold). Closed loop: `connections` is this worker's share of the curve's maximum
  // and `slice` says which share of each target is this worker's.
  std::vector<Stage> stages;
  double stages_initial = 0;
  uint64_t think_ns = 0;  // closed loop: pause between a response and the connection's next request
  bool coalesce_wakeups = true;  // nap before blocking when many responses are due (WakeCoalescer)
  // Windows: the --interval time series (0: none) and one window per measured stage, closing at
  // these absolute times (the last one is the curve's end, where the run stops anyway).
  uint64_t interval_ns = 0;
  std::vector<uint64_t> step_boundaries_ns;
};

// Live counters for the progress line, published by the worker a few times a second.
struct WorkerProgress {
  std::atomic<uint64_t> completed{0};
  std::atomic<uint64_t> errors{0};
  std::atomic<bool> done{false};
  std::atomic<bool> script_failed{false};  // a script hook failed: the runner stops every worker
};

class Worker {
 public:
  static constexpr size_t kReadBufferBytes = 64 * 1024;

  explicit Worker(WorkerConfig config);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Creates the event loop (on the calling thread; the loop is only used by run()).
  Status init();
  // The thread body: connects, runs the load until the plan ends or stop() is called.
  void run();
  // Thread-safe: end the measured phase now (SIGINT).
  void stop();

  const Recorder& recorder() const { return recorder_; }
  const TagTable& tags() const { return tags_; }
  // Requests completed per second of each 100 ms of the measured phase (wrk's per-thread Req/Sec
  // samples, for its Thread Stats table and scripts' done()).
  const Histogram& rate_samples() const { return rate_samples_; }
  // Why a script stopped the run ("" if it did not): a runtime error in request() or response().
  const std::string& script_error() const { return script_error_; }
  const std::vector<RequestRecord>& request_log() const { return request_log_; }
  // After the run: hands the log over (the runner merges without holding two copies).
  std::vector<RequestRecord> take_request_log() { return std::move(request_log_); }
  // The first response's Server field ("" if none) and body length (-1: no response captured).
  const std::string& first_server() const { return first_server_; }
  int64_t first_body_bytes() const { return first_body_bytes_; }
  const WorkerProgress& progress() const { return progress_; }
  uint64_t end_ns() const { return end_ns_; }
  double cpu_utilization() const { return cpu_utilization_; }
  uint64_t naps() const { return loop_->naps(); }
  uint64_t max_nap_ns() const { return max_nap_ns_; }
  bool gave_up() const { return gave_up_; }

  // ---- used by Connection (worker thread only) ----
  EventLoop& loop() { return *loop_; }
  Recorder& recorder() { return recorder_; }
  const WorkerConfig& config() const { return config_; }
  const SocketAddress& address_for(uint32_t connection_index) const;
  uint32_t group_of(uint32_t connection_index) const { return group_of_[connection_index]; }
  RequestSource& source() { return *source_; }
  ThreadScript* script() { return config_.script; }
  TagTable& tags() { return tags_; }
  bool keep_tags() const { return config_.keep_tags; }
  // A script hook failed or asked to stop (wrk.thread:stop()): the worker's load ends now.
  void stop_for_script(const std::string& error);
  std::vector<RequestRecord>* request_log_sink() {
    return config_.keep_request_log ? &request_log_ : nullptr;
  }
  // Connection 0 asks this until the first response's facts are in.
  bool wants_first_response() const {
    return config_.first_response_facts && first_body_bytes_ < 0;
  }
  void set_first_response(std::string server, int64_t body_bytes) {
    first_server_ = std::move(server);
    first_body_bytes_ = body_bytes;
  }
  // --think, or the script's delay() before the next request (0: none).
  uint64_t think_ns_next();
  char* read_buffer() { return read_buffer_.get(); }
  bool finished() const { return finished_; }
  // Asks the plan for the next request. Returns false when no more may be sent; sets *counted when
  // the request belongs to the measured phase.
  bool acquire_request(uint64_t now_ns, bool* counted);
  // Every acquired request reports its outcome exactly once.
  void on_outcome(bool counted);
  // Each response's service time (send -> complete), warm-up included.
  void on_response_latency(uint64_t latency_ns) { coalescer_.on_response(latency_ns); }
  // False when the plan has no request left for one more connection: closed connections then stay
  // closed (connections being opened will each take one of the requests left).
  bool wants_more() const { return !budget_mode_ || budget_left_ > connecting_; }
  bool rate_mode() const { return schedule_.has_value(); }
  std::unique_ptr<Transport> new_transport(uint32_t connection_index);
  std::unique_ptr<ClientSession> new_h2_session();
  // HTTP/2 for a connection whose TLS handshake chose `alpn` (empty for cleartext)?
  bool use_h2(std::string_view alpn) const {
    return config_.protocol == HttpProtocol::kHttp2 ||
           (config_.protocol == HttpProtocol::kAuto && alpn == "h2");
  }
  // Rate mode: an open connection with spare capacity takes the oldest planned requests, or waits
  // on the idle stack for the next one.
  void on_idle(Connection* connection);
  uint64_t backlog() const { return queue_size_; }
  void on_connect_start() { ++connecting_; }
  void on_connect_end() { --connecting_; }
  void on_connect_ok() { ever_connected_ = true; }
  // Keep-alive connections whose response just completed send their next request after the whole
  // epoll batch has been handled, not in the middle of it: the server then finds the requests of
  // many connections in one wake-up (as wrk's write-on-EPOLLOUT does), which costs it less CPU per
  // request. The send time is still taken when each request is written.
  void defer_send(Connection* connection) { deferred_sends_.push_back(connection); }
  void on_connect_failed();
  // Closed loop with stages: connections whose index is at or above the current target close as
  // soon as they have no request in flight, and stay closed until the target grows again.
  bool keeps(uint32_t connection_index) const { return connection_index < target_; }
  void on_opened() { ++open_connections_; }
  void on_open_closed() { --open_connections_; }
  // Windowed series: in a warm-up interval only warm-up requests count, in a measured one only
  // measured requests (so the measured windows add up to the summary exactly).
  void window_complete(bool counted, int status, uint64_t latency_ns) {
    if (counted && interval_warmup_ && intervals_.active()) roll_to_measured();
    if (intervals_.active() && counted != interval_warmup_)
      intervals_.on_complete(status, latency_ns);
    if (counted && steps_.active()) steps_.on_complete(status, latency_ns);
  }
  void window_error(bool counted, ErrorClass error) {
    if (counted && interval_warmup_ && intervals_.active()) roll_to_measured();
    if (intervals_.active() && counted != interval_warmup_) intervals_.on_error(error);
    if (counted && steps_.active()) steps_.on_error(error);
  }
  const WindowSeries& intervals() const { return intervals_; }
  const WindowSeries& steps() const { return steps_; }

 private:
  void finish(uint64_t now_ns);
  void publish_progress();
  static void on_end_timer(Timer* timer, void* ctx);
  static void on_progress_timer(Timer* timer, void* ctx);
  static void on_batch_end(void* ctx);
  static void on_schedule_timer(Timer* timer, void* ctx);
  void plan_due(uint64_t now_ns);
  void dispatch();
  void push_planned(uint64_t planned_ns);
  uint64_t pop_planned();
  static void on_target_timer(Timer* timer, void* ctx);
  static void on_interval_timer(Timer* timer, void* ctx);
  static void on_step_timer(Timer* timer, void* ctx);
  static void on_rate_sample_timer(Timer* timer, void* ctx);
  uint32_t share_of(uint64_t total) const;
  void apply_target(uint32_t target);
  void roll_to_measured();

  WorkerConfig config_;
  std::unique_ptr<EventLoop> loop_;
  std::vector<std::unique_ptr<TlsClientContext>> tls_;  // per target group (null: cleartext)
  std::vector<uint16_t> group_of_;                      // per connection
  std::unique_ptr<RequestSource> source_;
  TagTable tags_;
  std::string script_error_;
  std::vector<RequestRecord> request_log_;
  std::string first_server_;
  int64_t first_body_bytes_ = -1;
  Histogram rate_samples_;
  uint64_t rate_sample_completed_ = 0;  // completions at the last sample
  uint64_t rate_sample_start_ns_ = 0;   // when the last sample was taken (0: measuring's start)
  Timer rate_sample_timer_;
  std::vector<Connection> connections_;
  std::vector<Connection*> deferred_sends_;  // capacity reserved for every connection up front
  std::unique_ptr<char[]> read_buffer_;
  Recorder recorder_;
  WorkerProgress progress_;

  bool budget_mode_ = false;
  uint64_t budget_left_ = 0;  // counted requests not yet sent
  uint64_t outstanding_ = 0;  // counted requests sent, without an outcome yet
  uint64_t connecting_ = 0;   // connections between connect() and its outcome
  uint64_t in_flight_ = 0;    // acquired requests without an outcome yet, warm-up included
  WakeCoalescer coalescer_;
  uint64_t max_nap_ns_ = 0;
  bool finished_ = false;
  bool ever_connected_ = false;
  bool gave_up_ = false;  // every connection failed before any succeeded
  uint32_t early_connect_failures_ = 0;
  uint64_t end_ns_ = 0;
  double cpu_utilization_ = 0.0;
  // Rate mode.
  std::optional<RateSchedule> schedule_;
  Timer schedule_timer_;
  std::vector<uint64_t> queue_;  // ring of planned send times, capacity a power of two
  size_t queue_head_ = 0;
  size_t queue_size_ = 0;
  std::vector<Connection*> idle_;  // open connections waiting for a planned request
  uint32_t started_connections_ = 0;
  uint64_t counted_planned_ = 0;  // measured-phase requests planned so far (-n with -R)
  Timer end_timer_;
  Timer progress_timer_;
  // Closed loop with stages.
  std::optional<ConnectionTargetSchedule> target_schedule_;
  uint32_t target_ = UINT32_MAX;  // connections with a lower index run; UINT32_MAX: all
  Timer target_timer_;
  uint64_t open_connections_ = 0;
  // Windows.
  WindowSeries intervals_;
  bool interval_warmup_ = false;
  Timer interval_timer_;
  WindowSeries steps_;
  size_t next_step_ = 0;  // index into step_boundaries_ns of the next boundary
  Timer step_timer_;
};

}  // namespace hail
