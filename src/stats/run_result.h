// RunResult: the outcome of a run: what was asked for, every worker's (later every host's)
// measurements merged by RunResult::merge, and the notes the runner derives from the merged data.
// Built by the runner (one thread) after or while the workers run; read by reporters and front-ends
// from any thread once complete.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/protocol.h"
#include "stats/error_reasons.h"
#include "stats/histogram.h"
#include "stats/machine_info.h"
#include "stats/monitor_series.h"
#include "stats/recorder.h"
#include "stats/tag_stats.h"
#include "stats/time_series.h"

namespace hail {

// One tag's share of the run (a --urls line, or a Lua hail.tag name), all workers merged.
struct TagResult {
  std::string name;
  uint64_t completed = 0;
  std::array<uint64_t, kErrorClassCount> errors{};
  std::map<int, uint64_t> status_codes;  // every status code seen
  Histogram latency;

  uint64_t error_total() const {
    uint64_t n = 0;
    for (uint64_t e : errors) n += e;
    return n;
  }
  // Adds another share of the same tag (same name): counts, errors, statuses, latency.
  void merge(const TagResult& other);
};

struct RunResult {
  // What was asked for.
  std::string url;
  std::string method = "GET";
  uint32_t connections = 0;
  uint32_t threads = 0;
  bool keep_alive = true;
  int http_minor = 1;
  uint64_t requests_target = 0;  // -n; 0 in duration mode
  uint64_t duration_target_ns = 0;
  uint64_t warmup_ns = 0;
  uint64_t timeout_ns = 0;

  // Execution shards (--shard, or the launcher's environment): this result is shard_index of
  // shard_count of one test (connections, requests_target and rate_target_per_s are its part);
  // shard_count 1: the whole test. shard_source: "--shard", "Open MPI", "PMI", "Slurm",
  // "Kubernetes" (empty: not sharded). run_id: --run-id, naming the test across its shards.
  // A merge of shards keeps every input's row in ResultDocument::shards (report/shard_merge.h).
  uint32_t shard_index = 0;
  uint32_t shard_count = 1;
  std::string shard_source;
  std::string run_id;
  // A shard's view of the whole test (what all N shards together were asked for): -c (closed
  // loop with stages: the curve's peak), -n (0: none), the rate (a ramp's average). A merge that
  // misses shards tells from them what share of the load was never offered.
  uint32_t whole_connections = 0;
  uint64_t whole_requests = 0;
  double whole_rate_per_s = 0;
  // --start-at: the instant asked for (Unix ns; 0: none), and how late after it the load really
  // started (the slowest worker's first send opportunity, on this machine's clocks).
  uint64_t start_at_unix_ns = 0;
  uint64_t start_late_ns = 0;

  // What happened in the measured phase.
  uint64_t start_unix_ns = 0;  // wall-clock time the load (warm-up included) started
  uint64_t duration_ns = 0;
  bool interrupted = false;  // stopped early by SIGINT/SIGTERM
  // A run bounded only by -n stopped early: the server refused every connection for longer than
  // the request timeout (the requests never sent are the target minus attempted).
  bool server_gone = false;
  Counters counters;
  std::map<int, uint64_t> status_codes;  // every status code seen
  // Why errors happened, in the order of their rendered "class: reason" texts (error_reasons.h).
  std::vector<ErrorReasonCount> error_reasons;
  Histogram latency;
  Histogram connect_time;
  Histogram ttfb;
  // TLS (https://): handshake time (after the TCP connect), what was negotiated.
  Histogram tls_handshake;
  std::string tls_version;  // "TLSv1.3"; empty for cleartext
  std::string tls_cipher;
  // What the connections spoke (protocols.name(): "h2", "http/1.1", ..., or "h2+http/1.1").
  ProtocolSet protocols;
  uint32_t pipeline = 1;
  uint32_t streams = 1;  // --streams, as asked
  // HTTP/2: the streams per connection the servers allowed, min(--streams, their
  // SETTINGS_MAX_CONCURRENT_STREAMS), lowest and highest over the connections (sampled as each
  // opened and closed); 0 when no HTTP/2 connection opened.
  uint32_t streams_effective_min = 0;
  uint32_t streams_effective_max = 0;

  // Rate mode (-R): `latency` is corrected (planned send -> response complete).
  double rate_target_per_s = 0;  // 0: closed loop
  uint64_t backlog = 0;          // planned requests still waiting for a connection at the end
  Histogram service_time;        // actual send -> response complete
  Histogram lag;                 // planned -> actual send
  bool rate_mode() const { return rate_target_per_s > 0; }

