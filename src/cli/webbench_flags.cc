#include "cli/webbench_flags.h"

#include <algorithm>
#include <utility>

#include "cli/gnu_getopt.h"
#include "core/result.h"
#include "core/units.h"
#include "core/url.h"
#include "http/request.h"

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

// Long options that getopt_long stores through a flag pointer in webbench (returning 0); here
// they get values of their own.
enum LongOnly : int {
  kOptForce = 256,
  kOptReload,
  kOptGet,
  kOptHead,
  kOptOptions,
  kOptTrace,
};

constexpr std::string_view kShortOptions = "912Vfrt:p:c:?h";
// In webbench's order: it decides which prefix matches glibc lists first.
constexpr GetoptLongOption kLongOptions[] = {
    {"force", false, kOptForce}, {"reload", false, kOptReload},
    {"time", true, 't'},         {"help", false, '?'},
    {"http09", false, '9'},      {"http10", false, '1'},
    {"http11", false, '2'},      {"get", false, kOptGet},
    {"head", false, kOptHead},   {"options", false, kOptOptions},
    {"trace", false, kOptTrace}, {"version", false, 'V'},
    {"proxy", true, 'p'},        {"clients", true, 'c'},
};

bool is_c_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}

WebbenchParse fail(WebbenchParse p, std::string message, bool usage, bool copyright_first) {
  p.ok = false;
  p.message = std::move(message);
  p.show_usage = usage;
  p.copyright_first = copyright_first;
  p.exit_status = kWebbenchExitUsage;
  return p;
}

// A refusal of hail's own (webbench would have started): one line, no usage text.
WebbenchParse refuse(WebbenchParse p, const std::string& why, bool copyright_first) {
  return fail(std::move(p), "hail: " + why + "\n", false, copyright_first);
}

bool starts_with_http(std::string_view url) {
  constexpr std::string_view kHttp = "http://";
  if (url.size() < kHttp.size()) return false;
  for (size_t i = 0; i < kHttp.size(); ++i) {
    char c = url[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != kHttp[i]) return false;
  }
  return true;
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

// Options are read and applied one at a time, as webbench's getopt loop does: -V exits, and a bad
// -p stops, before the options after them are looked at.
struct OptionState {
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

// -p as webbench reads it: the host up to the last ':', the port after it (atoi); without a ':'
// the whole text is the host and the port stays what it was. Returns webbench's message, if any.
std::string apply_proxy(const std::string& text, OptionState& s) {
  s.proxy = true;
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos) {
    s.proxy_host = text;
    return {};
  }
  if (colon == 0) return "Error in option --proxy " + text + ": Missing hostname.\n";
  if (colon + 1 == text.size()) {
    return "Error in option --proxy " + text + " Port number is missing.\n";
  }
  s.proxy_host = text.substr(0, colon);
  s.proxy_port = webbench_atoi(std::string_view(text).substr(colon + 1));
  return {};
}

}  // namespace

int64_t webbench_atoi(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && is_c_space(text[i])) ++i;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  int64_t value = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    const int64_t digit = text[i] - '0';
    value = value > (kAtoiLimit - digit) / 10 ? kAtoiLimit : value * 10 + digit;
  }
  return negative ? -value : value;
}

std::string webbench_usage() {
  return "webbench [option]... URL\n"
         "  -f|--force               Don't wait for reply from server.\n"
         "  -r|--reload              Send reload request - Pragma: no-cache.\n"
         "  -t|--time <sec>          Run benchmark for <sec> seconds. Default 30.\n"
         "  -p|--proxy <server:port> Use proxy server for request.\n"
         "  -c|--clients <n>         Run <n> HTTP clients at once. Default one.\n"
         "  -9|--http09              Use HTTP/0.9 style requests.\n"
         "  -1|--http10              Use HTTP/1.0 protocol.\n"
         "  -2|--http11              Use HTTP/1.1 protocol.\n"
         "  --get                    Use GET request method.\n"
         "  --head                   Use HEAD request method.\n"
         "  --options                Use OPTIONS request method.\n"
         "  --trace                  Use TRACE request method.\n"
         "  -?|-h|--help             This information.\n"
         "  -V|--version             Display program version.\n";
}

std::string webbench_version_line(std::string_view hail_version) {
  return std::string(kVersion) + " (hail " + std::string(hail_version) + ")\n";
}

