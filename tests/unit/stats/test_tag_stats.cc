// TagTable (per-worker tag interning and counting, the shared "(other)" tag past the limit) and
// RunResult::add_tags (merge by name, in first-use order, "(other)" last).
#include <gtest/gtest.h>

#include <string>

#include "stats/recorder.h"
#include "stats/run_result.h"
#include "stats/tag_stats.h"

namespace hail {
namespace {

TEST(TagTable, InternsInOrderAndFindsAgain) {
  TagTable t;
  EXPECT_TRUE(t.empty());
  EXPECT_EQ(t.intern("GET /a"), 0);
  EXPECT_EQ(t.intern("GET /b"), 1);
  EXPECT_EQ(t.intern(std::string("GET /a")), 0);
  EXPECT_EQ(t.intern(""), 2);  // any name, even empty, is a tag of its own
  EXPECT_EQ(t.size(), 3u);
  EXPECT_EQ(t.tag(1).name, "GET /b");
}

TEST(TagTable, NamesPastTheLimitShareOther) {
  TagTable t;
  for (size_t i = 0; i < TagTable::kMaxNamedTags; ++i) {
    EXPECT_EQ(t.intern("tag" + std::to_string(i)), i);
  }
  EXPECT_EQ(t.size(), TagTable::kMaxNamedTags);
  EXPECT_EQ(t.intern("one more"), TagTable::kOtherTag);
  EXPECT_EQ(t.intern("and another"), TagTable::kOtherTag);
  EXPECT_EQ(t.intern("tag63"), 63);  // named tags still resolve
  EXPECT_EQ(t.size(), TagTable::kMaxNamedTags + 1);
  EXPECT_EQ(t.tag(TagTable::kOtherTag).name, "(other)");
  t.on_complete(t.intern("yet another"), 200, 1000);
  EXPECT_EQ(t.tag(TagTable::kOtherTag).completed, 1u);
}

TEST(TagTable, CountsCompletionsErrorsStatusesAndLatency) {
  TagTable t;
  const uint16_t a = t.intern("a");
  const uint16_t b = t.intern("b");
  t.on_complete(a, 200, 1'000);
  t.on_complete(a, 200, 3'000);
  t.on_complete(a, 404, 2'000);
  t.on_complete(a, 1000, 5'000);  // out of the status table: counted, latency kept, no code
  t.on_complete(b, 503, 9'000);
  t.on_error(a, ErrorClass::kTimeout);
  t.on_error(b, ErrorClass::kRead);
  t.on_error(b, ErrorClass::kRead);
  t.on_complete(0xFFFF, 200, 1);  // never interned: ignored
  t.on_error(7, ErrorClass::kRead);
  const TagTable::Tag& ta = t.tag(a);
  EXPECT_EQ(ta.completed, 4u);
  EXPECT_EQ(ta.status_counts[200], 2u);
  EXPECT_EQ(ta.status_counts[404], 1u);
  EXPECT_EQ(ta.latency.count(), 4u);
  EXPECT_EQ(ta.latency.max(), 5'000u);
  EXPECT_EQ(ta.errors[static_cast<size_t>(ErrorClass::kTimeout)], 1u);
  EXPECT_EQ(t.tag(b).errors[static_cast<size_t>(ErrorClass::kRead)], 2u);
  EXPECT_EQ(t.tag(b).status_counts[503], 1u);
}

TEST(RunResultTags, MergeByNameKeepsFirstUseOrderAndOtherLast) {
  TagTable w0;
  TagTable w1;
  // Worker 0 overflows into "(other)" early; worker 1 uses the names in another order plus one
  // of its own.
  for (size_t i = 0; i < TagTable::kMaxNamedTags; ++i) w0.intern("n" + std::to_string(i));
  w0.on_complete(w0.intern("overflow"), 200, 10);
  w0.on_complete(w0.intern("n1"), 200, 1'000);
  w1.on_complete(w1.intern("new"), 201, 2'000);
  w1.on_complete(w1.intern("n1"), 404, 3'000);
  w1.on_error(w1.intern("n1"), ErrorClass::kParse);

  RunResult r;
  r.duration_ns = 2'000'000'000;
  r.add_tags(w0);
  r.add_tags(w1);
  ASSERT_EQ(r.tags.size(), TagTable::kMaxNamedTags + 2);
  EXPECT_EQ(r.tags[0].name, "n0");
  EXPECT_EQ(r.tags[TagTable::kMaxNamedTags].name, "new");
  EXPECT_EQ(r.tags.back().name, "(other)");
  EXPECT_EQ(r.tags.back().completed, 1u);
  const TagResult& n1 = r.tags[1];
  EXPECT_EQ(n1.name, "n1");
  EXPECT_EQ(n1.completed, 2u);
  EXPECT_EQ(n1.status_codes, (std::map<int, uint64_t>{{200, 1}, {404, 1}}));
  EXPECT_EQ(n1.latency.count(), 2u);
  EXPECT_EQ(n1.latency.min(), 1'000u);
  EXPECT_EQ(n1.latency.max(), 3'000u);
  EXPECT_EQ(n1.errors[static_cast<size_t>(ErrorClass::kParse)], 1u);
  EXPECT_EQ(n1.error_total(), 1u);
  EXPECT_DOUBLE_EQ(r.requests_per_s(n1), 1.0);
}

TEST(RunResultTags, AddOfARecorderLeavesTagsAlone) {
  Recorder rec;
  rec.on_attempt();
  rec.on_complete(200, 1'000);
  RunResult r;
  r.add(rec);
  EXPECT_TRUE(r.tags.empty());
  EXPECT_EQ(r.counters.completed, 1u);
  TagTable empty;
  r.add_tags(empty);
  EXPECT_TRUE(r.tags.empty());
}

}  // namespace
}  // namespace hail
