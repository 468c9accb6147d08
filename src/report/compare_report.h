// Renders a `hail compare` Comparison (analysis/compare_runs.h): the text table (metric, base,
// candidate, change, interval, verdict) and the JSON document ("comparison": {"metrics": [...]}).
// Owner: report. Pure: any thread.
#pragma once

#include <string>
#include <vector>

#include "analysis/compare_runs.h"

namespace hail {

// The files each side was read from, for the header and the JSON.
struct CompareInputs {
  std::vector<std::string> base;
  std::vector<std::string> candidate;
};

std::string render_compare_text(const Comparison& comparison, const CompareInputs& inputs);
std::string render_compare_json(const Comparison& comparison, const CompareInputs& inputs);

}  // namespace hail
