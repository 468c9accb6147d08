#include "cli/native_table.h"

#include <string>
#include <type_traits>
#include <utility>

#include "cli/flag_values.h"
#include "cli/metrics_server.h"
#include "core/numbers.h"
#include "core/units.h"
#include "load/shard.h"
#include "load/url_mix.h"
#include "net/address.h"
#include "net/tls.h"
#include "report/timeseries_writer.h"

namespace hail {

namespace {

// Closing a window scans its histogram (~30 us): shorter intervals would cost the load measurably.
constexpr uint64_t kMinIntervalNs = 10'000'000;
constexpr uint64_t kMaxStreams = 1000;
constexpr uint64_t kMaxConnections = 1'000'000;
constexpr uint64_t kMaxThreads = 1024;
constexpr uint64_t kMaxRequests = uint64_t{1} << 48;
constexpr uint64_t kMaxPipeline = 1024;
constexpr uint64_t kMaxRepeat = 1'000'000;
constexpr double kMaxRatePerS = 1e9;

// A count of at least 1 into a RunOptions field.
template <auto kField, uint64_t kMax>
Status set_count(NativeState& s, const ParsedFlag& f) {
  auto v = positive_count(f, kMax);
  if (!v) return v.error();
  using Field = std::remove_reference_t<decltype(s.cmd.run.*kField)>;
  s.cmd.run.*kField = static_cast<Field>(*v);
  return ok_status();
}

// A duration above zero into a RunOptions field.
template <auto kField>
Status set_duration(NativeState& s, const ParsedFlag& f) {
  auto v = positive_duration(f);
  if (!v) return v.error();
  s.cmd.run.*kField = *v;
  return ok_status();
}

// A requests-per-second rate: a positive decimal ("1000", "0.5", "2.5k"), at most 1e9.
Status set_rate(NativeState& s, const ParsedFlag& f) {
  const std::optional<double> v = parse_scaled_decimal(f.value);
  if (!v) {
    return make_error("invalid value for " + f.spelled + ": " + quote(f.value) +
                      " (expected requests per second, e.g. 1000, 2.5k)");
  }
  if (*v <= 0 || *v > kMaxRatePerS) {
    return make_error(f.spelled + " must be between 0 and 1e9 requests per second, got " +
                      quote(f.value));
  }
  s.cmd.run.rate_per_s = *v;
  return ok_status();
}

Status set_io(NativeState& s, const ParsedFlag& f) {
  const std::optional<IoChoice> choice = parse_io_choice(f.value);
  if (!choice) return make_error("--io " + quote(f.value) + ": expected auto, epoll or uring");
  s.cmd.run.io = *choice;
  return ok_status();
}

Status set_shard(NativeState& s, const ParsedFlag& f) {
  auto shard = parse_shard(f.value);
  if (!shard) return shard.error();
  s.cmd.run.shard = shard.value();
  s.shard_given = true;
  return ok_status();
}

Status set_shards(NativeState& s, const ParsedFlag& f) {
  auto v = positive_count(f, kMaxShards);
  if (!v) return v.error();
  s.shards = static_cast<uint32_t>(*v);
  return ok_status();
}

Status set_start_at(NativeState& s, const ParsedFlag& f) {
  if (f.value.empty()) return make_error("--start-at needs a time");
  s.start_at = f.value;  // read with the environment (HAIL_START_REF) once every flag is in
  return ok_status();
}

Status set_run_id(NativeState& s, const ParsedFlag& f) {
  // A label value in live metrics and a name in merged results: keep it printable and short.
  if (f.value.empty() || f.value.size() > 128) {
    return make_error("--run-id needs a name of 1 to 128 characters");
  }
  for (char c : f.value) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == '"' || c == '\\') {
      return make_error("--run-id " + quote(f.value) +
                        ": no control characters, quotes or backslashes");
    }
  }
  s.cmd.run.run_id = f.value;
  return ok_status();
}

Status set_seed(NativeState& s, const ParsedFlag& f) {
  auto v = positive_count(f, UINT64_MAX);
  if (!v) return v.error();
  s.cmd.run.seed = *v;
  return ok_status();
}

Status set_connections(NativeState& s, const ParsedFlag& f) {
  s.given.connections = true;
  return set_count<&RunOptions::connections, kMaxConnections>(s, f);
}

Status set_duration_flag(NativeState& s, const ParsedFlag& f) {
  s.given.duration = true;
  return set_duration<&RunOptions::duration_ns>(s, f);
}

