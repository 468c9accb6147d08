// `hail report RESULT.json` (a saved run's reports again) and `hail merge A.json B.json ...`
// (saved runs combined exactly), each through its flag table. Exit statuses: 0 done, 1 an output
// could not be written, 2 a usage error or an input refused (one line). Owner: cli. Main thread.
#pragma once

#include <string>
#include <vector>

#include "cli/flag_table.h"
#include "core/result.h"

namespace hail {

struct ResultCommand {
  std::vector<std::string> inputs;  // report: exactly one; merge: at least one
  std::string json_path;            // empty: none; "-": the JSON on stdout instead of the text
  std::string hlog_path;            // empty: none
  std::string html_path;            // empty: none
};

// `args` are the words after "report" / "merge" (-h/--help is the caller's to handle).
Result<ResultCommand> parse_report_flags(const std::vector<std::string>& args);
Result<ResultCommand> parse_merge_flags(const std::vector<std::string>& args);

int run_report_command(const std::vector<std::string>& args);
int run_merge_command(const std::vector<std::string>& args);

// Shared by the commands that read saved results (report, merge, compare): whether -h/--help is
// among the words before "--" (the caller prints its usage text), and writing an output file,
// with one line on stderr ("hail COMMAND: cannot write FLAG file PATH: reason") when it fails.
bool asks_for_help(const std::vector<std::string>& args);
bool write_output_file(const char* command, const char* flag, const std::string& path,
                       const std::string& text);

// Usage texts, rendered from the flag tables, and the tables' flags for the README test.
std::string report_usage();
std::string merge_usage();
std::vector<FlagName> report_flag_names();
std::vector<FlagName> merge_flag_names();

}  // namespace hail
