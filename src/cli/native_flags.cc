#include "cli/native_flags.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "cli/arg_parser.h"
#include "cli/flag_values.h"
#include "core/units.h"
#include "load/url_mix.h"
#include "net/address.h"
#include "net/tls.h"
#include "report/timeseries_writer.h"

namespace hail {

namespace {
enum Flag {
  kConnections,
  kThreads,
  kDuration,
  kRequests,
  kTimeout,
  kMethod,
  kHeader,
  kBody,
  kBodyFile,
  kHttp10,
  kNoKeepalive,
  kWarmup,
  kJson,
  kQuiet,
  kHelp,
  kVersion,
  kRate,
  kArrival,
  kMaxConnections,
  kStages,
  kRepeat,
  kLadder,
  kStepDuration,
  kThink,
  kNoCoalesce,
  kInterval,
  kTimeseries,
  kH1,
  kH2,
  kStreams,
  kPipeline,
  kHttp09,
  kUnixSocket,
  kConnectTo,
  kSni,
  kNoTlsResume,
  kTlsMin,
  kTlsMax,
  kCiphers,
  kVerify,
  kCacert,
  kWindowBits,
  kScript,
  kUrls,
  kMix,
};

constexpr FlagSpec kSpecs[] = {
    {kConnections, 'c', "connections", true},
    {kThreads, 't', "threads", true},
    {kDuration, 'd', "duration", true},
    {kRequests, 'n', "requests", true},
    {kTimeout, 0, "timeout", true},
    {kMethod, 'm', "method", true},
    {kHeader, 'H', "header", true},
    {kBody, 0, "body", true},
    {kBodyFile, 0, "body-file", true},
    {kHttp10, 0, "http1.0", false},
    {kNoKeepalive, 0, "no-keepalive", false},
    {kWarmup, 0, "warmup", true},
    {kJson, 0, "json", true},
    {kQuiet, 'q', "quiet", false},
    {kHelp, 'h', "help", false},
    {kVersion, 'V', "version", false},
    {kRate, 'R', "rate", true},
    {kArrival, 0, "arrival", true},
    {kMaxConnections, 0, "max-connections", true},
    {kStages, 0, "stages", true},
    {kRepeat, 0, "repeat", true},
    {kLadder, 0, "ladder", true},
    {kStepDuration, 0, "step-duration", true},
    {kThink, 0, "think", true},
    {kNoCoalesce, 0, "no-coalesce", false},
    {kInterval, 0, "interval", true},
    {kTimeseries, 0, "timeseries", true},
    {kH1, 0, "h1", false},
    {kH2, 0, "h2", false},
    {kStreams, 0, "streams", true},
    {kPipeline, 0, "pipeline", true},
    {kHttp09, 0, "http0.9", false},
    {kUnixSocket, 0, "unix-socket", true},
    {kConnectTo, 0, "connect-to", true},
    {kSni, 0, "sni", true},
    {kNoTlsResume, 0, "no-tls-resume", false},
    {kTlsMin, 0, "tls-min", true},
    {kTlsMax, 0, "tls-max", true},
    {kCiphers, 0, "ciphers", true},
    {kVerify, 0, "verify", false},
    {kCacert, 0, "cacert", true},
    {kWindowBits, 0, "window-bits", true},
    {kScript, 's', "script", true},
    {kUrls, 0, "urls", true},
    {kMix, 0, "mix", true},
};

constexpr uint64_t kDefaultIntervalNs = 1'000'000'000;
// Closing a window scans its histogram (~30 us): shorter intervals would cost the load measurably.
constexpr uint64_t kMinIntervalNs = 10'000'000;
constexpr double kMaxStageConnections = 1'000'000;
constexpr uint64_t kMaxStreams = 1000;

// A request rate: a positive decimal ("1000", "0.5", "2.5k"), at most 1e9 per second.
Result<double> parse_rate(const ParsedFlag& f) {
  const std::string& t = f.value;
  double scale = 1;
  std::string digits = t;
  if (!digits.empty() && (digits.back() == 'k' || digits.back() == 'K')) scale = 1e3;
  if (!digits.empty() && digits.back() == 'M') scale = 1e6;
  if (scale != 1) digits.pop_back();
  bool ok = !digits.empty() && digits.find_first_not_of("0123456789.") == std::string::npos &&
            digits.find('.') == digits.rfind('.') && digits.front() != '.' && digits.back() != '.';
  if (!ok) {
    return make_error("invalid value for " + f.spelled + ": " + quote(t) +
                      " (expected requests per second, e.g. 1000, 2.5k)");
  }
  double v = std::strtod(digits.c_str(), nullptr) * scale;
  if (v <= 0 || v > 1e9) {
    return make_error(f.spelled + " must be between 0 and 1e9 requests per second, got " +
                      quote(t));
  }
  return v;
}

std::string format_target(double v) {
  std::string t = std::to_string(v);
  t.erase(t.find_last_not_of('0') + 1);
  if (!t.empty() && t.back() == '.') t.pop_back();
  return t;
}

// --stages / --ladder / --repeat into run.stages (and the run's duration).
Status apply_stages(RunOptions& run, const std::optional<LadderSpec>& ladder,
                    uint64_t step_duration_ns, uint64_t repeat, bool connections_given,
                    bool duration_given) {
  if (ladder && !run.stages.empty())
    return make_error("--ladder and --stages given together; use one");
  if (step_duration_ns != 0 && !ladder) return make_error("--step-duration needs --ladder");
  if (ladder) {
    if (step_duration_ns == 0) return make_error("--ladder needs --step-duration (e.g. 10s)");
    auto stages = ladder_stages(*ladder, step_duration_ns);
    if (!stages) return stages.error();
    run.stages = std::move(stages.value());
    run.ladder = true;
  }
  if (repeat != 0 && run.stages.empty()) return make_error("--repeat needs --stages or --ladder");
  if (run.stages.empty()) return ok_status();
  const char* what = run.ladder ? "--ladder" : "--stages";
  if (duration_given)
    return make_error(std::string("-d with ") + what + ": the stages set the duration");
  if (run.rate_per_s == 0) {
    // Closed loop: the targets are connection counts, ramping from -c when it is given.
    run.stages_initial = connections_given ? run.connections : 0;
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
  }
  if (repeat > 1) {
    auto repeated = repeat_stages(run.stages, repeat);
    if (!repeated) return repeated.error();
    run.stages = std::move(repeated.value());
  }
  double initial = run.rate_per_s > 0 ? run.rate_per_s : run.stages_initial;
  run.duration_ns = StageCurve(run.stages, initial).total_duration_ns();
  return ok_status();
}

// --urls FILE (and --mix): the weighted request lines; without a URL argument, the first line's
// URL stands for the run in reports (its paths must then all be absolute URLs).
Status apply_urls_file(RunOptions& run, const std::string& path, bool have_url, bool mix_given) {
  if (path.empty()) {
    if (mix_given) return make_error("--mix needs --urls FILE");
    return ok_status();
  }
  if (!run.script_path.empty()) {
    return make_error("--urls and -s given together: a script makes its own requests; use one");
  }
  auto lines = read_url_mix_file(path, have_url ? &run.url : nullptr);
  if (!lines) return lines.error();
  run.mix = std::move(lines.value());
  if (!have_url) run.url = run.mix.front().url;
  return ok_status();
}

}  // namespace

Result<NativeCommand> parse_native_flags(const std::vector<std::string>& args) {
  auto parsed = parse_args(kSpecs, args);
  if (!parsed) return parsed.error();
  NativeCommand cmd;
  RunOptions& run = cmd.run;
  bool duration_given = false;
  bool method_given = false;
  bool body_given = false;
  bool arrival_given = false;
  bool connections_given = false;
  bool interval_given = false;
  uint64_t repeat = 0;
  uint64_t step_duration_ns = 0;
  std::optional<LadderSpec> ladder;
  uint64_t interval_ns = kDefaultIntervalNs;
  bool streams_given = false;
  bool window_given = false;
  std::string tls_flag;  // the last TLS option given, for the "needs https://" message
  std::string tls_min_text, tls_max_text;
  std::string urls_path;
  bool mix_given = false;
  for (const ParsedFlag& f : parsed->flags) {
    switch (f.id) {
      case kConnections: {
        auto v = positive_count(f, 1'000'000);
        if (!v) return v.error();
        run.connections = static_cast<uint32_t>(*v);
        connections_given = true;
        break;
      }
      case kThreads: {
        auto v = positive_count(f, 1024);
        if (!v) return v.error();
        run.threads = static_cast<uint32_t>(*v);
        break;
      }
      case kDuration: {
        auto v = positive_duration(f);
        if (!v) return v.error();
        run.duration_ns = *v;
        duration_given = true;
        break;
      }
      case kRequests: {
        auto v = positive_count(f, uint64_t{1} << 48);
        if (!v) return v.error();
        run.requests = *v;
        break;
      }
      case kTimeout: {
        auto v = positive_duration(f);
        if (!v) return v.error();
        run.timeout_ns = *v;
        break;
      }
      case kWarmup: {
        auto v = parse_duration_ns(f.value);
        if (!v) return bad_value(f, v.error());
        run.warmup_ns = *v;
        break;
      }
      case kMethod: {
        if (Status s = validate_method(f.value); !s) return bad_value(f, s.error());
        run.request.method = f.value;
        method_given = true;
        break;
      }
      case kHeader: {
        auto h = parse_header_arg(f.value);
        if (!h) return bad_value(f, h.error());
        run.request.headers.push_back(std::move(h.value()));
        break;
      }
      case kBody:
        if (body_given) return make_error("--body and --body-file given together; use one");
        run.request.body = f.value;
        body_given = true;
        break;
      case kBodyFile: {
        if (body_given) return make_error("--body and --body-file given together; use one");
        auto body = read_whole_file(f.value);
        if (!body)
          return make_error("cannot read --body-file \"" + f.value + "\": " + body.error().message);
        run.request.body = std::move(body.value());
        body_given = true;
        break;
      }
      case kHttp10:
        run.request.http_minor = 0;
        break;
      case kNoKeepalive:
        run.request.keep_alive = false;
        break;
      case kJson:
        if (f.value.empty()) return make_error("--json needs a file name or \"-\"");
        cmd.json_path = f.value;
        break;
      case kRate: {
        auto v = parse_rate(f);
        if (!v) return v.error();
        run.rate_per_s = *v;
        break;
      }
      case kArrival:
        if (f.value == "fixed") {
          run.arrival = Arrival::kFixed;
        } else if (f.value == "poisson") {
          run.arrival = Arrival::kPoisson;
        } else {
          return make_error("invalid value for --arrival: " + quote(f.value) +
                            " (use fixed or poisson)");
        }
        arrival_given = true;
        break;
      case kStages: {
        auto stages = parse_stages(f.value);
        if (!stages) return stages.error();
        run.stages = std::move(stages.value());
        break;
      }
      case kRepeat: {
        auto v = positive_count(f, 1'000'000);
        if (!v) return v.error();
        repeat = *v;
        break;
      }
      case kLadder: {
        auto v = parse_ladder(f.value);
        if (!v) return v.error();
        ladder = v.value();
        break;
      }
      case kStepDuration: {
        auto v = positive_duration(f);
        if (!v) return v.error();
        step_duration_ns = *v;
        break;
      }
      case kThink: {
        auto v = positive_duration(f);
        if (!v) return v.error();
        run.think_ns = *v;
        break;
      }
      case kNoCoalesce:
        run.coalesce_wakeups = false;
        break;
      case kInterval: {
        auto v = positive_duration(f);
        if (!v) return v.error();
        if (*v < kMinIntervalNs) {
          return make_error("--interval must be at least 10ms, got " + quote(f.value));
        }
        interval_ns = *v;
        interval_given = true;
        break;
      }
      case kTimeseries: {
        if (f.value.empty()) return make_error("--timeseries needs a file name");
        auto format = timeseries_format_for_path(f.value);
        if (!format) return format.error();
        cmd.timeseries_path = f.value;
        break;
      }
      case kH1:
      case kH2: {
        HttpProtocol p = f.id == kH1 ? HttpProtocol::kHttp1 : HttpProtocol::kHttp2;
        if (run.protocol != HttpProtocol::kAuto && run.protocol != p) {
          return make_error("--h1 and --h2 given together; use one");
        }
        run.protocol = p;
        break;
      }
      case kStreams: {
        auto v = positive_count(f, kMaxStreams);
        if (!v) return v.error();
        run.streams = static_cast<uint32_t>(*v);
        streams_given = true;
        break;
      }
      case kPipeline: {
        auto v = positive_count(f, 1024);
        if (!v) return v.error();
        run.pipeline = static_cast<uint32_t>(*v);
        break;
      }
      case kHttp09:
        run.http09 = true;
        break;
      case kUnixSocket: {
        if (f.value.empty()) return make_error("--unix-socket needs a path");
        // A path too long for sockaddr_un is a bad value, not something to find out at run time.
        auto address = unix_address(f.value);
        if (!address) return bad_value(f, address.error());
        run.unix_socket = f.value;
        break;
      }
      case kConnectTo: {
        auto target = parse_host_port(f.value);
        if (!target) return bad_value(f, target.error());
        run.connect_host = target->first;
        run.connect_port = target->second;
        break;
      }
      case kSni:
        if (f.value.empty() || f.value.find_first_of(" /\t") != std::string::npos) {
          return make_error("invalid value for --sni: " + quote(f.value) + " (a host name)");
        }
        run.tls.sni = f.value;
        tls_flag = f.spelled;
        break;
      case kNoTlsResume:
        run.tls.resume = false;
        tls_flag = f.spelled;
        break;
      case kTlsMin:
      case kTlsMax: {
        auto v = parse_tls_version(f.value);
        if (!v) return bad_value(f, v.error());
        (f.id == kTlsMin ? run.tls.min_version : run.tls.max_version) = *v;
        (f.id == kTlsMin ? tls_min_text : tls_max_text) = f.value;
        tls_flag = f.spelled;
        break;
      }
      case kCiphers:
        if (f.value.empty()) return make_error("--ciphers needs a cipher list");
        // TLS 1.3 suites are named TLS_*; older ciphers use OpenSSL's names (ECDHE-RSA-...).
        (f.value.rfind("TLS_", 0) == 0 ? run.tls.ciphersuites : run.tls.ciphers) = f.value;
        tls_flag = f.spelled;
        break;
      case kVerify:
        run.tls.verify = true;
        tls_flag = f.spelled;
        break;
      case kCacert:
        if (f.value.empty()) return make_error("--cacert needs a file");
        run.tls.ca_file = f.value;
        run.tls.verify = true;  // a CA to trust only makes sense when checking
        tls_flag = f.spelled;
        break;
      case kWindowBits: {
        auto v = parse_count(f.value);
        if (!v || *v < 16 || *v > 30) {
          return make_error("invalid value for --window-bits: " + quote(f.value) +
                            " (16 to 30: windows of 2^N-1 bytes)");
        }
        run.window_bits = static_cast<uint32_t>(*v);
        window_given = true;
        break;
      }
      case kMaxConnections: {
        auto v = positive_count(f, 1'000'000);
        if (!v) return v.error();
        run.max_connections = static_cast<uint32_t>(*v);
        break;
      }
      case kScript:
        if (f.value.empty()) return make_error(f.spelled + " needs a Lua file");
        run.script_path = f.value;
        break;
      case kUrls:
        if (f.value.empty()) return make_error("--urls needs a file");
        urls_path = f.value;
        break;
      case kMix: {
        auto order = parse_mix_order(f.value);
        if (!order) return bad_value(f, order.error());
        run.mix_order = *order;
        mix_given = true;
        break;
      }
      case kQuiet:
        cmd.quiet = true;
        break;
      case kHelp:
        cmd.show_help = true;
        break;
      case kVersion:
        cmd.show_version = true;
        break;
    }
  }
  if (cmd.show_help || cmd.show_version) return cmd;
  if (!parsed->after_dashes.empty() && run.script_path.empty()) {
    return make_error("unexpected arguments after --: \"" + parsed->after_dashes[0] +
                      "\" (words after -- are a script's arguments: give -s FILE)");
  }
  run.script_args = parsed->after_dashes;
  if (parsed->positionals.empty() && urls_path.empty()) {
    return make_error("missing URL (try hail --help)");
  }
  if (parsed->positionals.size() > 1) {
    return make_error("unexpected argument \"" + parsed->positionals[1] +
                      "\" (exactly one URL; options go before or after it)");
  }
  if (!parsed->positionals.empty()) {
    auto url = parse_url(parsed->positionals[0]);
    if (!url) return url.error();
    run.url = url.value();
    run.url_text = parsed->positionals[0];
  }
  if (Status st = apply_urls_file(run, urls_path, !parsed->positionals.empty(), mix_given); !st) {
    return st.error();
  }
  if (!run.script_path.empty() && run.http09) {
    return make_error("--http0.9 and -s given together: scripts send HTTP/1.x requests");
  }
  if (Status st = check_protocol_flags(run, tls_flag, streams_given, window_given); !st) {
    return st.error();
  }
  if (Status st = check_tls_values(run.tls, tls_min_text, tls_max_text); !st) return st.error();
  if (run.http09) {
    if (method_given && run.request.method != "GET") {
      return make_error("--http0.9 sends GET requests only (no -m " + run.request.method + ")");
    }
    if (body_given) return make_error("--http0.9 requests have no body");
    run.request.keep_alive = false;  // HTTP/0.9: the response ends when the server closes
  }
  run.request.path = run.url.path;
  run.request.authority = run.url.authority();
  if (body_given && !method_given) run.request.method = "POST";
  // -n alone runs until the N requests are done; -d alone or both: the duration bounds the run.
  if (run.requests > 0 && !duration_given) run.duration_ns = 0;
  if (run.threads > run.connections) run.threads = run.connections;
  if (Status st =
          apply_stages(run, ladder, step_duration_ns, repeat, connections_given, duration_given);
      !st) {
    return st.error();
  }
  if (run.think_ns != 0 && run.rate_per_s > 0) {
    return make_error("--think applies to the closed loop; with -R the rate sets the pacing");
  }
  // The series costs a little per request: kept only when it will be written somewhere.
  if (interval_given || !cmd.timeseries_path.empty() || !cmd.json_path.empty()) {
    run.interval_ns = interval_ns;
  }
  if (run.rate_per_s == 0 && (arrival_given || run.max_connections != 0)) {
    return make_error("--arrival and --max-connections only apply to rate mode (-R)");
  }
  if (run.max_connections != 0 && run.max_connections < run.connections) {
    return make_error("--max-connections (" + std::to_string(run.max_connections) +
                      ") is lower than -c (" + std::to_string(run.connections) + ")");
  }
  return cmd;
}

}  // namespace hail
