#include "cli/serve_flags.h"

#include <charconv>
#include <cstdint>
#include <span>
#include <type_traits>

#include "cli/flag_table.h"
#include "core/units.h"

namespace hail {

namespace {

struct ServeState {
  ServerOptions options;
  bool host_or_port = false;
};

using ServeFlag = FlagDef<ServeState, Status>;

// A plain decimal integer in [min, max].
Result<uint64_t> parse_integer(const ParsedFlag& flag, uint64_t min, uint64_t max) {
  const std::string& text = flag.value;
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec == std::errc::invalid_argument || end != text.data() + text.size()) {
    return make_error(flag.spelled + " " + quote(text) + ": not a whole number");
  }
  if (ec == std::errc::result_out_of_range || value < min || value > max) {
    return make_error(flag.spelled + " " + quote(text) + ": must be " + std::to_string(min) + ".." +
                      std::to_string(max));
  }
  return value;
}

// An integer in [kMin, kMax] into a ServerOptions field.
template <auto kField, uint64_t kMin, uint64_t kMax>
Status set_integer(ServeState& s, const ParsedFlag& flag) {
  auto value = parse_integer(flag, kMin, kMax);
  if (!value) return value.error();
  using Field = std::remove_reference_t<decltype(s.options.*kField)>;
  s.options.*kField = static_cast<Field>(value.value());
  return ok_status();
}

template <auto kField>
Status set_timeout(ServeState& s, const ParsedFlag& flag) {
  auto ns = parse_duration_ns(flag.value);
  if (!ns) return make_error(flag.spelled + " " + quote(flag.value) + ": " + ns.error().message);
  s.options.*kField = ns.value();
  return ok_status();
}

// A non-empty text into a ServerOptions field; `what` names it in the error ("--root: empty
// directory name").
template <auto kField, const char* kEmpty>
Status set_text(ServeState& s, const ParsedFlag& flag) {
  if (flag.value.empty()) return make_error(flag.spelled + ": " + kEmpty);
  s.options.*kField = flag.value;
  return ok_status();
}

constexpr char kEmptyHost[] = "empty host name";
constexpr char kEmptyDirectory[] = "empty directory name";
constexpr char kEmptyPath[] = "empty path";
constexpr char kEmptyFile[] = "empty file name";

Status set_host(ServeState& s, const ParsedFlag& flag) {
  s.host_or_port = true;
  return set_text<&ServerOptions::host, kEmptyHost>(s, flag);
}

Status set_port(ServeState& s, const ParsedFlag& flag) {
  s.host_or_port = true;
  return set_integer<&ServerOptions::port, 0, 65535>(s, flag);
}

Status set_max_connections(ServeState& s, const ParsedFlag& flag) {
  auto count = parse_count(flag.value);
  if (!count || count.value() < 1 || count.value() > UINT32_MAX) {
    return make_error(flag.spelled + " " + quote(flag.value) + ": must be 1.." +
                      std::to_string(UINT32_MAX));
  }
  s.options.max_connections = static_cast<uint32_t>(count.value());
  return ok_status();
}

template <auto kField, auto kValue>
Status set_switch(ServeState& s, const ParsedFlag&) {
  s.options.*kField = kValue;
  return ok_status();
}

// In the order of the usage text. Fields: short name, long name, value name, handler, help.
constexpr ServeFlag kFlags[] = {
    {"", "host", "H", set_host, "address to listen on (default 127.0.0.1)"},
    {"", "port", "P", set_port,
     "TCP port; 0 picks a free one (default 0; the chosen one is printed)"},
    {"", "unix-socket", "PATH", set_text<&ServerOptions::unix_socket, kEmptyPath>,
     "listen on a Unix domain socket instead (a stale socket file is replaced;\nthe file is "
     "removed on exit); not with --host or --port"},
    {"", "root", "DIR", set_text<&ServerOptions::root, kEmptyDirectory>,
     "serve files below DIR for paths that are not endpoints (default: none, 404)"},
    {"", "threads", "N", set_integer<&ServerOptions::threads, 1, 1024>,
     "reactor threads, each with its own SO_REUSEPORT socket (a Unix socket is\nshared, "
     "EPOLLEXCLUSIVE) and TLS context (default 1)"},
    {"", "header-timeout", "T", set_timeout<&ServerOptions::header_timeout_ns>,
     "a request head must arrive within T of its first byte (default 10s; 0: none)"},
    {"", "idle-timeout", "T", set_timeout<&ServerOptions::idle_timeout_ns>,
     "close connections with no traffic for T (default 60s; 0: none)"},
    {"", "max-connections", "N", set_max_connections,
     "open connections at most; more are accepted and closed (default 10000)"},
    {"", "tls-cert", "FILE", set_text<&ServerOptions::tls_cert_file, kEmptyFile>,
     "serve TLS with this PEM certificate chain (needs --tls-key)"},
    {"", "tls-key", "FILE", set_text<&ServerOptions::tls_key_file, kEmptyFile>,
     "... and this PEM private key"},
    {"", "tls-self-signed", nullptr, set_switch<&ServerOptions::tls_self_signed, true>,
     "serve TLS with a throw-away self-signed certificate for localhost\n(made at start, kept in "
     "memory; clients must skip verification)"},
    {"", "no-h2", nullptr, set_switch<&ServerOptions::h2, false>,
     "HTTP/1.1 only: ALPN offers just http/1.1 and the h2c preface is not\nrecognised (default: "
     "ALPN prefers h2; cleartext connections opening with\nthe HTTP/2 preface speak h2c)"},
    {"", "h2-max-streams", "N", set_integer<&ServerOptions::h2_max_streams, 1, INT32_MAX>,
     "SETTINGS_MAX_CONCURRENT_STREAMS per HTTP/2 connection (default 100)"},
    {"", "h2-max-requests", "N", set_integer<&ServerOptions::h2_max_requests, 0, UINT32_MAX>,
     "after N streams on one HTTP/2 connection send GOAWAY and close once\nthey are answered "
     "(default 0: no limit)"},
};

constexpr UsageLayout kLayout{SyntaxStyle::kServe, 2, 24, 1};

// Combinations that cannot work together.
Status check_serve_options(const ServeState& s) {
  const ServerOptions& options = s.options;
  if (!options.unix_socket.empty() && s.host_or_port) {
    return make_error("--unix-socket cannot be combined with --host or --port");
  }
  if (options.tls_self_signed &&
      (!options.tls_cert_file.empty() || !options.tls_key_file.empty())) {
    return make_error("--tls-self-signed cannot be combined with --tls-cert or --tls-key");
  }
  if (options.tls_cert_file.empty() != options.tls_key_file.empty()) {
    return make_error(options.tls_cert_file.empty() ? "--tls-key needs --tls-cert"
                                                    : "--tls-cert needs --tls-key");
  }
  return ok_status();
}

}  // namespace

