// JSON report (schema "hail/1"): the whole RunResult as one versioned object, documented in the
// README. Pure function of the result; any thread.
#pragma once

#include <string>

#include "stats/run_result.h"

namespace hail {

inline constexpr const char* kJsonSchema = "hail/1";

std::string render_json_report(const RunResult& result);

}  // namespace hail
