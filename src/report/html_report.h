// The HTML report (--html FILE, and `hail report --html`): one self-contained page (inline style,
// scripts and data; a Content-Security-Policy that forbids every request) drawing the run's windows
// with the vendored uPlot (third_party/uplot) and showing the text report beneath. Owner: report.
// Pure; any thread.
#pragma once

#include <string>

#include "stats/run_result.h"

namespace hail {

std::string render_html_report(const RunResult& result);

}  // namespace hail