Status set_warmup(NativeState& s, const ParsedFlag& f) {
  auto v = parse_duration_ns(f.value);
  if (!v) return bad_value(f, v.error());
  s.cmd.run.warmup_ns = *v;
  return ok_status();
}

Status set_arrival(NativeState& s, const ParsedFlag& f) {
  if (f.value == "fixed") {
    s.cmd.run.arrival = Arrival::kFixed;
  } else if (f.value == "poisson") {
    s.cmd.run.arrival = Arrival::kPoisson;
  } else {
    return make_error("invalid value for --arrival: " + quote(f.value) + " (use fixed or poisson)");
  }
  s.given.arrival = true;
  return ok_status();
}

Status set_stages(NativeState& s, const ParsedFlag& f) {
  auto stages = parse_stages(f.value);
  if (!stages) return stages.error();
  s.cmd.run.stages = std::move(stages.value());
  return ok_status();
}

Status set_ladder(NativeState& s, const ParsedFlag& f) {
  auto v = parse_ladder(f.value);
  if (!v) return v.error();
  s.given.ladder = v.value();
  return ok_status();
}

Status set_step_duration(NativeState& s, const ParsedFlag& f) {
  auto v = positive_duration(f);
  if (!v) return v.error();
  s.given.step_duration_ns = *v;
  return ok_status();
}

Status set_repeat(NativeState& s, const ParsedFlag& f) {
  auto v = positive_count(f, kMaxRepeat);
  if (!v) return v.error();
  s.given.repeat = *v;
  return ok_status();
}

Status set_method(NativeState& s, const ParsedFlag& f) {
  if (Status st = validate_method(f.value); !st) return bad_value(f, st.error());
  s.cmd.run.request.method = f.value;
  s.given.method = true;
  return ok_status();
}

Status add_header(NativeState& s, const ParsedFlag& f) {
  auto h = parse_header_arg(f.value);
  if (!h) return bad_value(f, h.error());
  s.cmd.run.request.headers.push_back(std::move(h.value()));
  return ok_status();
}

Status set_body(NativeState& s, const ParsedFlag& f) {
  if (s.given.body) return make_error("--body and --body-file given together; use one");
  s.cmd.run.request.body = f.value;
  s.given.body = true;
  return ok_status();
}

Status set_body_file(NativeState& s, const ParsedFlag& f) {
  if (s.given.body) return make_error("--body and --body-file given together; use one");
  auto body = read_whole_file(f.value);
  if (!body) {
    return make_error("cannot read --body-file \"" + f.value + "\": " + body.error().message);
  }
  s.cmd.run.request.body = std::move(body.value());
  s.given.body = true;
  return ok_status();
}

Status set_script(NativeState& s, const ParsedFlag& f) {
  if (f.value.empty()) return make_error(f.spelled + " needs a Lua file");
  s.cmd.run.script_path = f.value;
  return ok_status();
}

Status set_urls(NativeState& s, const ParsedFlag& f) {
  if (f.value.empty()) return make_error("--urls needs a file");
  s.urls_path = f.value;
  return ok_status();
}

Status set_mix(NativeState& s, const ParsedFlag& f) {
  auto order = parse_mix_order(f.value);
  if (!order) return bad_value(f, order.error());
  s.cmd.run.mix_order = *order;
  s.mix_given = true;
  return ok_status();
}

template <HttpProtocol kProtocol>
Status set_protocol(NativeState& s, const ParsedFlag&) {
  if (s.cmd.run.protocol != HttpProtocol::kAuto && s.cmd.run.protocol != kProtocol) {
    return make_error("--h1 and --h2 given together; use one");
  }
  s.cmd.run.protocol = kProtocol;
  return ok_status();
}

Status set_streams(NativeState& s, const ParsedFlag& f) {
  s.given.streams = true;
  return set_count<&RunOptions::streams, kMaxStreams>(s, f);
}

Status set_window_bits(NativeState& s, const ParsedFlag& f) {
  auto v = parse_count(f.value);
  if (!v || *v < 16 || *v > 30) {
    return make_error("invalid value for --window-bits: " + quote(f.value) +
                      " (16 to 30: windows of 2^N-1 bytes)");
  }
  s.cmd.run.window_bits = static_cast<uint32_t>(*v);
  s.given.window_bits = true;
  return ok_status();
}

