// Stage lists and StageCurve: parsers (one-line errors naming the bad item), ladders, repeats, and
// the curve's value, integral and crossing times against closed forms.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/clock.h"
#include "load/stage_spec.h"

namespace hail {
namespace {

constexpr uint64_t kSec = kNsPerSec;

TEST(ParseStages, ParsesDurationsAndTargets) {
  auto stages = parse_stages("10s:50,30s:200, 500ms : 12.5 ,10s:0");
  ASSERT_TRUE(stages.ok()) << stages.error().message;
  ASSERT_EQ(stages->size(), 4u);
  EXPECT_EQ((*stages)[0].duration_ns, 10 * kSec);
  EXPECT_EQ((*stages)[0].target, 50);
  EXPECT_EQ((*stages)[1].duration_ns, 30 * kSec);
  EXPECT_EQ((*stages)[1].target, 200);
  EXPECT_EQ((*stages)[2].duration_ns, 500 * kNsPerMs);
  EXPECT_EQ((*stages)[2].target, 12.5);
  EXPECT_EQ((*stages)[3].target, 0);
  for (const Stage& s : *stages) EXPECT_FALSE(s.hold);
}

TEST(ParseStages, ZeroLengthStageIsAllowed) {
  auto stages = parse_stages("0s:100,10s:100");
  ASSERT_TRUE(stages.ok());
  EXPECT_EQ((*stages)[0].duration_ns, 0u);
}

struct ErrorCase {
  const char* input;
  const char* expected_start;  // the message starts with this
};

TEST(ParseStages, ErrorTable) {
  const ErrorCase cases[] = {
      {"", "invalid --stages: empty list"},
      {"  ", "invalid --stages: empty list"},
      {"10x:5", "invalid --stages item \"10x:5\": "},
      {"10s", "invalid --stages item \"10s\": expected DURATION:TARGET"},
      {"10s:", "invalid --stages item \"10s:\": target \"\""},
      {":5", "invalid --stages item \":5\": "},
      {"10s:-5", "invalid --stages item \"10s:-5\": target \"-5\" is not a non-negative number"},
      {"10s:nan", "invalid --stages item \"10s:nan\": target"},
      {"10s:inf", "invalid --stages item \"10s:inf\": target"},
      {"10s:1e3", "invalid --stages item \"10s:1e3\": target"},
      {"10s:1.2.3", "invalid --stages item \"10s:1.2.3\": target"},
      {"10s:5000000000",
       "invalid --stages item \"10s:5000000000\": target \"5000000000\" is too large"},
      {"10s:50,,10s:0", "invalid --stages item \"\": empty item"},
      {"10s:50,", "invalid --stages item \"\": empty item"},
      {"10s:50,20s:1:2", "invalid --stages item \"20s:1:2\": target \"1:2\""},
      {"0s:5,0s:0", "invalid --stages: total duration is zero"},
      {"10s:5,\x01:3", "invalid --stages item \"\\x01:3\": "},
  };
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.input);
    auto r = parse_stages(c.input);
    ASSERT_FALSE(r.ok());
    const std::string& m = r.error().message;
    EXPECT_EQ(m.rfind(c.expected_start, 0), 0u) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

TEST(ParseLadder, ParsesAndValidates) {
  auto spec = parse_ladder("100:50:300");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->start, 100);
  EXPECT_EQ(spec->step, 50);
  EXPECT_EQ(spec->end, 300);
  EXPECT_TRUE(parse_ladder("0:1:9999").ok());  // 10,000 levels: the limit
  const ErrorCase cases[] = {
      {"100:50", "invalid --ladder \"100:50\": expected START:STEP:END"},
      {"1:2:3:4", "invalid --ladder \"1:2:3:4\": "},
      {"100:0:300", "invalid --ladder \"100:0:300\": step must be greater than 0"},
      {"300:50:100", "invalid --ladder \"300:50:100\": end must not be below start"},
      {"0:1:10000", "invalid --ladder \"0:1:10000\": more than 10000 steps"},
      {"a:1:2", "invalid --ladder \"a:1:2\": target \"a\""},
      {"-1:1:2", "invalid --ladder \"-1:1:2\": "},
  };
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.input);
    auto r = parse_ladder(c.input);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message.rfind(c.expected_start, 0), 0u) << r.error().message;
    EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
  }
}

