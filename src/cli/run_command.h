// Front-end plumbing shared by every command that runs a load: signal handling (SIGINT/SIGTERM stop
// the run and still report), the live progress line, the report on stdout and the list of output
// files, and the exit status. Owner: cli. Main thread only.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/metrics_server.h"
#include "core/result.h"
#include "load/run_options.h"
#include "load/runner.h"
#include "stats/run_result.h"

namespace hail {

// One file the run's result is written to: a new output (HTML, JUnit, metrics) is one renderer
// and one entry. Files are opened before the run, so that a bad path fails in a second, not after
// it, and left as they were when the run does not happen.
struct Output {
  std::string path;
  const char* flag;  // the flag that named the file, for messages ("--json")
  std::function<std::string(const RunResult&)> render;
};

struct OutputOptions {
  bool progress = false;  // live line on stderr (only when stderr is a terminal)
  // Front-ends in another tool's clothes (wrk): printed on stdout before the run starts.
  std::string banner;
  // The report on stdout (default: render_text_report). A script's done() output follows it, as
  // in wrk.
  std::function<std::string(const RunResult&)> render_text;
  // stdout carries a document to be parsed (--json -): what a script prints goes to stderr.
  bool stdout_is_data = false;
  std::vector<Output> files;  // written in this order after the report
  // --slo thresholds (parsed already: analysis/slo_expr.h), stamped on the result before its
  // reports; with slo_abort the run stops as soon as one can no longer pass.
  std::vector<std::string> slo;
  bool slo_abort = false;
  // --metrics-listen: live metrics served while the run goes on (it needs the --interval series:
  // the front-end keeps one), then for metrics_linger_ns after the report.
  std::optional<MetricsListen> metrics_listen;
  uint64_t metrics_linger_ns = 0;
};

// Exit statuses shared by all front-ends.
inline constexpr int kExitOk = 0;
inline constexpr int kExitCouldNotRun = 1;
inline constexpr int kExitUsage = 2;
// A run with --slo: hail itself was the limit (generator health), so the thresholds could not be
// judged; and a threshold failed (k6's status, so CI scripts carry over).
inline constexpr int kExitGeneratorLimited = 98;
inline constexpr int kExitSloFailed = 99;

// Blocks SIGINT and SIGTERM in the calling thread (and so in every thread it starts later), so that
// the runner's tick can collect them synchronously.
void block_stop_signals();

// With the stop signals blocked: has SIGINT or SIGTERM arrived since? (Consumes it.)
bool stop_signal_pending();

// Runs the load and prints the reports; returns the process exit status.
int run_and_report(const RunOptions& options, const OutputOptions& output);

// The run itself, for front-ends that print their own reports (ab): polls `tick` (true stops the
// run), stops early under output.slo_abort when a threshold can no longer pass, and stamps the
// thresholds and that reason on the result. Errors: the run could not start.
Result<RunResult> run_judged(const RunOptions& options, const OutputOptions& output,
                             const TickFn& tick, std::unique_ptr<ScriptRun>* script = nullptr);

// Exit status for a finished run: 1 when nothing could be done (no connection ever opened); with
// thresholds, 98 when hail was the limit, else 99 when one failed.
int exit_status_for(const RunResult& result);

}  // namespace hail
