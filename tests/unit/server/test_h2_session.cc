// H2ServerSession driven by an nghttp2 client session in memory: no sockets, no clock.
#include <gtest/gtest.h>

#include "core/clock.h"
#include "h2_test_client.h"
#include "server/h2_session.h"
#include "server_test_util.h"

namespace hail {
namespace {

using test::drain_output;
using test::expected_pattern;
using test::H2TestClient;

ServerStats fixed_stats(const void*) {
  ServerStats stats;
  stats.requests = 11;
  stats.h2_streams = 7;
  return stats;
}

class H2SessionTest : public ::testing::Test {
 protected:
  H2SessionTest() {
    env_.counters = &counters_;
    env_.stats = &fixed_stats;
    env_.date_line = &date_;
  }

  // Moves bytes both ways until neither side has anything more to say. Returns false if the
  // server's output ended with a close marker.
  bool exchange(H2ServerSession& server, H2TestClient& client, uint64_t now_ns = 0) {
    bool closed = false;
    for (int round = 0; round < 10000; ++round) {
      const std::string to_server = client.take_output();
      if (!to_server.empty()) {
        EXPECT_TRUE(server.wants_input());
        EXPECT_EQ(server.feed(to_server.data(), to_server.size(), now_ns), to_server.size());
      }
      server.advance(now_ns);
      const std::string to_client = drain_output(server.output(), now_ns, &closed);
      sent_ += to_client.size();
      EXPECT_TRUE(client.receive(to_client));
      if (to_server.empty() && to_client.empty()) break;
    }
    return !closed;
  }

