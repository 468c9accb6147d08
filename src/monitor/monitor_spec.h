// --monitor SOURCE, parsed: pid:N, name:NAME, host, prom:URL. Pure; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace hail {

enum class MonitorKind { kPid, kName, kHost, kProm };

struct MonitorSpec {
  MonitorKind kind = MonitorKind::kHost;
  std::string text;  // as given: the series' source
  int64_t pid = 0;   // kPid
  std::string name;  // kName: the process name (/proc/PID/comm); kProm: the URL
};

// Errors name the value: "--monitor \"pid:x\": ...".
Result<MonitorSpec> parse_monitor_spec(std::string_view text);

}  // namespace hail
