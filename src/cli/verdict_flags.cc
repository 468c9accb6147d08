#include "cli/verdict_flags.h"

#include <utility>

#include "analysis/run_verdicts.h"
#include "analysis/slo_expr.h"
#include "report/verdict_report.h"

namespace hail {

Status add_slo_flag(VerdictFlags& flags, std::string_view spelled, std::string_view value) {
  auto threshold = parse_slo(value);
  if (!threshold) return make_error(std::string(spelled) + " " + threshold.error().message);
  flags.slo.push_back(threshold->text);
  return ok_status();
}

Status set_junit_flag(VerdictFlags& flags, std::string_view value) {
  if (value.empty() || value == "-") return make_error("--junit needs a file name");
  flags.junit_path = std::string(value);
  return ok_status();
}

Status check_verdict_flags(const VerdictFlags& flags) {
  if (flags.slo_abort && flags.slo.empty()) {
    return make_error("--slo-abort needs at least one --slo");
  }
  if (!flags.junit_path.empty() && flags.slo.empty()) {
    return make_error("--junit needs at least one --slo (its test cases are the thresholds)");
  }
  return ok_status();
}

void add_verdict_outputs(const VerdictFlags& flags, OutputOptions& output) {
  if (!flags.junit_path.empty())
    output.files.push_back({flags.junit_path, "--junit", render_junit});
  output.slo = flags.slo;
  output.slo_abort = flags.slo_abort;
}

std::string verdicts_text(const RunResult& result) {
  if (result.slo.empty()) return {};
  return "\n" + render_verdicts_text(result, judge_run(result));
}

std::function<std::string(const RunResult&)> followed_by_verdicts(
    std::function<std::string(const RunResult&)> render) {
  return [render = std::move(render)](const RunResult& r) { return render(r) + verdicts_text(r); };
}

}  // namespace hail
