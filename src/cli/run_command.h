// Front-end plumbing shared by every command that runs a load: signal handling (SIGINT/SIGTERM stop
// the run and still report), the live progress line, writing the text/JSON reports and choosing the
// exit status. Main thread only.
#pragma once

#include <functional>
#include <string>

#include "load/run_options.h"
#include "stats/run_result.h"

namespace hail {

struct OutputOptions {
  std::string json_path;        // empty: none; "-": JSON on stdout instead of the text report
  std::string timeseries_path;  // empty: none; CSV or JSON Lines by extension (--timeseries)
  bool progress = false;        // live line on stderr (only when stderr is a terminal)
  // Front-ends in another tool's clothes (wrk, ab): printed on stdout before the run starts, and
  // the text report's renderer (default: render_text_report). A script's done() output follows
  // the report, as in wrk.
  std::string banner;
  std::function<std::string(const RunResult&)> render_text;
};

// Exit statuses shared by all front-ends.
inline constexpr int kExitOk = 0;
inline constexpr int kExitCouldNotRun = 1;
inline constexpr int kExitUsage = 2;

// Blocks SIGINT and SIGTERM in the calling thread (and so in every thread it starts later), so that
// the runner's tick can collect them synchronously.
void block_stop_signals();

// With the stop signals blocked: has SIGINT or SIGTERM arrived since? (Consumes it.)
bool stop_signal_pending();

// Runs the load and prints the reports; returns the process exit status.
int run_and_report(const RunOptions& options, const OutputOptions& output);

// Exit status for a finished run: 1 when nothing could be done (no connection ever opened).
int exit_status_for(const RunResult& result);

}  // namespace hail
