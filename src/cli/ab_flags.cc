#include "cli/ab_flags.h"

#include <algorithm>
#include <span>
#include <utility>

#include "cli/ab_request.h"
#include "cli/apr_getopt.h"
#include "cli/flag_table.h"
#include "cli/flag_values.h"
#include "cli/run_rules.h"
#include "core/ascii.h"
#include "core/clock.h"
#include "core/numbers.h"
#include "core/units.h"
#include "core/url.h"
#include "net/tls.h"

namespace hail {

namespace {

// apr_base64_encode_len must fit ab's 1024-byte buffer for -A / -P.
constexpr size_t kAbMaxCredentialBase64Bytes = 1024;

// ab's option variables as its getopt loop sets them.
struct AbState {
  AbParse p;
  std::string program;  // argv[0] as ab sees it, for its usage text and its own messages
  AbRequestOptions request;
  bool quiet = false;
  bool no_sni = false;
  std::string cipher;        // -Z
  std::string tls_protocol;  // -f
  std::string bind_address;  // -B
  std::string client_cert;   // -E
  int timeout_s = kAbDefaultTimeoutS;
};

// A handler returns false when ab stops at this option; p then says how.
using AbFlag = FlagDef<AbState, bool>;

std::string basename_of(std::string_view program) {
  const size_t slash = program.rfind('/');
  return std::string(slash == std::string_view::npos ? program : program.substr(slash + 1));
}

bool exit_with(AbParse& p, const std::string& err, int status) {
  p.outcome = AbParse::Outcome::kExit;
  p.err += err;
  p.exit_status = status;
  return false;
}

// ab's usage(): the message, if any, then the usage text, exit EINVAL.
bool usage_exit(AbState& s, const std::string& message) {
  const std::string usage = render_ab_usage(s.program);
  return exit_with(s.p, message.empty() ? usage : s.program + ": " + message + "\n" + usage,
                   kAbExitUsage);
}

// ab's err(): the message (which carries its own newline) and one more newline, exit 1.
bool err_exit(AbParse& p, const std::string& message) {
  return exit_with(p, message + "\n", 1);
}

bool hail_exit(AbParse& p, const std::string& message) {
  return exit_with(p, "hail: " + message + "\n", 1);
}

uint32_t byte_at(std::string_view text, size_t i) {
  return static_cast<unsigned char>(text[i]);
}

bool set_requests(AbState& s, const ParsedFlag& f) {
  s.p.command.requests = ab_atoi(f.value);
  return s.p.command.requests > 0 || err_exit(s.p, "Invalid number of requests\n");
}

bool set_time_limit(AbState& s, const ParsedFlag& f) {
  s.p.command.time_limit_s = ab_atoi(f.value);
  s.p.command.requests = kAbTimeLimitRequests;
  return true;
}

template <auto kField>
bool set_int(AbState& s, const ParsedFlag& f) {
  s.p.command.*kField = ab_atoi(f.value);
  return true;
}

bool set_timeout(AbState& s, const ParsedFlag& f) {
  s.timeout_s = ab_atoi(f.value);
  return true;
}

template <auto kField, bool kValue>
bool set_command_flag(AbState& s, const ParsedFlag&) {
  s.p.command.*kField = kValue;
  return true;
}

template <auto kField>
bool set_command_text(AbState& s, const ParsedFlag& f) {
  s.p.command.*kField = f.value;
  return true;
}

template <auto kField>
bool set_state_text(AbState& s, const ParsedFlag& f) {
  s.*kField = f.value;
  return true;
}

template <auto kField>
bool set_state_flag(AbState& s, const ParsedFlag&) {
  s.*kField = true;
  return true;
}

bool set_keep_alive(AbState& s, const ParsedFlag&) {
  s.p.command.keep_alive = true;
  s.request.keep_alive = true;
  return true;
}

bool note_window_size(AbState& s, const ParsedFlag& f) {
  s.p.command.notes.push_back("-b " + f.value +
                              " ignored: hail keeps the system's socket buffer sizes");
  return true;
}

bool set_head(AbState& s, const ParsedFlag&) {
  if (s.request.method != AbMethod::kNone) {
    return err_exit(s.p, "Cannot mix HEAD with other methods\n");
  }
  s.request.method = AbMethod::kHead;
  return true;
}

// -p (POST) and -u (PUT): the body from a file.
template <AbMethod kMethod>
bool set_body_file(AbState& s, const ParsedFlag& f) {
  if (s.request.method != AbMethod::kNone) {
    return err_exit(s.p, kMethod == AbMethod::kPost ? "Cannot mix POST with other methods\n"
                                                    : "Cannot mix PUT with other methods\n");
  }
  auto data = read_whole_file(f.value);
  if (!data) {
    return exit_with(
        s.p, "ab: Could not open POST data file (" + f.value + "): " + data.error().message + "\n",
        1);
  }
  s.request.body = std::move(data.value());
  s.request.method = kMethod;
  s.request.send_body = true;
  s.p.command.send_body = true;
  return true;
}

template <auto kField>
bool set_request_text(AbState& s, const ParsedFlag& f) {
  s.request.*kField = f.value;
  return true;
}

// -A (Authorization) and -P (Proxy-Authorization): Basic credentials.
template <bool kProxy>
bool add_credentials(AbState& s, const ParsedFlag& f) {
  const std::string_view credentials = ascii::skip_space(f.value);
  // apr_base64_encode_len counts the terminating NUL.
  if ((credentials.size() + 2) / 3 * 4 + 1 > kAbMaxCredentialBase64Bytes) {
    return err_exit(
        s.p, kProxy ? "Proxy credentials too long\n" : "Authentication credentials too long\n");
  }
  s.request.auth.emplace_back(kProxy ? "Proxy-Authorization" : "Authorization",
                              "Basic " + ab_base64(credentials));
  return true;
}

bool add_header(AbState& s, const ParsedFlag& f) {
  // ab sends the line as typed; hail sends only headers it can parse.
  auto header = parse_header_arg(f.value);
  if (!header) return hail_exit(s.p, "-H: " + header.error().message);
  if (ascii::istarts_with(f.value, "Host:")) {
    s.request.opt_host = header->second;
  } else if (ascii::istarts_with(f.value, "Accept:")) {
    s.request.opt_accept = true;
  } else if (ascii::istarts_with(f.value, "User-Agent:")) {
    s.request.opt_user_agent = true;
  }
  s.request.extra.push_back(std::move(header.value()));
  return true;
}

// -w, and -x / -y / -z (attributes of ab's HTML tables), which imply it.
template <auto kAttribute>
bool set_html(AbState& s, const ParsedFlag& f) {
  s.p.command.html = true;
  if constexpr (kAttribute != nullptr) s.p.command.html_attributes.*kAttribute = f.value;
  return true;
}

bool set_proxy(AbState& s, const ParsedFlag& f) {
  AbCommand& cmd = s.p.command;
  const size_t colon = f.value.find(':');
  cmd.proxy = true;
  cmd.proxy_host = f.value.substr(0, colon);
  cmd.proxy_port = colon == std::string::npos ? 0 : ab_atoi(f.value.substr(colon + 1));
  return true;
}

bool set_custom_method(AbState& s, const ParsedFlag& f) {
  s.request.method = AbMethod::kCustom;
  s.request.custom_method = f.value;
  return true;
}

bool show_usage(AbState& s, const ParsedFlag&) {
  return exit_with(s.p, render_ab_usage(s.program), kAbExitUsage);
}

bool show_version(AbState& s, const ParsedFlag&) {
  s.p.out = s.p.command.html ? render_ab_html_copyright() : render_ab_copyright();
  return exit_with(s.p, "", 0);
}

bool ignore(AbState&, const ParsedFlag&) {
  return true;
}

// hail's verdict flags (long options, which ab does not have): their errors are hail's one line,
// exit 2.
constexpr int kHailUsageStatus = 2;

bool hail_flag_result(AbState& s, const Status& st) {
  if (st) return true;
  return exit_with(s.p, "hail: " + st.error().message + "\n", kHailUsageStatus);
}

bool add_slo(AbState& s, const ParsedFlag& f) {
  return hail_flag_result(s, add_slo_flag(s.p.command.verdict, f.spelled, f.value));
}

bool set_slo_abort(AbState& s, const ParsedFlag&) {
  s.p.command.verdict.slo_abort = true;
  return true;
}

bool set_junit(AbState& s, const ParsedFlag& f) {
  return hail_flag_result(s, set_junit_flag(s.p.command.verdict, f.value));
}

// ab 2.3's options (Debian builds it with OpenSSL), in the order of its usage text.
constexpr AbFlag kFlags[] = {
    {"n", nullptr, "requests", set_requests, "Number of requests to perform"},
    {"c", nullptr, "concurrency", set_int<&AbCommand::concurrency>,
     "Number of multiple requests to make at a time"},
    {"t", nullptr, "timelimit", set_time_limit,
     "Seconds to max. to spend on benchmarking\nThis implies -n 50000"},
    {"s", nullptr, "timeout", set_timeout,
     "Seconds to max. wait for each response\nDefault is 30 seconds"},
    {"b", nullptr, "windowsize", note_window_size, "Size of TCP send/receive buffer, in bytes"},
    {"B", nullptr, "address", set_state_text<&AbState::bind_address>,
     "Address to bind to when making outgoing connections"},
    {"p", nullptr, "postfile", set_body_file<AbMethod::kPost>,
     "File containing data to POST. Remember also to set -T"},
    {"u", nullptr, "putfile", set_body_file<AbMethod::kPut>,
     "File containing data to PUT. Remember also to set -T"},
    {"T", nullptr, "content-type", set_request_text<&AbRequestOptions::content_type>,
     "Content-type header to use for POST/PUT data, eg.\n'application/x-www-form-urlencoded'\n"
     "Default is 'text/plain'"},
    {"v", nullptr, "verbosity", set_int<&AbCommand::verbosity>,
     "How much troubleshooting info to print"},
    {"w", nullptr, nullptr, set_html<nullptr>, "Print out results in HTML tables"},
    {"i", nullptr, nullptr, set_head, "Use HEAD instead of GET"},
    {"x", nullptr, "attributes", set_html<&AbHtmlAttributes::table>,
     "String to insert as table attributes"},
    {"y", nullptr, "attributes", set_html<&AbHtmlAttributes::tr>,
     "String to insert as tr attributes"},
    {"z", nullptr, "attributes", set_html<&AbHtmlAttributes::td>,
     "String to insert as td or th attributes"},
    {"C", nullptr, "attribute", set_request_text<&AbRequestOptions::cookie>,
     "Add cookie, eg. 'Apache=1234'. (repeatable)"},
    {"H", nullptr, "attribute", add_header,
     "Add Arbitrary header line, eg. 'Accept-Encoding: gzip'\nInserted after all normal header "
     "lines. (repeatable)"},
    {"A", nullptr, "attribute", add_credentials<false>,
     "Add Basic WWW Authentication, the attributes\nare a colon separated username and password."},
    {"P", nullptr, "attribute", add_credentials<true>,
     "Add Basic Proxy Authentication, the attributes\nare a colon separated username and "
     "password."},
    {"X", nullptr, "proxy:port", set_proxy, "Proxyserver and port number to use"},
    {"V", nullptr, nullptr, show_version, "Print version number and exit"},
    {"k", nullptr, nullptr, set_keep_alive, "Use HTTP KeepAlive feature"},
    {"d", nullptr, nullptr, set_command_flag<&AbCommand::percentiles, false>,
     "Do not show percentiles served table."},
    {"S", nullptr, nullptr, set_command_flag<&AbCommand::confidence, false>,
     "Do not show confidence estimators and warnings."},
    {"q", nullptr, nullptr, set_state_flag<&AbState::quiet>,
     "Do not show progress when doing more than 150 requests"},
    {"l", nullptr, nullptr, set_command_flag<&AbCommand::variable_length, true>,
     "Accept variable document length (use this for dynamic pages)"},
    {"g", nullptr, "filename", set_command_text<&AbCommand::gnuplot_path>,
     "Output collected data to gnuplot format file."},
    {"e", nullptr, "filename", set_command_text<&AbCommand::csv_path>,
     "Output CSV file with percentages served"},
    // hail never stops a run on a receive error.
    {"r", nullptr, nullptr, ignore, "Don't exit on socket receive errors."},
    {"m", nullptr, "method", set_custom_method, "Method name"},
    {"h", nullptr, nullptr, show_usage, "Display usage information (this message)"},
    {"I", nullptr, nullptr, set_state_flag<&AbState::no_sni>,
     "Disable TLS Server Name Indication (SNI) extension"},
    {"Z", nullptr, "ciphersuite", set_state_text<&AbState::cipher>,
     "Specify SSL/TLS cipher suite (See openssl ciphers)"},
    {"f", nullptr, "protocol", set_state_text<&AbState::tls_protocol>,
     "Specify SSL/TLS protocol\n(SSL2, TLS1, TLS1.1, TLS1.2, TLS1.3 or ALL)"},
    {"E", nullptr, "certfile", set_state_text<&AbState::client_cert>,
     "Specify optional client certificate chain and private key"},
    // hail's verdicts, which ab does not have: documented in README and hail(1), not in ab's usage
    // text (kept byte for byte).
    {"", "slo", "EXPR", add_slo, nullptr},
    {"", "slo-abort", nullptr, set_slo_abort, nullptr},
    {"", "junit", "FILE", set_junit, nullptr},
};

constexpr std::span<const AbFlag> kTable(kFlags);

constexpr UsageLayout kLayout{SyntaxStyle::kAb, 4, 20, 1};

// ab's checks once its options are read, in its order. false after failing p.
bool check_command_line(AbState& s, const std::vector<std::string>& args, size_t first_word,
                        AbUrl* url) {
  AbCommand& cmd = s.p.command;
  if (first_word + 1 != args.size()) return usage_exit(s, "wrong number of arguments");
  if (s.request.method == AbMethod::kNone) s.request.method = AbMethod::kGet;
  if (!parse_ab_url(args.back(), url)) return usage_exit(s, "invalid URL");
  if (cmd.concurrency < 0 || cmd.concurrency > kAbMaxConcurrency) {
    return usage_exit(s,
                      "Invalid Concurrency [Range 0.." + std::to_string(kAbMaxConcurrency) + "]");
  }
  if (cmd.concurrency > cmd.requests) {
    return usage_exit(s, "Cannot use concurrency level greater than total number of requests");
  }
  cmd.heartbeat = !s.quiet && cmd.requests > 150 ? std::max(cmd.requests / 10, 100) : 0;
  // ab's own checks are behind us; from here on, what hail cannot do.
  if (!s.client_cert.empty()) {
    return hail_exit(s.p, "-E: TLS client certificates are not supported");
  }
  if (cmd.proxy && (cmd.proxy_host.empty() || cmd.proxy_port < 0 || cmd.proxy_port > 65535)) {
    return hail_exit(s.p, "-X " + cmd.proxy_host + ": the proxy's host and a port 0-65535, please");
  }
  return true;
}

// The target, the request and ab's load model as RunOptions. false after failing p.
bool fill_run(AbState& s, const AbUrl& url, const std::string& url_text) {
  AbCommand& cmd = s.p.command;
  RunOptions& run = cmd.run;
  cmd.tls = url.tls;
  cmd.hostname = url.hostname;
  cmd.port = url.port;
  cmd.path = url.path;
  // hail's URL rules check the host and port; the request-target is ab's path, as typed.
  auto hail_url = parse_url(std::string(url.tls ? "https" : "http") + "://" + url.host_field + ":" +
                            std::to_string(url.port) + "/");
  if (!hail_url) {
    return hail_exit(s.p, "invalid URL " + quote(url_text) + ": " + hail_url.error().message);
  }
  run.url = hail_url.value();
  run.url.path = url.path.substr(0, url.path.find('#'));
  // A proxy is asked for the whole URL.
  const RequestBuilder request = ab_request(s.request, url, cmd.proxy ? url_text : url.path);
  if (Status st = request.validate(); !st) return hail_exit(s.p, st.error().message);
  run.request = request.spec();
  run.raw_request = request.http1();
  cmd.request_head = request.http1_head();
  run.connections = static_cast<uint32_t>(cmd.concurrency);
  run.requests = static_cast<uint64_t>(cmd.requests);
  run.duration_ns = cmd.time_limit_s > 0 ? static_cast<uint64_t>(cmd.time_limit_s) * kNsPerSec : 0;
  run.timeout_ns = s.timeout_s > 0 ? static_cast<uint64_t>(s.timeout_s) * kNsPerSec
                                   : kMaxDurationNs;  // a negative -s never expires in ab
  run.protocol = HttpProtocol::kHttp1;                // ab offers no ALPN and speaks HTTP/1.0
  cmd.request_log = std::make_shared<RequestLogCollectors>(run.requests);
  cmd.first_response = std::make_shared<FirstResponseCollector>();
  run.collectors = {cmd.request_log, cmd.first_response};
  if (cmd.proxy) {
    run.connect_host = cmd.proxy_host;
    run.connect_port = static_cast<uint16_t>(cmd.proxy_port);
  }
  if (!s.bind_address.empty()) {
    cmd.notes.push_back("-B " + s.bind_address +
                        " ignored: hail cannot bind its connections to a local address");
  }
  return true;
}

// -f's protocol names as TLS versions ("" for ALL or none).
std::string tls_version_of(std::string_view protocol) {
  if (ascii::istarts_with(protocol, "ALL")) return "";
  if (ascii::istarts_with(protocol, "TLS1.1")) return "1.1";
  if (ascii::istarts_with(protocol, "TLS1.2")) return "1.2";
  if (ascii::istarts_with(protocol, "TLS1.3")) return "1.3";
  if (ascii::istarts_with(protocol, "TLS1")) return "1.0";
  return "";
}

// ab's TLS: a full handshake per connection, SNI from -H Host or the URL's host (none for an
// address), -f's version, -Z's ciphers. false after failing p.
bool apply_tls(AbState& s, const AbUrl& url) {
  AbCommand& cmd = s.p.command;
  RunOptions& run = cmd.run;
  if (!url.tls) return true;
  run.tls.resume = false;
  const std::string& opt_host = s.request.opt_host;
  const std::string& sni_host = !opt_host.empty() ? opt_host : url.hostname;
  if (!is_ip_literal(sni_host)) cmd.tls_sni = sni_host;
  if (!opt_host.empty() && !cmd.tls_sni.empty()) run.tls.sni = cmd.tls_sni;
  if (s.no_sni) cmd.notes.push_back("-I ignored: hail always sends SNI for a host name");
  const std::string version = tls_version_of(s.tls_protocol);
  if (!version.empty()) {
    auto v_num = parse_tls_version(version);
    if (!v_num) return hail_exit(s.p, "-f: " + v_num.error().message);
    run.tls.min_version = run.tls.max_version = v_num.value();
  }
  if (!s.cipher.empty()) {
    (version == "1.3" ? run.tls.ciphersuites : run.tls.ciphers) = s.cipher;
    if (Status st = check_cipher_lists(run.tls); !st) {
      return exit_with(s.p, "error setting ciphersuite list [" + s.cipher + "]\n", 1);
    }
  }
  return true;
}

// Command lines ab starts with and then fails on at once: the banner, then its error.
bool fails_after_banner(AbState& s) {
  AbParse& p = s.p;
  p.outcome = AbParse::Outcome::kFailRun;
  if (p.command.concurrency == 0) {
    // ab starts, then its first poll on an empty set fails.
    p.err += "apr_pollset_poll: Invalid argument (22)\n";
    p.exit_status = 22;
  } else if (p.command.proxy && p.command.proxy_port == 0) {
    // -X HOST without a port: ab connects to port 0, which refuses.
    p.err += "apr_socket_recv: Connection refused (111)\n";
    p.exit_status = 111;
  } else if (s.timeout_s == 0) {
    // ab's first poll, with no time to wait, finds nothing ready and ends the test (APR_TIMEUP).
    p.err += "apr_pollset_poll: The timeout specified has expired (70007)\n";
    p.exit_status = 70007 & 0xff;
  } else {
    p.outcome = AbParse::Outcome::kRun;
  }
  return p.outcome == AbParse::Outcome::kFailRun;
}

}  // namespace

int ab_atoi(std::string_view text) {
  return c_atoi(text);
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

std::string render_ab_usage(std::string_view program) {
  return "Usage: " + std::string(program) +
         " [options] [http[s]://]hostname[:port]/path\n"
         "Options are:\n" +
         render_usage(kTable, kLayout);
}

std::vector<FlagName> ab_flag_names() {
  return flag_names(kTable);
}

AbParse parse_ab_flags(const std::vector<std::string>& args, std::string_view program) {
  AbState s;
  s.program = std::string(program);
  AprGetopt getopt(args, getopt_short_options(kTable), basename_of(program),
                   getopt_long_options(kTable));
  int c = 0;
  std::string value;
  while (getopt.next(&c, &value) == AprGetopt::Step::kOption) {
    const AbFlag* flag = flag_for(kTable, c);
    const std::string spelled = c >= kLongOnly ? std::string("--") + flag->long_name
                                               : std::string("-") + static_cast<char>(c);
    const ParsedFlag parsed{static_cast<int>(flag - kTable.data()), spelled, value};
    if (!flag->apply(s, parsed)) return std::move(s.p);
  }
  if (getopt.long_option_error()) {
    exit_with(s.p, getopt.error(), kHailUsageStatus);
    return std::move(s.p);
  }
  s.p.err += getopt.error();
  if (getopt.error().empty()) {
    if (Status st = check_verdict_flags(s.p.command.verdict); !st) {
      hail_flag_result(s, st);
      return std::move(s.p);
    }
  }
  AbUrl url;
  if (!check_command_line(s, args, getopt.index(), &url)) return std::move(s.p);
  if (!fill_run(s, url, args.back()) || !apply_tls(s, url)) return std::move(s.p);
  GivenFlags given;  // ab's RunOptions state its own duration, method and body
  given.duration = true;
  given.connections = true;
  given.method = true;
  given.keep_series = !s.p.command.verdict.slo.empty();  // thresholds over windows need it
  if (Status st = validate(s.p.command.run, given); !st) {
    hail_exit(s.p, st.error().message);
    return std::move(s.p);
  }
  fails_after_banner(s);
  return std::move(s.p);
}

}  // namespace hail
