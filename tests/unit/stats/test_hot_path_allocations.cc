// The recording paths allocate nothing per request: a window's counts (WindowSeries), a tag's
// statuses (TagTable, once per hundred of codes). A binary of its own, because the counting
// operator new it links replaces the global one for every test in the binary.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "stats/tag_stats.h"
#include "stats/time_series.h"
#include "unit/http/allocation_counter.h"

namespace hail {
namespace {

constexpr uint64_t kS = 1'000'000'000;

TEST(WindowSeries, RecordingAllocatesNothingAndClosingOnce) {
  WindowSeries s;
  s.begin(0, false);
  const auto fill = [&s] {
    for (uint64_t i = 0; i < 10'000; ++i) s.on_complete(i % 7 == 0 ? 500 : 200, 1'000 + i * 37);
    s.on_error(ErrorClass::kTimeout);
  };
  fill();  // the first window pages in its counts and sizes the encoder's buffer
  s.close_window(kS, 1, false, false);
  test::count_allocations(true);
  const uint64_t before = test::allocations();
  fill();
  const uint64_t recording = test::allocations() - before;
  s.close_window(2 * kS, 1, false, false);
  const uint64_t closing = test::allocations() - before - recording;
  test::count_allocations(false);
  EXPECT_EQ(recording, 0u);
  EXPECT_LE(closing, 2u);  // the window's payload, and the list's growth at most
}

TEST(TagTable, StatusCountsAllocateOnlyForTheFirstCodeOfAHundred) {
  TagTable t;
  const uint16_t a = t.intern("a");
  t.on_complete(a, 200, 1'000);  // first 2xx, and the latency's page
  t.on_complete(a, 503, 1'000);  // first 5xx
  test::count_allocations(true);
  const uint64_t before = test::allocations();
  for (int i = 0; i < 10'000; ++i) {
    t.on_complete(a, 200 + i % 7, 1'000 + static_cast<uint64_t>(i % 13));
    t.on_complete(a, 500 + i % 4, 1'000);
    t.on_error(a, ErrorClass::kRead);
  }
  const uint64_t steady = test::allocations() - before;
  t.on_complete(a, 404, 1'000);  // first 4xx: one block
  const uint64_t first_4xx = test::allocations() - before - steady;
  test::count_allocations(false);
  EXPECT_EQ(steady, 0u);
  EXPECT_EQ(first_4xx, 1u);
  EXPECT_EQ(t.tag(a).status_counts[206], 10'000u / 7);
  EXPECT_EQ(t.tag(a).status_counts[404], 1u);
  EXPECT_EQ(t.tag(a).status_counts[999], 0u);
  std::vector<int> codes;
  t.tag(a).status_counts.for_each([&](int code, uint64_t) { codes.push_back(code); });
  EXPECT_EQ(codes, (std::vector<int>{200, 201, 202, 203, 204, 205, 206, 404, 500, 501, 502, 503}));
}

}  // namespace
}  // namespace hail
