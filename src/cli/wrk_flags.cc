#include "cli/wrk_flags.h"

#include <iterator>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "cli/flag_table.h"
#include "cli/gnu_getopt.h"
#include "cli/run_rules.h"
#include "core/ascii.h"
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
constexpr uint64_t kMaxRatePerS = 1'000'000'000;  // the native -R's limit

struct UnitScale {
  char unit;  // lower case
  uint64_t scale;
};

// sscanf("%" SCNu64 "%2s") and wrk's unit lookup. `base_unit` is the unit meaning x1 ('s' for
// times, none for counts).
bool scan_units(std::string_view text, char base_unit, const UnitScale* units, size_t unit_count,
                uint64_t* value) {
  size_t i = 0;
  while (i < text.size() && ascii::is_space(text[i])) ++i;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    if (text[i] == '-') return false;  // wrk wraps it around to 2^64 - n: no sensible meaning
    ++i;
  }
  const size_t digits_start = i;
  uint64_t base = 0;
  for (; i < text.size() && ascii::is_digit(text[i]); ++i) {
    const auto digit = static_cast<uint64_t>(text[i] - '0');
    if (base > (std::numeric_limits<uint64_t>::max() - digit) / 10) return false;
    base = base * 10 + digit;
  }
  if (i == digits_start) return false;
  while (i < text.size() && ascii::is_space(text[i])) ++i;
  size_t unit_end = i;
  while (unit_end < text.size() && unit_end - i < 2 && !ascii::is_space(text[unit_end])) ++unit_end;
  const std::string_view unit = text.substr(i, unit_end - i);
  uint64_t scale = 1;
  if (!unit.empty()) {
    // strncasecmp(unit, name, 3) against one-letter names: the unit must be exactly that letter.
    if (unit.size() != 1) return false;
    const char u = ascii::to_lower(unit[0]);
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

WrkParse& usage_error(WrkParse& p, std::string message = {}, bool from_getopt = false) {
  p.ok = false;
  p.show_usage = true;
  p.message = std::move(message);
  p.message_has_program = from_getopt;
  return p;
}

// -H as wrk reads it: the name up to the first ':', which must be followed by a space; a later
// header of the same name (exactly: wrk keeps them in a Lua table) replaces the earlier one.
Status add_header_text(const std::string& text, RequestSpec& request, WrkCommand& command) {
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

struct WrkState {
  WrkParse p;
  uint64_t duration_s = kWrkDefaultDurationS;
  uint64_t timeout_s = kWrkDefaultTimeoutS;
};

// A handler returns false when wrk stops at this option; p then says how.
using WrkFlag = FlagDef<WrkState, bool>;

template <auto kField>
bool set_metric(WrkState& s, const ParsedFlag& f) {
  if (scan_wrk_metric(f.value, &(s.p.command.*kField))) return true;
  usage_error(s.p);
  return false;
}

template <auto kField>
bool set_time(WrkState& s, const ParsedFlag& f) {
  if (scan_wrk_time_s(f.value, &(s.*kField))) return true;
  usage_error(s.p);
  return false;
}

bool set_script(WrkState& s, const ParsedFlag& f) {
  s.p.command.run.script_path = f.value;
  return true;
}

bool add_header(WrkState& s, const ParsedFlag& f) {
  Status st = add_header_text(f.value, s.p.command.run.request, s.p.command);
  if (!st) s.p.message = st.error().message;
  return st.ok();
}

bool set_latency(WrkState& s, const ParsedFlag&) {
  s.p.command.latency_distribution = true;
  return true;
}

bool set_u_latency(WrkState& s, const ParsedFlag&) {
  // wrk2's -U prints the corrected spectrum too.
  s.p.command.latency_distribution = true;
  s.p.command.uncorrected_distribution = true;
  return true;
}

bool set_batch_latency(WrkState& s, const ParsedFlag&) {
  s.p.command.batch_latency = true;
  return true;
}

bool count_version(WrkState& s, const ParsedFlag&) {
  ++s.p.version_lines;
  return true;
}

// hail's verdict flags: their errors are hail's one line, exit 2.
bool hail_flag_result(WrkState& s, const Status& st) {
  if (st) return true;
  s.p.message = "hail: " + st.error().message;
  s.p.hail_usage = true;
  return false;
}

bool add_slo(WrkState& s, const ParsedFlag& f) {
  return hail_flag_result(s, add_slo_flag(s.p.command.verdict, "--slo", f.value));
}

bool set_slo_abort(WrkState& s, const ParsedFlag&) {
  s.p.command.verdict.slo_abort = true;
  return true;
}

bool set_junit(WrkState& s, const ParsedFlag& f) {
  return hail_flag_result(s, set_junit_flag(s.p.command.verdict, f.value));
}

bool show_usage(WrkState& s, const ParsedFlag&) {
  usage_error(s.p);
  return false;
}

// wrk's getopt_long table ("t:c:d:s:H:T:Lrv?" and its long options), in wrk's order, which is
// also its usage text's. -h is not among wrk's short options (getopt calls it invalid); --help, -r
// and -? print the usage. -L and -T work but the usage text shows only the long names.
constexpr WrkFlag kFlags[] = {
    {"c", "connections", "N", set_metric<&WrkCommand::connections>, "Connections to keep open"},
    {"d", "duration", "T", set_time<&WrkState::duration_s>, "Duration of test"},
    {"t", "threads", "N", set_metric<&WrkCommand::threads>, "Number of threads to use"},
    {"s", "script", "S", set_script, "Load Lua script file", ""},
    {"H", "header", "H", add_header, "Add header to request"},
    {"L", "latency", nullptr, set_latency, "Print latency statistics", nullptr, "    --latency"},
    {"T", "timeout", "T", set_time<&WrkState::timeout_s>, "Socket/request timeout", nullptr,
     "    --timeout     <T>"},
    {"", "help", nullptr, show_usage, nullptr},
    {"v", "version", nullptr, count_version, "Print version details"},
    {"r?", nullptr, nullptr, show_usage, nullptr},
    // hail's verdicts, which wrk does not have: documented in README and hail(1), not in wrk's
    // usage text (kept byte for byte).
    {"", "slo", "EXPR", add_slo, nullptr},
    {"", "slo-abort", nullptr, set_slo_abort, nullptr},
    {"", "junit", "FILE", set_junit, nullptr},
};

// wrk2's table ("t:c:d:s:H:T:R:LUBrv?"), in its usage text's order: wrk 4.0's options plus -U, -B
// and -R. --help is a long option there (getopt_long answers 'h', which wrk2 treats as usage).
constexpr WrkFlag kWrk2Flags[] = {
    {"c", "connections", "N", set_metric<&WrkCommand::connections>, "Connections to keep open"},
    {"d", "duration", "T", set_time<&WrkState::duration_s>, "Duration of test"},
    {"t", "threads", "N", set_metric<&WrkCommand::threads>, "Number of threads to use"},
    {"s", "script", "S", set_script, "Load Lua script file", ""},
    {"H", "header", "H", add_header, "Add header to request"},
    {"L", "latency", nullptr, set_latency, "Print latency statistics", nullptr, "-L  --latency"},
    {"U", "u_latency", nullptr, set_u_latency, "Print uncorrected latency statistics", nullptr,
     "-U  --u_latency"},
    {"T", "timeout", "T", set_time<&WrkState::timeout_s>, "Socket/request timeout", nullptr,
     "    --timeout     <T>"},
    {"B", "batch_latency", nullptr, set_batch_latency,
     "Measure latency of whole\nbatches of pipelined ops\n(as opposed to each op)"},
    {"", "help", nullptr, show_usage, nullptr},
    {"v", "version", nullptr, count_version, "Print version details"},
    {"R", "rate", "T", set_metric<&WrkCommand::rate_per_s>,
     "work rate (throughput)\nin requests/sec (total)\n[Required Parameter]"},
    {"r?", nullptr, nullptr, show_usage, nullptr},
    {"", "slo", "EXPR", add_slo, nullptr},
    {"", "slo-abort", nullptr, set_slo_abort, nullptr},
    {"", "junit", "FILE", set_junit, nullptr},
};

// Every line of wrk's usage text is padded with spaces to 54 columns, but its last.
constexpr UsageLayout kLayout{SyntaxStyle::kWrk, 4, 27, 2, 54};

// wrk's checks once the options are read, then hail's limits and the RunOptions.
WrkParse finish(WrkState& s, const std::vector<std::string>& words, bool wrk2) {
  WrkParse& p = s.p;
  WrkCommand& cmd = p.command;
  RunOptions& run = cmd.run;
  if (words.empty() || cmd.threads == 0 || s.duration_s == 0) return usage_error(p);
  if (Status st = check_verdict_flags(cmd.verdict); !st) {
    hail_flag_result(s, st);
    return p;
  }
  cmd.url_text = words[0];
  if (!wrk_accepts_url(cmd.url_text)) return usage_error(p, "invalid URL: " + words[0]);
  auto url = parse_url(cmd.url_text);
  if (!url) {
    // wrk would take it (an ftp:// scheme, user info, ...); hail's URL rules are stricter.
    return usage_error(p, "invalid URL: " + words[0] + "\nhail: " + url.error().message);
  }
  if (cmd.connections == 0 || cmd.connections < cmd.threads) {
    return usage_error(p, "number of connections must be >= threads");
  }
  if (wrk2 && cmd.rate_per_s == 0) {
    return usage_error(p, "Throughput MUST be specified with the --rate or -R option");
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
  if (s.duration_s > kMaxSeconds || s.timeout_s > kMaxSeconds) {
    p.message = std::string("hail: ") + (s.duration_s > kMaxSeconds ? "-d" : "--timeout") +
                ": at most 100 years";
    return p;
  }
  if (cmd.rate_per_s > kMaxRatePerS) {
    p.message = "hail: -R " + std::to_string(cmd.rate_per_s) + ": at most " +
                std::to_string(kMaxRatePerS) + " requests per second";
    return p;
  }
  if (s.timeout_s == 0) {
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
  run.duration_ns = s.duration_s * 1'000'000'000;
  run.timeout_ns = s.timeout_s * 1'000'000'000;
  run.protocol = HttpProtocol::kHttp1;  // wrk offers no ALPN: HTTP/1.1 over TLS too
  run.wrk_requests = true;              // wrk's bytes: Host and -H fields, nothing else
  if (wrk2) {
    // wrk2 sends from a fixed pool, each connection at rate / connections, corrected latency.
    run.rate_per_s = static_cast<double>(cmd.rate_per_s);
    run.max_connections = run.connections;
  }
  if (!run.script_path.empty()) run.script_args.assign(words.begin() + 1, words.end());
  GivenFlags given;
  given.duration = true;
  given.connections = true;
  given.keep_series = !cmd.verdict.slo.empty();  // thresholds over windows need the series
  if (Status st = validate(run, given); !st) {
    p.message = "hail: " + st.error().message;
    return p;
  }
  p.ok = true;
  return p;
}

}  // namespace

bool scan_wrk_metric(std::string_view text, uint64_t* value) {
  return scan_units(text, '\0', kMetricUnits, std::size(kMetricUnits), value);
}

bool scan_wrk_time_s(std::string_view text, uint64_t* seconds) {
  return scan_units(text, 's', kTimeUnits, std::size(kTimeUnits), seconds);
}

namespace {

// wrk's usage text around the option rows; wrk2's has two padded blank lines where wrk's has one.
std::string usage_text(std::span<const WrkFlag> table, int blank_lines) {
  std::string out =
      "Usage: wrk <options> <url>                            \n"
      "  Options:                                            \n" +
      render_usage(table, kLayout);
  for (int i = 0; i < blank_lines; ++i) {
    out += "                                                      \n";
  }
  return out +
         "  Numeric arguments may include a SI unit (1k, 1M, 1G)\n"
         "  Time arguments may include a time unit (2s, 2m, 2h)\n";
}

}  // namespace

std::string wrk_usage() {
  return usage_text(kFlags, 1);
}
std::string wrk2_usage() {
  return usage_text(kWrk2Flags, 2);
}

std::vector<FlagName> wrk_flag_names() {
  return flag_names(std::span<const WrkFlag>(kFlags));
}
std::vector<FlagName> wrk2_flag_names() {
  return flag_names(std::span<const WrkFlag>(kWrk2Flags));
}

std::string wrk_version_line(std::string_view hail_version) {
  return "wrk 4.1.0 (hail " + std::string(hail_version) + ") [epoll]\n";
}

std::string wrk2_version_line(std::string_view hail_version) {
  return "wrk 4.0.0 (wrk2, hail " + std::string(hail_version) + ") [epoll]\n";
}

namespace {

WrkParse parse_with(std::span<const WrkFlag> table, const std::vector<std::string>& args,
                    bool wrk2) {
  const std::string short_options = getopt_short_options(table);
  const std::vector<GetoptLongOption> long_options = getopt_long_options(table);
  GnuGetopt reader(args, short_options, long_options);
  WrkState s;
  GetoptOption o;
  while (reader.next(&o)) {
    const WrkFlag* flag = flag_for(table, o.val);
    const ParsedFlag parsed{static_cast<int>(flag - table.data()), "", o.arg};
    if (!flag->apply(s, parsed)) return std::move(s.p);
  }
  if (!reader.error().empty()) return usage_error(s.p, reader.error(), true);
  return finish(s, reader.non_options(), wrk2);
}

}  // namespace

WrkParse parse_wrk_flags(const std::vector<std::string>& args) {
  return parse_with(kFlags, args, false);
}

WrkParse parse_wrk2_flags(const std::vector<std::string>& args) {
  return parse_with(kWrk2Flags, args, true);
}

}  // namespace hail
