// RunOptions: the one description of a load run. Every front-end (native flags, wrk, ab, webbench)
// only fills this struct; the runner only reads it. Plain value: any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/url.h"
#include "http/request.h"
#include "http/session_factory.h"
#include "load/schedule.h"
#include "load/shard.h"
#include "load/stage_spec.h"
#include "load/url_mix.h"
#include "net/event_loop.h"
#include "net/tls.h"

namespace hail {

class CollectorFactory;
class LoadModel;
class WindowSampler;

struct RunOptions {
  Url url;
  std::string url_text;  // the URL as typed, if any: a script's wrk.port and init()'s args[0]
  RequestSpec request;   // method, headers, body, HTTP version, keep-alive
  uint32_t connections = 50;
  uint32_t threads = 0;                   // 0: one per core, never more than connections
  uint64_t duration_ns = 10'000'000'000;  // measured phase; 0 with requests > 0: no time limit
  uint64_t requests = 0;                  // -n: exact number of requests, 0 = duration mode
  uint64_t timeout_ns = 5'000'000'000;
  // A server that closes a reused keep-alive connection before a byte of the response: send an
  // idempotent request once more on a new connection (RFC 9112 §9.3.1; counted as retried), or,
  // when false (--no-retry), count it as a read error.
  bool retry_idempotent = true;
  uint64_t warmup_ns = 0;
  bool progress = false;  // live progress line on stderr
  // Open loop (-R): requests planned at this total rate from the start; 0 = closed loop.
  double rate_per_s = 0;
  Arrival arrival = Arrival::kFixed;
  uint32_t max_connections = 0;  // rate mode may open up to this many (0: -c)
  uint64_t seed = 0;             // Poisson arrivals: 0 = seeded from the clock
  // --shard / the launcher's environment: this process runs slice shard.index of shard.count of
  // the test the other fields describe (they stay the whole test's: -c, -n, -R, stages). Shard i
  // takes the planned requests k with k mod N = i, its part of -c and -n (remainders to the first
  // shards); run_plan.h splits it further over the threads.
  ShardSpec shard;
  // --start-at: the load starts at this wall-clock instant (Unix ns), every connection opened (and
  // its TLS handshake done) before it; 0: as soon as the workers are ready.
  uint64_t start_at_unix_ns = 0;
  // --run-id: names the test across its shards (results, live metrics); empty: none given.
  std::string run_id;
  // Rate mode with --stages: the rate ramps linearly from rate_per_s through each stage's target
  // (k6's ramping-arrival-rate model); the run lasts as long as the stages.
  // Closed loop with --stages / --ladder: the number of open connections follows the curve,
  // starting from stages_initial (rate mode starts from rate_per_s). With a warm-up, the warm-up
  // holds the curve's starting value and the stages begin when measuring does.
  std::vector<Stage> stages;
  double stages_initial = 0;
  bool ladder = false;    // the stages came from --ladder (reports call them steps)
  uint64_t think_ns = 0;  // closed loop: pause between a response and the next request
  // Workers nap briefly before blocking when many responses are due, reading several per wake-up
  // (WakeCoalescer); --no-coalesce turns it off.
  bool coalesce_wakeups = true;
  // --io: how workers wait for their sockets (auto: see resolve_io).
  IoChoice io = IoChoice::kAuto;
  // Time series: one window per interval_ns (0: no series is kept).
  uint64_t interval_ns = 0;
  // --monitor: sampled once per window on the supervising thread (load/window_sampler.h); needs
  // interval_ns. Null: nothing is sampled.
  std::shared_ptr<WindowSampler> sampler;

  // Protocols.
  HttpProtocol protocol = HttpProtocol::kAuto;
  uint32_t pipeline = 1;      // --pipeline: HTTP/1.1 requests in flight per connection
  uint32_t streams = 1;       // --streams: HTTP/2 concurrent streams per connection
  uint32_t window_bits = 30;  // --window-bits: HTTP/2 stream and connection window 2^n - 1
  bool http09 = false;        // --http0.9
  std::string unix_socket;    // --unix-socket: connect here; the URL still gives Host and path
  std::string connect_host;   // --connect-to HOST:PORT: connect there instead of the URL's host
  uint16_t connect_port = 0;
  // https:// URLs. sni, alpn and verify_host are filled in by the runner from the URL and
  // `protocol` unless set (sni by --sni).
  TlsClientConfig tls;

  // --urls: requests chosen among these lines by weight (empty: the URL's one request). Lines
  // for several hosts split the connections between the hosts by weight.
  std::vector<MixLine> mix;
  MixOrder mix_order = MixOrder::kRandom;
  // -s: a wrk-compatible Lua script; script_args are the words after "--" (init(args) sees the
  // URL as args[0], as in wrk).
  std::string script_path;
  std::vector<std::string> script_args;
  // Requests rendered the way wrk renders them (wrk.format: Host and -H fields only) even without
  // a script: `hail wrk` sends wrk's bytes.
  bool wrk_requests = false;
  // Front-ends that must send another tool's exact bytes (webbench): every request is this
  // HTTP/1.x text, parsed once (it also gives the HTTP/2 view). Empty: built from `request`.
  std::string raw_request;

  // The load model; null: the one the flags above describe (default_load_model()).
  std::shared_ptr<const LoadModel> load_model;
  // What front-ends gather beyond hail's statistics (load/collectors.h: ab's request log and first
  // response, wrk's per-thread rates); each front-end reads its own after the run.
  std::vector<std::shared_ptr<CollectorFactory>> collectors;
};

}  // namespace hail
