#include "cli/run_rules.h"

#include <string>
#include <utility>

#include "net/tls.h"

namespace hail {

namespace {

constexpr double kMaxStageConnections = 1'000'000;

std::string format_target(double v) {
  std::string t = std::to_string(v);
  t.erase(t.find_last_not_of('0') + 1);
  if (!t.empty() && t.back() == '.') t.pop_back();
  return t;
}

// Protocol choices that cannot work together, or need an https:// URL.
Status check_protocols(const RunOptions& run, const GivenFlags& given) {
  const bool https = run.url.scheme == "https";
  if (!given.tls_flag.empty() && !https) {
    return make_error(given.tls_flag + " applies to https:// URLs only");
  }
  const bool may_h2 =
      run.protocol == HttpProtocol::kHttp2 || (https && run.protocol == HttpProtocol::kAuto);
  if ((given.streams || given.window_bits) && !may_h2) {
    return make_error(std::string(given.streams ? "--streams" : "--window-bits") +
                      " needs HTTP/2: an https:// URL (ALPN) or --h2");
  }
  if (run.protocol == HttpProtocol::kHttp2 && (run.request.http_minor == 0 || run.http09)) {
    return make_error(std::string(run.http09 ? "--http0.9" : "--http1.0") +
                      " and --h2 given together; use one");
  }
  if (run.pipeline > 1) {
    if (run.protocol == HttpProtocol::kHttp2) {
      return make_error("--pipeline is HTTP/1.1 only (not --h2)");
    }
    if (!run.request.keep_alive || run.http09) {
      return make_error(std::string("--pipeline needs keep-alive connections (not ") +
                        (run.http09 ? "--http0.9" : "--no-keepalive") + ")");
    }
  }
  if (!run.unix_socket.empty() && !run.connect_host.empty()) {
    return make_error("--unix-socket and --connect-to given together; use one");
  }
  return ok_status();
}

// One connection per request is an HTTP/1 measurement (ab without -k: the cost of a connect, and
// a handshake, per request). HTTP/2 carries every request of a connection on it, so over TLS
// --no-keepalive offers only http/1.1 in ALPN, and --h2 with it is refused rather than measured as
// something it is not.
Status apply_no_keepalive(RunOptions& run) {
  if (run.request.keep_alive || run.http09) return ok_status();
  if (run.protocol == HttpProtocol::kHttp2) {
    return make_error(
        "--no-keepalive and --h2 given together: HTTP/2 sends many requests on each connection; "
        "for one connection per request leave out --h2 (HTTP/1.1)");
  }
  if (run.url.scheme == "https") run.protocol = HttpProtocol::kHttp1;
  return ok_status();
}

// Version range and cipher lists that OpenSSL would refuse: usage errors found now, not when the
// first worker builds its context (which only reads files: --cacert is checked then).
Status check_tls(const TlsClientConfig& tls, const GivenFlags& given) {
  if (tls.min_version != 0 && tls.max_version != 0 && tls.min_version > tls.max_version) {
    return make_error("--tls-min " + quote(given.tls_min_text) + " is above --tls-max " +
                      quote(given.tls_max_text));
  }
  return check_cipher_lists(tls);
}

// HTTP/0.9 requests are a bare GET line; the response ends when the server closes.
Status apply_http09(RunOptions& run, const GivenFlags& given) {
  if (!run.http09) return ok_status();
  if (given.method && run.request.method != "GET") {
    return make_error("--http0.9 sends GET requests only (no -m " + run.request.method + ")");
  }
  if (given.body) return make_error("--http0.9 requests have no body");
  run.request.keep_alive = false;
  return ok_status();
}

// Closed loop: the stage targets are connection counts, ramping from -c when it is given.
Status check_connection_stages(RunOptions& run, const GivenFlags& given, const char* what) {
  run.stages_initial = given.connections ? run.connections : 0;
  for (const Stage& st : run.stages) {
    if (st.target > kMaxStageConnections) {
      return make_error(std::string(what) + " asks for " + format_target(st.target) +
                        " connections (at most 1000000)");
    }
    if (run.ladder && st.target != static_cast<double>(static_cast<uint64_t>(st.target))) {
      return make_error("--ladder without -R counts connections: " + format_target(st.target) +
                        " is not a whole number");
    }
  }
  return ok_status();
}

// --stages / --ladder / --repeat into run.stages, and the run's duration from them.
Status apply_stages(RunOptions& run, const GivenFlags& given) {
  if (given.ladder && !run.stages.empty()) {
    return make_error("--ladder and --stages given together; use one");
  }
  if (given.step_duration_ns != 0 && !given.ladder) {
    return make_error("--step-duration needs --ladder");
  }
  if (given.ladder) {
    if (given.step_duration_ns == 0) {
      return make_error("--ladder needs --step-duration (e.g. 10s)");
    }
    auto stages = ladder_stages(*given.ladder, given.step_duration_ns);
    if (!stages) return stages.error();
    run.stages = std::move(stages.value());
    run.ladder = true;
  }
  if (given.repeat != 0 && run.stages.empty()) {
    return make_error("--repeat needs --stages or --ladder");
  }
  if (run.stages.empty()) return ok_status();
  const char* what = run.ladder ? "--ladder" : "--stages";
  if (given.duration) {
    return make_error(std::string("-d with ") + what + ": the stages set the duration");
  }
  if (run.rate_per_s == 0) {
    if (Status st = check_connection_stages(run, given, what); !st) return st;
  }
  if (given.repeat > 1) {
    auto repeated = repeat_stages(run.stages, given.repeat);
    if (!repeated) return repeated.error();
    run.stages = std::move(repeated.value());
  }
  const double initial = run.rate_per_s > 0 ? run.rate_per_s : run.stages_initial;
  run.duration_ns = StageCurve(run.stages, initial).total_duration_ns();
  return ok_status();
}

Status check_rate_mode(const RunOptions& run, const GivenFlags& given) {
  if (run.rate_per_s == 0 && (given.arrival || run.max_connections != 0)) {
    return make_error("--arrival and --max-connections only apply to rate mode (-R)");
  }
  if (run.max_connections != 0 && run.max_connections < run.connections) {
    return make_error("--max-connections (" + std::to_string(run.max_connections) +
                      ") is lower than -c (" + std::to_string(run.connections) + ")");
  }
  return ok_status();
}

}  // namespace

Status check_cipher_lists(const TlsClientConfig& tls) {
  if (tls.ciphers.empty() && tls.ciphersuites.empty()) return ok_status();
  TlsClientConfig probe;
  probe.ciphers = tls.ciphers;
  probe.ciphersuites = tls.ciphersuites;
  auto context = TlsClientContext::create(probe);
  if (!context) return context.error();
  return ok_status();
}

Status validate(RunOptions& run, const GivenFlags& given) {
  if (!run.script_path.empty() && run.http09) {
    return make_error("--http0.9 and -s given together: scripts send HTTP/1.x requests");
  }
  if (Status st = apply_no_keepalive(run); !st) return st;
  if (Status st = check_protocols(run, given); !st) return st;
  if (Status st = check_tls(run.tls, given); !st) return st;
  if (Status st = apply_http09(run, given); !st) return st;
  if (given.body && !given.method) run.request.method = "POST";
  // -n alone runs until the N requests are done; -d alone or both: the duration bounds the run.
  if (run.requests > 0 && !given.duration) run.duration_ns = 0;
  if (run.threads > run.connections) run.threads = run.connections;
  if (Status st = apply_stages(run, given); !st) return st;
  if (run.think_ns != 0 && run.rate_per_s > 0) {
    return make_error("--think applies to the closed loop; with -R the rate sets the pacing");
  }
  if (given.keep_series || given.hlog) run.interval_ns = given.interval_ns;
  return check_rate_mode(run, given);
}

}  // namespace hail
