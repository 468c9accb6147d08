#include "cli/native_flags.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "cli/arg_parser.h"
#include "core/units.h"
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
  kInterval,
  kTimeseries,
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
    {kInterval, 0, "interval", true},
    {kTimeseries, 0, "timeseries", true},
};

constexpr uint64_t kDefaultIntervalNs = 1'000'000'000;
// Closing a window scans its histogram (~30 us): shorter intervals would cost the load measurably.
constexpr uint64_t kMinIntervalNs = 10'000'000;
constexpr double kMaxStageConnections = 1'000'000;

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

// Reads a whole file with plain read(2) so that every failure (a directory: EISDIR) is seen.
Result<std::string> read_whole_file(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error(std::strerror(errno));
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    int err = errno;
    close(fd);
    if (n < 0) return make_error(std::strerror(err));
    return out;
  }
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

Error bad_value(const ParsedFlag& f, const Error& why) {
  return make_error("invalid value for " + f.spelled + ": " + why.message);
}

// A count that must be at least 1 and at most `max`.
Result<uint64_t> positive_count(const ParsedFlag& f, uint64_t max) {
  auto v = parse_count(f.value);
  if (!v) return bad_value(f, v.error());
  if (*v == 0) return make_error(f.spelled + " must be at least 1, got \"" + f.value + "\"");
  if (*v > max) {
    return make_error(f.spelled + " is too large: \"" + f.value + "\" (at most " +
                      std::to_string(max) + ")");
  }
  return *v;
}

Result<uint64_t> positive_duration(const ParsedFlag& f) {
  auto v = parse_duration_ns(f.value);
  if (!v) return bad_value(f, v.error());
  if (*v == 0) return make_error(f.spelled + " must be greater than zero, got \"" + f.value + "\"");
  return *v;
}
}  // namespace

std::string native_usage() {
  return R"(Usage: hail [options] URL
       hail serve [options]     built-in target server (hail serve --help)
       hail demo                benchmark the built-in server for about 5 s

Load one URL over HTTP/1.x and report throughput, latency percentiles and every error.

Load:
  -c, --connections N   connections to keep open (default 50)
  -t, --threads N       worker threads (default: one per core, at most -c)
  -d, --duration T      measured duration (default 10s; units ns us ms s m h, bare = s)
  -n, --requests N      send exactly N requests, then stop (like ab -n); with -d, whichever
                        comes first
      --timeout T       per-request timeout (default 5s): the request counts as a timeout and
                        its connection is closed and reopened
      --warmup T        run the load for T first without recording anything
  -R, --rate N          open loop: N requests per second in total, planned from the start;
                        latency counts from each request's planned time (coordinated-omission
                        correction); with -n, exactly N requests at that rate
      --arrival A       rate mode: fixed intervals (default) or poisson
      --max-connections N  rate mode: open up to N connections when requests queue (default -c)
      --stages LIST     ramp linearly through each "DURATION:TARGET" ("10s:50,30s:200,10s:0"):
                        open connections from -c (or 0), or with -R the rate from -R; the
                        stages set the run's duration, each is a row of the report
      --ladder A:S:B    hold A, A+S, ... up to B connections (with -R: requests/s), each for
                        --step-duration T; one report row per step shows the knee
      --step-duration T how long each --ladder step lasts
      --repeat N        repeat the --stages / --ladder list N times (bursts)
      --think T         closed loop: pause T between a response and the connection's next
                        request (latency excludes it)
Request:
  -m, --method M        request method (default GET, or POST when a body is given)
  -H, --header "N: v"   add a header (repeatable); replaces a default of the same name
                        (Host, User-Agent, Accept)
      --body STRING     request body (sets Content-Length)
      --body-file FILE  request body read from FILE
      --http1.0         send HTTP/1.0 requests (keep-alive asked with Connection: keep-alive)
      --no-keepalive    a new connection per request (like ab without -k)
Output:
      --json FILE|-     write the JSON report to FILE ("-": to stdout instead of the text)
      --timeseries FILE per-interval samples as CSV (.csv) or JSON Lines (.jsonl)
      --interval T      time-series interval (default 1s, at least 10ms); the series is also
                        in --json
  -q, --quiet           no progress line
  -h, --help            this help
  -V, --version         print the version

Exit status: 0 run completed (even with errors), 1 could not run, 2 usage error.
)";
}

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
      case kMaxConnections: {
        auto v = positive_count(f, 1'000'000);
        if (!v) return v.error();
        run.max_connections = static_cast<uint32_t>(*v);
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
  if (!parsed->after_dashes.empty()) {
    return make_error("unexpected arguments after --: \"" + parsed->after_dashes[0] + "\"");
  }
  if (parsed->positionals.empty()) return make_error("missing URL (try hail --help)");
  if (parsed->positionals.size() > 1) {
    return make_error("unexpected argument \"" + parsed->positionals[1] +
                      "\" (exactly one URL; options go before or after it)");
  }
  auto url = parse_url(parsed->positionals[0]);
  if (!url) return url.error();
  if (url->scheme != "http") {
    return make_error("unsupported URL scheme \"" + url->scheme + "\" in \"" +
                      parsed->positionals[0] + "\": only http:// is supported so far");
  }
  run.url = url.value();
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
