// Unit tests of tests/tools/http_head.h, the queueing server's minimal HTTP/1.x request parser:
// complete and incomplete heads, bodies, keep-alive rules, and what it refuses.
// Owner: tests. Single-threaded.
#include <gtest/gtest.h>

#include <string>

#include "tools/http_head.h"

namespace queue_server {
namespace {

using Status = RequestHead::Status;

TEST(QueueHttpHead, SimpleGetAndWhatFollowsIt) {
  const std::string in = "GET /a?b=1 HTTP/1.1\r\nHost: x\r\n\r\nGET /next";
  const RequestHead h = parse_head(in);
  ASSERT_EQ(h.status, Status::kRequest);
  EXPECT_EQ(h.method, "GET");
  EXPECT_EQ(h.target, "/a?b=1");
  EXPECT_TRUE(h.keep_alive);
  EXPECT_EQ(h.total_bytes, in.find("GET /next"));
  EXPECT_EQ(parse_head(std::string_view(in).substr(h.total_bytes)).status, Status::kIncomplete);
}

TEST(QueueHttpHead, IncompleteUntilTheBodyIsIn) {
  const std::string full = "POST / HTTP/1.1\r\ncontent-length: 5 \r\n\r\nhello";
  for (size_t n = 0; n < full.size(); ++n) {
    EXPECT_EQ(parse_head(std::string_view(full).substr(0, n)).status, Status::kIncomplete) << n;
  }
  const RequestHead h = parse_head(full + "GET");
  ASSERT_EQ(h.status, Status::kRequest);
  EXPECT_EQ(h.total_bytes, full.size());
}

TEST(QueueHttpHead, StrayCrlfsBeforeARequestAreSkipped) {
  const std::string in = "\r\n\r\nHEAD / HTTP/1.1\r\n\r\n";
  const RequestHead h = parse_head(in);
  ASSERT_EQ(h.status, Status::kRequest);
  EXPECT_EQ(h.method, "HEAD");
  EXPECT_EQ(h.total_bytes, in.size());
}

TEST(QueueHttpHead, KeepAliveRules) {
  EXPECT_FALSE(parse_head("GET / HTTP/1.0\r\n\r\n").keep_alive);
  EXPECT_TRUE(parse_head("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").keep_alive);
  EXPECT_FALSE(parse_head("GET / HTTP/1.1\r\nconnection: TE, close\r\n\r\n").keep_alive);
  EXPECT_TRUE(parse_head("GET / HTTP/1.1\r\nConnection: closed\r\n\r\n").keep_alive);
}

TEST(QueueHttpHead, Refusals) {
  auto code = [](const std::string& in) {
    const RequestHead h = parse_head(in);
    return h.status == Status::kError ? h.error_code : 0;
  };
  EXPECT_EQ(code("garbage\r\n\r\n"), 400);
  EXPECT_EQ(code("GET / HTTP/2.0\r\n\r\n"), 400);
  EXPECT_EQ(code("GET  HTTP/1.1\r\n\r\n"), 400);
  EXPECT_EQ(code("GET / HTTP/1.1x\r\n\r\n"), 400);
  EXPECT_EQ(code("GET / HTTP/1.1\r\nno colon\r\n\r\n"), 400);
  EXPECT_EQ(code("GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n"), 400);
  EXPECT_EQ(code("GET / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n"), 400);
  EXPECT_EQ(code("GET / HTTP/1.1\r\nContent-Length: 999999999999\r\n\r\n"), 400);
  EXPECT_EQ(code("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"), 501);
  // Heads longer than the limit are refused whether or not their end has arrived.
  const std::string big = "GET / HTTP/1.1\r\nX: " + std::string(kMaxHeadBytes, 'a');
  EXPECT_EQ(code(big), 431);
  EXPECT_EQ(code(big + "\r\n\r\n"), 431);
  EXPECT_EQ(code("GET / HTTP/1.1\r\nX: " + std::string(kMaxHeadBytes / 2, 'a')), 0);
}

}  // namespace
}  // namespace queue_server
