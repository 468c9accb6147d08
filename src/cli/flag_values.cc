#include "cli/flag_values.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/units.h"
#include "core/url.h"
#include "net/tls.h"

namespace hail {

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

// HOST:PORT for --connect-to: a name, an IPv4 literal or a bracketed IPv6 literal, port 1-65535.
Result<std::pair<std::string, uint16_t>> parse_host_port(const std::string& text) {
  auto url = parse_url("http://" + text + "/");
  const size_t colon = text.rfind(':');
  const size_t bracket = text.rfind(']');
  const bool has_port =
      colon != std::string::npos && (bracket == std::string::npos || colon > bracket);
  if (!url || !has_port || url->path != "/") {
    return make_error(quote(text) + " (expected HOST:PORT, e.g. 10.0.0.2:8080 or [::1]:8080)");
  }
  return std::pair<std::string, uint16_t>(url->host, url->port);
}

// Protocol choices that cannot work together, or need an https:// URL.
Status check_protocol_flags(const RunOptions& run, const std::string& tls_flag, bool streams_given,
                            bool window_given) {
  const bool https = run.url.scheme == "https";
  if (!tls_flag.empty() && !https) return make_error(tls_flag + " applies to https:// URLs only");
  const bool may_h2 =
      run.protocol == HttpProtocol::kHttp2 || (https && run.protocol == HttpProtocol::kAuto);
  if ((streams_given || window_given) && !may_h2) {
    return make_error(std::string(streams_given ? "--streams" : "--window-bits") +
                      " needs HTTP/2: an https:// URL (ALPN) or --h2");
  }
  if (run.protocol == HttpProtocol::kHttp2 && (run.request.http_minor == 0 || run.http09)) {
    return make_error(std::string(run.http09 ? "--http0.9" : "--http1.0") +
                      " and --h2 given together; use one");
  }
  if (run.pipeline > 1) {
    if (run.protocol == HttpProtocol::kHttp2)
      return make_error("--pipeline is HTTP/1.1 only (not --h2)");
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

// Version range and cipher lists that OpenSSL would refuse: usage errors found now, not when the
// first worker builds its context (which only reads files: --cacert is checked then).
Status check_tls_values(const TlsClientConfig& tls, const std::string& min_text,
                        const std::string& max_text) {
  if (tls.min_version != 0 && tls.max_version != 0 && tls.min_version > tls.max_version) {
    return make_error("--tls-min " + quote(min_text) + " is above --tls-max " + quote(max_text));
  }
  if (tls.ciphers.empty() && tls.ciphersuites.empty()) return ok_status();
  TlsClientConfig probe;
  probe.ciphers = tls.ciphers;
  probe.ciphersuites = tls.ciphersuites;
  auto context = TlsClientContext::create(probe);
  if (!context) return context.error();
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
}  // namespace hail
