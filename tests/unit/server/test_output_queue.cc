#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "server/output_queue.h"
#include "server_test_util.h"

namespace hail {
namespace {

using test::drain_output;
using test::expected_pattern;

TEST(OutputQueue, PatternBufferIsThePattern) {
  const char* buffer = body_pattern_buffer();
  EXPECT_EQ(std::string(buffer, kBodyPatternBufferBytes),
            expected_pattern(0, kBodyPatternBufferBytes));
  EXPECT_EQ(kBodyPattern[kBodyPatternPeriod - 1], '\n');
}

TEST(OutputQueue, BufferAndPatternInOneBatch) {
  OutputQueue q;
  q.append("head1", true);
  q.add_pattern(10, true);
  q.append("head2", true);
  iovec iov[8];
  const OutputQueue::Batch batch = q.gather(iov, 8, 1 << 20, 0);
  EXPECT_EQ(batch.stop, OutputQueue::Stop::kEmpty);
  EXPECT_EQ(batch.iov_count, 3u);
  EXPECT_EQ(batch.bytes, 20u);
  EXPECT_EQ(q.consume(20), 20u);
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.buffered_bytes(), 0u);
}

TEST(OutputQueue, PartialSendsKeepThePatternContinuous) {
  for (uint64_t step : {1u, 7u, 63u, 64u, 65u, 4096u, 65535u, 100000u}) {
    OutputQueue q;
    const uint64_t n = 3 * kBodyPatternBufferBytes + 17;
    q.append("H", true);
    q.add_pattern(n, true);
    q.append("T", true);
    const std::string sent = drain_output(q, 0, nullptr, step);
    ASSERT_EQ(sent.size(), n + 2) << step;
    EXPECT_EQ(sent, "H" + expected_pattern(0, n) + "T") << step;
    EXPECT_TRUE(q.empty());
  }
}

TEST(OutputQueue, BatchLimits) {
  OutputQueue q;
  q.add_pattern(10 * kBodyPatternBufferBytes, true);
  iovec iov[4];
  OutputQueue::Batch batch = q.gather(iov, 4, 1 << 30, 0);
  EXPECT_EQ(batch.stop, OutputQueue::Stop::kFull);
  EXPECT_EQ(batch.iov_count, 4u);
  EXPECT_EQ(batch.bytes, 4 * kBodyPatternBufferBytes);
  batch = q.gather(iov, 4, 1000, 0);
  EXPECT_EQ(batch.stop, OutputQueue::Stop::kFull);
  EXPECT_EQ(batch.bytes, 1000u);
}

TEST(OutputQueue, CountedBytes) {
  OutputQueue q;
  q.append("aaaa", true);
  q.append("bbb", false);  // a /stats response
  q.append("cc", true);
  EXPECT_EQ(q.segments(), 3u);
  EXPECT_EQ(q.consume(2), 2u);
  EXPECT_EQ(q.consume(4), 2u);  // "aa" counted + "bb" not
  EXPECT_EQ(q.consume(3), 2u);  // "b" not + "cc"
  EXPECT_TRUE(q.empty());
}

TEST(OutputQueue, DelayHoldsBackWhatFollows) {
  OutputQueue q;
  q.append("first", true);
  q.add_delay(1000);
  q.append("second", true);
  iovec iov[8];
  OutputQueue::Batch batch = q.gather(iov, 8, 1 << 20, 500);
  EXPECT_EQ(batch.stop, OutputQueue::Stop::kDelay);
  EXPECT_EQ(batch.delay_until_ns, 1000u);
  EXPECT_EQ(batch.bytes, 5u);
  q.consume(5);
  batch = q.gather(iov, 8, 1 << 20, 999);
  EXPECT_EQ(batch.stop, OutputQueue::Stop::kDelay);
  EXPECT_EQ(batch.bytes, 0u);
  batch = q.gather(iov, 8, 1 << 20, 1000);
  EXPECT_EQ(batch.stop, OutputQueue::Stop::kEmpty);
  EXPECT_EQ(batch.bytes, 6u);
  q.consume(6);
  EXPECT_TRUE(q.empty());
}

TEST(OutputQueue, DueDelayInTheMiddleIsPassedOver) {
  OutputQueue q;
  q.append("a", true);
  q.add_delay(10);
  q.add_pattern(3, true);
  EXPECT_EQ(drain_output(q, 10), "a" + expected_pattern(0, 3));
  EXPECT_TRUE(q.empty());
}

TEST(OutputQueue, CloseMarkerEndsTheStream) {
  OutputQueue q;
  q.append("bye", true);
  q.add_close();
  q.append("never", true);
  EXPECT_TRUE(q.closing());
  bool closed = false;
  EXPECT_EQ(drain_output(q, 0, &closed), "bye");
  EXPECT_TRUE(closed);
}

TEST(OutputQueue, FileSegment) {
  char path[] = "/tmp/hail_oq_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  unlink(path);
  const std::string content(100000, 'z');
  ASSERT_EQ(write(fd, content.data(), content.size()), static_cast<ssize_t>(content.size()));
  OutputQueue q;
  q.append("head", true);
  q.add_file(fd, 10, content.size() - 10, true);
  q.append("next", true);
  iovec iov[8];
  OutputQueue::Batch batch = q.gather(iov, 8, 1 << 20, 0);
  EXPECT_EQ(batch.stop, OutputQueue::Stop::kFile);
  EXPECT_EQ(batch.bytes, 4u);
  q.consume(4);
  batch = q.gather(iov, 8, 1 << 20, 0);
  EXPECT_EQ(batch.stop, OutputQueue::Stop::kFile);
  EXPECT_EQ(batch.iov_count, 0u);
  const OutputQueue::FileChunk chunk = q.front_file();
  EXPECT_EQ(chunk.fd, fd);
  EXPECT_EQ(chunk.offset, 10u);
  EXPECT_EQ(chunk.length, content.size() - 10);
  q.consume(1000);
  EXPECT_EQ(q.front_file().offset, 1010u);
  EXPECT_EQ(drain_output(q, 0, nullptr, 777), std::string(content.size() - 1010, 'z') + "next");
  // The queue closed the file once it was sent.
  EXPECT_EQ(fcntl(fd, F_GETFD), -1);
}

TEST(OutputQueue, DestructorClosesPendingFiles) {
  const int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  {
    OutputQueue q;
    q.add_file(fd, 0, 100, true);
  }
  EXPECT_EQ(fcntl(fd, F_GETFD), -1);
}

TEST(OutputQueue, Rollback) {
  OutputQueue q;
  q.append("keep", true);
  const OutputQueue::Mark mark = q.mark();
  q.append("drop", true);
  std::memset(q.append_space(10, true), 'x', 10);
  q.rollback(mark);
  q.append("!", true);
  EXPECT_EQ(drain_output(q), "keep!");
}

TEST(OutputQueue, RingGrowsAndWraps) {
  OutputQueue q;
  std::string expected;
  for (int round = 0; round < 50; ++round) {
    for (int i = 0; i < round; ++i) {
      q.append(std::to_string(i), i % 2 == 0);  // alternating: no merging
      q.add_pattern(1, true);
      expected += std::to_string(i) + expected_pattern(0, 1);
    }
    EXPECT_EQ(drain_output(q, 0, nullptr, 3), expected);
    expected.clear();
    EXPECT_TRUE(q.empty());
  }
}

}  // namespace
}  // namespace hail
