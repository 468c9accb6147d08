#include "cli/serve_flags.h"

#include <charconv>
#include <cstdint>

#include "cli/arg_parser.h"
#include "core/units.h"

namespace hail {

namespace {

enum FlagId : int {
  kHost,
  kPort,
  kRoot,
  kThreads,
  kHeaderTimeout,
  kIdleTimeout,
  kMaxConnections,
  kUnixSocket,
  kTlsCert,
  kTlsKey,
  kTlsSelfSigned,
  kNoH2,
  kH2MaxStreams,
  kH2MaxRequests,
};

constexpr FlagSpec kServeFlags[] = {
    {kHost, 0, "host", true},
    {kPort, 0, "port", true},
    {kRoot, 0, "root", true},
    {kThreads, 0, "threads", true},
    {kHeaderTimeout, 0, "header-timeout", true},
    {kIdleTimeout, 0, "idle-timeout", true},
    {kMaxConnections, 0, "max-connections", true},
    {kUnixSocket, 0, "unix-socket", true},
    {kTlsCert, 0, "tls-cert", true},
    {kTlsKey, 0, "tls-key", true},
    {kTlsSelfSigned, 0, "tls-self-signed", false},
    {kNoH2, 0, "no-h2", false},
    {kH2MaxStreams, 0, "h2-max-streams", true},
    {kH2MaxRequests, 0, "h2-max-requests", true},
};

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

Result<uint64_t> parse_timeout(const ParsedFlag& flag) {
  auto ns = parse_duration_ns(flag.value);
  if (!ns) return make_error(flag.spelled + " " + quote(flag.value) + ": " + ns.error().message);
  return ns.value();
}

}  // namespace

Result<ServerOptions> parse_serve_flags(const std::vector<std::string>& args) {
  auto parsed = parse_args(kServeFlags, args);
  if (!parsed) return make_error(parsed.error().message + " for hail serve");
  if (!parsed->positionals.empty()) {
    return make_error("unexpected argument " + quote(parsed->positionals.front()) +
                      " for hail serve");
  }
  if (!parsed->after_dashes.empty()) {
    return make_error("unexpected argument " + quote(parsed->after_dashes.front()) +
                      " for hail serve");
  }

  ServerOptions options;
  bool host_or_port = false;
  for (const ParsedFlag& flag : parsed->flags) {
    switch (flag.id) {
      case kHost:
        if (flag.value.empty()) return make_error("--host: empty host name");
        options.host = flag.value;
        host_or_port = true;
        break;
      case kPort: {
        auto port = parse_integer(flag, 0, 65535);
        if (!port) return port.error();
        options.port = static_cast<uint16_t>(port.value());
        host_or_port = true;
        break;
      }
      case kRoot:
        if (flag.value.empty()) return make_error("--root: empty directory name");
        options.root = flag.value;
        break;
      case kThreads: {
        auto threads = parse_integer(flag, 1, 1024);
        if (!threads) return threads.error();
        options.threads = static_cast<int>(threads.value());
        break;
      }
      case kHeaderTimeout: {
        auto ns = parse_timeout(flag);
        if (!ns) return ns.error();
        options.header_timeout_ns = ns.value();
        break;
      }
      case kIdleTimeout: {
        auto ns = parse_timeout(flag);
        if (!ns) return ns.error();
        options.idle_timeout_ns = ns.value();
        break;
      }
      case kMaxConnections: {
        auto count = parse_count(flag.value);
        if (!count || count.value() < 1 || count.value() > UINT32_MAX) {
          return make_error(flag.spelled + " " + quote(flag.value) + ": must be 1.." +
                            std::to_string(UINT32_MAX));
        }
        options.max_connections = static_cast<uint32_t>(count.value());
        break;
      }
      case kUnixSocket:
        if (flag.value.empty()) return make_error("--unix-socket: empty path");
        options.unix_socket = flag.value;
        break;
      case kTlsCert:
        if (flag.value.empty()) return make_error("--tls-cert: empty file name");
        options.tls_cert_file = flag.value;
        break;
      case kTlsKey:
        if (flag.value.empty()) return make_error("--tls-key: empty file name");
        options.tls_key_file = flag.value;
        break;
      case kTlsSelfSigned:
        options.tls_self_signed = true;
        break;
      case kNoH2:
        options.h2 = false;
        break;
      case kH2MaxStreams: {
        auto streams = parse_integer(flag, 1, INT32_MAX);
        if (!streams) return streams.error();
        options.h2_max_streams = static_cast<uint32_t>(streams.value());
        break;
      }
      case kH2MaxRequests: {
        auto requests = parse_integer(flag, 0, UINT32_MAX);
        if (!requests) return requests.error();
        options.h2_max_requests = requests.value();
        break;
      }
    }
  }
  if (!options.unix_socket.empty() && host_or_port) {
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
  return options;
}

std::string serve_usage() {
  return R"(Usage: hail serve [options]

Runs the built-in HTTP/1.1 and HTTP/2 target server until SIGINT or SIGTERM.

Options:
  --host H              address to listen on (default 127.0.0.1)
  --port P              TCP port; 0 picks a free one (default 0; the chosen one is printed)
  --unix-socket PATH    listen on a Unix domain socket instead (a stale socket file is replaced;
                        the file is removed on exit); not with --host or --port
  --root DIR            serve files below DIR for paths that are not endpoints (default: none, 404)
  --threads N           reactor threads, each with its own SO_REUSEPORT socket (a Unix socket is
                        shared, EPOLLEXCLUSIVE) and TLS context (default 1)
  --header-timeout T    a request head must arrive within T of its first byte (default 10s; 0: none)
  --idle-timeout T      close connections with no traffic for T (default 60s; 0: none)
  --max-connections N   open connections at most; more are accepted and closed (default 10000)
  --tls-cert FILE       serve TLS with this PEM certificate chain (needs --tls-key)
  --tls-key FILE        ... and this PEM private key
  --tls-self-signed     serve TLS with a throw-away self-signed certificate for localhost
                        (made at start, kept in memory; clients must skip verification)
  --no-h2               HTTP/1.1 only: ALPN offers just http/1.1 and the h2c preface is not
                        recognised (default: ALPN prefers h2; cleartext connections opening with
                        the HTTP/2 preface speak h2c)
  --h2-max-streams N    SETTINGS_MAX_CONCURRENT_STREAMS per HTTP/2 connection (default 100)
  --h2-max-requests N   after N streams on one HTTP/2 connection send GOAWAY and close once
                        they are answered (default 0: no limit)

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
