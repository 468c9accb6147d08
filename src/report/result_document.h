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

// One shard among a merge's inputs (report/shard_merge.h).
struct ShardInput {
  uint32_t index = 0;
  std::string file;            // as named on hail merge's command line
  uint64_t start_unix_ns = 0;  // when its load really started: start_at + late with --start-at
  uint64_t late_ns = 0;        // after --start-at (0 without it)
  uint64_t duration_ns = 0;
  bool interrupted = false;
};

// A merge of execution shards: which of the test's shards it holds, what share of the whole
// test's load the missing ones would have offered, and how far apart the shards started.
struct ShardSummary {
  uint32_t count = 0;             // shards in the test (N)
  std::vector<uint32_t> present;  // indices merged, ascending
  std::vector<uint32_t> missing;  // indices 0..N-1 not among the inputs, ascending
  // The missing shards' part of the whole test: share (0..1), amount and whole in `unit`
  // ("requests" for -n, "req/s" for -R, "connections" for a closed loop, "shards" when the
  // inputs do not say the whole test's load).
  double not_offered_share = 0;
  double not_offered_amount = 0;
  double whole_amount = 0;
  std::string unit;
  uint64_t start_skew_ns = 0;      // latest actual start - earliest
  bool start_at = false;           // the shards were given --start-at
  std::vector<ShardInput> inputs;  // in input order
};

struct ResultDocument {
  RunResult result;
  std::string version;  // hail's version that wrote (or merged) the result
  std::optional<MergeSummary> merge;
  std::optional<ShardSummary> shards = std::nullopt;  // hail merge of shards of one test
};

}  // namespace hail
