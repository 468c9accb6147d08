#include "cli/wrk_flags.h"

#include <iterator>
#include <limits>
#include <utility>
#include <vector>

#include "cli/gnu_getopt.h"
#include "core/result.h"
#include "core/units.h"
#include "core/url.h"
#include "http/request.h"

namespace hail {

namespace {

// Hail's own limits, the same as the native front-end's: wrk would try any number and fail later.
constexpr uint64_t kMaxThreads = 1024;
constexpr uint64_t kMaxConnections = 1'000'000;
constexpr uint64_t kMaxSeconds = kMaxDurationNs / 1'000'000'000;

bool is_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

struct UnitScale {
  char unit;  // lower case
  uint64_t scale;
};

// sscanf("%" SCNu64 "%2s") and wrk's unit lookup. `base_unit` is the unit meaning x1 ('s' for
// times, none for counts).
bool scan_units(std::string_view text, char base_unit, const UnitScale* units, size_t unit_count,
                uint64_t* value) {
  size_t i = 0;
  while (i < text.size() && is_space(text[i])) ++i;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    if (text[i] == '-') return false;  // wrk wraps it around to 2^64 - n: no sensible meaning
    ++i;
  }
  const size_t digits_start = i;
  uint64_t base = 0;
  for (; i < text.size() && is_digit(text[i]); ++i) {
    const auto digit = static_cast<uint64_t>(text[i] - '0');
    if (base > (std::numeric_limits<uint64_t>::max() - digit) / 10) return false;
    base = base * 10 + digit;
  }
  if (i == digits_start) return false;
  while (i < text.size() && is_space(text[i])) ++i;
  size_t unit_end = i;
  while (unit_end < text.size() && unit_end - i < 2 && !is_space(text[unit_end])) ++unit_end;
  const std::string_view unit = text.substr(i, unit_end - i);
  uint64_t scale = 1;
  if (!unit.empty()) {
    // strncasecmp(unit, name, 3) against one-letter names: the unit must be exactly that letter.
    if (unit.size() != 1) return false;
    const char u = lower(unit[0]);
    if (u != base_unit) {
      scale = 0;
      for (size_t k = 0; k < unit_count; ++k) {
        if (units[k].unit == u) scale = units[k].scale;
      }
      if (scale == 0) return false;
    }
  }
  if (base > std::numeric_limits<uint64_t>::max() / scale) return false;
  *value = base * scale;
  return true;
}

constexpr UnitScale kMetricUnits[] = {{'k', 1'000},
                                      {'m', 1'000'000},
                                      {'g', 1'000'000'000},
                                      {'t', 1'000'000'000'000},
                                      {'p', 1'000'000'000'000'000}};
constexpr UnitScale kTimeUnits[] = {{'m', 60}, {'h', 3600}};

// getopt_long's table for wrk: "t:c:d:s:H:T:Lrv?" and its long options. -h is not in wrk's short
// option string (getopt calls it invalid); -r and -? are, and mean "print the usage".
constexpr GetoptLongOption kLongOptions[] = {
    {"connections", true, 'c'}, {"duration", true, 'd'}, {"threads", true, 't'},
    {"script", true, 's'},      {"header", true, 'H'},   {"latency", false, 'L'},
    {"timeout", true, 'T'},     {"help", false, 'h'},    {"version", false, 'v'},
};
constexpr std::string_view kShortOptions = "t:c:d:s:H:T:Lrv?";

WrkParse usage_error(WrkParse p, std::string message = {}, bool from_getopt = false) {
  p.ok = false;
  p.show_usage = true;
  p.message = std::move(message);
  p.message_has_program = from_getopt;
  return p;
}

// -H as wrk reads it: the name up to the first ':', which must be followed by a space; a later
// header of the same name (exactly: wrk keeps them in a Lua table) replaces the earlier one.
Status add_header(const std::string& text, RequestSpec& request, WrkCommand& command) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos || colon + 1 >= text.size() || text[colon + 1] != ' ') {
    command.dropped_headers.push_back(text);
    return ok_status();
  }
  auto header = parse_header_arg(text);
  if (!header) return make_error("invalid value for -H: " + header.error().message);
  for (auto& existing : request.headers) {
    if (existing.first == header->first) {
      existing.second = std::move(header->second);
      return ok_status();
    }
  }
  request.headers.push_back(std::move(header.value()));
  return ok_status();
}

// wrk's own check on the URL (http_parser: a scheme and a host), before hail's stricter one.
bool wrk_accepts_url(std::string_view text) {
  const size_t scheme_end = text.find("://");
  if (scheme_end == std::string_view::npos || scheme_end == 0) return false;
  for (char c : text.substr(0, scheme_end)) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return false;
  }
  const std::string_view rest = text.substr(scheme_end + 3);
  return !rest.empty() && rest[0] != '/' && rest[0] != '?' && rest[0] != '#';
}

}  // namespace

bool scan_wrk_metric(std::string_view text, uint64_t* value) {
  return scan_units(text, '\0', kMetricUnits, std::size(kMetricUnits), value);
}

bool scan_wrk_time_s(std::string_view text, uint64_t* seconds) {
  return scan_units(text, 's', kTimeUnits, std::size(kTimeUnits), seconds);
}

std::string wrk_usage() {
  return "Usage: wrk <options> <url>                            \n"
         "  Options:                                            \n"
         "    -c, --connections <N>  Connections to keep open   \n"
         "    -d, --duration    <T>  Duration of test           \n"
         "    -t, --threads     <N>  Number of threads to use   \n"
         "                                                      \n"
         "    -s, --script      <S>  Load Lua script file       \n"
         "    -H, --header      <H>  Add header to request      \n"
         "        --latency          Print latency statistics   \n"
         "        --timeout     <T>  Socket/request timeout     \n"
         "    -v, --version          Print version details      \n"
         "                                                      \n"
         "  Numeric arguments may include a SI unit (1k, 1M, 1G)\n"
         "  Time arguments may include a time unit (2s, 2m, 2h)\n";
}

std::string wrk_version_line(std::string_view hail_version) {
  return "wrk 4.1.0 (hail " + std::string(hail_version) + ") [epoll]\n";
}

WrkParse parse_wrk_flags(const std::vector<std::string>& args) {
  WrkParse p;
  WrkCommand& cmd = p.command;
  RunOptions& run = cmd.run;
  uint64_t duration_s = kWrkDefaultDurationS;
  uint64_t timeout_s = kWrkDefaultTimeoutS;
  GnuGetopt reader(args, kShortOptions, kLongOptions);
  GetoptOption o;
  while (reader.next(&o)) {
    switch (o.val) {
      case 't':
        if (!scan_wrk_metric(o.arg, &cmd.threads)) return usage_error(std::move(p));
        break;
      case 'c':
        if (!scan_wrk_metric(o.arg, &cmd.connections)) return usage_error(std::move(p));
        break;
      case 'd':
        if (!scan_wrk_time_s(o.arg, &duration_s)) return usage_error(std::move(p));
        break;
      case 'T':
        if (!scan_wrk_time_s(o.arg, &timeout_s)) return usage_error(std::move(p));
        break;
      case 's':
        run.script_path = o.arg;
        break;
      case 'H':
        if (Status st = add_header(o.arg, run.request, cmd); !st) {
          p.message = st.error().message;
          return p;
        }
        break;
      case 'L':
        cmd.latency_distribution = true;
        break;
      case 'v':
        ++p.version_lines;
        break;
      default:  // -h, --help, -r, -?
        return usage_error(std::move(p));
    }
  }
  if (!reader.error().empty()) return usage_error(std::move(p), reader.error(), true);
  const std::vector<std::string>& words = reader.non_options();
  if (words.empty() || cmd.threads == 0 || duration_s == 0) return usage_error(std::move(p));
  cmd.url_text = words[0];
  if (!wrk_accepts_url(cmd.url_text)) return usage_error(std::move(p), "invalid URL: " + words[0]);
  auto url = parse_url(cmd.url_text);
  if (!url) {
    // wrk would take it (an ftp:// scheme, user info, ...); hail's URL rules are stricter.
    return usage_error(std::move(p), "invalid URL: " + words[0] + "\nhail: " + url.error().message);
  }
  if (cmd.connections == 0 || cmd.connections < cmd.threads) {
    return usage_error(std::move(p), "number of connections must be >= threads");
  }
  // Past wrk's own checks: limits of hail's, without the usage text (wrk would have started).
  if (cmd.threads > kMaxThreads) {
    p.message = "hail: -t " + std::to_string(cmd.threads) + ": at most " +
                std::to_string(kMaxThreads) + " threads";
    return p;
  }
  if (cmd.connections > kMaxConnections) {
    p.message = "hail: -c " + std::to_string(cmd.connections) + ": at most " +
                std::to_string(kMaxConnections) + " connections";
    return p;
  }
  if (duration_s > kMaxSeconds || timeout_s > kMaxSeconds) {
    p.message = std::string("hail: ") + (duration_s > kMaxSeconds ? "-d" : "--timeout") +
                ": at most 100 years";
    return p;
  }
  if (timeout_s == 0) {
    // wrk then counts every response as a timeout; hail's timeout aborts the request.
    p.message = "hail: --timeout 0: must be at least 1s (hail closes a request that exceeds it)";
    return p;
  }

  run.url = url.value();
  run.url_text = cmd.url_text;
  run.request.path = run.url.path;
  run.request.authority = run.url.authority();
  run.threads = static_cast<uint32_t>(cmd.threads);
  // Each wrk thread gets connections / threads of them; the remainder is never opened.
  run.connections = static_cast<uint32_t>(cmd.connections / cmd.threads * cmd.threads);
  run.duration_ns = duration_s * 1'000'000'000;
  run.timeout_ns = timeout_s * 1'000'000'000;
  run.protocol = HttpProtocol::kHttp1;  // wrk offers no ALPN: HTTP/1.1 over TLS too
  run.wrk_requests = true;              // wrk's bytes: Host and -H fields, nothing else
  if (!run.script_path.empty()) run.script_args.assign(words.begin() + 1, words.end());
  p.ok = true;
  return p;
}

}  // namespace hail
