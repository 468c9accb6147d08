#include "cli/compare_command.h"

#include <charconv>
#include <cstdio>
#include <span>
#include <utility>

#include "cli/flag_values.h"
#include "cli/result_commands.h"
#include "cli/run_command.h"
#include "report/compare_report.h"
#include "report/html_report.h"
#include "report/json_reader.h"

namespace hail {

namespace {

using CompareFlag = FlagDef<CompareCommand, Status>;

Result<uint64_t> whole_number(const ParsedFlag& f, uint64_t at_least) {
  uint64_t v = 0;
  const char* end = f.value.data() + f.value.size();
  const auto [ptr, ec] = std::from_chars(f.value.data(), end, v);
  if (f.value.empty() || ec != std::errc() || ptr != end || v < at_least) {
    return make_error(f.spelled + ": expected a whole number of at least " +
                      std::to_string(at_least) + ", got " + quote(f.value));
  }
  return v;
}

Status add_base(CompareCommand& c, const ParsedFlag& f) {
  c.base.push_back(f.value);
  return ok_status();
}

Status add_candidate(CompareCommand& c, const ParsedFlag& f) {
  c.candidate.push_back(f.value);
  return ok_status();
}

Status set_tolerance(CompareCommand& c, const ParsedFlag& f) {
  auto t = parse_tolerances(f.value);
  if (!t) return t.error();
  for (const auto& [name, margin] : t.value()) c.options.tolerances[name] = margin;
  return ok_status();
}

Status set_force(CompareCommand& c, const ParsedFlag&) {
  c.force = true;
  return ok_status();
}

Status set_json(CompareCommand& c, const ParsedFlag& f) {
  if (f.value.empty()) return make_error("--json needs a file name or \"-\"");
  c.json_path = f.value;
  return ok_status();
}

Status set_html(CompareCommand& c, const ParsedFlag& f) {
  if (f.value.empty()) return make_error("--html needs a file name");
  if (f.value == "-") return make_error("--html writes a file, not stdout: name one");
  c.html_path = f.value;
  return ok_status();
}

Status set_seed(CompareCommand& c, const ParsedFlag& f) {
  auto v = whole_number(f, 0);
  if (!v) return v.error();
  c.options.seed = v.value();
  return ok_status();
}

Status set_resamples(CompareCommand& c, const ParsedFlag& f) {
  auto v = whole_number(f, 100);
  if (!v) return v.error();
  if (v.value() > 1000000) return make_error(f.spelled + ": at most 1000000 resamples");
  c.options.resamples = v.value();
  return ok_status();
}

Status set_block(CompareCommand& c, const ParsedFlag& f) {
  auto v = whole_number(f, 1);
  if (!v) return v.error();
  c.options.block_windows = v.value();
  return ok_status();
}

// Fields: short name, long name, value name, handler, help.
constexpr CompareFlag kCompareFlags[] = {
    {"", "base", "FILE...", add_base,
     "the base runs (with --candidate: repeated runs, one value per run)"},
    {"", "candidate", "FILE...", add_candidate, "the candidate runs"},
    {"", "tolerance", "LIST", set_tolerance,
     "margins of equivalence, METRIC=MARGIN[,...]: p99=5%,rps=3%,\nerror_rate=0.1% (percentage "
     "points); defaults in README"},
    {"", "force", nullptr, set_force, "compare runs that offered different loads"},
    {"", "json", "FILE|-", set_json,
     "write the comparison as JSON to FILE (\"-\": to stdout instead of the\ntext)"},
    {"", "html", "FILE", set_html,
     "a self-contained HTML page: the runs' spectra overlaid and each\npercentile's change with "
     "its interval"},
    {"", "seed", "N", set_seed, "the bootstrap's random seed (default 1: reproducible output)"},
    {"", "resamples", "N", set_resamples, "bootstrap resamples (default 2000, at least 100)"},
    {"", "block", "N", set_block,
     "windows per bootstrap block (default: the cube root of the windows)"},
};

constexpr UsageLayout kLayout{SyntaxStyle::kServe, 2, 24, 1};

// --base and --candidate take every following word up to the next flag; the rest goes to the
// flag table.
std::vector<std::string> take_file_lists(const std::vector<std::string>& args, CompareCommand& c) {
  std::vector<std::string> rest;
  std::vector<std::string>* side = nullptr;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      rest.insert(rest.end(), args.begin() + static_cast<long>(i), args.end());
      break;
    }
    if (a == "--base" || a == "--candidate") {
      side = a == "--base" ? &c.base : &c.candidate;
    } else if (a.starts_with("--base=") || a.starts_with("--candidate=")) {
      side = a.starts_with("--base=") ? &c.base : &c.candidate;
      side->push_back(a.substr(a.find('=') + 1));
    } else if (a.size() > 1 && a[0] == '-') {
      side = nullptr;
      rest.push_back(a);
    } else if (side != nullptr) {
      side->push_back(a);
    } else {
      rest.push_back(a);
    }
  }
  return rest;
}

Result<RunResult> read_run(const std::string& path) {
  auto text = read_whole_file(path);
  if (!text) return make_error("cannot read " + quote(path) + ": " + text.error().message);
  auto run = read_result_json(text.value());
  if (!run) return make_error(path + ": " + run.error().message);
  return run;
}

}  // namespace

