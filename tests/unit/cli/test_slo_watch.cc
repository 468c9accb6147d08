// SloWatch (--slo-abort during a run): only whole windows (merged from every worker) are fed, in
// order and once each; a threshold that can no longer pass stops the run with a reason, those
// that could still pass (percentiles) never do, and without thresholds nothing stops.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/slo_watch.h"

namespace hail {
namespace {

constexpr uint64_t kUs = 1'000;
constexpr uint64_t kMs = 1'000'000;
constexpr uint64_t kS = 1'000'000'000;

// Window `index` (one second) of `count` responses at `latency_ns`, merged from `sources` workers.
WindowStats window(uint64_t index, uint64_t count, uint64_t latency_ns, uint32_t sources) {
  WindowStats w;
  w.start_ns = index * kS;
  w.end_ns = (index + 1) * kS;
  w.completed = count;
  Histogram h;
  h.record_n(latency_ns, count);
  w.latency = EncodedHistogram(h);
  w.update_percentiles();
  w.sources = sources;
  return w;
}

TEST(SloWatch, MaxAbortsOnceAWholeWindowPassesIt) {
  SloWatch watch({"max<1ms"});
  std::vector<WindowStats> windows = {window(0, 100, 500 * kUs, 2)};
  EXPECT_FALSE(watch.check(windows, 2).has_value());
  // The slow window is still missing a worker's share: not judged yet.
  windows.push_back(window(1, 100, 2 * kMs, 1));
  EXPECT_FALSE(watch.check(windows, 2).has_value());
  windows[1].sources = 2;
  const std::optional<std::string> why = watch.check(windows, 2);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("max<1ms"), std::string::npos) << *why;
  EXPECT_NE(why->find("2.00ms"), std::string::npos) << *why;
  // It stays stopped.
  EXPECT_TRUE(watch.check(windows, 2).has_value());
}

TEST(SloWatch, WindowsAreFedInOrder) {
  SloWatch watch({"max<1ms"});
  // The first window is partial: the whole, slow, second one must wait behind it.
  std::vector<WindowStats> windows = {window(0, 100, 500 * kUs, 1), window(1, 100, 2 * kMs, 4)};
  EXPECT_FALSE(watch.check(windows, 4).has_value());
  windows[0].sources = 4;
  EXPECT_TRUE(watch.check(windows, 4).has_value());
}

TEST(SloWatch, EachWindowIsFedOnce) {
  // Counts only grow, so requests<250 can abort: 100 per window, judged once each.
  SloWatch watch({"requests<250"});
  std::vector<WindowStats> windows = {window(0, 100, kMs, 1), window(1, 100, kMs, 1)};
  EXPECT_FALSE(watch.check(windows, 1).has_value());
  EXPECT_FALSE(watch.check(windows, 1).has_value());  // fed again, it would count 400
  EXPECT_FALSE(watch.check(windows, 1).has_value());
  windows.push_back(window(2, 100, kMs, 1));
  const std::optional<std::string> why = watch.check(windows, 1);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("requests<250"), std::string::npos) << *why;
}

TEST(SloWatch, PercentilesNeverAbort) {
  SloWatch watch({"p(99)<1ms", "med<1ms", "avg<1ms", "error_rate<1%"});
  std::vector<WindowStats> windows;
  for (uint64_t i = 0; i < 20; ++i) {
    windows.push_back(window(i, 100, 50 * kMs, 3));
    windows.back().errors[static_cast<size_t>(ErrorClass::kTimeout)] = 50;
    EXPECT_FALSE(watch.check(windows, 3).has_value()) << i;
  }
}

TEST(SloWatch, WarmupWindowsAreIgnored) {
  SloWatch watch({"max<1ms"});
  std::vector<WindowStats> windows = {window(0, 100, 5 * kMs, 1), window(1, 100, 500 * kUs, 1)};
  windows[0].warmup = true;
  EXPECT_FALSE(watch.check(windows, 1).has_value());
}

TEST(SloWatch, NoThresholdsNeverAbort) {
  const std::vector<WindowStats> windows = {window(0, 100, 5 * kS, 1)};
  SloWatch none({});
  EXPECT_FALSE(none.check(windows, 1).has_value());
  // Texts that do not parse are no thresholds either (they were refused before the run).
  SloWatch unreadable({"max<1xs"});
  EXPECT_FALSE(unreadable.check(windows, 1).has_value());
  // The same window against a readable threshold does stop the run.
  SloWatch readable({"max<1s"});
  EXPECT_TRUE(readable.check(windows, 1).has_value());
}

}  // namespace
}  // namespace hail