TEST(LadderStages, OneHoldStagePerLevel) {
  auto spec = parse_ladder("100:50:300");
  ASSERT_TRUE(spec.ok());
  auto stages = ladder_stages(*spec, 5 * kSec);
  ASSERT_TRUE(stages.ok());
  const double levels[] = {100, 150, 200, 250, 300};
  ASSERT_EQ(stages->size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ((*stages)[i].target, levels[i]);
    EXPECT_EQ((*stages)[i].duration_ns, 5 * kSec);
    EXPECT_TRUE((*stages)[i].hold);
  }
}

TEST(LadderStages, EndOffGridAndBinaryFractions) {
  auto off_grid = ladder_stages(10, 20, 75, kSec);  // 10, 30, 50, 70
  ASSERT_TRUE(off_grid.ok());
  ASSERT_EQ(off_grid->size(), 4u);
  EXPECT_EQ(off_grid->back().target, 70);
  auto tenths = ladder_stages(0, 0.1, 1, kSec);  // (1-0)/0.1 is 9.999999999999998 in binary
  ASSERT_TRUE(tenths.ok());
  EXPECT_EQ(tenths->size(), 11u);
  auto single = ladder_stages(7, 1, 7, kSec);
  ASSERT_TRUE(single.ok());
  EXPECT_EQ(single->size(), 1u);
}

TEST(LadderStages, Errors) {
  EXPECT_FALSE(ladder_stages(0, 1, 10, 0).ok());
  EXPECT_FALSE(ladder_stages(0, 0, 10, kSec).ok());
  EXPECT_FALSE(ladder_stages(10, 1, 0, kSec).ok());
  EXPECT_FALSE(ladder_stages(0, 1, 10000, kSec).ok());
  EXPECT_TRUE(ladder_stages(0, 1, 9999, kSec).ok());
}

TEST(LadderStages, StepIndexFromTime) {
  auto stages = ladder_stages(100, 100, 500, 10 * kSec);
  ASSERT_TRUE(stages.ok());
  const StageCurve curve(*stages);
  EXPECT_EQ(curve.total_duration_ns(), 50 * kSec);
  EXPECT_EQ(curve.stage_index_at(0), 0u);
  EXPECT_EQ(curve.stage_index_at(10 * kSec - 1), 0u);
  EXPECT_EQ(curve.stage_index_at(10 * kSec), 1u);
  EXPECT_EQ(curve.stage_index_at(49 * kSec), 4u);
  EXPECT_EQ(curve.stage_index_at(50 * kSec), 5u);  // past the end: size()
  // Holds jump at their start: no ramp between levels.
  EXPECT_EQ(curve.value_at(0), 100);
  EXPECT_EQ(curve.value_at(10 * kSec - 1), 100);
  EXPECT_EQ(curve.value_at(10 * kSec), 200);
  EXPECT_EQ(curve.value_at(60 * kSec), 500);
  // 10 s at each of 100..500: 15,000.
  EXPECT_DOUBLE_EQ(curve.integral_at(50 * kSec), 15000);
}

TEST(RepeatStages, ConcatenatesAndValidates) {
  auto once = parse_stages("1s:100,1s:0");
  ASSERT_TRUE(once.ok());
  auto thrice = repeat_stages(*once, 3);
  ASSERT_TRUE(thrice.ok());
  ASSERT_EQ(thrice->size(), 6u);
  const StageCurve curve(*thrice);
  EXPECT_EQ(curve.total_duration_ns(), 6 * kSec);
  EXPECT_DOUBLE_EQ(curve.value_at(2 * kSec + kSec / 2), 50);  // third stage ramps 0 -> 100 again
  EXPECT_DOUBLE_EQ(curve.integral_at(6 * kSec), 300);         // 3 bursts of 100 requests
  EXPECT_FALSE(repeat_stages(*once, 0).ok());
  auto huge = parse_stages("100000h:1");
  ASSERT_TRUE(huge.ok());
  auto too_long = repeat_stages(*huge, 10);
  ASSERT_FALSE(too_long.ok());
  EXPECT_EQ(too_long.error().message, "invalid --repeat \"10\": total duration exceeds 100 years");
}