Result<CompareCommand> parse_compare_flags(const std::vector<std::string>& args) {
  CompareCommand c;
  const std::vector<std::string> rest = take_file_lists(args, c);
  const std::span<const CompareFlag> table(kCompareFlags);
  auto parsed = parse_args(flag_specs(table), rest);
  if (!parsed) return make_error(parsed.error().message + " for hail compare");
  for (const ParsedFlag& f : parsed->flags) {
    if (Status st = table[static_cast<size_t>(f.id)].apply(c, f); !st) return st.error();
  }
  std::vector<std::string> positionals = parsed->positionals;
  for (const std::string& word : parsed->after_dashes) positionals.push_back(word);
  if (!c.base.empty() || !c.candidate.empty()) {
    if (!positionals.empty()) {
      return make_error("unexpected argument " + quote(positionals.front()) +
                        " (with --base and --candidate, name every file after one of them)");
    }
    if (c.base.empty()) return make_error("--candidate without --base (try hail compare --help)");
    if (c.candidate.empty()) {
      return make_error("--base without --candidate (try hail compare --help)");
    }
    return c;
  }
  if (positionals.size() != 2) {
    return make_error(positionals.size() < 2
                          ? "missing BASE.json and CANDIDATE.json (try hail compare --help)"
                          : "unexpected argument " + quote(positionals[2]) +
                                " (two runs; repeated runs go after --base and --candidate)");
  }
  c.base.push_back(positionals[0]);
  c.candidate.push_back(positionals[1]);
  return c;
}

int run_compare_command(const std::vector<std::string>& args) {
  if (asks_for_help(args)) {
    std::fputs(compare_usage().c_str(), stdout);
    return kExitOk;
  }
  auto cmd = parse_compare_flags(args);
  if (!cmd) {
    std::fprintf(stderr, "hail compare: %s\n", cmd.error().message.c_str());
    return kExitUsage;
  }
  std::vector<RunResult> base, candidate;
  for (auto [paths, runs] :
       {std::pair{&cmd->base, &base}, std::pair{&cmd->candidate, &candidate}}) {
    for (const std::string& path : *paths) {
      auto run = read_run(path);
      if (!run) {
        std::fprintf(stderr, "hail compare: %s\n", run.error().message.c_str());
        return kExitUsage;
      }
      runs->push_back(std::move(run.value()));
    }
  }
  // Every run against the first base run: latency means nothing across different loads.
  if (!cmd->force) {
    for (auto [paths, runs] :
         {std::pair{&cmd->base, &base}, std::pair{&cmd->candidate, &candidate}}) {
      for (size_t i = 0; i < runs->size(); ++i) {
        const std::string diff = load_difference(base.front(), (*runs)[i]);
        if (diff.empty()) continue;
        std::fprintf(stderr,
                     "hail compare: %s and %s offered different loads: %s (--force compares "
                     "anyway)\n",
                     cmd->base.front().c_str(), (*paths)[i].c_str(), diff.c_str());
        return kExitUsage;
      }
    }
  }
  const bool single = base.size() == 1 && candidate.size() == 1;
  auto comparison = single ? compare_single(base.front(), candidate.front(), cmd->options)
                           : compare_repeated(base, candidate, cmd->options);
  if (!comparison) {
    std::fprintf(stderr, "hail compare: %s\n", comparison.error().message.c_str());
    return kExitUsage;
  }
  // Runs disturbed by the generator or the machine: said, not hidden (the verdicts stand).
  for (auto [paths, runs] :
       {std::pair{&cmd->base, &base}, std::pair{&cmd->candidate, &candidate}}) {
    for (size_t i = 0; i < runs->size(); ++i) {
      for (std::string& note : run_health_notes((*runs)[i], (*paths)[i])) {
        comparison->notes.push_back(std::move(note));
      }
    }
  }
  const CompareInputs inputs{cmd->base, cmd->candidate};
  const std::string text = render_compare_text(comparison.value(), inputs);
  std::fputs(cmd->json_path == "-" ? render_compare_json(comparison.value(), inputs).c_str()
                                   : text.c_str(),
             stdout);
  std::fflush(stdout);
  if (!cmd->json_path.empty() && cmd->json_path != "-" &&
      !write_output_file("compare", "--json", cmd->json_path,
                         render_compare_json(comparison.value(), inputs))) {
    return kExitCouldNotRun;
  }
  if (!cmd->html_path.empty() &&
      !write_output_file("compare", "--html", cmd->html_path,
                         render_compare_html(comparison.value(), base, candidate, text))) {
    return kExitCouldNotRun;
  }
  return comparison->any_regressed() ? kExitRegressed : kExitOk;
}

std::string compare_usage() {
  return "Usage: hail compare [options] BASE.json CANDIDATE.json\n"
         "       hail compare [options] --base A1.json A2.json ... --candidate B1.json ...\n"
         "\n"
         "Did it get faster or slower? Compares runs saved with --json on latency (p50 p90 p99\n"
         "p99.9 mean max; service time and lag in rate mode), requests/s and error rate, each\n"
         "with an interval and a verdict: improved, regressed, same (within the margin) or\n"
         "inconclusive. Single runs: a moving-block bootstrap over their --interval windows\n"
         "(at least 10 measured windows each). Repeated runs: one value per run, medians and\n"
         "Mann-Whitney U (at least 4 runs a side to reach significance at 5 %).\n"
         "\n"
         "Options:\n" +
         render_usage(std::span<const CompareFlag>(kCompareFlags), kLayout) +
         "\n"
         "Exit status: 0 compared and nothing regressed, 1 an output could not be written,\n"
         "2 a usage error or inputs refused (unreadable, different loads, too few windows),\n"
         "3 at least one metric regressed.\n";
}

std::vector<FlagName> compare_flag_names() {
  return flag_names(std::span<const CompareFlag>(kCompareFlags));
}

}  // namespace hail
