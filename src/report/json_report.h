// JSON report (schema "hail/2", docs/json-schema.md): the whole RunResult as one versioned object,
// hail/1's rounded summary followed by the exact data (json_exact.h) that json_reader.h reads back.
// Pure functions of the result; any thread.
#pragma once

#include <string>

#include "report/result_document.h"
#include "stats/run_result.h"

namespace hail {

inline constexpr const char* kJsonSchema = "hail/2";

// A run of this hail: render_json_document with this version and no merge summary.
std::string render_json_report(const RunResult& result);
std::string render_json_document(const ResultDocument& doc);

}  // namespace hail
