#include "cli/ab_flags.h"

#include <arpa/inet.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <utility>

#include "cli/flag_values.h"
#include "core/clock.h"
#include "core/result.h"
#include "core/units.h"
#include "core/url.h"
#include "http/request.h"
#include "net/tls.h"

namespace hail {

namespace {

// ab's option string, SSL options included (Debian builds ab with OpenSSL).
constexpr std::string_view kAbOptions =
    "n:c:t:s:b:T:p:u:v:lrkVhwiIx:y:z:C:H:P:A:g:X:de:SqB:m:Z:f:E:";
// apr_base64_encode_len must fit ab's 1024-byte buffer for -A / -P.
constexpr size_t kAbMaxCredentialBase64Bytes = 1024;

bool is_c_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}

std::string basename_of(std::string_view program) {
  const size_t slash = program.rfind('/');
  return std::string(slash == std::string_view::npos ? program : program.substr(slash + 1));
}

// apr_getopt: short options only, clustered ("-kq") or with their value attached ("-n5"); it stops
// at the first word that is not an option (no permutation), at "--", or at an error, which it
// reports on stderr with the program's base name and which ends the option loop.
class AprGetopt {
 public:
  AprGetopt(const std::vector<std::string>& args, std::string program)
      : args_(args), program_(std::move(program)) {}

  enum class Step { kOption, kEnd, kError };

  Step next(char* option, std::string* value) {
    if (place_.empty()) {
      if (index_ >= args_.size() || args_[index_].empty() || args_[index_][0] != '-') {
        return Step::kEnd;
      }
      const std::string& word = args_[index_];
      if (word.size() > 1 && word[1] == '-') {  // "--" (and "--x", as apr reads it)
        ++index_;
        return Step::kEnd;
      }
      place_ = std::string_view(word).substr(1);
      if (place_.empty()) return Step::kEnd;  // "-" alone: apr treats '-' as the end
    }
    const char c = place_[0];
    place_.remove_prefix(1);
    const size_t at = c == ':' ? std::string_view::npos : kAbOptions.find(c);
    if (at == std::string_view::npos) {
      if (c == '-') return Step::kEnd;
      if (place_.empty()) ++index_;
      error_ += program_ + ": illegal option -- " + c + "\n";
      return Step::kError;
    }
    *option = c;
    value->clear();
    const bool takes_value = at + 1 < kAbOptions.size() && kAbOptions[at + 1] == ':';
    if (!takes_value) {
      if (place_.empty()) ++index_;
      return Step::kOption;
    }
    if (!place_.empty()) {
      value->assign(place_);
    } else if (++index_ >= args_.size()) {
      error_ += program_ + ": option requires an argument -- " + c + "\n";
      return Step::kError;
    } else {
      *value = args_[index_];
    }
    place_ = {};
    ++index_;
    return Step::kOption;
  }

  size_t index() const { return index_; }
  const std::string& error() const { return error_; }

 private:
  const std::vector<std::string>& args_;
  std::string program_;  // base name, as apr_filepath_name_get gives it
  size_t index_ = 0;
  std::string_view place_;  // the rest of the current cluster
  std::string error_;
};

// The URL as ab's parse_url splits it: an optional http:// or https://, then host[:port] up to
// the first '/', then the path (query and fragment included, as typed).
struct AbUrl {
  bool tls = false;
  std::string hostname;    // without brackets
  std::string host_field;  // with an IPv6 literal's brackets
  uint16_t port = 0;
  std::string path;
};

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// apr_parse_addr_port's rules, as far as ab can tell them apart: a trailing ":digits" is the port
// (1-65535); an IPv6 literal must be bracketed and carry no scope id; anything else is the host.
bool parse_ab_url(std::string_view text, AbUrl* out) {
  if (text.size() > 7 && text.starts_with("http://")) {
    text.remove_prefix(7);
  } else if (text.size() > 8 && text.starts_with("https://")) {
    text.remove_prefix(8);
    out->tls = true;
  }
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) return false;
  std::string_view host = text.substr(0, slash);
  out->path = std::string(text.substr(slash));
  if (all_digits(host)) return false;  // a port and no host
  const size_t colon = host.rfind(':');
  if (colon != std::string_view::npos && all_digits(host.substr(colon + 1))) {
    const int port = ab_atoi(host.substr(colon + 1));
    if (port < 1 || port > 65535) return false;
    out->port = static_cast<uint16_t>(port);
    host = host.substr(0, colon);
  }
  if (host.empty()) return false;
  if (host[0] == '[') {
    if (host.size() < 3 || host.back() != ']') return false;
    const std::string literal(host.substr(1, host.size() - 2));
    in6_addr addr{};
    if (inet_pton(AF_INET6, literal.c_str(), &addr) != 1) return false;  // scope ids too
    out->hostname = literal;
    out->host_field = std::string(host);
  } else {
    out->hostname = std::string(host);
    out->host_field = out->hostname;
  }
  if (out->port == 0) out->port = out->tls ? 443 : 80;
  return true;
}

