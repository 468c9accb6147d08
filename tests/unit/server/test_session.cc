// ServerSession fed bytes directly: no sockets, no clock.
#include <gtest/gtest.h>

#include "server/session.h"
#include "server_test_util.h"

namespace hail {
namespace {

using test::drain_output;
using test::expected_pattern;
using test::parse_responses;
using test::Response;

ServerStats fixed_stats(const void*) {
  ServerStats stats;
  stats.requests = 11;
  stats.connections = 22;
  stats.bytes_sent = 33;
  return stats;
}

class SessionTest : public ::testing::Test {
 protected:
  SessionTest() {
    env_.counters = &counters_;
    env_.stats = &fixed_stats;
    env_.date_line = &date_;
  }

  // Feeds `input` in one piece (or in pieces of `step` bytes) and drains everything due by
  // `now_ns`.
  std::string run(std::string_view input, size_t step = SIZE_MAX, bool* closed = nullptr,
                  uint64_t now_ns = 0) {
    ServerSession session(&env_);
    std::string out;
    for (size_t pos = 0; pos < input.size();) {
      const size_t n = std::min(step, input.size() - pos);
      size_t used = 0;
      while (used < n) {
        used += session.feed(input.data() + pos + used, n - used, now_ns);
        out += drain_output(session.output(), now_ns, closed);
        if (session.output().closing()) break;
      }
      pos += n;
    }
    out += drain_output(session.output(), now_ns, closed);
    return out;
  }

  std::vector<Response> responses(std::string_view input, std::vector<bool> no_body = {},
                                  bool* closed = nullptr) {
    return parse_responses(run(input, SIZE_MAX, closed), no_body);
  }

  ServerCounters counters_;
  std::string date_ = "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n";
  SessionEnv env_;
};

TEST_F(SessionTest, BytesEndpoint) {
  const std::string out = run("GET /bytes/100 HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(out,
            "HTTP/1.1 200 OK\r\nServer: hail\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
            "Content-Type: application/octet-stream\r\nContent-Length: 100\r\n\r\n" +
                expected_pattern(0, 100));
  EXPECT_EQ(counters_.requests.load(), 1u);
}

TEST_F(SessionTest, HeadHasHeadersWithoutBody) {
  const std::string out =
      run("HEAD /bytes/100 HTTP/1.1\r\nHost: x\r\n\r\nHEAD /status/418 HTTP/1.1\r\n\r\n");
  auto r = parse_responses(out, {true, true});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].header("content-length"), "100");
  EXPECT_EQ(r[1].status, 418);
  EXPECT_EQ(r[1].header("content-length"), "17");  // "418 I'm a teapot\n"
  EXPECT_TRUE(out.ends_with("\r\n\r\n"));
}

TEST_F(SessionTest, PipelinedRequestsAtEverySplit) {
  const std::string input =
      "GET /bytes/3 HTTP/1.1\r\nHost: x\r\n\r\n"
      "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/x-test\r\nContent-Length: "
      "5\r\n\r\nhello"
      "PUT /bytes/2 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
      "GET /status/201 HTTP/1.1\r\n\r\n";
  const std::string whole = run(input);
  auto r = parse_responses(whole);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].body, "abc");
  EXPECT_EQ(r[1].body, "hello");
  EXPECT_EQ(r[1].header("content-type"), "text/x-test");
  EXPECT_EQ(r[2].body, "ab");
  EXPECT_EQ(r[3].status, 201);
  for (size_t step = 1; step < input.size(); ++step) {
    EXPECT_EQ(run(input, step), whole) << "step " << step;
  }
}

TEST_F(SessionTest, Http10ClosesUnlessKeepAlive) {
  bool closed = false;
  auto r = responses("GET /bytes/1 HTTP/1.0\r\n\r\nGET /bytes/1 HTTP/1.0\r\n\r\n", {}, &closed);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].header("connection"), "close");
  EXPECT_TRUE(closed);

  closed = false;
  r = responses(
      "GET /bytes/1 HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /bytes/2 HTTP/1.0\r\nConnection: "
      "Keep-Alive\r\n\r\n",
      {}, &closed);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].header("connection"), "keep-alive");
  EXPECT_EQ(r[1].header("connection"), "keep-alive");
  EXPECT_FALSE(closed);
}

