#include "cli/native_flags.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "cli/arg_parser.h"
#include "core/units.h"

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
};

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
      --stages LIST     rate mode: ramp the rate linearly from -R through each "DURATION:RATE"
                        ("10s:500,30s:500,10s:0"); the stages set the run's duration
      --repeat N        repeat the --stages list N times (bursts)
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
  uint64_t repeat = 0;
  for (const ParsedFlag& f : parsed->flags) {
    switch (f.id) {
      case kConnections: {
        auto v = positive_count(f, 1'000'000);
        if (!v) return v.error();
        run.connections = static_cast<uint32_t>(*v);
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
  if (repeat != 0 && run.stages.empty()) return make_error("--repeat needs --stages");
  if (!run.stages.empty()) {
    if (run.rate_per_s == 0) {
      return make_error(
          "--stages needs -R (the rate the first stage ramps from; -R 0.001 to start from ~0): "
          "closed-loop stages are not supported yet");
    }
    if (run.warmup_ns != 0) return make_error("--warmup with --stages is not supported yet");
    if (duration_given) return make_error("-d with --stages: the stages set the duration");
    if (repeat > 1) {
      auto repeated = repeat_stages(run.stages, repeat);
      if (!repeated) return repeated.error();
      run.stages = std::move(repeated.value());
    }
    run.duration_ns = StageCurve(run.stages, run.rate_per_s).total_duration_ns();
    if (run.requests > 0) return make_error("-n with --stages is not supported yet");
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
