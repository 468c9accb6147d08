// Time-series files (--timeseries FILE): the --interval windows of a RunResult as CSV or JSON
// Lines, one row per window, plus the row writer the JSON report shares for its "timeseries" array.
// Pure functions of the result; any thread.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"
#include "stats/run_result.h"

namespace hail {

class JsonWriter;

enum class TimeseriesFormat { kCsv, kJsonLines };

// By extension: .csv -> CSV; .jsonl, .ndjson, .json -> JSON Lines; anything else is an error.
Result<TimeseriesFormat> timeseries_format_for_path(std::string_view path);

// One row per element of result.intervals (warm-up windows included and marked). CSV starts with a
// header row; both end every row with '\n'.
std::string render_timeseries_csv(const RunResult& result);
std::string render_timeseries_jsonl(const RunResult& result);

// One interval of `result` as a JSON object (array element): a JSON Lines row, or an element of the
// JSON report's "timeseries" array.
void write_interval_json(JsonWriter& j, const RunResult& result, const WindowStats& w);

}  // namespace hail
