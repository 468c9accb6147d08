#include <gtest/gtest.h>

#include <cerrno>
#include <string>

#include "stats/recorder.h"
#include "stats/run_result.h"

namespace hail {
namespace {

TEST(Recorder, CompletionsAndStatusClasses) {
  Recorder r;
  r.on_attempt();
  r.on_attempt();
  r.on_attempt();
  r.on_complete(200, 1000);
  r.on_complete(302, 2000);
  r.on_complete(503, 3000);
  EXPECT_EQ(r.counters().completed, 3u);
  EXPECT_EQ(r.counters().status_errors, 1u);  // only 503: 2xx and 3xx succeed
  EXPECT_EQ(r.latency().count(), 3u);
  EXPECT_EQ(r.status_counts()[302], 1u);
}

TEST(Recorder, ReasonsAreCountedWithoutLosingAny) {
  Recorder r;
  static const char kReasons[40][8] = {};
  for (int round = 0; round < 2; ++round) {
    for (const auto& reason : kReasons) r.on_error_reason(ErrorClass::kRead, reason);
  }
  r.on_error_reason(ErrorClass::kConnect, errno_reason(ECONNREFUSED));
  uint64_t total = 0;
  size_t slots = 0;
  for (const auto* it = r.reasons_begin(); it != r.reasons_end(); ++it) {
    total += it->count;
    ++slots;
  }
  EXPECT_EQ(slots, Recorder::kMaxReasons);
  EXPECT_EQ(total, 81u);
  RunResult merged;
  merged.add(r);
  EXPECT_NE(find_error_reason(merged.error_reasons, ErrorClass::kCount, "other reasons"), nullptr);
}

TEST(Recorder, MergedReasonsAreClassReasonAndErrno) {
  Recorder a, b;
  a.on_error_reason(ErrorClass::kConnect, errno_reason(ECONNREFUSED));
  b.on_error_reason(ErrorClass::kConnect, errno_reason(ECONNREFUSED));
  b.on_error_reason(ErrorClass::kParse, "bad chunk size");
  RunResult merged;
  merged.add(a);
  merged.add(b);
  const ErrorReasonCount* refused =
      find_error_reason(merged.error_reasons, ErrorClass::kConnect, "Connection refused");
  ASSERT_NE(refused, nullptr);
  EXPECT_EQ(refused->count, 2u);
  EXPECT_EQ(refused->errno_value, ECONNREFUSED);
  const ErrorReasonCount* chunk =
      find_error_reason(merged.error_reasons, ErrorClass::kParse, "bad chunk size");
  ASSERT_NE(chunk, nullptr);
  EXPECT_EQ(chunk->count, 1u);
  EXPECT_EQ(chunk->errno_value, 0);
}

}  // namespace
}  // namespace hail
