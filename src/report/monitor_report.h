// The --monitor sections of the reports: the JSON's "monitors" array (each source's metrics,
// events, summary and windows) and "server_verdicts" object, the text report's server lines and
// verdicts, and the columns --timeseries adds per monitor metric. Pure functions of the result:
// any thread.
#pragma once

#include <string>

#include "report/json_writer.h"
#include "stats/run_result.h"

namespace hail {

// "monitors" and "server_verdicts" as members of the open object; nothing without monitors.
void write_monitors_json(JsonWriter& j, const RunResult& result);

// The text lines (empty without monitors), each ending with '\n'.
std::string render_monitors_text(const RunResult& result);

// The row of monitor `m` for the interval that ends at end_ns (the sample taken at that
// boundary, within half an interval), or null.
const MonitorWindow* monitor_window_at(const MonitorSeries& m, uint64_t end_ns,
                                       uint64_t interval_ns);

// A column name for the time-series files: "<source>.<metric>" with every byte outside
// [A-Za-z0-9_] of the source as '_' ("name_nginx.cpu_core_pct", "host.load1").
std::string monitor_column(const MonitorSeries& m, const std::string& metric);

}  // namespace hail
