// H2ClientSession against an in-memory nghttp2 server (h2_test_server.h): bytes pumped both ways,
// whole or in small pieces; every event checked exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "http/h2_client_session.h"
#include "http/request.h"
#include "unit/http/h2_test_server.h"

namespace hail {
namespace {

using test::complete;
using test::Event;
using test::Events;
using test::failed;
using test::first_byte;
using test::get;
using test::H2TestServer;
using test::Link;
using test::pattern;

constexpr H2Settings kOneStream{1, 30};

TEST(H2ClientSession, NoCapacityBeforeServerSettings) {
  Link link({8, 30});
  EXPECT_EQ(link.client.capacity(), 0u);
  EXPECT_TRUE(link.client.reusable());
  const std::string_view out = link.client.pending_output();
  ASSERT_GE(out.size(), 24u);
  EXPECT_EQ(out.substr(0, 24), "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  EXPECT_EQ(link.client.capacity(), 8u);
  nghttp2_session* s = link.server.session();
  EXPECT_EQ(nghttp2_session_get_remote_settings(s, NGHTTP2_SETTINGS_ENABLE_PUSH), 0u);
  EXPECT_EQ(nghttp2_session_get_remote_settings(s, NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE),
            (1u << 30) - 1);
  // The connection window was raised to the same size with one WINDOW_UPDATE.
  EXPECT_EQ(link.server.connection_window_updates, 1u);
  EXPECT_EQ(link.server.connection_window_increment, (1u << 30) - 1 - 65535);
  EXPECT_EQ(nghttp2_session_get_remote_window_size(s), (1 << 30) - 1);
}

TEST(H2ClientSession, OneGet) {
  Link link(kOneStream);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  ASSERT_EQ(link.client.capacity(), 1u);
  const RequestTemplate req = get("/200?len=5");
  link.client.submit(7, req);
  EXPECT_EQ(link.client.in_flight(), 1u);
  EXPECT_EQ(link.client.capacity(), 0u);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  EXPECT_EQ(link.events.take(), (std::vector<Event>{first_byte(7), complete(7, 200)}));
  EXPECT_EQ(link.client.in_flight(), 0u);
  EXPECT_EQ(link.client.capacity(), 1u);
  EXPECT_TRUE(link.client.reusable());
  ASSERT_EQ(link.server.streams.size(), 1u);
  const H2TestServer::Stream& s = link.server.streams.at(1);
  EXPECT_EQ(s.method, "GET");
  EXPECT_EQ(s.scheme, "http");
  EXPECT_EQ(s.authority, "example.test:8080");
  EXPECT_EQ(s.path, "/200?len=5");
  EXPECT_EQ(s.fields, req.h2_fields);
  EXPECT_EQ(s.body_sent, 5u);
  EXPECT_TRUE(link.client.pending_output().empty());
}

TEST(H2ClientSession, ManyStreamsAtOnceAndEntriesReused) {
  Link link({8, 30});
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  const RequestTemplate hold = get("/hold");
  for (uint32_t i = 0; i < 8; ++i) {
    EXPECT_EQ(link.client.capacity(), 8 - i);
    link.client.submit(100 + i, hold);
  }
  EXPECT_EQ(link.client.capacity(), 0u);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  EXPECT_EQ(link.server.open_requests(), 8u);
  for (int32_t id = 1; id <= 15; id += 2) link.server.respond(id, 204, 0);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  std::vector<Event> want;
  for (uint32_t i = 0; i < 8; ++i) {
    want.push_back(first_byte(100 + i));
    want.push_back(complete(100 + i, 204));
  }
  EXPECT_EQ(link.events.take(), want);
  EXPECT_EQ(link.client.capacity(), 8u);
  // Many more, always 8 at a time: entries are recycled, every request gets its one event.
  const RequestTemplate ok = get("/200?len=10");
  uint32_t completes = 0;
  for (int round = 0; round < 100; ++round) {
    for (uint32_t i = 0; link.client.capacity() > 0; ++i) link.client.submit(i, ok);
    ASSERT_EQ(link.pump(), SessionStatus::kOk);
    for (const Event& e : link.events.take()) completes += e.kind == Event::kComplete;
  }
  EXPECT_EQ(completes, 800u);
  EXPECT_EQ(link.client.in_flight(), 0u);
}

TEST(H2ClientSession, ServerLimitBelowOursBoundsCapacity) {
  Link link({10, 30}, 3);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  EXPECT_EQ(link.client.capacity(), 3u);
  const RequestTemplate hold = get("/hold");
  for (uint32_t i = 0; i < 3; ++i) link.client.submit(i, hold);
  EXPECT_EQ(link.client.capacity(), 0u);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  // The server lowers its limit below what is in flight: capacity stays 0, no underflow.
  link.server.max_concurrent_streams(1);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  EXPECT_EQ(link.client.capacity(), 0u);
  link.server.respond(1, 200, 0);
  link.server.respond(3, 200, 0);
  link.server.respond(5, 200, 0);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  EXPECT_EQ(link.events.take().size(), 6u);
  EXPECT_EQ(link.client.capacity(), 1u);
}

TEST(H2ClientSession, RstStreamFailsOnlyThatRequest) {
  Link link({4, 30});
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  const RequestTemplate internal = get("/rst?code=2");
  const RequestTemplate refused = get("/rst?code=7");
  const RequestTemplate odd = get("/rst?code=99");
  const RequestTemplate ok = get("/200?len=1");
  link.client.submit(0, internal);
  link.client.submit(1, refused);
  link.client.submit(2, odd);
  link.client.submit(3, ok);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  EXPECT_EQ(link.events.take(), (std::vector<Event>{failed(0, "stream reset: INTERNAL_ERROR"),
                                                    failed(1, "stream reset: REFUSED_STREAM"),
                                                    failed(2, "stream reset: unknown error code"),
                                                    first_byte(3), complete(3, 200)}));
  EXPECT_TRUE(link.client.reusable());
  EXPECT_EQ(link.client.capacity(), 4u);
}

TEST(H2ClientSession, MalformedResponseFailsTheStream) {
  Link link({2, 30});
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  const RequestTemplate bad = get("/badlen");
  const RequestTemplate ok = get("/200");
  link.client.submit(0, bad);
  link.client.submit(1, ok);
  const std::string_view out = link.client.pending_output();
  ASSERT_TRUE(link.server.recv(out));
  link.client.consume_output(out.size());
  // One feed: the failure is reported from feed() itself (the RST_STREAM that closes the stream
  // goes out there), not left for a later read that may never come.
  const std::string in = link.server.send();
  ASSERT_EQ(link.client.feed(in.data(), in.size(), link.events), SessionStatus::kOk);
  EXPECT_EQ(link.events.take(), (std::vector<Event>{first_byte(0), first_byte(1), complete(1, 200),
                                                    failed(0, "stream error: PROTOCOL_ERROR")}));
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  EXPECT_EQ(link.server.streams.at(1).reset_code, static_cast<uint32_t>(NGHTTP2_PROTOCOL_ERROR));
  EXPECT_TRUE(link.client.reusable());
}

TEST(H2ClientSession, GoawayRefusesStreamsAboveLastId) {
  Link link({4, 30});
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  const RequestTemplate hold = get("/hold");
  for (uint32_t i = 0; i < 4; ++i) link.client.submit(i, hold);  // streams 1, 3, 5, 7
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  link.server.goaway(3);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  EXPECT_EQ(link.events.take(),
            (std::vector<Event>{failed(3, "refused by GOAWAY"), failed(2, "refused by GOAWAY")}));
  EXPECT_FALSE(link.client.reusable());
  EXPECT_EQ(link.client.capacity(), 0u);
  EXPECT_EQ(link.client.in_flight(), 2u);
  link.server.respond(1, 200, 100);
  link.server.respond(3, 404, 0);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  EXPECT_EQ(link.events.take(),
            (std::vector<Event>{first_byte(0), first_byte(1), complete(1, 404), complete(0, 200)}));
  EXPECT_EQ(link.client.in_flight(), 0u);
}

TEST(H2ClientSession, GoawayRefusesRequestsNotSentYet) {
  Link link({4, 30});
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  const RequestTemplate req = get("/200");
  link.client.submit(5, req);
  link.client.submit(6, req);
  link.server.goaway(0);  // arrives before the client wrote its HEADERS
  const std::string in = link.server.send();
  ASSERT_EQ(link.client.feed(in.data(), in.size(), link.events), SessionStatus::kOk);
  EXPECT_EQ(link.events.take(),
            (std::vector<Event>{failed(5, "refused by GOAWAY"), failed(6, "refused by GOAWAY")}));
  EXPECT_EQ(link.client.in_flight(), 0u);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  EXPECT_TRUE(link.events.list.empty());
  EXPECT_TRUE(link.server.streams.empty());
}

TEST(H2ClientSession, GoawayRefusesRequestsHeldBackByTheServerLimit) {
  Link link({4, 30}, 2);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  const RequestTemplate hold = get("/hold");
  link.client.submit(0, hold);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  link.client.submit(1, hold);
  // Before the client writes stream 3, the server lowers its limit to 1 and goes away: nghttp2
  // holds stream 3 back behind stream 1 and would refuse it only once stream 1 ends.
  link.server.max_concurrent_streams(1);
  link.server.goaway(1);
  const std::string in = link.server.send();
  ASSERT_EQ(link.client.feed(in.data(), in.size(), link.events), SessionStatus::kOk);
  EXPECT_EQ(link.events.take(), (std::vector<Event>{failed(1, "refused by GOAWAY")}));
  link.server.respond(1, 200, 0);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  EXPECT_EQ(link.events.take(), (std::vector<Event>{first_byte(0), complete(0, 200)}));
  EXPECT_EQ(link.server.streams.count(3), 0u);
}

TEST(H2ClientSession, LargeBodyWithDefaultWindowNeedsWindowUpdates) {
  Link link({2, 16});
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  EXPECT_EQ(nghttp2_session_get_remote_settings(link.server.session(),
                                                NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE),
            65535u);
  const RequestTemplate big = get("/200?len=1048576");
  link.client.submit(0, big);
  link.client.submit(1, big);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  EXPECT_EQ(link.events.take(),
            (std::vector<Event>{first_byte(0), first_byte(1), complete(0, 200), complete(1, 200)}));
  EXPECT_EQ(link.server.streams.at(1).body_sent, 1048576u);
  EXPECT_EQ(link.server.streams.at(3).body_sent, 1048576u);
  EXPECT_GE(link.server.stream_window_updates, 2u * 1048576 / 65535);
  EXPECT_GE(link.server.connection_window_updates, 2u * 1048576 / 65535);
}

TEST(H2ClientSession, LargeWindowNeedsNoUpdates) {
  Link link({1, 30});
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  const RequestTemplate big = get("/200?len=1048576");
  link.client.submit(0, big);
  ASSERT_EQ(link.pump(SIZE_MAX, 1000), SessionStatus::kOk);
  EXPECT_EQ(link.events.take(), (std::vector<Event>{first_byte(0), complete(0, 200)}));
  EXPECT_EQ(link.server.stream_window_updates, 0u);
  EXPECT_EQ(link.server.connection_window_updates, 1u);  // the initial raise only
}

TEST(H2ClientSession, PostBodyArrivesIntact) {
  Link link({2, 30});
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  // Larger than the server's 65535-byte windows: the client waits for its WINDOW_UPDATEs.
  const RequestTemplate post = get("/201", "POST", pattern(200 * 1024 + 17));
  const RequestTemplate small = get("/200", "PUT", "x");
  link.client.submit(0, post);
  link.client.submit(1, small);
  ASSERT_EQ(link.pump(7000, 3000), SessionStatus::kOk);
  EXPECT_EQ(link.events.take(),
            (std::vector<Event>{first_byte(1), complete(1, 200), first_byte(0), complete(0, 201)}));
  EXPECT_EQ(link.server.streams.at(1).body, post.body);
  EXPECT_EQ(link.server.streams.at(1).method, "POST");
  EXPECT_EQ(link.server.streams.at(3).body, "x");
}

TEST(H2ClientSession, EarlyAnswerToUploadCompletesAndResetsTheStream) {
  Link link({1, 30});
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  const RequestTemplate post = get("/early", "POST", pattern(300 * 1024));
  link.client.submit(0, post);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  EXPECT_EQ(link.events.take(), (std::vector<Event>{first_byte(0), complete(0, 200)}));
  EXPECT_TRUE(link.server.streams.at(1).reset_by_client);
  EXPECT_EQ(link.server.streams.at(1).reset_code, static_cast<uint32_t>(NGHTTP2_CANCEL));
  EXPECT_LT(link.server.streams.at(1).body.size(), post.body.size());
  const RequestTemplate next = get("/200");
  link.client.submit(1, next);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  EXPECT_EQ(link.events.take(), (std::vector<Event>{first_byte(1), complete(1, 200)}));
}

TEST(H2ClientSession, HeadHasNoBody) {
  Link link(kOneStream);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  const RequestTemplate head = get("/200?len=1000", "HEAD");
  link.client.submit(3, head);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  EXPECT_EQ(link.events.take(), (std::vector<Event>{first_byte(3), complete(3, 200)}));
  EXPECT_EQ(link.server.streams.at(1).method, "HEAD");
  EXPECT_EQ(link.server.streams.at(1).body_sent, 0u);
}

TEST(H2ClientSession, TrailersEndTheResponse) {
  Link link(kOneStream);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  const RequestTemplate req = get("/trailers");
  link.client.submit(0, req);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  EXPECT_EQ(link.events.take(), (std::vector<Event>{first_byte(0), complete(0, 200)}));
  EXPECT_EQ(link.client.capacity(), 1u);
}

TEST(H2ClientSession, InterimResponsesCounted) {
  Link link({2, 30});
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  const RequestTemplate two = get("/interim?n=2");
  const RequestTemplate none = get("/interim?n=0");
  link.client.submit(0, two);
  link.client.submit(1, none);
  ASSERT_EQ(link.pump(1), SessionStatus::kOk);  // one byte at a time
  EXPECT_EQ(link.events.take(), (std::vector<Event>{first_byte(0), complete(0, 200, 2),
                                                    first_byte(1), complete(1, 200, 0)}));
}

TEST(H2ClientSession, CancelResetsTheStreamWithoutEvent) {
  Link link({4, 30});
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  const RequestTemplate hold = get("/hold");
  const RequestTemplate ok = get("/200");
  link.client.submit(0, hold);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  EXPECT_TRUE(link.client.cancel(0));
  EXPECT_FALSE(link.client.cancel(0));
  EXPECT_FALSE(link.client.cancel(42));
  EXPECT_EQ(link.client.in_flight(), 0u);
  // Cancelled before its HEADERS went out: they never do.
  link.client.submit(1, ok);
  EXPECT_TRUE(link.client.cancel(1));
  link.client.submit(2, ok);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  EXPECT_TRUE(link.server.streams.at(1).reset_by_client);
  EXPECT_EQ(link.server.streams.at(1).reset_code, static_cast<uint32_t>(NGHTTP2_CANCEL));
  EXPECT_EQ(link.server.streams.count(3), 0u);
  EXPECT_EQ(link.events.take(), (std::vector<Event>{first_byte(2), complete(2, 200)}));
  // A response the server had already sent for a cancelled stream is ignored.
  link.client.submit(3, hold);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  link.server.respond(7, 200, 50000);
  const std::string in = link.server.send();
  EXPECT_TRUE(link.client.cancel(3));
  ASSERT_EQ(link.client.feed(in.data(), in.size(), link.events), SessionStatus::kOk);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  EXPECT_TRUE(link.events.list.empty());
  EXPECT_EQ(link.client.in_flight(), 0u);
  EXPECT_EQ(link.client.capacity(), 4u);
}

TEST(H2ClientSession, CancelDuringUpload) {
  Link link({2, 30});
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  // Cancelled with most of its 1 MiB body still to send (the server's window is 65535 bytes).
  const RequestTemplate post = get("/hold", "POST", pattern(1 << 20));
  link.client.submit(0, post);
  std::string_view out = link.client.pending_output();
  ASSERT_TRUE(link.server.recv(out));
  link.client.consume_output(out.size());
  EXPECT_TRUE(link.client.cancel(0));
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  EXPECT_TRUE(link.events.list.empty());
  EXPECT_TRUE(link.server.streams.at(1).reset_by_client);
  EXPECT_EQ(link.server.streams.at(1).reset_code, static_cast<uint32_t>(NGHTTP2_CANCEL));
  EXPECT_LT(link.server.streams.at(1).body.size(), post.body.size());
  const RequestTemplate ok = get("/200");
  link.client.submit(1, ok);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  EXPECT_EQ(link.events.take(), (std::vector<Event>{first_byte(1), complete(1, 200)}));
}

TEST(H2ClientSession, RefusalFoundWhileWritingIsReportedByTheNextCall) {
  Link link({2, 30});
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  link.server.goaway(0);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  // Past capacity() (0 after GOAWAY): nghttp2 refuses it inside pending_output(), where no
  // listener is at hand; on_eof() (or the next feed()) reports it.
  const RequestTemplate req = get("/200");
  link.client.submit(9, req);
  EXPECT_TRUE(link.client.pending_output().empty());
  EXPECT_TRUE(link.events.list.empty());
  EXPECT_EQ(link.client.in_flight(), 1u);
  EXPECT_EQ(link.client.on_eof(link.events), SessionStatus::kOk);
  EXPECT_EQ(link.events.take(), (std::vector<Event>{failed(9, "refused by GOAWAY")}));
  EXPECT_EQ(link.client.in_flight(), 0u);
}

TEST(H2ClientSession, GarbageIsAConnectionError) {
  Link link({2, 30});
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  const RequestTemplate hold = get("/hold");
  link.client.submit(0, hold);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  const std::string garbage = "this is not an HTTP/2 frame at all";
  EXPECT_EQ(link.client.feed(garbage.data(), garbage.size(), link.events), SessionStatus::kError);
  EXPECT_EQ(link.client.error(), ErrorClass::kParse);
  EXPECT_STREQ(link.client.error_reason(), "connection error: FRAME_SIZE_ERROR");
  EXPECT_FALSE(link.client.reusable());
  EXPECT_EQ(link.client.capacity(), 0u);
  EXPECT_FALSE(link.client.cancel(0));
  // Sticky, and silent: the connection fails what is in flight.
  link.server.respond(1, 200, 0);
  const std::string in = link.server.send();
  EXPECT_EQ(link.client.feed(in.data(), in.size(), link.events), SessionStatus::kError);
  EXPECT_EQ(link.client.on_eof(link.events), SessionStatus::kError);
  EXPECT_EQ(link.client.error(), ErrorClass::kParse);
  EXPECT_TRUE(link.events.list.empty());
  EXPECT_EQ(link.client.in_flight(), 1u);
  // reset() starts over.
  link.client.reset();
  EXPECT_EQ(link.client.in_flight(), 0u);
  EXPECT_TRUE(link.client.reusable());
}

TEST(H2ClientSession, Http1AnswerIsAConnectionError) {
  Link link({2, 30});
  const std::string h1 = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
  EXPECT_EQ(link.client.feed(h1.data(), h1.size(), link.events), SessionStatus::kError);
  EXPECT_EQ(link.client.error(), ErrorClass::kParse);
  EXPECT_STREQ(link.client.error_reason(), "connection error: PROTOCOL_ERROR");
}

TEST(H2ClientSession, EofWithStreamsInFlight) {
  Link link({2, 30});
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  const RequestTemplate hold = get("/hold");
  link.client.submit(0, hold);
  link.client.submit(1, hold);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  link.server.respond(1, 200, 0);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  EXPECT_EQ(link.events.take(), (std::vector<Event>{first_byte(0), complete(0, 200)}));
  EXPECT_EQ(link.client.on_eof(link.events), SessionStatus::kError);
  EXPECT_EQ(link.client.error(), ErrorClass::kRead);
  EXPECT_STREQ(link.client.error_reason(), "connection closed");
  EXPECT_FALSE(link.client.reusable());
  EXPECT_TRUE(link.events.list.empty());
  EXPECT_EQ(link.client.in_flight(), 1u);
}

TEST(H2ClientSession, EofIdleIsNotAnError) {
  Link link({2, 30});
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  EXPECT_EQ(link.client.on_eof(link.events), SessionStatus::kOk);
  EXPECT_FALSE(link.client.reusable());
  EXPECT_EQ(link.client.capacity(), 0u);
}

// Counts C++ allocations while set (nghttp2 allocates with malloc, which this does not see).
bool g_counting = false;
size_t g_allocations = 0;

class CountingListener final : public SessionListener {
 public:
  void on_first_byte(uint32_t) override {}
  void on_response_complete(uint32_t, int, uint32_t) override { ++outcomes; }
  void on_request_failed(uint32_t, ErrorClass, const char*) override { ++outcomes; }
  uint32_t outcomes = 0;
};

TEST(H2ClientSession, SteadyStateAllocatesNothingOfItsOwn) {
  Link link({4, 16});
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  const RequestTemplate req = get("/200?len=2000", "POST", pattern(300));
  CountingListener listener;
  size_t warm = 0;
  for (int round = 0; round < 100; ++round) {
    if (round == 50) warm = g_allocations;
    g_counting = true;
    for (uint32_t slot = 0; link.client.capacity() > 0; ++slot) link.client.submit(slot, req);
    g_counting = false;
    for (bool progress = true; progress;) {
      g_counting = true;
      const std::string_view out = link.client.pending_output();
      g_counting = false;
      ASSERT_TRUE(link.server.recv(out));
      g_counting = true;
      link.client.consume_output(out.size());
      g_counting = false;
      const std::string in = link.server.send();
      g_counting = true;
      ASSERT_EQ(link.client.feed(in.data(), in.size(), listener), SessionStatus::kOk);
      g_counting = false;
      progress = !out.empty() || !in.empty();
    }
  }
  EXPECT_EQ(listener.outcomes, 400u);
  EXPECT_EQ(g_allocations - warm, 0u);
  // The counter does count.
  g_counting = true;
  auto probe = std::make_unique<std::string>(100, 'x');
  g_counting = false;
  EXPECT_GE(g_allocations - warm, 1u);
}

// A fresh client fed `in` cut at `cuts` and always right after the server's first frame (its
// SETTINGS); the requests are submitted as soon as capacity() allows, as the connection does.
std::vector<Event> replay(const std::string& in, const std::vector<RequestTemplate>& requests,
                          std::vector<size_t> cuts) {
  if (in.size() >= 9) {
    cuts.push_back(std::min(in.size(), 9 + (size_t{static_cast<uint8_t>(in[0])} << 16 |
                                            size_t{static_cast<uint8_t>(in[1])} << 8 |
                                            size_t{static_cast<uint8_t>(in[2])})));
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  H2ClientSession client({4, 16});
  client.reset();
  Events events;
  size_t next = 0;
  size_t at = 0;
  for (size_t i = 0; i <= cuts.size(); ++i) {
    const size_t end = i < cuts.size() ? cuts[i] : in.size();
    EXPECT_EQ(client.feed(in.data() + at, end - at, events), SessionStatus::kOk) << "at " << at;
    at = end;
    while (next < requests.size() && client.capacity() > 0) {
      client.submit(static_cast<uint32_t>(next), requests[next]);
      ++next;
    }
    client.consume_output(client.pending_output().size());
  }
  EXPECT_EQ(client.in_flight(), 0u);
  return events.list;
}

std::vector<RequestTemplate> split_scenario() {
  return {get("/200?len=3000"), get("/interim?n=1"), get("/rst?code=8"),
          get("/200?len=70000", "POST", pattern(1000))};
}

// The server's bytes for split_scenario(), and the events they give.
std::string capture_split_scenario(std::vector<Event>* events) {
  Link link({4, 16});
  EXPECT_EQ(link.pump(), SessionStatus::kOk);  // SETTINGS both ways
  const std::vector<RequestTemplate> requests = split_scenario();
  for (size_t i = 0; i < requests.size(); ++i) {
    link.client.submit(static_cast<uint32_t>(i), requests[i]);
  }
  EXPECT_EQ(link.pump(), SessionStatus::kOk);
  *events = link.events.list;
  return link.captured;
}

TEST(H2ClientSession, SameEventsAtEverySplitPoint) {
  std::vector<Event> want;
  const std::string in = capture_split_scenario(&want);
  ASSERT_EQ(want, (std::vector<Event>{first_byte(0), first_byte(1), complete(1, 200, 1),
                                      failed(2, "stream reset: CANCEL"), first_byte(3),
                                      complete(0, 200), complete(3, 200)}));
  const std::vector<RequestTemplate> requests = split_scenario();
  EXPECT_EQ(replay(in, requests, {}), want) << "whole";
  for (size_t cut = 1; cut < in.size(); ++cut) {
    const std::vector<Event> got = replay(in, requests, {cut});
    if (got != want) {
      ADD_FAILURE() << "split at " << cut;
      break;
    }
  }
  std::vector<size_t> bytes;
  for (size_t i = 1; i < in.size(); ++i) bytes.push_back(i);
  EXPECT_EQ(replay(in, requests, bytes), want) << "one byte at a time";
}

// Writes the fuzz corpus of tests/fuzz/h2_client (format in fuzz_h2_client.cc) to the directory
// named by HAIL_H2_CORPUS_DIR. Run: test_http_h2_client_session --gtest_also_run_disabled_tests
// --gtest_filter='*WriteFuzzCorpus'.
TEST(H2ClientSession, DISABLED_WriteFuzzCorpus) {
  const char* dir = std::getenv("HAIL_H2_CORPUS_DIR");
  ASSERT_NE(dir, nullptr);
  auto write = [&](const char* name, uint8_t options, uint8_t chunk_seed, const std::string& in) {
    std::ofstream f(std::string(dir) + "/" + name, std::ios::binary);
    f.put(static_cast<char>(options)).put(static_cast<char>(chunk_seed)) << in;
  };
  auto run = [](std::vector<RequestTemplate> requests, auto&& server_action) {
    Link link({4, 16});
    EXPECT_EQ(link.pump(), SessionStatus::kOk);
    for (size_t i = 0; i < requests.size(); ++i) {
      link.client.submit(static_cast<uint32_t>(i), requests[i]);
    }
    EXPECT_EQ(link.pump(), SessionStatus::kOk);
    server_action(link.server);
    EXPECT_EQ(link.pump(), SessionStatus::kOk);
    return link.captured;
  };
  auto nothing = [](H2TestServer&) {};
  // options byte: requests - 1 in bits 0-3, HEAD in bit 4 (the server's bytes decide the rest).
  write("get_body", 0, 0, run({get("/200?len=3000")}, nothing));
  write("get_body_split", 0, 13, run({get("/200?len=3000")}, nothing));
  const std::vector<RequestTemplate> mixed = {get("/200?len=300"), get("/interim?n=1"),
                                              get("/rst?code=8"), get("/404?len=100")};
  write("mixed", 3, 0, run(mixed, nothing));
  write("mixed_split", 3, 200, run(mixed, nothing));
  write("rst", 1, 0, run({get("/rst?code=2"), get("/200?len=10")}, nothing));
  write("interim", 0, 5, run({get("/interim?n=3")}, nothing));
  write("goaway", 3, 0,
        run({get("/hold"), get("/hold"), get("/hold"), get("/hold")}, [](H2TestServer& s) {
          s.goaway(3);
          s.respond(1, 200, 10);
          s.respond(3, 500, 0);
        }));
  write("head", 16, 0, run({get("/200?len=100", "HEAD")}, nothing));
  write("badlen", 0, 0, run({get("/badlen")}, nothing));
}

}  // namespace
}  // namespace hail

__attribute__((noinline)) void* operator new(size_t bytes) {
  if (hail::g_counting) ++hail::g_allocations;
  if (void* p = std::malloc(bytes == 0 ? 1 : bytes)) return p;
  throw std::bad_alloc();
}
// Not inlined: GCC would otherwise pair its own operator new with this free() and warn.
__attribute__((noinline)) void operator delete(void* p) noexcept {
  std::free(p);
}
__attribute__((noinline)) void operator delete(void* p, size_t) noexcept {
  std::free(p);
}