Status set_unix_socket(NativeState& s, const ParsedFlag& f) {
  if (f.value.empty()) return make_error("--unix-socket needs a path");
  // A path too long for sockaddr_un is a bad value, not something to find out at run time.
  auto address = unix_address(f.value);
  if (!address) return bad_value(f, address.error());
  s.cmd.run.unix_socket = f.value;
  return ok_status();
}

Status set_connect_to(NativeState& s, const ParsedFlag& f) {
  auto target = parse_host_port(f.value);
  if (!target) return bad_value(f, target.error());
  s.cmd.run.connect_host = target->first;
  s.cmd.run.connect_port = target->second;
  return ok_status();
}

// The TLS-only flags. Each is remembered as the last one given, for the "needs https://" message.
template <Status (*kSet)(NativeState&, const ParsedFlag&)>
Status tls_only(NativeState& s, const ParsedFlag& f) {
  Status st = kSet(s, f);
  if (st) s.given.tls_flag = f.spelled;
  return st;
}

Status set_sni(NativeState& s, const ParsedFlag& f) {
  if (f.value.empty() || f.value.find_first_of(" /\t") != std::string::npos) {
    return make_error("invalid value for --sni: " + quote(f.value) + " (a host name)");
  }
  s.cmd.run.tls.sni = f.value;
  return ok_status();
}

template <bool kMin>
Status set_tls_version(NativeState& s, const ParsedFlag& f) {
  auto v = parse_tls_version(f.value);
  if (!v) return bad_value(f, v.error());
  (kMin ? s.cmd.run.tls.min_version : s.cmd.run.tls.max_version) = *v;
  (kMin ? s.given.tls_min_text : s.given.tls_max_text) = f.value;
  return ok_status();
}

Status set_ciphers(NativeState& s, const ParsedFlag& f) {
  if (f.value.empty()) return make_error("--ciphers needs a cipher list");
  // TLS 1.3 suites are named TLS_*; older ciphers use OpenSSL's names (ECDHE-RSA-...).
  (f.value.rfind("TLS_", 0) == 0 ? s.cmd.run.tls.ciphersuites : s.cmd.run.tls.ciphers) = f.value;
  return ok_status();
}

Status set_cacert(NativeState& s, const ParsedFlag& f) {
  if (f.value.empty()) return make_error("--cacert needs a file");
  s.cmd.run.tls.ca_file = f.value;
  s.cmd.run.tls.verify = true;  // a CA to trust only makes sense when checking
  return ok_status();
}

Status set_json(NativeState& s, const ParsedFlag& f) {
  if (f.value.empty()) return make_error("--json needs a file name or \"-\"");
  s.cmd.json_path = f.value;
  return ok_status();
}

Status set_html(NativeState& s, const ParsedFlag& f) {
  if (f.value.empty()) return make_error("--html needs a file name");
  if (f.value == "-") return make_error("--html writes a file, not stdout: name one");
  s.cmd.html_path = f.value;
  return ok_status();
}

Status set_timeseries(NativeState& s, const ParsedFlag& f) {
  if (f.value.empty()) return make_error("--timeseries needs a file name");
  auto format = timeseries_format_for_path(f.value);
  if (!format) return format.error();
  s.cmd.timeseries_path = f.value;
  return ok_status();
}

Status set_hlog(NativeState& s, const ParsedFlag& f) {
  if (f.value.empty()) return make_error("--hlog needs a file name");
  // stdout carries the report; a file named "-" would surprise.
  if (f.value == "-") return make_error("--hlog writes a file, not stdout: name one");
  s.cmd.hlog_path = f.value;
  s.given.hlog = true;
  return ok_status();
}

// Checked now, so that a typo fails in a second with the expression's own message.
Status add_slo(NativeState& s, const ParsedFlag& f) {
  return add_slo_flag(s.cmd.verdict, f.spelled, f.value);
}

Status set_junit(NativeState& s, const ParsedFlag& f) {
  return set_junit_flag(s.cmd.verdict, f.value);
}

Status set_slo_abort(NativeState& s, const ParsedFlag&) {
  s.cmd.verdict.slo_abort = true;
  return ok_status();
}

Status set_interval(NativeState& s, const ParsedFlag& f) {
  auto v = positive_duration(f);
  if (!v) return v.error();
  if (*v < kMinIntervalNs) {
    return make_error("--interval must be at least 10ms, got " + quote(f.value));
  }
  s.given.interval_ns = *v;
  s.interval_given = true;
  return ok_status();
}

