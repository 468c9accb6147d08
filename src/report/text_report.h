// Text report: the human-readable summary on stdout, wrk-like, readable in 80 columns, with the
// percentile table, status codes, errors by class and the accounting line. Pure function of the
// result; any thread.
#pragma once

#include <string>

#include "stats/run_result.h"

namespace hail {

std::string render_text_report(const RunResult& result);

}  // namespace hail
