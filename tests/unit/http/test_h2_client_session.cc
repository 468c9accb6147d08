// H2ClientSession against an in-memory nghttp2 server (h2_test_server.h): bytes pumped both ways,
// whole or in small pieces; every event checked exactly. Allocation counting, split invariance
// and the fuzz corpus writer: test_h2_client_invariants.cc.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "http/h2_client_session.h"
#include "http/request.h"
#include "unit/http/h2_test_server.h"

namespace hail {
namespace {

using test::complete;
using test::Event;
using test::failed;
using test::first_byte;
using test::get;
using test::H2TestServer;
using test::Link;
using test::pattern;
using test::refused;

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
  const RequestTemplate refuse = get("/rst?code=7");
  const RequestTemplate odd = get("/rst?code=99");
  const RequestTemplate ok = get("/200?len=1");
  link.client.submit(0, internal);
  link.client.submit(1, refuse);
  link.client.submit(2, odd);
  link.client.submit(3, ok);
  ASSERT_EQ(link.pump(), SessionStatus::kOk);
  EXPECT_EQ(link.events.take(), (std::vector<Event>{failed(0, "stream reset: INTERNAL_ERROR"),
                                                    refused(1, "stream reset: REFUSED_STREAM"),
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
            (std::vector<Event>{refused(3, "refused by GOAWAY"), refused(2, "refused by GOAWAY")}));
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
            (std::vector<Event>{refused(5, "refused by GOAWAY"), refused(6, "refused by GOAWAY")}));
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
  EXPECT_EQ(link.events.take(), (std::vector<Event>{refused(1, "refused by GOAWAY")}));
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
  EXPECT_EQ(link.events.take(), (std::vector<Event>{refused(9, "refused by GOAWAY")}));
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

}  // namespace
}  // namespace hail