Status add_monitor(NativeState& s, const ParsedFlag& f) {
  s.monitors.push_back(f.value);
  return ok_status();
}

Status add_monitor_metric(NativeState& s, const ParsedFlag& f) {
  if (f.value.empty()) return make_error("--monitor-metric needs a Prometheus metric name");
  s.monitor_metrics.push_back(f.value);
  return ok_status();
}

Status set_metrics_listen(NativeState& s, const ParsedFlag& f) {
  auto v = parse_metrics_listen(f.value);
  if (!v) return v.error();
  s.cmd.metrics_listen = std::move(v.value());
  return ok_status();
}

Status set_metrics_linger(NativeState& s, const ParsedFlag& f) {
  auto v = parse_duration_ns(f.value);
  if (!v) return bad_value(f, v.error());
  s.cmd.metrics_linger_ns = *v;
  s.metrics_linger_given = true;
  return ok_status();
}

// Switches: each sets one field of the command, its RunOptions, its request or its TLS settings.
template <auto kField, auto kValue>
Status set_command(NativeState& s, const ParsedFlag&) {
  s.cmd.*kField = kValue;
  return ok_status();
}

template <auto kField, auto kValue>
Status set_run(NativeState& s, const ParsedFlag&) {
  s.cmd.run.*kField = kValue;
  return ok_status();
}

template <auto kField, auto kValue>
Status set_request(NativeState& s, const ParsedFlag&) {
  s.cmd.run.request.*kField = kValue;
  return ok_status();
}

template <auto kField, auto kValue>
Status set_tls(NativeState& s, const ParsedFlag&) {
  s.cmd.run.tls.*kField = kValue;
  return ok_status();
}

