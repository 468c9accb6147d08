// --slo, --slo-abort and --junit for every command that runs a load (the native front-end and the
// wrk, ab and webbench ones): the flags' checks, and what they add to a run's outputs. Owner: cli.
// Pure apart from what run_and_report later does with the outputs; any thread.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/run_command.h"
#include "core/result.h"
#include "stats/run_result.h"

namespace hail {

struct VerdictFlags {
  std::vector<std::string> slo;  // --slo thresholds, parsed once already (their text)
  bool slo_abort = false;
  std::string junit_path;  // empty: none
};

// --slo EXPR: checked now, so that a typo fails at once with the expression's own message, which
// names the flag as spelled.
Status add_slo_flag(VerdictFlags& flags, std::string_view spelled, std::string_view value);
Status set_junit_flag(VerdictFlags& flags, std::string_view value);
// Once every flag is read: --slo-abort and --junit need a threshold.
Status check_verdict_flags(const VerdictFlags& flags);

// The thresholds, --slo-abort and the JUnit file added to a run's outputs.
void add_verdict_outputs(const VerdictFlags& flags, OutputOptions& output);

// A front-end's own report (wrk's, webbench's) followed by the threshold table when the run had
// thresholds; the native report prints that table itself.
std::function<std::string(const RunResult&)> followed_by_verdicts(
    std::function<std::string(const RunResult&)> render);
// The verdict table alone ("" without thresholds).
std::string verdicts_text(const RunResult& result);

}  // namespace hail