TEST(StageCurve, ValueIsPiecewiseLinearFromInitial) {
  auto stages = parse_stages("10s:50,30s:200,10s:0");
  ASSERT_TRUE(stages.ok());
  const StageCurve curve(*stages);
  EXPECT_EQ(curve.total_duration_ns(), 50 * kSec);
  EXPECT_DOUBLE_EQ(curve.value_at(0), 0);  // k6: the first stage starts from 0
  EXPECT_DOUBLE_EQ(curve.value_at(5 * kSec), 25);
  EXPECT_DOUBLE_EQ(curve.value_at(10 * kSec), 50);
  EXPECT_DOUBLE_EQ(curve.value_at(25 * kSec), 125);
  EXPECT_DOUBLE_EQ(curve.value_at(45 * kSec), 100);
  EXPECT_DOUBLE_EQ(curve.value_at(50 * kSec), 0);
  EXPECT_DOUBLE_EQ(curve.value_at(99 * kSec), 0);
  const StageCurve from_ten(*stages, 10);
  EXPECT_DOUBLE_EQ(from_ten.value_at(5 * kSec), 30);
}

TEST(StageCurve, IntegralMatchesTrapezoids) {
  auto stages = parse_stages("10s:50,30s:200,10s:0");
  ASSERT_TRUE(stages.ok());
  const StageCurve curve(*stages);
  EXPECT_DOUBLE_EQ(curve.integral_at(10 * kSec), 250);
  EXPECT_DOUBLE_EQ(curve.integral_at(40 * kSec), 250 + 3750);
  EXPECT_DOUBLE_EQ(curve.integral_at(50 * kSec), 250 + 3750 + 1000);
  EXPECT_DOUBLE_EQ(curve.integral_at(5 * kSec), 62.5);  // 5 s * 25 / 2
}

TEST(StageCurve, ZeroLengthStageIsAJump) {
  auto stages = parse_stages("0s:100,10s:100");
  ASSERT_TRUE(stages.ok());
  const StageCurve curve(*stages);
  EXPECT_DOUBLE_EQ(curve.value_at(0), 100);
  EXPECT_EQ(curve.stage_index_at(0), 1u);
  EXPECT_DOUBLE_EQ(curve.integral_at(10 * kSec), 1000);
}

TEST(StageCurve, CrossingSolvesRampsExactly) {
  auto stages = parse_stages("10s:100,10s:100,10s:0");
  ASSERT_TRUE(stages.ok());
  const StageCurve curve(*stages);
  // Ramp 0 -> 100 over 10 s: integral 5 t^2, so count c is crossed at sqrt(c / 5) s.
  for (double c : {0.0, 1.0, 5.0, 20.0, 125.0, 499.0}) {
    SCOPED_TRACE(c);
    EXPECT_NEAR(*curve.crossing_ns(c), std::sqrt(c / 5) * 1e9, 1e-3);
  }
  // Hold at 100: 500 + 100 (t - 10).
  EXPECT_NEAR(*curve.crossing_ns(750), 12.5e9, 1e-3);
  // Falling ramp 100 -> 0 from 20 s: 1500 + 100 u - 5 u^2; c = 1500 + 95 at u = 1.
  EXPECT_NEAR(*curve.crossing_ns(1595), 21e9, 1e-3);
  EXPECT_FALSE(curve.crossing_ns(2000).has_value());  // reached only at the very end
  EXPECT_FALSE(curve.crossing_ns(5000).has_value());
}

TEST(StageCurve, CrossingSkipsZeroStretches) {
  // 1/s for 2 s, nothing for 5 s, 1/s again for 2 s.
  const StageCurve curve(
      {Stage{2 * kSec, 1, true}, Stage{5 * kSec, 0, true}, Stage{2 * kSec, 1, true}});
  EXPECT_DOUBLE_EQ(*curve.crossing_ns(1), 1e9);
  EXPECT_DOUBLE_EQ(*curve.crossing_ns(2), 7e9);  // the end of the zero stretch, not its start
  EXPECT_DOUBLE_EQ(*curve.crossing_ns(3), 8e9);
  EXPECT_FALSE(curve.crossing_ns(4).has_value());
}

}  // namespace
}  // namespace hail
