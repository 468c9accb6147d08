#include "cli/flag_values.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/units.h"
#include "core/url.h"

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