TEST_F(SessionTest, ConnectionCloseHonoured) {
  bool closed = false;
  auto r = responses(
      "GET /bytes/1 HTTP/1.1\r\n\r\nGET /bytes/2 HTTP/1.1\r\nConnection: close\r\n\r\nGET /bytes/3 "
      "HTTP/1.1\r\n\r\n",
      {}, &closed);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_FALSE(r[0].has("connection"));
  EXPECT_EQ(r[1].header("connection"), "close");
  EXPECT_TRUE(closed);
}

TEST_F(SessionTest, ChunkedEcho) {
  auto r = responses(
      "POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n"
      "4\r\n{\"a\"\r\n3;ext=1\r\n:1}\r\n0\r\nTrailer: x\r\n\r\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].status, 200);
  EXPECT_EQ(r[0].body, "{\"a\":1}");
  EXPECT_EQ(r[0].header("content-type"), "application/json");
}

TEST_F(SessionTest, EchoWithoutContentTypeHasNone) {
  auto r = responses("PATCH /echo HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].body, "hi");
  EXPECT_FALSE(r[0].has("content-type"));
}

TEST_F(SessionTest, SmugglingAttemptsAreRefused) {
  const char* inputs[] = {
      // CL + TE
      "POST /echo HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
      "POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n",
      // conflicting Content-Length
      "POST /echo HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
      // TE not ending in chunked
      "POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n",
      // bad chunk size
      "POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n\r\n",
      // garbage
      "HELLO\r\n\r\n",
      "GET / HTTP/1.1\r\nBad Header\r\n\r\n",
      "GET /\x01 HTTP/1.1\r\n\r\n",
  };
  for (const char* input : inputs) {
    bool closed = false;
    auto r = responses(input, {}, &closed);
    ASSERT_EQ(r.size(), 1u) << input;
    EXPECT_EQ(r[0].status, 400) << input;
    EXPECT_EQ(r[0].header("connection"), "close") << input;
    EXPECT_TRUE(closed) << input;
  }
}

TEST_F(SessionTest, RequestLineLimit) {
  const std::string ok_target = "/" + std::string(kMaxRequestLineBytes - 20, 'a');
  auto r = responses("GET " + ok_target + " HTTP/1.1\r\n\r\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].status, 404);

  const std::string long_target = "/" + std::string(kMaxRequestLineBytes, 'a');
  const std::string input = "GET " + long_target + " HTTP/1.1\r\n\r\n";
  for (size_t step : {SIZE_MAX, size_t{1000}, size_t{4096}}) {
    bool closed = false;
    auto got = parse_responses(run(input, step, &closed));
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].status, 414);
    EXPECT_TRUE(closed);
  }
}

TEST_F(SessionTest, HeaderSectionLimit) {
  std::string headers;
  while (headers.size() < kMaxHeaderBytes - 200)
    headers += "X-Filler: " + std::string(90, 'f') + "\r\n";
  auto r = responses("GET /bytes/1 HTTP/1.1\r\n" + headers + "\r\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].status, 200);

  headers += "X-Last: " + std::string(400, 'l') + "\r\n";
  const std::string input = "GET /bytes/1 HTTP/1.1\r\n" + headers + "\r\n";
  for (size_t step : {SIZE_MAX, size_t{1}, size_t{1000}}) {
    bool closed = false;
    auto got = parse_responses(run(input, step, &closed));
    ASSERT_EQ(got.size(), 1u) << step;
    EXPECT_EQ(got[0].status, 431) << step;
    EXPECT_TRUE(closed);
  }
}

TEST_F(SessionTest, WhitespaceFloodInHeadIsLimited) {
  // Whitespace no callback reports still counts towards the head.
  std::string input = "GET /bytes/1 HTTP/1.1\r\nX-A:" + std::string(40000, ' ');
  bool closed = false;
  auto got = parse_responses(run(input, 4096, &closed));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].status, 431);
  EXPECT_TRUE(closed);
}

