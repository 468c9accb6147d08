// The HTML report (--html FILE, and `hail report --html`): one self-contained page (inline style,
// scripts and data; a Content-Security-Policy that forbids every request) drawing the run's windows
// with the vendored uPlot (third_party/uplot) and showing the text report beneath. Owner: report.
// Pure; any thread.
#pragma once

#include <span>
#include <string>

#include "analysis/compare_runs.h"
#include "report/search_report.h"
#include "stats/run_result.h"

namespace hail {

std::string render_html_report(const RunResult& result);

// `hail compare --html`: the runs' spectra overlaid and the shift plot (each percentile's change
// with its interval and tolerance), above the comparison's text table `text`.
std::string render_compare_html(const Comparison& comparison, std::span<const RunResult> base,
                                std::span<const RunResult> candidate, const std::string& text);

// `hail search --html`: the knee of the probes (achieved and latency against each level, pass and
// fail marks) and the answer, above the search's text report.
std::string render_search_html(const SearchContext& context, const SearchVerdict& verdict);

}  // namespace hail