WebbenchParse parse_webbench_flags(const std::vector<std::string>& args) {
  WebbenchParse p;
  // webbench with no argument at all prints only the usage text.
  if (args.empty()) return fail(std::move(p), {}, true, false);

  OptionState s;
  GnuGetopt reader(args, kShortOptions, kLongOptions);
  GetoptOption o;
  while (reader.next(&o)) {
    switch (o.val) {
      case 'f':
      case kOptForce:
        s.force = true;
        break;
      case 'r':
      case kOptReload:
        s.reload = true;
        break;
      case '9':
        s.http_level = kHttp09;
        break;
      case '1':
        s.http_level = kHttp10;
        break;
      case '2':
        s.http_level = kHttp11;
        break;
      case 'V':
        p.show_version = true;
        p.exit_status = kWebbenchExitOk;
        return p;
      case 't':
        s.seconds = webbench_atoi(o.arg);
        break;
      case 'c':
        s.clients = webbench_atoi(o.arg);
        break;
      case 'p':
        if (std::string message = apply_proxy(o.arg, s); !message.empty()) {
          return fail(std::move(p), std::move(message), false, false);
        }
        break;
      case kOptGet:
        s.method = "GET";
        break;
      case kOptHead:
        s.method = "HEAD";
        break;
      case kOptOptions:
        s.method = "OPTIONS";
        break;
      case kOptTrace:
        s.method = "TRACE";
        break;
      default:  // -h, -?, --help
        return fail(std::move(p), {}, true, false);
    }
  }
  if (!reader.error().empty()) {
    return fail(std::move(p), "webbench: " + reader.error() + "\n", true, false);
  }
  const std::vector<std::string>& words = reader.non_options();
  if (words.empty()) return fail(std::move(p), "webbench: Missing URL!\n", true, false);

  if (s.clients == 0) s.clients = 1;
  if (s.seconds == 0) s.seconds = kWebbenchZeroTimeSeconds;
  // Where webbench would misbehave (a negative -c makes its parent run as the only client and
  // print no summary; a negative -t is a 136-year alarm), hail refuses.
  if (s.clients < 0 || s.clients > kMaxClients) {
    return refuse(std::move(p),
                  "-c " + std::to_string(s.clients) + ": must be 1 to " +
                      std::to_string(kMaxClients) + " clients",
                  false);
  }
  if (s.seconds < 0 || s.seconds > kMaxSeconds) {
    return refuse(std::move(p),
                  "-t " + std::to_string(s.seconds) + ": must be 0 to " +
                      std::to_string(kMaxSeconds) + " seconds",
                  false);
  }

  // From here on webbench has printed its copyright lines (build_request's checks, in its order).
  WebbenchCommand& cmd = p.command;
  const std::string& url = words[0];
  cmd.url_text = url;
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string::npos) {
    return fail(std::move(p), "\n" + url + ": is not a valid URL.\n", false, true);
  }
  if (url.size() > kWebbenchMaxUrlLength) {
    return fail(std::move(p), "URL is too long.\n", false, true);
  }
  if (!s.proxy && !starts_with_http(url)) {
    return fail(std::move(p),
                "\nOnly HTTP protocol is directly supported, set --proxy for others.\n", false,
                true);
  }
  const size_t host_start = scheme_end + 3;
  const size_t slash = url.find('/', host_start);
  if (slash == std::string::npos) {
    return fail(std::move(p), "\nInvalid URL syntax - hostname don't ends with '/'.\n", false,
                true);
  }

  // build_request's protocol adjustments, in its order.
  if (s.reload && s.proxy && s.http_level < kHttp10) s.http_level = kHttp10;
  if (s.method == "HEAD" && s.http_level < kHttp10) s.http_level = kHttp10;
  if ((s.method == "OPTIONS" || s.method == "TRACE") && s.http_level < kHttp11) {
    s.http_level = kHttp11;
  }

  const std::string_view authority = std::string_view(url).substr(host_start, slash - host_start);
  RequestSpec& request = cmd.run.request;
  request.method = s.method;
  request.keep_alive = false;  // webbench opens a connection for every request
  request.http_minor = s.http_level == kHttp11 ? 1 : 0;
  request.headers.emplace_back("User-Agent", kUserAgent);
  HostPort target;
  if (s.proxy) {
    // The absolute URL as the request-target, sent to the proxy (any scheme: the proxy fetches
    // it). webbench sends no Host then; hail's requests always carry one: the URL's authority.
    request.path = url;
    request.authority = std::string(authority);
    target.host = s.proxy_host;
    target.port = s.proxy_port;
  } else {
    request.path = url.substr(slash);
    target = split_authority(authority);
    request.authority = target.host;  // webbench's Host has no port
  }
  // webbench sends Pragma only through a proxy (its man page: "-r ... If proxy is not set,
  // option has no effect").
  if (s.reload && s.proxy) request.headers.emplace_back("Pragma", "no-cache");
  if (Status st = validate_request(request); !st) {
    return refuse(std::move(p), "cannot send this request: " + st.error().message, true);
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
  run.connections = static_cast<uint32_t>(s.clients);
  run.threads = 0;  // one per core, never more than the clients
  run.duration_ns = static_cast<uint64_t>(s.seconds) * 1'000'000'000;
  run.timeout_ns = std::min(kMaxDurationNs, run.duration_ns + kTimeoutPastEndNs);
  run.protocol = HttpProtocol::kHttp1;
  run.http09 = s.http_level == kHttp09;
  if (!run.http09) {
    // webbench's build_request, byte for byte: request line, User-Agent, Host (not through a
    // proxy, and without the port), Pragma (-r through a proxy), Connection: close on HTTP/1.1.
    std::string raw = s.method + " " + request.path +
                      (s.http_level == kHttp11 ? " HTTP/1.1\r\n" : " HTTP/1.0\r\n");
    raw += "User-Agent: " + std::string(kUserAgent) + "\r\n";
    if (!s.proxy) raw += "Host: " + request.authority + "\r\n";
    if (s.reload && s.proxy) raw += "Pragma: no-cache\r\n";
    if (s.http_level == kHttp11) raw += "Connection: close\r\n";
    raw += "\r\n";
    run.raw_request = std::move(raw);
  }
  p.ok = true;
  p.exit_status = kWebbenchExitOk;
  return p;
}

}  // namespace hail