TEST_F(SessionTest, EchoBodyLimit) {
  bool closed = false;
  auto r = responses("POST /echo HTTP/1.1\r\nContent-Length: 8388609\r\n\r\n", {}, &closed);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].status, 413);
  EXPECT_TRUE(closed);

  // Chunked: found out while reading.
  std::string chunked = "POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
  const std::string chunk(1 << 20, 'c');
  for (int i = 0; i < 9; ++i) chunked += "100000\r\n" + chunk + "\r\n";
  chunked += "0\r\n\r\n";
  closed = false;
  r = parse_responses(run(chunked, 65536, &closed));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].status, 413);
  EXPECT_TRUE(closed);

  // Exactly the limit is fine.
  const std::string body(kMaxEchoBodyBytes, 'e');
  r = responses("POST /echo HTTP/1.1\r\nContent-Length: " + std::to_string(body.size()) +
                "\r\n\r\n" + body);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].status, 200);
  EXPECT_EQ(r[0].body.size(), body.size());
}

TEST_F(SessionTest, BodiesOfOtherEndpointsAreDiscarded) {
  const std::string big(100000, 'b');
  auto r = responses("POST /bytes/2 HTTP/1.1\r\nContent-Length: " + std::to_string(big.size()) +
                     "\r\n\r\n" + big + "GET /bytes/1 HTTP/1.1\r\n\r\n");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].body, "ab");
  EXPECT_EQ(r[1].body, "a");
}

TEST_F(SessionTest, StatusEndpoint) {
  auto r = responses(
      "GET /status/204 HTTP/1.1\r\n\r\nGET /status/304 HTTP/1.1\r\n\r\nGET /status/503 "
      "HTTP/1.1\r\n\r\n"
      "GET /status/99 HTTP/1.1\r\n\r\n");
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].status, 204);
  EXPECT_FALSE(r[0].has("content-length"));
  EXPECT_EQ(r[0].body, "");
  EXPECT_EQ(r[1].status, 304);
  EXPECT_FALSE(r[1].has("content-length"));
  EXPECT_EQ(r[2].status, 503);
  EXPECT_EQ(r[2].body, "503 Service Unavailable\n");
  EXPECT_EQ(r[3].status, 400);
}

TEST_F(SessionTest, MethodsAndMissingRoot) {
  auto r = responses(
      "DELETE /bytes/1 HTTP/1.1\r\n\r\nPOST /stats HTTP/1.1\r\nContent-Length: 0\r\n\r\n"
      "GET /nothing.html HTTP/1.1\r\n\r\nOPTIONS /echo HTTP/1.1\r\n\r\n");
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].status, 405);
  EXPECT_EQ(r[0].header("allow"), "GET, HEAD, POST, PUT");
  EXPECT_EQ(r[1].status, 405);
  EXPECT_EQ(r[1].header("allow"), "GET, HEAD");
  EXPECT_EQ(r[2].status, 404);
  EXPECT_EQ(r[3].status, 200);
}

TEST_F(SessionTest, ConnectIsRefused) {
  bool closed = false;
  auto r =
      responses("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", {}, &closed);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].status, 400);
  EXPECT_TRUE(closed);
}

TEST_F(SessionTest, UpgradeIsIgnored) {
  auto r = responses(
      "GET /bytes/1 HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\nGET /bytes/2 "
      "HTTP/1.1\r\n\r\n");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].status, 200);
  EXPECT_EQ(r[1].body, "ab");
}

