// A saved run as the JSON report holds it (hail/2): the RunResult, the hail version that wrote it
// and, for `hail merge`'s output, what was merged. What the reader returns and the writer takes.
// Owner: report. Plain values: any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stats/run_result.h"

namespace hail {

// One input of a merge, as the merged document lists it.
struct MergedInput {
  std::string file;  // as named on hail merge's command line
  uint64_t start_unix_ns = 0;
  uint64_t warmup_ns = 0;
  uint64_t duration_ns = 0;
  uint64_t measured_start_unix_ns() const { return start_unix_ns + warmup_ns; }
  uint64_t measured_end_unix_ns() const { return start_unix_ns + warmup_ns + duration_ns; }
};

// How the merged runs lay in time. The merged result's duration_ns is measured_union_ns.
struct MergeSummary {
  std::vector<MergedInput> inputs;
  uint64_t start_spread_ns = 0;    // latest load start - earliest load start
  uint64_t end_spread_ns = 0;      // latest measured end - earliest measured end
  uint64_t measured_union_ns = 0;  // length of the union of the measured intervals
};

struct ResultDocument {
  RunResult result;
  std::string version;  // hail's version that wrote (or merged) the result
  std::optional<MergeSummary> merge;
};

}  // namespace hail
