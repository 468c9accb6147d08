// The JSON of execution shards: a shard's own fields ("shard", "run_id", "start_at_*") and a merge
// of shards' "shards" object, written and read back (absent in older files: the defaults).
// Owner: report. Pure: any thread.
#pragma once

#include "report/json_node.h"
#include "report/result_document.h"
#include "stats/run_result.h"

namespace hail {

class JsonWriter;

// Whether a result is one shard of a test (--shard, or a launcher's environment).
inline bool is_shard(const RunResult& r) {
  return r.shard_count > 1 || !r.shard_source.empty();
}

// "shard" (only for a shard), "run_id" (when set), "start_at_unix_s", "start_late_ms" and their
// exact "start_at_unix_ns", "start_late_ns" (only with --start-at).
void write_shard_fields(JsonWriter& j, const RunResult& r);
// The same keys back into `r`; missing keys leave the defaults. Throws JsonNode::Failure.
void read_shard_fields(const JsonNode& doc, RunResult& r);

// "shards": a merge of shards (see docs/json-schema.md).
void write_shards_json(JsonWriter& j, const ShardSummary& s);
ShardSummary read_shards_json(const JsonNode& node);

}  // namespace hail