  ServerCounters counters_;
  std::string date_ = "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n";
  SessionEnv env_;
  H2Options options_;
  uint64_t sent_ = 0;
};

TEST(H2Preface, Detection) {
  const std::string preface(kH2ClientPreface);
  EXPECT_EQ(match_h2_preface(""), PrefaceMatch::kNeedMore);
  EXPECT_EQ(match_h2_preface("P"), PrefaceMatch::kNeedMore);
  EXPECT_EQ(match_h2_preface("PRI * HTTP/2.0\r\n"), PrefaceMatch::kNeedMore);
  EXPECT_EQ(match_h2_preface(preface.substr(0, 23)), PrefaceMatch::kNeedMore);
  EXPECT_EQ(match_h2_preface(preface), PrefaceMatch::kH2);
  EXPECT_EQ(match_h2_preface(preface + "\x00\x00\x12\x04"), PrefaceMatch::kH2);
  EXPECT_EQ(match_h2_preface("GET / HTTP/1.1\r\n"), PrefaceMatch::kNotH2);
  EXPECT_EQ(match_h2_preface("G"), PrefaceMatch::kNotH2);
  EXPECT_EQ(match_h2_preface("PRI * HTTP/1.1\r\n\r\n"), PrefaceMatch::kNotH2);
  EXPECT_EQ(match_h2_preface("POST /echo HTTP/1.1\r\n"), PrefaceMatch::kNotH2);
  EXPECT_EQ(match_h2_preface("PRI * HTTP/2.0\r\n\r\nXX"), PrefaceMatch::kNotH2);
}

TEST_F(H2SessionTest, Routes) {
  H2ServerSession server(&env_, options_);
  H2TestClient client;
  const int32_t bytes = client.submit("GET", "/bytes/100");
  const int32_t missing = client.submit("GET", "/status/404");
  const int32_t empty = client.submit("GET", "/status/204");
  const int32_t echo = client.submit("POST", "/echo", "ping", {{"content-type", "text/x-a"}});
  const int32_t head = client.submit("HEAD", "/bytes/5000");
  const int32_t stats = client.submit("GET", "/stats");
  const int32_t no_root = client.submit("GET", "/file.txt");
  const int32_t method = client.submit("DELETE", "/bytes/1");
  const int32_t traversal = client.submit("GET", "/%2e%2e/etc/passwd");
  EXPECT_TRUE(exchange(server, client));
  ASSERT_TRUE(client.all_done());

  const auto& b = client.stream(bytes);
  EXPECT_EQ(b.status, 200);
  EXPECT_EQ(b.body, expected_pattern(0, 100));
  EXPECT_EQ(b.header("content-length"), "100");
  EXPECT_EQ(b.header("content-type"), "application/octet-stream");
  EXPECT_EQ(b.header("server"), "hail");
  EXPECT_EQ(b.header("date"), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(client.stream(missing).status, 404);
  EXPECT_EQ(client.stream(missing).body, "404 Not Found\n");
  EXPECT_EQ(client.stream(empty).status, 204);
  EXPECT_FALSE(client.stream(empty).has("content-length"));
  EXPECT_EQ(client.stream(echo).body, "ping");
  EXPECT_EQ(client.stream(echo).header("content-type"), "text/x-a");
  EXPECT_EQ(client.stream(head).header("content-length"), "5000");
  EXPECT_EQ(client.stream(head).body, "");
  EXPECT_EQ(client.stream(stats).header("content-type"), "application/json");
  EXPECT_TRUE(client.stream(stats).body.starts_with("{\"requests\": 11, "))
      << client.stream(stats).body;
  EXPECT_NE(client.stream(stats).body.find("\"h2_streams\": 7}"), std::string::npos);
  EXPECT_EQ(client.stream(no_root).status, 404);
  EXPECT_EQ(client.stream(method).status, 405);
  EXPECT_EQ(client.stream(method).header("allow"), "GET, HEAD, POST, PUT");
  EXPECT_EQ(client.stream(traversal).status, 400);

  // Every stream but /stats counts, as an HTTP/1 request would.
  EXPECT_EQ(counters_.requests.load(), 8u);
  EXPECT_EQ(counters_.h2_streams.load(), 8u);
  EXPECT_EQ(server.streams_started(), 9u);
  EXPECT_EQ(server.open_streams(), 0u);
}

TEST_F(H2SessionTest, GoawayAfterMaxRequests) {
  options_.max_requests = 3;
  H2ServerSession server(&env_, options_);
  H2TestClient client;
  std::vector<int32_t> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(client.submit("GET", "/bytes/10"));
  EXPECT_FALSE(exchange(server, client));  // ends with close once the three are answered
  EXPECT_TRUE(client.goaway());
  EXPECT_EQ(client.goaway_last_stream_id(), ids[2]);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(client.stream(ids[i]).status, 200) << i;
    EXPECT_EQ(client.stream(ids[i]).body, expected_pattern(0, 10));
  }
  for (int i = 3; i < 5; ++i) {
    EXPECT_TRUE(client.done(ids[i])) << i;
    EXPECT_EQ(client.stream(ids[i]).status, 0) << i;  // never answered
    EXPECT_EQ(client.stream(ids[i]).close_error, uint32_t{NGHTTP2_REFUSED_STREAM}) << i;
  }
  EXPECT_EQ(counters_.requests.load(), 3u);
  EXPECT_EQ(counters_.h2_streams.load(), 3u);
  EXPECT_TRUE(server.output().closing());
  EXPECT_FALSE(server.wants_input());
}

TEST_F(H2SessionTest, GoawayWaitsForSlowStreams) {
  options_.max_requests = 2;
  H2ServerSession server(&env_, options_);
  H2TestClient client;
  const int32_t slow = client.submit("GET", "/delay/50");
  const int32_t fast = client.submit("GET", "/bytes/1");
  EXPECT_TRUE(exchange(server, client, 0));  // GOAWAY sent, /delay still owed: stays open
  EXPECT_TRUE(client.goaway());
  EXPECT_EQ(client.goaway_last_stream_id(), fast);
  EXPECT_TRUE(client.done(fast));
  EXPECT_FALSE(client.done(slow));
  EXPECT_EQ(server.wake_at_ns(), 50 * kNsPerMs);
  EXPECT_FALSE(exchange(server, client, 50 * kNsPerMs));  // answered, then closed
  EXPECT_EQ(client.stream(slow).body, "ok\n");
}

TEST_F(H2SessionTest, DelayDoesNotBlockOtherStreams) {
  H2ServerSession server(&env_, options_);
  H2TestClient client;
  const int32_t delayed = client.submit("GET", "/delay/100");
  const int32_t quick = client.submit("GET", "/bytes/3");
  EXPECT_TRUE(exchange(server, client, kNsPerSec));
  EXPECT_TRUE(client.done(quick));
  EXPECT_EQ(client.stream(quick).body, "abc");
  EXPECT_FALSE(client.done(delayed));
  EXPECT_EQ(server.wake_at_ns(), kNsPerSec + 100 * kNsPerMs);
  EXPECT_EQ(counters_.requests.load(), 2u);  // counted when decided, like HTTP/1

  EXPECT_TRUE(exchange(server, client, kNsPerSec + 99 * kNsPerMs));
  EXPECT_FALSE(client.done(delayed));
  EXPECT_TRUE(exchange(server, client, kNsPerSec + 100 * kNsPerMs));
  ASSERT_TRUE(client.done(delayed));
  EXPECT_EQ(client.stream(delayed).status, 200);
  EXPECT_EQ(client.stream(delayed).body, "ok\n");
  EXPECT_EQ(server.wake_at_ns(), UINT64_MAX);
}

TEST_F(H2SessionTest, EchoOfOneMebibyteThroughFlowControl) {
  H2ServerSession server(&env_, options_);
  H2TestClient client;  // 64 KiB windows both ways: many WINDOW_UPDATE rounds
  std::string body(1 << 20, '\0');
  for (size_t i = 0; i < body.size(); ++i) body[i] = static_cast<char>('a' + (i * 31) % 26);
  const int32_t echo = client.submit("PUT", "/echo", body, {{"content-type", "x/y"}});
  const int32_t chunked = client.submit("POST", "/echo", body.substr(0, 100000), {}, false);
  const int32_t big = client.submit("GET", "/bytes/3000000");
  EXPECT_TRUE(exchange(server, client));
  ASSERT_TRUE(client.all_done());
  EXPECT_EQ(client.stream(echo).status, 200);
  EXPECT_EQ(client.stream(echo).body.size(), body.size());
  EXPECT_TRUE(client.stream(echo).body == body);
  EXPECT_TRUE(client.stream(chunked).body == body.substr(0, 100000));
  EXPECT_TRUE(client.stream(big).body == expected_pattern(0, 3000000));
}

TEST_F(H2SessionTest, OversizedEchoIs413) {
  H2ServerSession server(&env_, options_);
  H2TestClient client;
  // Declared too large: refused at once, before any of the body.
  const int32_t declared = client.submit("POST", "/echo", std::string(9 << 20, 'x'));
  EXPECT_TRUE(exchange(server, client));
  ASSERT_TRUE(client.done(declared));
  EXPECT_EQ(client.stream(declared).status, 413);
  EXPECT_LT(client.stream(declared).uploaded, size_t{9 << 20});  // told to stop early

  // Undeclared: refused once it crosses the limit.
  H2ServerSession server2(&env_, options_);
  H2TestClient client2;
  const int32_t streamed = client2.submit("POST", "/echo", std::string(9 << 20, 'y'), {}, false);
  EXPECT_TRUE(exchange(server2, client2));
  ASSERT_TRUE(client2.done(streamed));
  EXPECT_EQ(client2.stream(streamed).status, 413);
  EXPECT_EQ(counters_.requests.load(), 2u);
}

TEST_F(H2SessionTest, HeaderLimits) {
  H2ServerSession server(&env_, options_);
  H2TestClient client;
  const int32_t long_path = client.submit("GET", "/" + std::string(9000, 'p'));
  std::vector<std::pair<std::string, std::string>> many;
  for (int i = 0; i < 200; ++i)
    many.emplace_back("x-big-" + std::to_string(i), std::string(100, 'v'));
  const int32_t big_headers = client.submit("GET", "/bytes/1", {}, many);
  const int32_t fine = client.submit("GET", "/bytes/1");
  EXPECT_TRUE(exchange(server, client));
  EXPECT_EQ(client.stream(long_path).status, 414);
  EXPECT_EQ(client.stream(big_headers).status, 431);
  EXPECT_EQ(client.stream(fine).status, 200);
}

TEST_F(H2SessionTest, GarbageClosesWithoutAnswer) {
  H2ServerSession server(&env_, options_);
  const std::string garbage =
      "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\xff\xff\xff\xff\xff\xff\xff\xff\xff";
  server.feed(garbage.data(), garbage.size(), 0);
  bool closed = false;
  drain_output(server.output(), 0, &closed);
  EXPECT_TRUE(closed);
  EXPECT_EQ(server.feed("more", 4, 0), 4u);  // ignored

  H2ServerSession not_h2(&env_, options_);
  not_h2.feed("GET / HTTP/1.1\r\n\r\n", 18, 0);
  closed = false;
  drain_output(not_h2.output(), 0, &closed);
  EXPECT_TRUE(closed);
  EXPECT_EQ(counters_.requests.load(), 0u);
}

TEST_F(H2SessionTest, StatsFramesAreNotCountedInBytesSent) {
  // bytes_sent counts what the queue's consume() reports as counted.
  auto counted_bytes = [&](const std::string& path, uint64_t* total) {
    H2ServerSession server(&env_, options_);
    H2TestClient client;
    client.submit("GET", path);
    uint64_t counted = 0;
    *total = 0;
    for (int round = 0; round < 100; ++round) {
      const std::string to_server = client.take_output();
      server.feed(to_server.data(), to_server.size(), 0);
      iovec iov[16];
      std::string to_client;
      for (;;) {
        const OutputQueue::Batch batch = server.output().gather(iov, 16, 1 << 20, 0);
        if (batch.iov_count == 0) break;
        for (size_t i = 0; i < batch.iov_count; ++i) {
          to_client.append(static_cast<const char*>(iov[i].iov_base), iov[i].iov_len);
        }
        counted += server.output().consume(batch.bytes);
      }
      *total += to_client.size();
      client.receive(to_client);
      if (to_server.empty() && to_client.empty()) break;
    }
    return counted;
  };
  uint64_t total = 0;
  const uint64_t stats_counted = counted_bytes("/stats", &total);
  EXPECT_GT(total, stats_counted + 100);  // the /stats HEADERS and DATA (the JSON) left out
  const uint64_t bytes_counted = counted_bytes("/bytes/100", &total);
  EXPECT_EQ(bytes_counted, total);
  // Connection-level frames (SETTINGS, its ACK) are counted either way.
  EXPECT_GT(stats_counted, 0u);
}

TEST_F(H2SessionTest, MutatedInputNeverBreaksTheLimits) {
  // A valid conversation, then the same bytes with random damage, fed in random pieces: whatever
  // nghttp2 makes of them, the session must stay within its output limits and not crash.
  H2TestClient client;
  client.submit("GET", "/bytes/100000");
  client.submit("POST", "/echo", std::string(70000, 'e'), {{"content-type", "a/b"}});
  client.submit("GET", "/delay/5");
  client.submit("HEAD", "/stats");
  client.submit("PUT", "/status/500", "body");
  const std::string valid = client.take_output();
  uint64_t seed = 12345;
  auto random = [&seed](uint64_t n) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (seed >> 33) % n;
  };
  for (int iteration = 0; iteration < 300; ++iteration) {
    std::string input = valid;
    const uint64_t damage = 1 + random(8);
    for (uint64_t i = 0; i < damage; ++i) {
      // Past the preface, mostly: a broken preface only tests one branch.
      const size_t at = kH2ClientPreface.size() + random(input.size() - kH2ClientPreface.size());
      input[at] = static_cast<char>(random(256));
    }
    H2ServerSession server(&env_, options_);
    uint64_t now = 0;
    for (size_t pos = 0; pos < input.size();) {
      const size_t n = std::min<size_t>(1 + random(3000), input.size() - pos);
      if (server.wants_input()) {
        ASSERT_EQ(server.feed(input.data() + pos, n, now), n);
        pos += n;
      }
      ASSERT_LE(server.output().buffered_bytes(), kMaxBufferedOutputBytes + 64 * 1024);
      now += kNsPerMs;
      server.advance(now);
      drain_output(server.output(), now);
      if (server.output().closing()) break;
    }
  }
}

}  // namespace
}  // namespace hail
