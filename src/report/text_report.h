// Text report: the human-readable summary on stdout, wrk-like, readable in 80 columns, with the
// percentile table, status codes, errors by class and the accounting line. Pure function of the
// result; any thread.
#pragma once

#include <string>
#include <string_view>

#include "stats/run_result.h"

namespace hail {

std::string render_text_report(const RunResult& result);
// The same, naming another hail version in its first line (a saved run re-rendered by hail
// report says which version made it, as the run itself did).
std::string render_text_report(const RunResult& result, std::string_view hail_version);

}  // namespace hail