// In the order of the usage text. Fields: short name, long name, value name, handler, help,
// section heading, flag column (when not derived from the names).
constexpr NativeFlag kFlags[] = {
    {"c", "connections", "N", set_connections, "connections to keep open (default 50)", "Load:"},
    {"t", "threads", "N", set_count<&RunOptions::threads, kMaxThreads>,
     "worker threads (default: one per core, at most -c)"},
    {"d", "duration", "T", set_duration_flag,
     "measured duration (default 10s; units ns us ms s m h, bare = s)"},
    {"n", "requests", "N", set_count<&RunOptions::requests, kMaxRequests>,
     "send exactly N requests, then stop (like ab -n); with -d, whichever\ncomes first"},
    {"", "timeout", "T", set_duration<&RunOptions::timeout_ns>,
     "per-request timeout (default 5s): the request counts as a timeout and\nits connection is "
     "closed and reopened"},
    {"", "warmup", "T", set_warmup, "run the load for T first without recording anything"},
    {"R", "rate", "N", set_rate,
     "open loop: N requests per second in total, planned from the start;\nlatency counts from "
     "each request's planned time (coordinated-omission\ncorrection); with -n, exactly N requests "
     "at that rate"},
    {"", "arrival", "A", set_arrival, "rate mode: fixed intervals (default) or poisson", nullptr,
     nullptr, "fixed poisson"},
    {"", "max-connections", "N", set_count<&RunOptions::max_connections, kMaxConnections>,
     "rate mode: open up to N connections when requests queue (default -c)"},
    {"", "stages", "LIST", set_stages,
     "ramp linearly through each \"DURATION:TARGET\" (\"10s:50,30s:200,10s:0\"):\nopen "
     "connections from -c (or 0), or with -R the rate from -R; the\nstages set the run's "
     "duration, each is a row of the report"},
    {"", "ladder", "A:S:B", set_ladder,
     "hold A, A+S, ... up to B connections (with -R: requests/s), each for\n--step-duration T; "
     "one report row per step shows the knee"},
    {"", "step-duration", "T", set_step_duration, "how long each --ladder step lasts"},
    {"", "repeat", "N", set_repeat, "repeat the --stages / --ladder list N times (bursts)"},
    {"", "think", "T", set_duration<&RunOptions::think_ns>,
     "closed loop: pause T between a response and the connection's next\nrequest (latency "
     "excludes it)"},
    {"", "no-coalesce", nullptr, set_run<&RunOptions::coalesce_wakeups, false>,
     "never nap before waiting: by default, with many responses due, a\nworker sleeps up to 1/32 "
     "of the latency (<= 50us) first and reads\nthem in one wake-up (cheaper for the server; see "
     "README)"},
    {"", "io", "MODE", set_io,
     "how workers wait for sockets: uring (io_uring: sends and receives\nsubmitted together, one "
     "system call per wake-up), epoll, or auto\n(default: io_uring where the kernel allows it, "
     "except over 1,024\nconnections a thread)"},
    {"m", "method", "M", set_method, "request method (default GET, or POST when a body is given)",
     "Request:"},
    {"H", "header", "\"N: v\"", add_header,
     "add a header (repeatable); replaces a default of the same name\n(Host, User-Agent, Accept)"},
    {"", "body", "STRING", set_body, "request body (sets Content-Length)"},
    {"", "body-file", "FILE", set_body_file, "request body read from FILE"},
    {"", "http1.0", nullptr, set_request<&RequestSpec::http_minor, 0>,
     "send HTTP/1.0 requests (keep-alive asked with Connection: keep-alive)"},
    {"", "no-keepalive", nullptr, set_request<&RequestSpec::keep_alive, false>,
     "a new connection per request (like ab without -k; HTTP/1: over TLS\nALPN offers only "
     "http/1.1)"},
    {"", "no-retry", nullptr, set_run<&RunOptions::retry_idempotent, false>,
     "a reused connection closed before a response is a read error (default:\nsend an "
     "idempotent request once more on a new connection, RFC 9112 9.3.1)"},
    {"s", "script", "FILE", set_script,
     "a wrk Lua script (wrk's API: setup, init, request, response, delay,\ndone; hail.tag); words "
     "after -- are its arguments",
     "Scripts and mixes:"},
    {"", "urls", "FILE", set_urls,
     "weighted request lines \"[weight] [METHOD] URL-or-path [@bodyfile]\";\nthe URL argument may "
     "be omitted when the lines are absolute URLs"},
    {"", "mix", "M", set_mix, "--urls: random by weight (default) or round-robin", nullptr, nullptr,
     "random round-robin"},
    {"", "h2", nullptr, set_protocol<HttpProtocol::kHttp2>,
     "force HTTP/2 (ALPN h2, or h2c prior knowledge on http://) / HTTP/1.1;\ndefault: HTTP/2 "
     "when TLS's ALPN picks it",
     "Protocols:", "    --h2 / --h1"},
    {"", "h1", nullptr, set_protocol<HttpProtocol::kHttp1>, nullptr},  // in --h2's line
    {"", "streams", "N", set_streams, "HTTP/2 concurrent streams per connection (like h2load -m)"},
    {"", "window-bits", "N", set_window_bits,
     "HTTP/2 flow-control windows of 2^N-1 bytes (16..30, default 30)"},
    {"", "pipeline", "N", set_count<&RunOptions::pipeline, kMaxPipeline>,
     "HTTP/1.1: up to N requests in flight per connection"},
    {"", "http0.9", nullptr, set_run<&RunOptions::http09, true>,
     "HTTP/0.9 requests (GET only; the response lasts until the close)"},
    {"", "unix-socket", "P", set_unix_socket,
     "connect to the Unix domain socket P (the URL gives Host and path)"},
    {"", "connect-to", "H:P", set_connect_to,
     "connect to H:P instead of the URL's host ([::1]:8080 for IPv6)"},
    {"", "sni", "NAME", tls_only<set_sni>, "server name sent (default: the URL's host)",
     "TLS (https://):"},
    {"", "no-tls-resume", nullptr, tls_only<set_tls<&TlsClientConfig::resume, false>>,
     "full handshake on every connection (default: resume sessions)"},
    // The usage text gives this line three spaces after its flag column.
    {"", "tls-min", "V", tls_only<set_tls_version<true>>, "TLS versions 1.0 .. 1.3", nullptr,
     "    --tls-min V, --tls-max V ", "1.0 1.1 1.2 1.3"},
    {"", "tls-max", "V", tls_only<set_tls_version<false>>, nullptr, nullptr, nullptr,
     "1.0 1.1 1.2 1.3"},  // in --tls-min's line
    {"", "ciphers", "LIST", tls_only<set_ciphers>,
     "OpenSSL cipher list, or TLS 1.3 suites (TLS_...)"},
    {"", "verify", nullptr, tls_only<set_tls<&TlsClientConfig::verify, true>>,
     "check the certificate and host name (off by default, like wrk)"},
    {"", "cacert", "FILE", tls_only<set_cacert>,
     "trust the PEM certificates in FILE (implies --verify)"},
    {"", "seed", "N", set_seed,
     "seed of the random choices (Poisson arrivals, random mixes): the same\nseed, the same "
     "plan (default: the clock; shards: --start-at's instant)"},
    {"", "shard", "I/N", set_shard,
     "run shard I (from 0) of N of this test: its part of -c, -n and -R, the\nplanned requests k "
     "with k mod N = I (default: from the launcher's\nenvironment: Open MPI, PMI, Slurm, "
     "Kubernetes; see README)",
     "Scale-out:"},
    {"", "shards", "N", set_shards,
     "the shard count of a Kubernetes Indexed Job (JOB_COMPLETION_INDEX)"},
    {"", "start-at", "TIME", set_start_at,
     "open the connections now, start the load at TIME: Unix seconds, RFC\n3339 "
     "(2026-12-02T12:00:00Z), or +DURATION after $HAIL_START_REF\n(else $SLURM_JOB_START_TIME)"},
    {"", "run-id", "ID", set_run_id,
     "name of the test, the same in every shard (results, metrics)"},
    {"", "slo", "EXPR", add_slo,
     "a threshold the run must meet (repeatable): p(99)<10ms, error_rate<0.1%,\nrps>=5000, "
     "p99<20ms over 10s, ... (see README); exit status 99 when one\nfails, 98 when hail was the "
     "limit",
     "Verdicts:"},
    {"", "slo-abort", nullptr, set_slo_abort,
     "stop the run as soon as a threshold can no longer pass"},
    {"", "junit", "FILE", set_junit, "the thresholds as JUnit XML test cases, for CI"},
    {"", "json", "FILE|-", set_json,
     "write the JSON report to FILE (\"-\": to stdout instead of the text)", "Output:"},
    {"", "html", "FILE", set_html,
     "a self-contained HTML report with charts of the time series, spectrum\nand steps (opens "
     "from disk, no network)"},
    {"", "timeseries", "FILE", set_timeseries,
     "per-interval samples as CSV (.csv) or JSON Lines (.jsonl)"},
    {"", "interval", "T", set_interval,
     "time-series interval (default 1s, at least 10ms); the series is also\nin --json"},
    {"", "monitor", "SOURCE", add_monitor,
     "sample the server's side once per --interval (repeatable): pid:N,\nname:NAME (all its "
     "processes), host, prom:URL (see README)"},
    {"", "monitor-metric", "NAME", add_monitor_metric,
     "a series prom: monitors keep (repeatable; default: node_exporter's\nCPU, memory and "
     "network)"},
    {"", "hlog", "FILE", set_hlog,
     "HdrHistogram interval log (format 1.3) of the measured intervals:\nlatency (with -R also "
     "service and lag) per --interval, in ns"},
    {"", "metrics-listen", "A:P", set_metrics_listen,
     "serve live Prometheus / OpenMetrics metrics at http://A:P/metrics\nwhile the run goes on "
     "(port 0: any; the address is printed on stderr)"},
    {"", "metrics-linger", "T", set_metrics_linger,
     "keep serving the final metrics for T after the run (default 0)"},
    {"q", "quiet", nullptr, set_command<&NativeCommand::quiet, true>, "no progress line"},
    {"h", "help", nullptr, set_command<&NativeCommand::show_help, true>, "this help"},
    {"V", "version", nullptr, set_command<&NativeCommand::show_version, true>, "print the version"},
};

constexpr UsageLayout kLayout{SyntaxStyle::kNative, 2, 24, 2};

}  // namespace

std::span<const NativeFlag> native_flag_table() {
  return kFlags;
}

std::string native_usage() {
  return "Usage: hail [options] URL [-- SCRIPT ARGS]\n"
         "       hail [options] --urls FILE [URL]\n"
         "       hail wrk [wrk options] URL   wrk 4.1's command line and report (docs/compat.md)\n"
         "       hail serve [options]     built-in target server (hail serve --help)\n"
         "       hail demo                benchmark the built-in server for about 5 s\n"
         "       hail report RESULT.json  print a run saved with --json again\n"
         "       hail merge A.json B.json ...  combine saved runs exactly\n"
         "\n"
         "Load one URL over HTTP/1.x or HTTP/2, cleartext or TLS, and report throughput, latency\n"
         "percentiles and every error.\n"
         "\n" +
         render_usage(native_flag_table(), kLayout) +
         "\n"
         "Exit status: 0 run completed (even with errors), 1 could not run, 2 usage error.\n";
}

std::vector<FlagName> native_flag_names() {
  return flag_names(native_flag_table());
}

}  // namespace hail