Result<ServerOptions> parse_serve_flags(const std::vector<std::string>& args) {
  const std::span<const ServeFlag> table = kFlags;
  auto parsed = parse_args(flag_specs(table), args);
  if (!parsed) return make_error(parsed.error().message + " for hail serve");
  if (!parsed->positionals.empty()) {
    return make_error("unexpected argument " + quote(parsed->positionals.front()) +
                      " for hail serve");
  }
  if (!parsed->after_dashes.empty()) {
    return make_error("unexpected argument " + quote(parsed->after_dashes.front()) +
                      " for hail serve");
  }
  ServeState s;
  for (const ParsedFlag& flag : parsed->flags) {
    if (Status st = table[static_cast<size_t>(flag.id)].apply(s, flag); !st) return st.error();
  }
  if (Status st = check_serve_options(s); !st) return st.error();
  return s.options;
}

std::vector<FlagName> serve_flag_names() {
  return flag_names(std::span<const ServeFlag>(kFlags));
}

std::string serve_usage() {
  return "Usage: hail serve [options]\n"
         "\n"
         "Runs the built-in HTTP/1.1 and HTTP/2 target server until SIGINT or SIGTERM.\n"
         "\n"
         "Options:\n" +
         render_usage(std::span<const ServeFlag>(kFlags), kLayout) + R"(
Durations: 500ms, 10s, 2m, 1h (a bare number means seconds).

Endpoints:
  /bytes/N       200 with N bytes (N <= 2^40) of a repeating 64-byte pattern
  /delay/MS      200 "ok" after MS milliseconds (MS <= 3600000), without blocking other requests
  /status/CODE   that status (200..599) with a short body (none for 204 and 304)
  /echo          200 with the request body (at most 8 MiB; 16 MiB at once per HTTP/2 connection)
                 and its Content-Type; any method
  /stats         JSON {"requests", "connections", "bytes_sent", "rejected_connections",
                 "tls_handshakes", "tls_resumed", "h2_connections", "h2_streams"};
                 /stats requests themselves are not counted
  anything else  a file below --root (a directory serves its index.html; no listings)

Methods: GET, HEAD, POST and PUT everywhere (bodies are read and discarded), any method on /echo,
only GET and HEAD on /stats; others get 405.
)";
}

}  // namespace hail
