#include <gtest/gtest.h>

#include <string>

#include "script/request_count.h"
#include "script/stats_view.h"
#include "stats/histogram.h"

namespace hail {
namespace {

TEST(CountRequests, CountsPipelinedRequests) {
  EXPECT_EQ(count_requests("GET / HTTP/1.1\r\nHost: a\r\n\r\n").value(), 1u);
  EXPECT_EQ(count_requests("GET /1 HTTP/1.1\r\n\r\nPOST /2 HTTP/1.1\r\nContent-Length: 3\r\n\r\n"
                           "abcGET /3 HTTP/1.1\r\n\r\n")
                .value(),
            3u);
}

TEST(CountRequests, ReportsWhereParsingStopped) {
  auto bad = count_requests("GET / HTTP/1.1\r\nHost: a\r\n\r\nG@T / HTTP/1.1\r\n\r\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind("invalid request: ", 0), 0u) << bad.error().message;
  EXPECT_NE(bad.error().message.find(" at 4:"), std::string::npos) << bad.error().message;

  auto incomplete = count_requests("GET / HTTP/1.1\r\nHost: a\r\n");
  ASSERT_FALSE(incomplete.ok());
  EXPECT_EQ(incomplete.error().message, "incomplete request at 3:1");

  auto short_body = count_requests("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nab");
  ASSERT_FALSE(short_body.ok());
  EXPECT_EQ(short_body.error().message.rfind("incomplete request", 0), 0u);
}

TEST(HistogramStatsView, ReportsWholeUnitsLikeWrk) {
  Histogram histogram;
  for (uint64_t ns : {1999, 2500, 2600, 10'000}) histogram.record(ns);
  const HistogramStatsView view(histogram, 1000);
  EXPECT_EQ(view.min(), 1);
  EXPECT_EQ(view.max(), 10);
  EXPECT_DOUBLE_EQ(view.mean(), histogram.mean() / 1000);
  EXPECT_DOUBLE_EQ(view.stdev(), histogram.stdev() / 1000);
  EXPECT_EQ(view.percentile(50), 2);
  EXPECT_EQ(view.percentile(100), 10);
  ASSERT_EQ(view.distinct(), 3u);
  EXPECT_EQ(view.at(0), (std::pair<double, uint64_t>{1, 1}));
  EXPECT_EQ(view.at(1), (std::pair<double, uint64_t>{2, 2}));
  EXPECT_EQ(view.at(2), (std::pair<double, uint64_t>{10, 1}));
  EXPECT_EQ(view.at(3), (std::pair<double, uint64_t>{0, 0}));
}

TEST(HistogramStatsView, EmptyHistogramIsAllZero) {
  Histogram histogram;
  const HistogramStatsView view(histogram, 1000);
  EXPECT_EQ(view.min(), 0);
  EXPECT_EQ(view.max(), 0);
  EXPECT_EQ(view.percentile(99), 0);
  EXPECT_EQ(view.distinct(), 0u);
}

}  // namespace
}  // namespace hail
