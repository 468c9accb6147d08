// The native front-end: `hail [options] URL` through its flag table (native_table.h) into one
// RunOptions plus output choices; errors are one line naming the flag and value (the caller
// prints them and exits 2). Owner: cli. Pure apart from reading --body-file and --urls and a
// throw-away TLS context that checks --ciphers; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/flag_table.h"
#include "cli/metrics_server.h"
#include "cli/run_command.h"
#include "cli/verdict_flags.h"
#include "core/result.h"
#include "load/run_options.h"

namespace hail {

struct NativeCommand {
  RunOptions run;
  std::string json_path;        // empty: no JSON; "-": JSON on stdout instead of the text report
  std::string timeseries_path;  // empty: none; CSV or JSON Lines by extension
  std::string html_path;        // empty: none; the HTML report (report/html_report.h)
  std::string hlog_path;        // empty: none; an HdrHistogram interval log (report/hlog_writer.h)
  // --metrics-listen (none: no metrics served) and --metrics-linger.
  std::optional<MetricsListen> metrics_listen;
  uint64_t metrics_linger_ns = 0;
  VerdictFlags verdict;  // --slo, --slo-abort, --junit
  bool quiet = false;
  bool show_help = false;
  bool show_version = false;
};

Result<NativeCommand> parse_native_flags(const std::vector<std::string>& args);
// `hail --help`, rendered from the flag table.
std::string native_usage();
// Every flag of the table, for the test that checks README's flag table.
std::vector<FlagName> native_flag_names();
// Where the run's reports go: the text report (or the JSON one, with --json -) on stdout, and one
// output file per --json FILE, --timeseries FILE and --hlog FILE.
OutputOptions native_outputs(const NativeCommand& cmd);

}  // namespace hail