bool is_ip_literal(const std::string& host) {
  in_addr v4{};
  in6_addr v6{};
  return inet_pton(AF_INET, host.c_str(), &v4) == 1 || inet_pton(AF_INET6, host.c_str(), &v6) == 1;
}

bool starts_with_nocase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    char a = text[i];
    char b = prefix[i];
    if (a >= 'A' && a <= 'Z') a = static_cast<char>(a - 'A' + 'a');
    if (b >= 'A' && b <= 'Z') b = static_cast<char>(b - 'A' + 'a');
    if (a != b) return false;
  }
  return true;
}

AbParse exit_with(AbParse p, std::string err, int status) {
  p.outcome = AbParse::Outcome::kExit;
  p.err += err;
  p.exit_status = status;
  return p;
}

AbParse usage_exit(AbParse p, const std::string& program, const std::string& message) {
  return exit_with(std::move(p),
                   message.empty() ? render_ab_usage(program)
                                   : program + ": " + message + "\n" + render_ab_usage(program),
                   kAbExitUsage);
}

// ab's err(): the message (which carries its own newline) and one more newline, exit 1.
AbParse err_exit(AbParse p, const std::string& message) {
  return exit_with(std::move(p), message + "\n", 1);
}

AbParse hail_exit(AbParse p, const std::string& message) {
  return exit_with(std::move(p), "hail: " + message + "\n", 1);
}

enum class Method { kNone, kGet, kHead, kPut, kPost, kCustom };

uint32_t byte_at(std::string_view text, size_t i) {
  return static_cast<unsigned char>(text[i]);
}

}  // namespace

int ab_atoi(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && is_c_space(text[i])) ++i;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  // strtol clamps to LONG_MIN / LONG_MAX; the cast to int then keeps the low 32 bits.
  uint64_t magnitude = 0;
  bool clamped = false;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    const auto digit = static_cast<uint64_t>(text[i] - '0');
    if (magnitude > (uint64_t{1} << 63) / 10) clamped = true;
    if (!clamped) magnitude = magnitude * 10 + digit;
    if (magnitude > (uint64_t{1} << 63)) clamped = true;
  }
  uint64_t bits = 0;
  if (clamped || (!negative && magnitude > static_cast<uint64_t>(LONG_MAX))) {
    bits = negative ? uint64_t{1} << 63 : static_cast<uint64_t>(LONG_MAX);
  } else {
    bits = negative ? ~magnitude + 1 : magnitude;
  }
  return static_cast<int>(static_cast<int32_t>(static_cast<uint32_t>(bits)));
}

