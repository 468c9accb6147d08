// `hail compare BASE.json CANDIDATE.json` and `hail compare --base A1.json ... --candidate
// B1.json ...`: reads saved runs, checks they offered the same load, compares them
// (analysis/compare_runs.h) and prints the table or the JSON. Exit statuses: 0 compared and
// nothing regressed, 1 an output could not be written, 2 a usage error or inputs refused (one
// line), 3 some metric regressed. Owner: cli. Main thread.
#pragma once

#include <string>
#include <vector>

#include "analysis/compare_runs.h"
#include "cli/flag_table.h"
#include "core/result.h"

namespace hail {

// A CI gate's status: the comparison ran and at least one metric regressed.
inline constexpr int kExitRegressed = 3;

struct CompareCommand {
  std::vector<std::string> base;
  std::vector<std::string> candidate;
  std::string json_path;  // empty: none; "-": the JSON on stdout instead of the text
  std::string html_path;  // empty: none
  bool force = false;     // compare runs that offered different loads
  CompareOptions options;
};

// `args` are the words after "compare" (-h/--help is the caller's to handle).
Result<CompareCommand> parse_compare_flags(const std::vector<std::string>& args);

int run_compare_command(const std::vector<std::string>& args);

std::string compare_usage();
std::vector<FlagName> compare_flag_names();

}  // namespace hail
