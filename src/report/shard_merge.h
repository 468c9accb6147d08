// hail merge of execution shards: that the inputs are shards of one test, which shards are
// missing and what share of the whole test's load they would have offered, which were
// interrupted, and how far apart the shards started. Owner: report. Pure: any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "report/result_document.h"
#include "report/run_merge.h"
#include "stats/run_result.h"

namespace hail {

struct ShardCheck {
  ShardSummary summary;
  // One line each, naming the inputs: an input of another test (another shard count or run id,
  // or no shard at all), missing shards.
  std::vector<std::string> warnings;
  // For the merged result's notes: the start skew, missing shards, interrupted or short shards.
  std::vector<std::string> notes;
};

// nullopt when no input is a shard of a test of more than one shard. The test is the first such
// input's (its shard count, run id and whole load); inputs of another shard count are merged but
// not counted as its shards. Refuses, with one line naming both inputs, two inputs of the same
// shard index: that shard's load would count twice (a rerun's file left beside the first one).
Result<std::optional<ShardCheck>> check_shards(const std::vector<MergeInput>& inputs);

// The part of the whole test's load that the `missing` shards of `count` would have offered,
// from the reference shard's whole_* figures and the load layer's slicing (load/shard.h): with -n
// the missing shards' exact slice_share of whole_requests; with -R missing/count of the rate;
// in a closed loop their exact slice_share of whole_connections; without whole figures,
// missing/count of the shards.
struct NotOffered {
  double share = 0;
  double amount = 0;
  double whole = 0;
  std::string unit;
};
NotOffered not_offered_load(const RunResult& reference, uint32_t count,
                            const std::vector<uint32_t>& missing);

// "shards 1, 2 of 4 missing: 50.0% of the load was not offered (2000 of 4000 req/s)".
std::string missing_shards_text(uint32_t count, const std::vector<uint32_t>& missing,
                                const NotOffered& lost);

}  // namespace hail
