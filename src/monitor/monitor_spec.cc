#include "monitor/monitor_spec.h"

#include <charconv>

namespace hail {

Result<MonitorSpec> parse_monitor_spec(std::string_view text) {
  MonitorSpec spec;
  spec.text = std::string(text);
  const std::string prefix = "--monitor " + quote(text) + ": ";
  if (text == "host") return spec;
  if (text.starts_with("pid:")) {
    const std::string_view digits = text.substr(4);
    int64_t pid = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || pid <= 0) {
      return make_error(prefix + "a pid is a positive number (pid:1234)");
    }
    spec.kind = MonitorKind::kPid;
    spec.pid = pid;
    return spec;
  }
  if (text.starts_with("name:")) {
    spec.name = std::string(text.substr(5));
    if (spec.name.empty() || spec.name.find('/') != std::string::npos) {
      return make_error(prefix + "give a process name as ps shows it (name:nginx)");
    }
    spec.kind = MonitorKind::kName;
    return spec;
  }
  if (text.starts_with("prom:")) {
    spec.name = std::string(text.substr(5));
    if (!spec.name.starts_with("http://")) {
      return make_error(prefix + "give a Prometheus endpoint as prom:http://HOST:PORT/metrics");
    }
    spec.kind = MonitorKind::kProm;
    return spec;
  }
  return make_error(prefix + "expected pid:N, name:NAME, host or prom:URL");
}

}  // namespace hail
