#include "cli/webbench_flags.h"

#include <algorithm>
#include <iterator>
#include <span>
#include <utility>

#include "cli/flag_table.h"
#include "cli/gnu_getopt.h"
#include "cli/run_rules.h"
#include "core/ascii.h"
#include "core/numbers.h"
#include "core/result.h"
#include "core/units.h"
#include "core/url.h"
#include "http/request_builder.h"

namespace hail {

namespace {

// Hail's own limits (the native front-end's); webbench would fork any number and fail later.
constexpr int64_t kMaxClients = 1'000'000;
constexpr int64_t kMaxSeconds = static_cast<int64_t>(kMaxDurationNs / 1'000'000'000);
constexpr int64_t kAtoiLimit = int64_t{1} << 62;
// webbench has no request timeout: a request may take the whole run. hail's timeout is then set
// past the end, so that no request is aborted before the run stops.
constexpr uint64_t kTimeoutPastEndNs = 1'000'000'000;

constexpr const char* kVersion = "1.5";
constexpr const char* kUserAgent = "WebBench 1.5";

// webbench's HTTP levels (its `http10` variable).
constexpr int kHttp09 = 0;
constexpr int kHttp10 = 1;
constexpr int kHttp11 = 2;

// Options are read and applied one at a time, as webbench's getopt loop does: -V exits, and a bad
// -p stops, before the options after them are looked at.
struct WebbenchState {
  WebbenchParse p;
  int http_level = kHttp10;
  std::string method = "GET";
  int64_t clients = kWebbenchDefaultClients;
  int64_t seconds = kWebbenchDefaultSeconds;
  bool force = false;
  bool reload = false;
  bool proxy = false;
  std::string proxy_host;
  int64_t proxy_port = kWebbenchDefaultPort;
};

// A handler returns false when webbench stops at this option; p then says how.
using WebbenchFlag = FlagDef<WebbenchState, bool>;

WebbenchParse& fail(WebbenchParse& p, std::string message, bool usage, bool copyright_first) {
  p.ok = false;
  p.message = std::move(message);
  p.show_usage = usage;
  p.copyright_first = copyright_first;
  p.exit_status = kWebbenchExitUsage;
  return p;
}

// A refusal of hail's own (webbench would have started): one line, no usage text.
WebbenchParse& refuse(WebbenchParse& p, const std::string& why, bool copyright_first) {
  return fail(p, "hail: " + why + "\n", false, copyright_first);
}

// A host as a URL needs it: IPv6 literals in brackets.
std::string url_host(const std::string& host) {
  if (host.find(':') != std::string::npos && !host.starts_with("[")) return "[" + host + "]";
  return host;
}

struct HostPort {
  std::string host;
  int64_t port = kWebbenchDefaultPort;
};

// webbench's split of "host[:port]" (the text between "://" and the first '/'): the host up to the
// first ':', the port read by atoi, 0 meaning 80. A bracketed IPv6 literal is kept whole (hail's
// addition: webbench cuts it at its first colon).
HostPort split_authority(std::string_view authority) {
  size_t colon = authority.find(':');
  if (authority.starts_with("[")) {
    const size_t close = authority.find(']');
    colon = close == std::string_view::npos ? std::string_view::npos : authority.find(':', close);
  }
  HostPort out;
  out.host = std::string(authority.substr(0, colon));
  if (colon != std::string_view::npos) {
    out.port = webbench_atoi(authority.substr(colon + 1));
    if (out.port == 0) out.port = kWebbenchDefaultPort;
  }
  return out;
}

// -p as webbench reads it: the host up to the last ':', the port after it (atoi); without a ':'
// the whole text is the host and the port stays what it was.
bool set_proxy(WebbenchState& s, const ParsedFlag& f) {
  const std::string& text = f.value;
  s.proxy = true;
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos) {
    s.proxy_host = text;
    return true;
  }
  if (colon == 0) {
    fail(s.p, "Error in option --proxy " + text + ": Missing hostname.\n", false, false);
    return false;
  }
  if (colon + 1 == text.size()) {
    fail(s.p, "Error in option --proxy " + text + " Port number is missing.\n", false, false);
    return false;
  }
  s.proxy_host = text.substr(0, colon);
  s.proxy_port = webbench_atoi(std::string_view(text).substr(colon + 1));
  return true;
}

template <auto kField>
bool set_flag(WebbenchState& s, const ParsedFlag&) {
  s.*kField = true;
  return true;
}

template <auto kField>
bool set_number(WebbenchState& s, const ParsedFlag& f) {
  s.*kField = webbench_atoi(f.value);
  return true;
}

template <int kLevel>
bool set_level(WebbenchState& s, const ParsedFlag&) {
  s.http_level = kLevel;
  return true;
}

template <const char* kMethod>
bool set_method(WebbenchState& s, const ParsedFlag&) {
  s.method = kMethod;
  return true;
}

// hail's verdict flags: their errors are hail's one line (exit 2, webbench's usage status too).
bool hail_flag_result(WebbenchState& s, const Status& st) {
  if (!st) refuse(s.p, st.error().message, false);
  return st.ok();
}

bool add_slo(WebbenchState& s, const ParsedFlag& f) {
  return hail_flag_result(s, add_slo_flag(s.p.command.verdict, "--slo", f.value));
}

bool set_slo_abort(WebbenchState& s, const ParsedFlag&) {
  s.p.command.verdict.slo_abort = true;
  return true;
}

bool set_junit(WebbenchState& s, const ParsedFlag& f) {
  return hail_flag_result(s, set_junit_flag(s.p.command.verdict, f.value));
}

bool show_usage(WebbenchState& s, const ParsedFlag&) {
  fail(s.p, {}, true, false);
  return false;
}

bool show_version(WebbenchState& s, const ParsedFlag&) {
  s.p.show_version = true;
  s.p.exit_status = kWebbenchExitOk;
  return false;
}

constexpr char kGet[] = "GET";
constexpr char kHead[] = "HEAD";
constexpr char kOptions[] = "OPTIONS";
constexpr char kTrace[] = "TRACE";

// In the order of webbench's usage text.
constexpr WebbenchFlag kFlags[] = {
    {"f", "force", nullptr, set_flag<&WebbenchState::force>, "Don't wait for reply from server."},
    {"r", "reload", nullptr, set_flag<&WebbenchState::reload>,
     "Send reload request - Pragma: no-cache."},
    {"t", "time", "sec", set_number<&WebbenchState::seconds>,
     "Run benchmark for <sec> seconds. Default 30."},
    {"p", "proxy", "server:port", set_proxy, "Use proxy server for request."},
    {"c", "clients", "n", set_number<&WebbenchState::clients>,
     "Run <n> HTTP clients at once. Default one."},
    {"9", "http09", nullptr, set_level<kHttp09>, "Use HTTP/0.9 style requests."},
    {"1", "http10", nullptr, set_level<kHttp10>, "Use HTTP/1.0 protocol."},
    {"2", "http11", nullptr, set_level<kHttp11>, "Use HTTP/1.1 protocol."},
    {"", "get", nullptr, set_method<kGet>, "Use GET request method."},
    {"", "head", nullptr, set_method<kHead>, "Use HEAD request method."},
    {"", "options", nullptr, set_method<kOptions>, "Use OPTIONS request method."},
    {"", "trace", nullptr, set_method<kTrace>, "Use TRACE request method."},
    {"?h", "help", nullptr, show_usage, "This information."},
    {"V", "version", nullptr, show_version, "Display program version."},
    // hail's verdicts, which webbench does not have: documented in README and hail(1), not in
    // webbench's usage text (kept byte for byte).
    {"", "slo", "EXPR", add_slo, nullptr},
    {"", "slo-abort", nullptr, set_slo_abort, nullptr},
    {"", "junit", "FILE", set_junit, nullptr},
};

constexpr std::span<const WebbenchFlag> kTable(kFlags);

// webbench's long options in the order of its struct option array: glibc lists the matches of an
// ambiguous prefix in this order.
constexpr std::string_view kLongOptionOrder[] = {
    "force",   "reload", "time",    "help",  "http09",  "http10", "http11",    "get",   "head",
    "options", "trace",  "version", "proxy", "clients", "slo",    "slo-abort", "junit",  // hail's
};

constexpr UsageLayout kLayout{SyntaxStyle::kWebbench, 2, 27, 1};

std::vector<GetoptLongOption> long_options_in_webbench_order() {
  const std::vector<GetoptLongOption> options = getopt_long_options(kTable);
  std::vector<GetoptLongOption> out;
  for (std::string_view name : kLongOptionOrder) {
    for (const GetoptLongOption& o : options) {
      if (name == o.name) out.push_back(o);
    }
  }
  return out;
}

// -c and -t after webbench's 0 rules; hail refuses where webbench would misbehave (a negative -c
// makes its parent run as the only client and print no summary; a negative -t is a 136-year
// alarm).
bool check_counts(WebbenchState& s) {
  if (s.clients == 0) s.clients = 1;
  if (s.seconds == 0) s.seconds = kWebbenchZeroTimeSeconds;
  if (s.clients < 0 || s.clients > kMaxClients) {
    refuse(s.p,
           "-c " + std::to_string(s.clients) + ": must be 1 to " + std::to_string(kMaxClients) +
               " clients",
           false);
    return false;
  }
  if (s.seconds < 0 || s.seconds > kMaxSeconds) {
    refuse(s.p,
           "-t " + std::to_string(s.seconds) + ": must be 0 to " + std::to_string(kMaxSeconds) +
               " seconds",
           false);
    return false;
  }
  return true;
}

// build_request's checks on the URL, in its order (after webbench printed its copyright lines).
// Returns the position of the '/' that ends the host, or npos after failing p.
size_t check_url(WebbenchState& s, const std::string& url) {
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string::npos) {
    fail(s.p, "\n" + url + ": is not a valid URL.\n", false, true);
    return std::string::npos;
  }
  if (url.size() > kWebbenchMaxUrlLength) {
    fail(s.p, "URL is too long.\n", false, true);
    return std::string::npos;
  }
  if (!s.proxy && !ascii::istarts_with(url, "http://")) {
    fail(s.p, "\nOnly HTTP protocol is directly supported, set --proxy for others.\n", false, true);
    return std::string::npos;
  }
  const size_t slash = url.find('/', scheme_end + 3);
  if (slash == std::string::npos) {
    fail(s.p, "\nInvalid URL syntax - hostname don't ends with '/'.\n", false, true);
  }
  return slash;
}

// webbench's build_request, byte for byte: request line, User-Agent, Host (not through a proxy,
// and without the port), Pragma (-r through a proxy: webbench's man page says -r has no effect
// without one), Connection: close on HTTP/1.1; HTTP/0.9 sends the request line alone.
RequestBuilder webbench_request(const WebbenchState& s, const std::string& target,
                                const std::string& host) {
  const HttpVersion version = s.http_level == kHttp11   ? HttpVersion::k11
                              : s.http_level == kHttp10 ? HttpVersion::k10
                                                        : HttpVersion::k09;
  RequestBuilder request(s.method, target, version);
  if (version == HttpVersion::k09) return request;
  request.add_field("User-Agent", kUserAgent);
  if (!s.proxy) request.add_field("Host", host);
  if (s.reload && s.proxy) request.add_field("Pragma", "no-cache");
  if (version == HttpVersion::k11) request.add_field("Connection", "close");
  return request;
}

// The run: where to connect (or why webbench's check connection would fail), the request, the
// load model (one request per connection per client, for the whole time).
void fill_run(WebbenchCommand& cmd, const HostPort& target, const RequestBuilder& request) {
  RunOptions& run = cmd.run;
  if (target.port < 1 || target.port > 65535) {
    cmd.connect_problem = "port " + std::to_string(target.port) + " is not 1-65535";
  } else if (auto parsed = parse_url("http://" + url_host(target.host) + ":" +
                                     std::to_string(target.port) + "/");
             !parsed) {
    cmd.connect_problem = "host \"" + target.host + "\": " + parsed.error().message;
  } else {
    run.url = parsed.value();
  }
  run.connections = static_cast<uint32_t>(cmd.clients);
  run.threads = 0;  // one per core, never more than the clients
  run.duration_ns = static_cast<uint64_t>(cmd.seconds) * 1'000'000'000;
  run.timeout_ns = std::min(kMaxDurationNs, run.duration_ns + kTimeoutPastEndNs);
  run.protocol = HttpProtocol::kHttp1;
  run.http09 = request.version() == HttpVersion::k09;
  if (!run.http09) run.raw_request = request.http1();
}

WebbenchParse finish(WebbenchState& s, const std::vector<std::string>& words) {
  WebbenchParse& p = s.p;
  if (words.empty()) return fail(p, "webbench: Missing URL!\n", true, false);
  if (!check_counts(s)) return p;
  WebbenchCommand& cmd = p.command;
  if (Status st = check_verdict_flags(cmd.verdict); !st)
    return refuse(p, st.error().message, false);
  const std::string& url = words[0];
  cmd.url_text = url;
  const size_t slash = check_url(s, url);
  if (slash == std::string::npos) return p;

  // build_request's protocol adjustments, in its order.
  if (s.reload && s.proxy && s.http_level < kHttp10) s.http_level = kHttp10;
  if (s.method == "HEAD" && s.http_level < kHttp10) s.http_level = kHttp10;
  if ((s.method == "OPTIONS" || s.method == "TRACE") && s.http_level < kHttp11) {
    s.http_level = kHttp11;
  }
  // Through a proxy: the absolute URL as the request-target (any scheme: the proxy fetches it).
  const size_t host_start = url.find("://") + 3;
  const HostPort target =
      s.proxy ? HostPort{s.proxy_host, s.proxy_port}
              : split_authority(std::string_view(url).substr(host_start, slash - host_start));
  const RequestBuilder request =
      webbench_request(s, s.proxy ? url : url.substr(slash), target.host);
  cmd.run.request = request.spec();
  // The request names the host even where HTTP/0.9 sends no Host field.
  if (!s.proxy) cmd.run.request.authority = target.host;
  if (Status st = validate_request(cmd.run.request); !st) {
    return refuse(p, "cannot send this request: " + st.error().message, true);
  }
  cmd.method = s.method;
  cmd.http_level = s.http_level;
  cmd.clients = s.clients;
  cmd.seconds = s.seconds;
  cmd.force = s.force;
  cmd.reload = s.reload;
  cmd.proxy = s.proxy;
  cmd.proxy_host = s.proxy_host;
  cmd.proxy_port = s.proxy_port;
  fill_run(cmd, target, request);
  GivenFlags given;
  given.duration = true;
  given.connections = true;
  given.method = true;
  given.keep_series = !cmd.verdict.slo.empty();  // thresholds over windows need the series
  if (Status st = validate(cmd.run, given); !st) return refuse(p, st.error().message, true);
  p.ok = true;
  p.exit_status = kWebbenchExitOk;
  return p;
}

}  // namespace

