#include "monitor/proc_text.h"

#include <charconv>
#include <cstdlib>
#include <vector>

#include "core/ascii.h"

namespace hail {

namespace {

// Whitespace-separated words of one line.
std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

template <typename T>
bool number(std::string_view text, T* out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && ptr == end;
}

// Calls f(line) for every line (without its newline); stops when f returns false.
template <typename F>
void for_lines(std::string_view text, F f) {
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    if (!f(line)) return;
    if (nl == std::string_view::npos) return;
    text.remove_prefix(nl + 1);
  }
}

// "Name:   123 kB" -> 123 * scale.
bool field_value(std::string_view line, std::string_view name, uint64_t scale, uint64_t* out) {
  if (!line.starts_with(name) || line.size() <= name.size() || line[name.size()] != ':') {
    return false;
  }
  const std::vector<std::string_view> w = words(line.substr(name.size() + 1));
  uint64_t v = 0;
  if (w.empty() || !number(w[0], &v)) return false;
  *out = v * scale;
  return true;
}

}  // namespace

std::optional<ProcPidStat> parse_proc_pid_stat(std::string_view text) {
  // "pid (comm) state ppid ...": comm may hold anything, so it ends at the last ')'.
  const size_t open = text.find('(');
  const size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return std::nullopt;
  }
  ProcPidStat s;
  if (!number(ascii::trim_ows(text.substr(0, open)), &s.pid)) return std::nullopt;
  s.comm = std::string(text.substr(open + 1, close - open - 1));
  const size_t nl = text.find('\n', close);
  const std::vector<std::string_view> f = words(text.substr(close + 1, nl - close - 1));
  // f[0] is field 3 (state); field k is f[k - 3].
  constexpr size_t kUtime = 14 - 3, kStime = 15 - 3, kThreads = 20 - 3, kStart = 22 - 3,
                   kRss = 24 - 3;
  if (f.size() <= kRss || f[0].size() != 1) return std::nullopt;
  s.state = f[0][0];
  if (!number(f[kUtime], &s.utime_ticks) || !number(f[kStime], &s.stime_ticks) ||
      !number(f[kThreads], &s.threads) || !number(f[kStart], &s.start_ticks) ||
      !number(f[kRss], &s.rss_pages)) {
    return std::nullopt;
  }
  return s;
}

std::optional<ProcPidStatus> parse_proc_pid_status(std::string_view text) {
  ProcPidStatus s;
  bool voluntary = false;
  bool involuntary = false;
  for_lines(text, [&](std::string_view line) {
    field_value(line, "VmRSS", 1024, &s.rss_bytes);
    voluntary |= field_value(line, "voluntary_ctxt_switches", 1, &s.voluntary_switches);
    involuntary |= field_value(line, "nonvoluntary_ctxt_switches", 1, &s.involuntary_switches);
    return true;
  });
  if (!voluntary || !involuntary) return std::nullopt;
  return s;
}

std::optional<ProcStat> parse_proc_stat(std::string_view text) {
  ProcStat s;
  bool total = false;
  bool bad = false;
  for_lines(text, [&](std::string_view line) {
    if (!line.starts_with("cpu")) return true;
    const std::vector<std::string_view> w = words(line);
    if (w[0] == "cpu") {
      // user nice system idle iowait irq softirq steal (older kernels stop earlier: 0).
      if (w.size() < 5) {
        bad = true;
        return false;
      }
      for (size_t i = 0; i < s.cpu.size() && i + 1 < w.size(); ++i) {
        if (!number(w[i + 1], &s.cpu[i])) {
          bad = true;
          return false;
        }
      }
      total = true;
    } else {
      ++s.cpus;
    }
    return true;
  });
  if (!total || bad) return std::nullopt;
  return s;
}

std::optional<MemInfo> parse_meminfo(std::string_view text) {
  MemInfo m;
  bool total = false;
  bool available = false;
  for_lines(text, [&](std::string_view line) {
    total |= field_value(line, "MemTotal", 1024, &m.total_bytes);
    available |= field_value(line, "MemAvailable", 1024, &m.available_bytes);
    return true;
  });
  if (!total || !available) return std::nullopt;
  return m;
}

std::optional<std::array<double, 3>> parse_loadavg(std::string_view text) {
  const std::vector<std::string_view> w = words(text.substr(0, text.find('\n')));
  if (w.size() < 3) return std::nullopt;
  std::array<double, 3> out{};
  for (size_t i = 0; i < 3; ++i) {
    if (!number(w[i], &out[i])) return std::nullopt;
  }
  return out;
}

std::optional<NetCounters> parse_net_dev(std::string_view text, bool include_loopback) {
  // Two header lines, then "iface: rx_bytes rx_packets errs drop fifo frame compressed multicast
  // tx_bytes tx_packets ...".
  NetCounters n;
  bool any_header = false;
  bool bad = false;
  for_lines(text, [&](std::string_view line) {
    const size_t colon = line.find(':');
    if (line.find('|') != std::string_view::npos) {
      any_header = true;
      return true;
    }
    if (colon == std::string_view::npos) return true;
    const std::string_view name = ascii::trim_ows(line.substr(0, colon));
    const std::vector<std::string_view> w = words(line.substr(colon + 1));
    uint64_t v[10] = {};
    if (w.size() < 10) {
      bad = true;
      return false;
    }
    for (size_t i = 0; i < 10; ++i) {
      if (!number(w[i], &v[i])) {
        bad = true;
        return false;
      }
    }
    if (name == "lo" && !include_loopback) return true;
    n.rx_bytes += v[0];
    n.rx_packets += v[1];
    n.tx_bytes += v[8];
    n.tx_packets += v[9];
    return true;
  });
  if (!any_header || bad) return std::nullopt;
  return n;
}

std::optional<uint64_t> parse_tcp_retransmits(std::string_view text) {
  // "Tcp: RtoAlgorithm ... RetransSegs ..." then "Tcp: 1 200 ... 17 ...".
  std::vector<std::string_view> header;
  std::optional<uint64_t> out;
  for_lines(text, [&](std::string_view line) {
    if (!line.starts_with("Tcp:")) return true;
    const std::vector<std::string_view> w = words(line);
    if (header.empty()) {
      header = w;
      return true;
    }
    for (size_t i = 1; i < header.size() && i < w.size(); ++i) {
      uint64_t v = 0;
      if (header[i] == "RetransSegs" && number(w[i], &v)) out = v;
    }
    return false;
  });
  return out;
}

std::optional<uint64_t> count_time_wait(std::string_view text) {
  // "sl local_address rem_address st ...": st is the 4th word, in hex; TIME_WAIT is 06.
  uint64_t n = 0;
  bool header = false;
  bool bad = false;
  for_lines(text, [&](std::string_view line) {
    const std::vector<std::string_view> w = words(line);
    if (w.empty()) return true;
    if (!header) {
      header = w[0] == "sl";
      bad = !header;
      return header;
    }
    if (w.size() < 4) {
      bad = true;
      return false;
    }
    if (w[3] == "06") ++n;
    return true;
  });
  if (!header || bad) return std::nullopt;
  return n;
}

std::optional<uint64_t> parse_sockstat_time_wait(std::string_view text) {
  std::optional<uint64_t> out;
  for_lines(text, [&](std::string_view line) {
    if (!line.starts_with("TCP:")) return true;
    const std::vector<std::string_view> w = words(line.substr(4));
    for (size_t i = 0; i + 1 < w.size(); i += 2) {
      uint64_t v = 0;
      if (w[i] == "tw" && number(w[i + 1], &v)) out = v;
    }
    return false;
  });
  return out;
}

}  // namespace hail