TEST_F(SessionTest, TraversalIsBadRequest) {
  for (const char* target : {"/../etc/passwd", "/%2e%2e/", "/a/%2E%2E/%2e%2e/x", "/a%00", "/%zz"}) {
    bool closed = false;
    auto r = responses(std::string("GET ") + target + " HTTP/1.1\r\n\r\n", {}, &closed);
    ASSERT_EQ(r.size(), 1u) << target;
    EXPECT_EQ(r[0].status, 400) << target;
    EXPECT_TRUE(closed) << target;
  }
}

TEST_F(SessionTest, ExpectContinue) {
  const std::string out =
      run("POST /echo HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok");
  EXPECT_TRUE(out.starts_with("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n")) << out;
  EXPECT_TRUE(out.ends_with("\r\n\r\nok"));
}

TEST_F(SessionTest, StatsAreNotCounted) {
  auto r = responses(
      "GET /bytes/1 HTTP/1.1\r\n\r\nGET /stats HTTP/1.1\r\n\r\nGET /nope HTTP/1.1\r\n\r\n");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[1].status, 200);
  EXPECT_EQ(r[1].header("content-type"), "application/json");
  EXPECT_EQ(
      r[1].body,
      "{\"requests\": 11, \"connections\": 22, \"bytes_sent\": 33, \"rejected_connections\": 0, "
      "\"tls_handshakes\": 0, \"tls_resumed\": 0, \"h2_connections\": 0, \"h2_streams\": 0}\n");
  EXPECT_EQ(counters_.requests.load(), 2u);  // /bytes and the 404
}

TEST_F(SessionTest, DelayHoldsThePipeline) {
  ServerSession session(&env_);
  const std::string input = "GET /delay/50 HTTP/1.1\r\n\r\nGET /bytes/1 HTTP/1.1\r\n\r\n";
  const uint64_t t0 = 1'000'000'000;
  EXPECT_EQ(session.feed(input.data(), input.size(), t0), input.size());
  EXPECT_EQ(drain_output(session.output(), t0 + 49 * kNsPerMs), "");
  const std::string out = drain_output(session.output(), t0 + 50 * kNsPerMs);
  auto r = parse_responses(out);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].body, "ok\n");
  EXPECT_EQ(r[1].body, "a");
}

TEST_F(SessionTest, HeadStateAndTimeout) {
  ServerSession session(&env_);
  EXPECT_FALSE(session.in_head());
  const std::string part = "GET /bytes/1 HTTP/1.1\r\nHost: x\r\n";
  session.feed(part.data(), part.size(), 0);
  EXPECT_TRUE(session.in_head());
  EXPECT_TRUE(session.mid_request());
  session.time_out_head();
  bool closed = false;
  auto r = parse_responses(drain_output(session.output(), 0, &closed));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].status, 408);
  EXPECT_TRUE(closed);
  EXPECT_TRUE(session.refused());
  EXPECT_FALSE(session.wants_input());
}

TEST_F(SessionTest, OutputLimitPausesParsing) {
  std::string input;
  const int kRequests = 2000;
  for (int i = 0; i < kRequests; ++i) input += "GET /bytes/1 HTTP/1.1\r\n\r\n";
  ServerSession session(&env_);
  size_t pos = 0;
  std::string out;
  int rounds = 0;
  while (pos < input.size()) {
    const size_t used = session.feed(input.data() + pos, input.size() - pos, 0);
    pos += used;
    EXPECT_LE(session.output().segments(), kMaxQueuedSegments + 2);
    if (pos < input.size()) {
      EXPECT_FALSE(session.wants_input());
    }
    out += drain_output(session.output(), 0);
    ++rounds;
    ASSERT_LT(rounds, 1000);
  }
  EXPECT_GT(rounds, 2);
  EXPECT_EQ(parse_responses(out).size(), static_cast<size_t>(kRequests));
}

TEST_F(SessionTest, LeadingEmptyLinesAreTolerated) {
  auto r = responses("\r\nGET /bytes/1 HTTP/1.1\r\n\r\n\r\nGET /bytes/1 HTTP/1.1\r\n\r\n");
  EXPECT_EQ(r.size(), 2u);
}

}  // namespace
}  // namespace hail
