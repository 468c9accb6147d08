#include "cli/search_command.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <span>

#include "analysis/probe_verdict.h"
#include "analysis/slo_expr.h"
#include "cli/flag_values.h"
#include "cli/machine_probe.h"
#include "cli/native_flags.h"
#include "cli/native_table.h"
#include "cli/result_commands.h"
#include "cli/run_command.h"
#include "core/numbers.h"
#include "core/strings.h"
#include "core/units.h"
#include "report/html_report.h"
#include "report/search_report.h"

#ifndef HAIL_VERSION_STRING
#define HAIL_VERSION_STRING "0.0.0"
#endif

namespace hail {

namespace {

// What the search's own flags fill before the native flags are read.
struct SearchState {
  SearchCommand cmd;
  bool by_connections = false;
  bool max_given = false;
  double max = INFINITY;
  double from = 0;
  double min = 0;
};

using SearchFlag = FlagDef<SearchState, Status>;

Result<double> positive_level(const ParsedFlag& f) {
  const std::optional<double> v = parse_scaled_decimal(f.value);
  if (!v || !(*v > 0) || *v > 1e9) {
    return make_error("invalid value for " + f.spelled + ": " + quote(f.value) +
                      " (expected a positive number: requests per second, or connections)");
  }
  return *v;
}

Status set_from(SearchState& s, const ParsedFlag& f) {
  auto v = positive_level(f);
  if (!v) return v.error();
  s.from = *v;
  return ok_status();
}

Status set_min(SearchState& s, const ParsedFlag& f) {
  auto v = positive_level(f);
  if (!v) return v.error();
  s.min = *v;
  return ok_status();
}

Status set_max(SearchState& s, const ParsedFlag& f) {
  auto v = positive_level(f);
  if (!v) return v.error();
  s.max = *v;
  s.max_given = true;
  return ok_status();
}

Status set_precision(SearchState& s, const ParsedFlag& f) {
  std::string text = f.value;
  double scale = 1;
  if (text.ends_with("%")) {
    text.pop_back();
    scale = 0.01;
  }
  const std::optional<double> v = parse_scaled_decimal(text);
  if (!v || !(*v * scale > 0) || *v * scale >= 1) {
    return make_error("invalid value for --precision: " + quote(f.value) +
                      " (expected a fraction such as 2% or 0.02, below 100%)");
  }
  s.cmd.plan.config.precision = *v * scale;
  return ok_status();
}

template <uint64_t SearchConfig::*kField>
Status set_span(SearchState& s, const ParsedFlag& f) {
  auto v = positive_duration(f);
  if (!v) return v.error();
  s.cmd.plan.config.*kField = *v;
  return ok_status();
}

Status set_settle(SearchState& s, const ParsedFlag& f) {
  auto v = parse_duration_ns(f.value);
  if (!v) return bad_value(f, v.error());
  s.cmd.plan.config.settle_ns = *v;
  return ok_status();
}

Status set_by(SearchState& s, const ParsedFlag& f) {
  if (f.value != "rate" && f.value != "connections") {
    return make_error("invalid value for --by: " + quote(f.value) + " (rate or connections)");
  }
  s.by_connections = f.value == "connections";
  return ok_status();
}

Status set_json(SearchState& s, const ParsedFlag& f) {
  if (f.value.empty()) return make_error("--json needs a file name or \"-\"");
  s.cmd.json_path = f.value;
  return ok_status();
}

Status set_html(SearchState& s, const ParsedFlag& f) {
  if (f.value.empty()) return make_error("--html needs a file name");
  if (f.value == "-") return make_error("--html writes a file, not stdout: name one");
  s.cmd.html_path = f.value;
  return ok_status();
}

// In the order of the usage text.
constexpr SearchFlag kSearchFlags[] = {
    {"", "by", "rate|connections", set_by,
     "search the open-loop rate (default), or the number of connections of a\nclosed loop "
     "(also: a bare --connections)",
     "Search:", nullptr, "rate connections"},
    {"", "from", "N", set_from,
     "the first level probed (default: half of a short closed-loop estimate\nof the maximum; "
     "with --by connections, --min)"},
    {"", "min", "N", set_min, "the lowest level probed (default 1)"},
    {"", "max", "N", set_max,
     "the highest level probed (default: none for rates; --by connections:\n"
     "--max-connections, default 1000)"},
    {"", "precision", "P", set_precision,
     "stop bisecting once the bracket is within P of its lower end (default\n2%)"},
    {"", "probe", "T", set_span<&SearchConfig::probe_ns>,
     "measured time of each probe (default 10s)"},
    {"", "settle", "T", set_settle,
     "time at each new level before measuring (default 2s; not measured)"},
    {"", "confirm", "T", set_span<&SearchConfig::confirm_ns>,
     "measured time of the final probe just below the answer (default 30s)"},
    {"", "budget", "T", set_span<&SearchConfig::budget_ns>,
     "the whole search, settles included, at most T (default 5m)"},
    {"", "json", "FILE|-", set_json,
     "write the search as JSON to FILE (\"-\": to stdout instead of the text)"},
    {"", "html", "FILE", set_html,
     "a self-contained HTML page: throughput and latency at each level probed"},
};

constexpr UsageLayout kLayout{SyntaxStyle::kNative, 2, 24, 2};

// Run flags that the search sets itself, or that mean nothing per probe.
constexpr const char* kRefused[] = {
    "-n",        "--requests",  "-d",       "--duration",      "-R",
    "--rate",    "--stages",    "--ladder", "--step-duration", "--repeat",
    "--warmup",  "--slo-abort", "--junit",  "--hlog",          "--timeseries",
    "--interval"};

bool refused(const std::string& arg, std::string* flag) {
  for (const char* r : kRefused) {
    const std::string_view name(r);
    if (arg == name || (name.size() > 2 && arg.starts_with(std::string(name) + "=")) ||
        (name.size() == 2 && arg.size() > 2 && arg.starts_with(name) && arg[1] != '-')) {
      *flag = r;
      return true;
    }
  }
  return false;
}

bool native_takes_value(const std::string& arg) {
  for (const NativeFlag& f : native_flag_table()) {
    if (f.value == nullptr) continue;
    if (f.long_name != nullptr && arg == std::string("--") + f.long_name) return true;
    if (arg.size() == 2 && arg[0] == '-' && f.shorts[0] != '\0' &&
        std::string_view(f.shorts).find(arg[1]) != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

// The search's own flags out of `args`; the rest, in order, for the native parser.
Result<std::vector<std::string>> take_search_flags(SearchState& s,
                                                   const std::vector<std::string>& args) {
  std::vector<std::string> rest;
  struct MaxConnections {
    size_t at = 0;  // where the flag is in `rest`
    std::string value;
  };
  std::vector<MaxConnections> max_connections;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      rest.insert(rest.end(), args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
      break;
    }
    std::string flag;
    if (refused(a, &flag)) {
      return make_error(flag +
                        " is not a hail search flag: the search sets the load and the "
                        "probes' lengths itself (--from, --probe, --budget, ...)");
    }
    // A bare --connections picks the closed-loop search; with a number it is -c.
    if (a == "--connections" &&
        (i + 1 == args.size() || !parse_scaled_decimal(args[i + 1]).has_value())) {
      s.by_connections = true;
      continue;
    }
    if (a == "--max-connections" || a.starts_with("--max-connections=")) {
      // In a connections search it is the highest level; in a rate search, the pool's limit (a
      // run flag). Which search this is may be said later (--by, a bare --connections): kept in
      // `rest` for now, decided after the loop.
      const bool inline_value = a.size() > 17;
      if (!inline_value && i + 1 == args.size()) {
        return make_error("--max-connections needs a value");
      }
      max_connections.push_back({rest.size(), inline_value ? a.substr(18) : args[i + 1]});
      rest.push_back(a);
      if (!inline_value) rest.push_back(args[++i]);
      continue;
    }
    bool matched = false;
    if (a.starts_with("--")) {
      const size_t eq = a.find('=');
      const std::string name = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      for (const SearchFlag& f : kSearchFlags) {
        if (name != f.long_name) continue;
        ParsedFlag parsed{0, "--" + name, ""};
        if (eq != std::string::npos) {
          parsed.value = a.substr(eq + 1);
        } else if (i + 1 < args.size()) {
          parsed.value = args[++i];
        } else {
          return make_error("--" + name + " needs a value");
        }
        if (Status st = f.apply(s, parsed); !st) return st.error();
        matched = true;
        break;
      }
    }
    if (matched) continue;
    rest.push_back(a);
    if (native_takes_value(a) && i + 1 < args.size()) rest.push_back(args[++i]);
  }
  if (s.by_connections && !max_connections.empty()) {
    // The level cap, unless --max gave it; either way not a run flag of a closed loop.
    if (!s.max_given) {
      ParsedFlag f{0, "--max-connections", max_connections.back().value};
      if (Status st = set_max(s, f); !st) return st.error();
    }
    for (auto m = max_connections.rbegin(); m != max_connections.rend(); ++m) {
      const auto at = static_cast<std::ptrdiff_t>(m->at);
      rest.erase(rest.begin() + at, rest.begin() + at + (rest[m->at].size() > 17 ? 1 : 2));
    }
  }
  return rest;
}

void configure(SearchState& s, NativeCommand& native) {
  SearchPlan& plan = s.cmd.plan;
  SearchConfig& c = plan.config;
  plan.run = native.run;
  if (s.by_connections) {
    c.domain = SearchDomain::kConnections;
    c.max = s.max_given ? s.max : 1000;
    c.min = s.min > 0 ? s.min : 1;
    c.from = s.from > 0 ? s.from : c.min;
  } else {
    c.domain = SearchDomain::kRate;
    c.max = s.max;
    c.min = s.min > 0 ? s.min : 1;
    c.from = s.from;
    // The open loop needs connections as the latency grows (Little's law): the pool may grow
    // past -c, up to --max-connections.
    if (native.run.max_connections == 0) {
      plan.run.max_connections = std::max<uint32_t>(native.run.connections, 1000);
    }
  }
  // Windows a tenth of a probe, between 100 ms and 1 s: enough of them for the judge's spread.
  plan.interval_ns = std::clamp<uint64_t>(c.probe_ns / 10, 100'000'000, 1'000'000'000);
  c.estimate_ns = std::min<uint64_t>(c.estimate_ns, c.probe_ns);
}

}  // namespace

Result<SearchCommand> parse_search_flags(const std::vector<std::string>& args) {
  SearchState s;
  for (const std::string& a : args) {
    if (a == "--") break;
    if (a == "-h" || a == "--help") {
      s.cmd.show_help = true;
      return s.cmd;
    }
  }
  auto rest = take_search_flags(s, args);
  if (!rest) return rest.error();
  // The rate flags (--arrival, --max-connections) are checked as in a rate run.
  std::vector<std::string> native_args = rest.value();
  if (!s.by_connections) native_args.insert(native_args.begin(), {"-R", "1"});
  auto native = parse_native_flags(native_args);
  if (!native) return native.error();
  if (native->verdict.slo.empty()) {
    return make_error("hail search needs at least one --slo threshold to search against");
  }
  for (const std::string& text : native->verdict.slo) {
    auto t = parse_slo(text);
    if (!t) return make_error("--slo " + t.error().message);
    if (Status st = check_searchable(t.value()); !st)
      return make_error("--slo " + st.error().message);
    s.cmd.plan.thresholds.push_back(t.value());
  }
  if (!native->json_path.empty()) {
    return make_error("--json: give it to hail search itself (the search's JSON), not twice");
  }
  s.cmd.slo = native->verdict.slo;
  s.cmd.quiet = native->quiet;
  configure(s, native.value());
  if (s.cmd.plan.config.from > s.cmd.plan.config.max) {
    return make_error("--from is above --max");
  }
  if (Status st = validate(s.cmd.plan.config); !st) return st.error();
  return s.cmd;
}

int run_search_command(const std::vector<std::string>& args) {
  auto cmd = parse_search_flags(args);
  if (!cmd) {
    std::fprintf(stderr, "hail search: %s\n", cmd.error().message.c_str());
    return kExitUsage;
  }
  if (cmd->show_help) {
    std::fputs(search_usage().c_str(), stdout);
    return kExitOk;
  }
  const bool json_stdout = cmd->json_path == "-";
  SearchContext context;
  context.version = HAIL_VERSION_STRING;
  context.url = cmd->plan.run.url.to_string();
  context.by_connections = cmd->plan.config.domain == SearchDomain::kConnections;
  context.slo = cmd->slo;
  context.machines = {probe_machine()};
  context.connections = cmd->plan.run.connections;
  context.max_connections = cmd->plan.run.max_connections;
  context.threads = cmd->plan.run.threads;
  block_stop_signals();
  const bool progress = !cmd->quiet && isatty(STDERR_FILENO);
  bool header_printed = false;
  auto print = [&](const std::string& text) {
    if (json_stdout) return;
    if (progress) std::fputs("\r\033[K", stderr);
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);
  };
  SearchHooks hooks;
  hooks.should_stop = [] { return stop_signal_pending(); };
  hooks.on_probe = [&](const ProbeRecord& record, size_t index) {
    if (!header_printed) {
      print(render_search_header(context));
      header_printed = true;
    }
    print(render_search_row(context, record, index));
  };
  if (progress) {
    hooks.on_tick = [](const std::string& line) {
      std::fprintf(stderr, "\r\033[K[search] %s", line.c_str());
      std::fflush(stderr);
    };
  }
  auto result = run_search(cmd->plan, hooks);
  if (progress) std::fputs("\r\033[K", stderr);
  if (!result) {
    std::fprintf(stderr, "hail search: %s\n", result.error().message.c_str());
    return kExitCouldNotRun;
  }
  context.interrupted = result->interrupted;
  context.threads = result->threads;
  if (!header_printed) print(render_search_header(context));
  print(render_search_verdict(context, result->verdict));
  const std::string json = render_search_json(context, result->verdict);
  if (json_stdout) {
    std::fputs(json.c_str(), stdout);
  } else if (!cmd->json_path.empty()) {
    std::ofstream out(cmd->json_path, std::ios::binary | std::ios::trunc);
    out << json;
    if (!out) {
      std::fprintf(stderr, "hail search: cannot write --json file %s\n",
                   quote(cmd->json_path).c_str());
      return kExitCouldNotRun;
    }
  }
  if (!cmd->html_path.empty() && !write_output_file("search", "--html", cmd->html_path,
                                                    render_search_html(context, result->verdict))) {
    return kExitCouldNotRun;
  }
  if (result->verdict.limited_by == SearchLimit::kHail) return kExitGeneratorLimited;
  return search_exit_code(result->verdict);
}

std::string search_usage() {
  return "Usage: hail search --slo EXPR [--slo EXPR ...] [search options] [run options] URL\n"
         "\n"
         "Finds the highest open-loop rate (or, with --by connections, the most connections)\n"
         "at which every --slo threshold holds: probes one run, level after level, on warm\n"
         "connections; brackets, bisects to --precision, calls a probe too close to a\n"
         "threshold inconclusive (and measures longer) rather than guessing, and confirms the\n"
         "answer with a longer probe. Stops with \"limited by hail\" when hail, not the\n"
         "server, was the limit.\n"
         "\n" +
         render_usage(std::span<const SearchFlag>(kSearchFlags), kLayout) +
         "\n"
         "Run options: every option of hail's own command line (hail --help: -c, -t, -H,\n"
         "--h2, --arrival, --max-connections, TLS, --urls, -s ...), except those the search\n"
         "sets itself: -n, -d, -R, --stages, --ladder, --step-duration, --repeat, --warmup,\n"
         "--interval, --slo-abort, --junit, --hlog, --timeseries.\n"
         "\n"
         "Exit status: 0 a level met every threshold, 99 none did, 98 hail itself was the\n"
         "limit, 1 hail could not run, 2 a usage error.\n";
}

std::vector<FlagName> search_own_flag_names() {
  return flag_names(std::span<const SearchFlag>(kSearchFlags));
}

std::vector<FlagName> search_flag_names() {
  std::vector<FlagName> names = search_own_flag_names();
  for (FlagName& n : native_flag_names()) {
    bool skip = false;
    for (const char* r : kRefused) skip = skip || n.name == r;
    if (!skip && n.name != "--json") names.push_back(n);
  }
  return names;
}

}  // namespace hail
