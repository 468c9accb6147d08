// hail merge of execution shards: the share of the load missing shards would have offered, exact
// for -n, -R and closed-loop connections (the load layer's slicing); the shards' start skew; inputs
// of another test warned about; a shard merged twice refused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "load/shard.h"
#include "report/json_reader.h"
#include "report/json_report.h"
#include "report/run_merge.h"
#include "report/shard_merge.h"
#include "report/text_report.h"

namespace hail {
namespace {

constexpr uint64_t kMs = 1'000'000;
constexpr uint64_t kSecond = 1'000'000'000;
constexpr uint64_t kT0 = 1'750'000'000 * kSecond;

// Shard `index` of `count` of a rate test of `whole_rate` req/s, 3 s long, started at kT0 + late.
RunResult shard(uint32_t index, uint32_t count, double whole_rate, uint64_t late_ns = 0) {
  RunResult r;
  r.url = "http://127.0.0.1:8080/";
  r.shard_index = index;
  r.shard_count = count;
  r.shard_source = "--shard";
  r.whole_rate_per_s = whole_rate;
  r.rate_target_per_s = whole_rate / count;
  r.whole_connections = 10;
  r.connections = static_cast<uint32_t>(slice_share(10, count, index));
  r.threads = 1;
  r.start_at_unix_ns = kT0;
  r.start_late_ns = late_ns;
  r.start_unix_ns = kT0 + late_ns;
  r.duration_ns = 3 * kSecond;
  r.duration_target_ns = 3 * kSecond;
  r.target_unit = "req/s";
  for (int i = 0; i < 100; ++i) r.latency.record(kMs);
  r.counters.completed = 100;
  r.counters.attempted = 100;
  r.status_codes[200] = 100;
  return r;
}

MergeInput input(RunResult r) {
  std::string name = "shard-" + std::to_string(r.shard_index) + ".json";
  return MergeInput{std::move(name), ResultDocument{std::move(r), "0.1.0", std::nullopt}};
}

bool has(const std::vector<std::string>& lines, const std::string& line) {
  for (const std::string& l : lines) {
    if (l == line) return true;
  }
  return false;
}

TEST(ShardMerge, MissingRateShareIsExact) {
  auto merged = merge_runs(
      {input(shard(0, 4, 4000)), input(shard(1, 4, 4000)), input(shard(3, 4, 4000))}, "0.1.0");
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  const std::string line =
      "shard 2 of 4 missing: 25.0% of the load was not offered (1000 of 4000 req/s)";
  EXPECT_TRUE(has(merged->warnings, line));
  EXPECT_TRUE(has(merged->merged.result.notes, line));
  ASSERT_TRUE(merged->merged.shards.has_value());
  const ShardSummary& s = *merged->merged.shards;
  EXPECT_EQ(s.count, 4u);
  EXPECT_EQ(s.present, (std::vector<uint32_t>{0, 1, 3}));
  EXPECT_EQ(s.missing, (std::vector<uint32_t>{2}));
  EXPECT_EQ(s.not_offered_share, 0.25);
  EXPECT_EQ(s.not_offered_amount, 1000.0);
  // The merge is the test's part that ran, not a shard: no "shard" key of its own.
  EXPECT_EQ(merged->merged.result.shard_count, 1u);
  EXPECT_EQ(merged->merged.result.rate_target_per_s, 3000.0);
  EXPECT_EQ(merged->merged.result.counters.completed, 300u);
  EXPECT_NE(render_text_report(merged->merged.result).find(line), std::string::npos);
  // The shards object survives the JSON.
  auto back = read_result_document(render_json_document(merged->merged));
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_TRUE(back->shards.has_value());
  EXPECT_EQ(back->shards->missing, (std::vector<uint32_t>{2}));
  EXPECT_EQ(back->result.shard_count, 1u);
}

TEST(ShardMerge, MissingConnectionsAndRequestsAreTheirExactSlices) {
  RunResult closed = shard(0, 4, 0);
  closed.whole_connections = 10;  // slices 3, 3, 2, 2
  NotOffered lost = not_offered_load(closed, 4, {1, 3});
  EXPECT_EQ(lost.unit, "connections");
  EXPECT_EQ(lost.amount, 5.0);
  EXPECT_EQ(lost.whole, 10.0);
  EXPECT_EQ(lost.share, 0.5);
  lost = not_offered_load(closed, 4, {3});
  EXPECT_EQ(lost.amount, 2.0);
  EXPECT_EQ(lost.share, 0.2);
  EXPECT_EQ(missing_shards_text(4, {3}, lost),
            "shard 3 of 4 missing: 20.0% of the load was not offered (2 of 10 connections)");

  RunResult counted = shard(0, 4, 4000);
  counted.whole_requests = 1003;  // slices 251, 251, 251, 250: -n wins over the rate
  lost = not_offered_load(counted, 4, {0, 3});
  EXPECT_EQ(lost.unit, "requests");
  EXPECT_EQ(lost.amount, 501.0);
  EXPECT_EQ(lost.share, 501.0 / 1003.0);
  EXPECT_EQ(missing_shards_text(4, {0, 3}, lost),
            "shards 0, 3 of 4 missing: 50.0% of the load was not offered (501 of 1003 requests)");

  lost = not_offered_load(shard(0, 3, 1000), 3, {2});
  EXPECT_EQ(lost.unit, "req/s");
  EXPECT_EQ(lost.amount, 1000.0 / 3);
  EXPECT_EQ(missing_shards_text(3, {2}, lost),
            "shard 2 of 3 missing: 33.3% of the load was not offered (333.33 of 1000 req/s)");

  RunResult old;  // a shard from before the whole_* figures: a share of the shards
  old.shard_count = 4;
  lost = not_offered_load(old, 4, {1});
  EXPECT_EQ(lost.unit, "shards");
  EXPECT_EQ(lost.share, 0.25);

  EXPECT_EQ(not_offered_load(closed, 4, {}).share, 0.0);
}

TEST(ShardMerge, StartSkewFromTheActualStarts) {
  auto merged =
      merge_runs({input(shard(0, 4, 400, 1 * kMs)), input(shard(1, 4, 400, 3 * kMs + 200'000)),
                  input(shard(2, 4, 400, kMs / 2)), input(shard(3, 4, 400, 2 * kMs))},
                 "0.1.0");
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  const std::vector<std::string>& notes = merged->merged.result.notes;
  EXPECT_TRUE(has(notes,
                  "shards started within 2.7 ms of each other (latest: shard 1, 3.2 ms "
                  "after --start-at)"))
      << notes[0] << "\n"
      << notes[1];
  // The inputs' start skew is the shards' line, not said twice.
  ASSERT_FALSE(notes.empty());
  EXPECT_EQ(notes[0].find("start skew"), std::string::npos) << notes[0];
  EXPECT_TRUE(merged->warnings.empty());
  ASSERT_TRUE(merged->merged.shards.has_value());
  EXPECT_EQ(merged->merged.shards->start_skew_ns, 2'700'000u);
  EXPECT_TRUE(merged->merged.shards->missing.empty());
  EXPECT_EQ(merged->merged.shards->not_offered_share, 0.0);
  ASSERT_EQ(merged->merged.shards->inputs.size(), 4u);
  EXPECT_EQ(merged->merged.shards->inputs[1].late_ns, 3'200'000u);
  EXPECT_EQ(merged->merged.shards->inputs[1].start_unix_ns, kT0 + 3'200'000);

  // Without --start-at: each shard's own start, and no "after --start-at".
  std::vector<MergeInput> plain;
  for (uint32_t i = 0; i < 2; ++i) {
    RunResult r = shard(i, 2, 400);
    r.start_at_unix_ns = 0;
    r.start_late_ns = 0;
    r.start_unix_ns = kT0 + i * 5 * kMs;
    plain.push_back(input(std::move(r)));
  }
  auto unsynced = merge_runs(std::move(plain), "0.1.0");
  ASSERT_TRUE(unsynced.ok()) << unsynced.error().message;
  EXPECT_TRUE(has(unsynced->merged.result.notes,
                  "shards started within 5.0 ms of each other (latest: shard 1)"));
}

TEST(ShardMerge, TheSameShardTwiceIsRefused) {
  RunResult again = shard(1, 4, 400);
  auto merged = merge_runs({input(shard(0, 4, 400)), input(shard(1, 4, 400)),
                            MergeInput{"rerun/shard-1.json", {again, "0.1.0", std::nullopt}}},
                           "0.1.0");
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.error().message,
            "shard-1.json and rerun/shard-1.json are both shard 1 of 4: its load would count "
            "twice (merge one of them)");
}

TEST(ShardMerge, InputsOfAnotherTestAreWarnedAbout) {
  RunResult other_count = shard(1, 3, 400);
  RunResult other_id = shard(1, 2, 400);
  other_id.run_id = "b";
  RunResult plain = shard(0, 1, 400);
  plain.shard_source.clear();
  RunResult first = shard(0, 2, 400);
  first.run_id = "a";
  auto merged = merge_runs({input(first), MergeInput{"three.json", {other_count, "0.1.0", {}}},
                            MergeInput{"b.json", {other_id, "0.1.0", {}}},
                            MergeInput{"plain.json", {plain, "0.1.0", {}}}},
                           "0.1.0");
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  EXPECT_TRUE(has(merged->warnings,
                  "three.json is shard 1 of 3, shard-0.json shard 0 of 2: not one test (merged, "
                  "not counted as a shard)"));
  EXPECT_TRUE(has(merged->warnings,
                  "plain.json is not a shard, shard-0.json shard 0 of 2: not one test (merged, not "
                  "counted as a shard)"));
  EXPECT_TRUE(has(merged->warnings, "b.json has run id \"b\", shard-0.json \"a\": not one test?"));
  EXPECT_EQ(merged->merged.shards->present, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(merged->merged.result.counters.completed, 400u);  // all four are merged
}

TEST(ShardMerge, InterruptedAndShortShardsAreNamed) {
  RunResult stopped = shard(1, 3, 300);
  stopped.interrupted = true;
  stopped.duration_ns = 1 * kSecond;
  RunResult short_one = shard(2, 3, 300);
  short_one.duration_ns = 2 * kSecond;
  auto merged = merge_runs({input(shard(0, 3, 300)), input(stopped), input(short_one)}, "0.1.0");
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  const std::vector<std::string>& notes = merged->merged.result.notes;
  EXPECT_TRUE(has(notes, "shard 1 (shard-1.json) was interrupted after 1.00s"));
  EXPECT_TRUE(has(notes, "shard 2 (shard-2.json) measured 2.00s, the longest shard 3.00s"));
  EXPECT_TRUE(merged->merged.shards->inputs[1].interrupted);
}

TEST(ShardMerge, RunsThatAreNotShardsHaveNoShardReport) {
  RunResult a = shard(0, 1, 100);
  a.shard_source.clear();
  auto check = check_shards({MergeInput{"a.json", {a, "0.1.0", {}}}});
  ASSERT_TRUE(check.ok());
  EXPECT_FALSE(check->has_value());
  auto merged = merge_runs({MergeInput{"a.json", {a, "0.1.0", {}}}}, "0.1.0");
  ASSERT_TRUE(merged.ok());
  EXPECT_FALSE(merged->merged.shards.has_value());
  EXPECT_NE(merged->merged.result.notes[0].find("start skew"), std::string::npos);
}

}  // namespace
}  // namespace hail