std::string ab_base64(std::string_view text) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((text.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < text.size(); i += 3) {
    const uint32_t n =
        (byte_at(text, i) << 16) | (byte_at(text, i + 1) << 8) | byte_at(text, i + 2);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += kAlphabet[n & 63];
  }
  if (i < text.size()) {
    uint32_t n = byte_at(text, i) << 16;
    if (i + 1 < text.size()) n |= byte_at(text, i + 1) << 8;
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < text.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

AbParse parse_ab_flags(const std::vector<std::string>& args, std::string_view program_view) {
  const std::string program(program_view);
  AbParse p;
  AbCommand& cmd = p.command;
  RunOptions& run = cmd.run;
  Method method = Method::kNone;
  std::string custom_method;
  std::string body;
  std::string content_type;
  std::string cookie;                                      // -C: the last one wins, as in ab
  std::vector<std::pair<std::string, std::string>> auth;   // -A / -P, in order
  std::vector<std::pair<std::string, std::string>> extra;  // -H, in order
  std::string opt_host;                                    // -H "Host: ..."'s value
  bool opt_user_agent = false;
  bool opt_accept = false;
  bool quiet = false;
  bool no_sni = false;
  std::string cipher;
  std::string tls_protocol;
  std::string bind_address;
  std::string client_cert;
  int timeout_s = kAbDefaultTimeoutS;

  AprGetopt getopt(args, basename_of(program));
  char c = 0;
  std::string v;
  while (getopt.next(&c, &v) == AprGetopt::Step::kOption) {
    switch (c) {
      case 'n':
        cmd.requests = ab_atoi(v);
        if (cmd.requests <= 0) return err_exit(std::move(p), "Invalid number of requests\n");
        break;
      case 'k':
        cmd.keep_alive = true;
        break;
      case 'q':
        quiet = true;
        break;
      case 'c':
        cmd.concurrency = ab_atoi(v);
        break;
      case 'b':
        cmd.notes.push_back("-b " + v + " ignored: hail keeps the system's socket buffer sizes");
        break;
      case 'i':
        if (method != Method::kNone) {
          return err_exit(std::move(p), "Cannot mix HEAD with other methods\n");
        }
        method = Method::kHead;
        break;
      case 'g':
        cmd.gnuplot_path = v;
        break;
      case 'd':
        cmd.percentiles = false;
        break;
      case 'e':
        cmd.csv_path = v;
        break;
      case 'S':
        cmd.confidence = false;
        break;
      case 's':
        timeout_s = ab_atoi(v);
        break;
      case 'p':
      case 'u': {
        if (method != Method::kNone) {
          return err_exit(std::move(p), c == 'p' ? "Cannot mix POST with other methods\n"
                                                 : "Cannot mix PUT with other methods\n");
        }
        auto data = read_whole_file(v);
        if (!data) {
          return exit_with(
              std::move(p),
              "ab: Could not open POST data file (" + v + "): " + data.error().message + "\n", 1);
        }
        body = std::move(data.value());
        method = c == 'p' ? Method::kPost : Method::kPut;
        cmd.send_body = true;
        break;
      }
      case 'l':
        cmd.variable_length = true;
        break;
      case 'r':
        break;  // hail never stops a run on a receive error
      case 'v':
        cmd.verbosity = ab_atoi(v);
        break;
      case 't':
        cmd.time_limit_s = ab_atoi(v);
        cmd.requests = kAbTimeLimitRequests;
        break;
      case 'T':
        content_type = v;
        break;
      case 'C':
        cookie = v;
        break;
      case 'A':
      case 'P': {
        std::string_view credentials = v;
        while (!credentials.empty() && is_c_space(credentials[0])) credentials.remove_prefix(1);
        // apr_base64_encode_len counts the terminating NUL.
        if ((credentials.size() + 2) / 3 * 4 + 1 > kAbMaxCredentialBase64Bytes) {
          return err_exit(std::move(p), c == 'A' ? "Authentication credentials too long\n"
                                                 : "Proxy credentials too long\n");
        }
        auth.emplace_back(c == 'A' ? "Authorization" : "Proxy-Authorization",
                          "Basic " + ab_base64(credentials));
        break;
      }
      case 'H': {
        // ab sends the line as typed; hail sends only headers it can parse.
        auto header = parse_header_arg(v);
        if (!header) return hail_exit(std::move(p), "-H: " + header.error().message);
        if (starts_with_nocase(v, "Host:")) {
          opt_host = header->second;
        } else if (starts_with_nocase(v, "Accept:")) {
          opt_accept = true;
        } else if (starts_with_nocase(v, "User-Agent:")) {
          opt_user_agent = true;
        }
        extra.push_back(std::move(header.value()));
        break;
      }
      case 'w':
        cmd.html = true;
        break;
      case 'x':
        cmd.html = true;
        cmd.html_attributes.table = v;
        break;
      case 'y':
        cmd.html = true;
        cmd.html_attributes.tr = v;
        break;
      case 'z':
        cmd.html = true;
        cmd.html_attributes.td = v;
        break;
      case 'X': {
        const size_t colon = v.find(':');
        cmd.proxy = true;
        cmd.proxy_host = v.substr(0, colon);
        cmd.proxy_port = colon == std::string::npos ? 0 : ab_atoi(v.substr(colon + 1));
        break;
      }
      case 'h':
        return exit_with(std::move(p), render_ab_usage(program), kAbExitUsage);
      case 'V':
        p.out = cmd.html ? render_ab_html_copyright() : render_ab_copyright();
        return exit_with(std::move(p), "", 0);
      case 'B':
        bind_address = v;
        break;
      case 'm':
        method = Method::kCustom;
        custom_method = v;
        break;
      case 'Z':
        cipher = v;
        break;
      case 'E':
        client_cert = v;
        break;
      case 'f':
        tls_protocol = v;
        break;
      case 'I':
        no_sni = true;
        break;
      default:
        break;
    }
  }
  p.err += getopt.error();
  if (getopt.index() + 1 != args.size()) {
    return usage_exit(std::move(p), program, "wrong number of arguments");
  }
  if (method == Method::kNone) method = Method::kGet;
  const std::string& url_text = args.back();
  AbUrl url;
  if (!parse_ab_url(url_text, &url)) return usage_exit(std::move(p), program, "invalid URL");
  if (cmd.concurrency < 0 || cmd.concurrency > kAbMaxConcurrency) {
    return usage_exit(std::move(p), program,
                      "Invalid Concurrency [Range 0.." + std::to_string(kAbMaxConcurrency) + "]");
  }
  if (cmd.concurrency > cmd.requests) {
    return usage_exit(std::move(p), program,
                      "Cannot use concurrency level greater than total number of requests");
  }
  cmd.heartbeat = !quiet && cmd.requests > 150 ? std::max(cmd.requests / 10, 100) : 0;

  // ab's own checks are behind us; from here on, what hail cannot do.
  if (!client_cert.empty()) {
    return hail_exit(std::move(p), "-E: TLS client certificates are not supported");
  }
  if (cmd.proxy && (cmd.proxy_host.empty() || cmd.proxy_port < 0 || cmd.proxy_port > 65535)) {
    return hail_exit(std::move(p),
                     "-X " + cmd.proxy_host + ": the proxy's host and a port 0-65535, please");
  }
  cmd.tls = url.tls;
  cmd.hostname = url.hostname;
  cmd.port = url.port;
  cmd.path = url.path;
  const std::string scheme = url.tls ? "https" : "http";
  // hail's URL rules check the host and port; the request-target is ab's path, as typed.
  auto hail_url = parse_url(scheme + "://" + url.host_field + ":" + std::to_string(url.port) + "/");
  if (!hail_url) {
    return hail_exit(std::move(p),
                     "invalid URL " + quote(url_text) + ": " + hail_url.error().message);
  }
  run.url = hail_url.value();
  const size_t fragment = url.path.find('#');
  run.url.path = url.path.substr(0, fragment);

  RequestSpec& request = run.request;
  switch (method) {
    case Method::kHead:
      request.method = "HEAD";
      break;
    case Method::kPut:
      request.method = "PUT";
      break;
    case Method::kPost:
      request.method = "POST";
      break;
    case Method::kCustom:
      request.method = custom_method;
      break;
    default:
      request.method = "GET";
      break;
  }
  request.path = cmd.proxy ? url_text : url.path;  // a proxy gets the whole URL
  const bool default_port = url.port == (url.tls ? 443 : 80);
  request.authority = !opt_host.empty()
                          ? opt_host
                          : url.host_field + (default_port ? "" : ":" + std::to_string(url.port));
  request.http_minor = 0;
  request.keep_alive = cmd.keep_alive;
  // ab's fields after its request line, in ab's order; hail's renderer puts Host, User-Agent and
  // Accept first whatever their place here.
  auto& headers = request.headers;
  if (cmd.keep_alive) headers.emplace_back("Connection", "Keep-Alive");
  if (!cookie.empty()) headers.emplace_back("Cookie", cookie);
  for (auto& field : auth) headers.push_back(std::move(field));
  if (cmd.send_body) {
    headers.emplace_back("Content-length", std::to_string(body.size()));
    headers.emplace_back("Content-type", content_type.empty() ? "text/plain" : content_type);
    request.body = std::move(body);
  }
  for (auto& field : extra) headers.push_back(std::move(field));
  if (!opt_user_agent) headers.emplace_back("User-Agent", "ApacheBench/2.3");
  if (!opt_accept) headers.emplace_back("Accept", "*/*");
  if (Status st = validate_request(request); !st) {
    return hail_exit(std::move(p), st.error().message);
  }
  {
    // ab's bytes exactly (RunOptions::raw_request): its fields in its order, Host (unless -H gave
    // one), User-Agent and Accept last, no Content-Length on a bodyless POST or PUT.
    const size_t last = (opt_user_agent ? 0 : 1) + (opt_accept ? 0 : 1);
    std::string raw = request.method + " " + request.path + " HTTP/1.0\r\n";
    for (size_t i = 0; i < headers.size(); ++i) {
      if (i == headers.size() - last && opt_host.empty()) {
        raw += "Host: " + request.authority + "\r\n";
      }
      raw += headers[i].first + ": " + headers[i].second + "\r\n";
    }
    if (last == 0 && opt_host.empty()) raw += "Host: " + request.authority + "\r\n";
    raw += "\r\n";
    raw += request.body;
    run.raw_request = std::move(raw);
  }

  run.connections = static_cast<uint32_t>(cmd.concurrency);
  run.requests = static_cast<uint64_t>(cmd.requests);
  run.duration_ns = cmd.time_limit_s > 0 ? static_cast<uint64_t>(cmd.time_limit_s) * kNsPerSec : 0;
  run.timeout_ns = timeout_s > 0 ? static_cast<uint64_t>(timeout_s) * kNsPerSec
                                 : kMaxDurationNs;  // a negative -s never expires in ab
  run.protocol = HttpProtocol::kHttp1;              // ab offers no ALPN and speaks HTTP/1.0
  cmd.request_log = std::make_shared<RequestLogCollectors>(run.requests);
  cmd.first_response = std::make_shared<FirstResponseCollector>();
  run.collectors = {cmd.request_log, cmd.first_response};
  if (cmd.proxy) {
    run.connect_host = cmd.proxy_host;
    run.connect_port = static_cast<uint16_t>(cmd.proxy_port);
  }
  if (!bind_address.empty()) {
    cmd.notes.push_back("-B " + bind_address +
                        " ignored: hail cannot bind its connections to a local address");
  }
  if (url.tls) {
    run.tls.resume = false;  // every ab connection is a full handshake
    const std::string& sni_host = !opt_host.empty() ? opt_host : url.hostname;
    if (!is_ip_literal(sni_host)) cmd.tls_sni = sni_host;
    if (!opt_host.empty() && !cmd.tls_sni.empty()) run.tls.sni = cmd.tls_sni;
    if (no_sni) cmd.notes.push_back("-I ignored: hail always sends SNI for a host name");
    std::string version;
    if (starts_with_nocase(tls_protocol, "ALL")) {
      version.clear();
    } else if (starts_with_nocase(tls_protocol, "TLS1.1")) {
      version = "1.1";
    } else if (starts_with_nocase(tls_protocol, "TLS1.2")) {
      version = "1.2";
    } else if (starts_with_nocase(tls_protocol, "TLS1.3")) {
      version = "1.3";
    } else if (starts_with_nocase(tls_protocol, "TLS1")) {
      version = "1.0";
    }
    if (!version.empty()) {
      auto v_num = parse_tls_version(version);
      if (!v_num) return hail_exit(std::move(p), "-f: " + v_num.error().message);
      run.tls.min_version = run.tls.max_version = v_num.value();
    }
    if (!cipher.empty()) {
      (version == "1.3" ? run.tls.ciphersuites : run.tls.ciphers) = cipher;
      if (Status st = check_tls_values(run.tls, version, version); !st) {
        return exit_with(std::move(p), "error setting ciphersuite list [" + cipher + "]\n", 1);
      }
    }
  }
  if (cmd.concurrency == 0) {
    // ab starts, then its first poll on an empty set fails.
    p.outcome = AbParse::Outcome::kFailRun;
    p.err += "apr_pollset_poll: Invalid argument (22)\n";
    p.exit_status = 22;
    return p;
  }
  if (cmd.proxy && cmd.proxy_port == 0) {
    // -X HOST without a port: ab connects to port 0, which refuses.
    p.outcome = AbParse::Outcome::kFailRun;
    p.err += "apr_socket_recv: Connection refused (111)\n";
    p.exit_status = 111;
    return p;
  }
  if (timeout_s == 0) {
    // ab's first poll, with no time to wait, finds nothing ready and ends the test (APR_TIMEUP).
    p.outcome = AbParse::Outcome::kFailRun;
    p.err += "apr_pollset_poll: The timeout specified has expired (70007)\n";
    p.exit_status = 70007 & 0xff;
    return p;
  }
  p.outcome = AbParse::Outcome::kRun;
  return p;
}

}  // namespace hail
