// `hail search`: the highest open-loop rate (or number of connections) at which every --slo
// threshold holds, found by probing one live run level after level (cli/search_driver.h, the
// decisions in analysis/search_controller.h). Its own flags, then every run flag of hail's
// native command line. Owner: cli. Main thread.
#pragma once

#include <string>
#include <vector>

#include "cli/flag_table.h"
#include "cli/search_driver.h"
#include "core/result.h"

namespace hail {

struct SearchCommand {
  SearchPlan plan;
  std::vector<std::string> slo;  // as written
  std::string json_path;         // empty: none; "-": the JSON on stdout instead of the text
  std::string html_path;         // empty: none
  bool quiet = false;
  bool show_help = false;
};

// `args` are the words after "search".
Result<SearchCommand> parse_search_flags(const std::vector<std::string>& args);
int run_search_command(const std::vector<std::string>& args);

std::string search_usage();
// The search's own flags and every native run flag it accepts, for the docs and completions.
std::vector<FlagName> search_flag_names();
// The search's own flags only (the README's synopsis).
std::vector<FlagName> search_own_flag_names();

}  // namespace hail