  // Windowed views (see stats/time_series.h). `intervals`: the --interval time series, warm-up
  // windows first and marked; its non-warm-up windows add up to `counters`. `steps`: one row per
  // stage of --stages / --ladder (measured phase only); empty without stages.
  uint64_t interval_ns = 0;  // 0: no time series was kept
  std::vector<WindowStats> intervals;
  std::vector<WindowStats> steps;
  bool ladder = false;           // the stages came from --ladder (all hold stages)
  const char* target_unit = "";  // "connections" (closed loop) or "req/s" (rate mode)

  // --monitor: what was sampled on the server's side, one series per source (monitor_series.h).
  std::vector<MonitorSeries> monitors;

  // A script hook failed during the run and stopped it: "file:line: message".
  std::string script_error;

  // --slo thresholds, as written. Reports evaluate them against this result (analysis/slo_eval.h),
  // so a saved or merged run's verdict is recomputed from its data, never copied. slo_abort: why
  // --slo-abort stopped the run (`"max<1s": max reached 2.00s at 5.0 s`), empty when it did not.
  std::vector<std::string> slo;
  std::string slo_abort;

  // Per-tag rows (--urls lines, Lua hail.tag): in the order worker 0 interned them, then new
  // names from the other workers; "(other)" last. Empty when nothing was tagged.
  std::vector<TagResult> tags;

  // Self-check of the generator: busiest worker thread's CPU time / wall time of the run.
  double max_worker_cpu_utilization = 0.0;
  // How the workers waited for their sockets: "epoll" or "uring" (--io).
  std::string io_backend;
  // Wake-up coalescing (WakeCoalescer): naps taken by all workers, and the longest nap allowed.
  // A response may have been read up to max_nap_ns late.
  uint64_t naps = 0;
  uint64_t max_nap_ns = 0;
  std::vector<std::string> notes;  // plain-language warnings for the reports
  // Where the load came from: one machine for a run, every distinct one for a merge of shards.
  std::vector<MachineInfo> machines;

  double duration_s() const { return static_cast<double>(duration_ns) / 1e9; }
  double requests_per_s() const {
    return duration_ns ? static_cast<double>(counters.completed) / duration_s() : 0.0;
  }
  double bytes_per_s() const {
    return duration_ns ? static_cast<double>(counters.bytes_read) / duration_s() : 0.0;
  }
  double requests_per_s(const TagResult& tag) const {
    return duration_ns ? static_cast<double>(tag.completed) / duration_s() : 0.0;
  }
  // attempted == completed + request errors + in flight + retried; false means a bug, and
  // reports say so.
  bool accounting_holds() const {
    return counters.attempted ==
           counters.completed + counters.request_errors() + counters.in_flight + counters.retried;
  }

  // Adds another result of the same run (a worker's, or a host's) into this one, exactly:
  // - What was asked for (url, method, keep_alive, http_minor, duration_target_ns, warmup_ns,
  //   timeout_ns, pipeline, streams, interval_ns, ladder, target_unit, the shard and whole_ fields,
  //   run_id, start_at_unix_ns, io_backend) comes from this result, or from `other` when this one
  //   has none yet (an empty url); on a conflict this result wins. The protocols spoken are the
  //   union of both sets.
  // - Shares of the load add up: connections, threads, requests_target, rate_target_per_s (each
  //   worker or host runs its part; a worker's result leaves them 0).
  // - Measurements add up exactly: counters, every histogram (latency, connect_time, ttfb,
  //   tls_handshake, service_time, lag), status codes, error reasons (by class and reason), tags
  //   (by name, in first-use order, "(other)" last), backlog, naps; intervals and steps window by
  //   window, by index (workers share boundaries; hosts' windows are to be aligned by wall-clock
  //   time first).
  // - Extremes and flags: duration_ns, start_late_ns, max_nap_ns and max_worker_cpu_utilization
  //   are the larger,
  //   start_unix_ns the earlier (0 is unknown), interrupted and server_gone if either was;
  //   script_error, slo_abort, tls_version and tls_cipher are the first known; slo (the thresholds)
  //   too.
  // - machines: every distinct one of both, in first-seen order.
  // - monitors are concatenated (each host's watched its own machine).
  // - notes are not merged: the runner writes them from the merged data.
  void merge(const RunResult& other);

  // One worker's recorder as a result (measurements only), and the same for its tags.
  static RunResult from_recorder(const Recorder& recorder);
  static RunResult from_tags(const TagTable& table);
  // merge(from_recorder(recorder)).
  void add(const Recorder& recorder);
  // merge(from_tags(table)). Call it for the workers in order (worker 0 first) so that rows keep
  // the order the tags were first used in.
  void add_tags(const TagTable& table);
};

}  // namespace hail
