#include "report/json_shard.h"

#include <limits>
#include <string>

#include "core/units.h"
#include "report/json_writer.h"

namespace hail {

namespace {

constexpr uint64_t kMaxUnixNs = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

double seconds(uint64_t ns) {
  return static_cast<double>(ns) / 1e9;
}
double ms(uint64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

std::vector<uint32_t> read_indices(const JsonNode& list) {
  std::vector<uint32_t> out;
  for (size_t i = 0, n = list.array_size(); i < n; ++i) out.push_back(list.element(i).u32());
  return out;
}

}  // namespace

void write_shard_fields(JsonWriter& j, const RunResult& r) {
  if (is_shard(r)) {
    j.begin_object("shard");
    j.value("index", r.shard_index);
    j.value("count", r.shard_count);
    j.value("source", r.shard_source);
    j.begin_object("whole");
    j.value("connections", r.whole_connections);
    j.value("requests", r.whole_requests);
    j.exact("rate_per_s", r.whole_rate_per_s);
    j.end_object();
    j.end_object();
  }
  if (!r.run_id.empty()) j.value("run_id", r.run_id);
  if (r.start_at_unix_ns != 0) {
    j.value("start_at_unix_s", seconds(r.start_at_unix_ns));
    j.value("start_late_ms", ms(r.start_late_ns));
    j.value("start_at_unix_ns", r.start_at_unix_ns);
    j.value("start_late_ns", r.start_late_ns);
  }
}

void read_shard_fields(const JsonNode& doc, RunResult& r) {
  if (std::optional<JsonNode> shard = doc.find("shard")) {
    const JsonNode count = shard->at("count");
    r.shard_count = count.u32();
    if (r.shard_count == 0) count.fail("a test has at least one shard");
    const JsonNode index = shard->at("index");
    r.shard_index = index.u32();
    if (r.shard_index >= r.shard_count) {
      index.fail("shard " + std::to_string(r.shard_index) + " of " + std::to_string(r.shard_count) +
                 " (indices run from 0 to count - 1)");
    }
    r.shard_source = shard->string("source");
    const JsonNode whole = shard->at("whole");
    r.whole_connections = whole.u32("connections");
    r.whole_requests = whole.u64("requests");
    r.whole_rate_per_s = whole.at("rate_per_s").finite_number();
  }
  if (std::optional<JsonNode> id = doc.find("run_id")) r.run_id = id->string();
  if (std::optional<JsonNode> at = doc.find("start_at_unix_ns")) {
    r.start_at_unix_ns = at->u64_at_most(kMaxUnixNs);
    r.start_late_ns = doc.at("start_late_ns").u64_at_most(kMaxDurationNs);
  }
}

void write_shards_json(JsonWriter& j, const ShardSummary& s) {
  j.begin_object("shards");
  j.value("count", s.count);
  j.begin_array("present");
  for (uint32_t i : s.present) j.element(uint64_t{i});
  j.end_array();
  j.begin_array("missing");
  for (uint32_t i : s.missing) j.element(uint64_t{i});
  j.end_array();
  j.exact("not_offered_share", s.not_offered_share);
  j.begin_object("not_offered");
  j.exact("amount", s.not_offered_amount);
  j.exact("whole", s.whole_amount);
  j.value("unit", s.unit);
  j.end_object();
  j.value("start_skew_ms", ms(s.start_skew_ns));
  j.value("start_skew_ns", s.start_skew_ns);
  j.value("start_at", s.start_at);
  j.begin_array("inputs");
  for (const ShardInput& in : s.inputs) {
    j.begin_object();
    j.value("index", in.index);
    j.value("file", in.file);
    j.value("start_unix_s", seconds(in.start_unix_ns));
    j.value("late_ms", ms(in.late_ns));
    j.value("duration_s", seconds(in.duration_ns));
    j.value("interrupted", in.interrupted);
    j.value("start_unix_ns", in.start_unix_ns);
    j.value("late_ns", in.late_ns);
    j.value("duration_ns", in.duration_ns);
    j.end_object();
  }
  j.end_array();
  j.end_object();
}

ShardSummary read_shards_json(const JsonNode& node) {
  ShardSummary s;
  s.count = node.u32("count");
  s.present = read_indices(node.at("present"));
  s.missing = read_indices(node.at("missing"));
  s.not_offered_share = node.at("not_offered_share").finite_number();
  const JsonNode not_offered = node.at("not_offered");
  s.not_offered_amount = not_offered.at("amount").finite_number();
  s.whole_amount = not_offered.at("whole").finite_number();
  s.unit = not_offered.string("unit");
  s.start_skew_ns = node.u64("start_skew_ns");
  s.start_at = node.boolean("start_at");
  const JsonNode inputs = node.at("inputs");
  for (size_t i = 0, n = inputs.array_size(); i < n; ++i) {
    const JsonNode in = inputs.element(i);
    s.inputs.push_back(ShardInput{
        in.u32("index"), in.string("file"), in.at("start_unix_ns").u64_at_most(kMaxUnixNs),
        in.at("late_ns").u64_at_most(kMaxDurationNs),
        in.at("duration_ns").u64_at_most(kMaxDurationNs), in.boolean("interrupted")});
  }
  return s;
}

}  // namespace hail