int64_t webbench_atoi(std::string_view text) {
  return std::clamp(c_strtol(text), -kAtoiLimit, kAtoiLimit);
}

std::string webbench_usage() {
  return "webbench [option]... URL\n" + render_usage(kTable, kLayout);
}

std::vector<FlagName> webbench_flag_names() {
  return flag_names(kTable);
}

std::string webbench_version_line(std::string_view hail_version) {
  return std::string(kVersion) + " (hail " + std::string(hail_version) + ")\n";
}

WebbenchParse parse_webbench_flags(const std::vector<std::string>& args) {
  WebbenchState s;
  // webbench with no argument at all prints only the usage text.
  if (args.empty()) return fail(s.p, {}, true, false);
  const std::span<const WebbenchFlag> table = kTable;
  const std::string short_options = getopt_short_options(table);
  const std::vector<GetoptLongOption> long_options = long_options_in_webbench_order();
  GnuGetopt reader(args, short_options, long_options);
  GetoptOption o;
  while (reader.next(&o)) {
    const WebbenchFlag* flag = flag_for(table, o.val);
    const ParsedFlag parsed{static_cast<int>(flag - table.data()), "", o.arg};
    if (!flag->apply(s, parsed)) return std::move(s.p);
  }
  if (!reader.error().empty()) return fail(s.p, "webbench: " + reader.error() + "\n", true, false);
  return finish(s, reader.non_options());
}

}  // namespace hail
