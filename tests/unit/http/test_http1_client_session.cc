// Http1ClientSession: pipelining order, output gathering, keep-alive decisions, early answers,
// EOF handling and HTTP/0.9, fed as the connection feeds it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "http/http1_client_session.h"
#include "http/request.h"
#include "unit/http/allocation_counter.h"
#include "unit/http/http1_session_harness.h"

namespace hail {
namespace {

using namespace http1_test;  // NOLINT: the shared test helpers

TEST(Http1ClientSession, OneRequestWrittenWithoutACopyThenAnswered) {
  const RequestTemplate t = get_template();
  Http1ClientSession s;
  s.reset();
  EXPECT_EQ(s.capacity(), 1u);
  s.submit(7, t);
  EXPECT_EQ(s.capacity(), 0u);
  std::string_view out = s.pending_output();
  EXPECT_EQ(out.data(), t.http1.data());  // the template's own buffer
  s.consume_output(3);
  EXPECT_EQ(s.pending_output(), std::string_view(t.http1).substr(3));
  s.consume_output(t.http1.size() - 3);
  EXPECT_TRUE(s.pending_output().empty());
  Recorder r;
  EXPECT_EQ(s.feed(kOk.data(), kOk.size(), r), SessionStatus::kOk);
  EXPECT_EQ(r.events, (std::vector<Event>{{'f', 7, 0}, {'c', 7, 200}}));
  EXPECT_EQ(s.in_flight(), 0u);
  EXPECT_TRUE(s.reusable());
  EXPECT_EQ(s.capacity(), 1u);
}

TEST(Http1ClientSession, PipelinedRequestsGoOutInOneWriteAndAreAnsweredInOrder) {
  const RequestTemplate a = get_template("/a"), b = get_template("/b"), c = get_template("/c");
  Http1ClientSession s(3);
  s.reset();
  s.submit(0, a);
  s.submit(1, b);
  s.submit(2, c);
  EXPECT_EQ(s.capacity(), 0u);
  EXPECT_EQ(s.pending_output(), a.http1 + b.http1 + c.http1);
  s.consume_output(a.http1.size() + 5);  // a partial write of the gathered buffer
  EXPECT_EQ(drain(s), b.http1.substr(5) + c.http1);
  // Every split of the three responses gives the same events.
  const std::string answers = kOk + kNotFound + kOk;
  for (size_t split = 0; split <= answers.size(); ++split) {
    Http1ClientSession p(3);
    p.reset();
    p.submit(0, a);
    p.submit(1, b);
    p.submit(2, c);
    drain(p);
    Recorder r;
    ASSERT_EQ(p.feed(answers.data(), split, r), SessionStatus::kOk);
    ASSERT_EQ(p.feed(answers.data() + split, answers.size() - split, r), SessionStatus::kOk);
    EXPECT_EQ(
        r.events,
        (std::vector<Event>{
            {'f', 0, 0}, {'c', 0, 200}, {'f', 1, 0}, {'c', 1, 404}, {'f', 2, 0}, {'c', 2, 200}}))
        << "split " << split;
    EXPECT_EQ(p.capacity(), 3u);
  }
}

TEST(Http1ClientSession, NewRequestsJoinWhileOthersAreInFlight) {
  const RequestTemplate a = get_template("/a"), b = get_template("/b");
  Http1ClientSession s(2);
  s.reset();
  Recorder r;
  s.submit(0, a);
  EXPECT_EQ(drain(s), a.http1);
  s.submit(1, b);
  EXPECT_EQ(drain(s), b.http1);
  s.feed(kOk.data(), kOk.size(), r);
  EXPECT_EQ(s.capacity(), 1u);
  s.submit(0, a);
  EXPECT_EQ(drain(s), a.http1);
  std::string two = kNotFound + kOk;
  s.feed(two.data(), two.size(), r);
  EXPECT_EQ(r.events.back(), (Event{'c', 0, 200}));
  EXPECT_EQ(r.events[3], (Event{'c', 1, 404}));
  EXPECT_EQ(s.in_flight(), 0u);
}

TEST(Http1ClientSession, ConnectionCloseEndsReuse) {
  const RequestTemplate t = get_template();
  Http1ClientSession s(4);
  s.reset();
  s.submit(0, t);
  drain(s);
  Recorder r;
  const std::string close = "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
  s.feed(close.data(), close.size(), r);
  EXPECT_EQ(r.events.back(), (Event{'c', 0, 200}));
  EXPECT_FALSE(s.reusable());
  EXPECT_EQ(s.capacity(), 0u);
}

// Bytes with no request outstanding are not the next response (RFC 9112 §9.3.2): a protocol error
// of the connection, whatever they look like; empty lines are tolerated (RFC 9112 §2.2).
TEST(Http1ClientSession, BytesNobodyAskedForAreAProtocolErrorOfTheConnection) {
  Http1ClientSession s;
  s.reset();
  Recorder r;
  const std::string late = "HTTP/1.1 408 Request Timeout\r\n\r\n";
  EXPECT_EQ(s.feed(late.data(), late.size(), r), SessionStatus::kError);
  EXPECT_TRUE(r.events.empty());
  EXPECT_FALSE(s.reusable());
  EXPECT_EQ(s.error(), ErrorClass::kParse);
  EXPECT_STREQ(s.error_reason(), "unsolicited data: bytes with no request outstanding");

  // A body longer than its Content-Length said: the response completes, the rest is unsolicited.
  const RequestTemplate t = get_template("/x", "GET");
  Http1ClientSession t2;
  t2.reset();
  t2.submit(0, t);
  t2.consume_output(t.http1.size());
  Recorder r2;
  const std::string longer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhiEXTRA";
  EXPECT_EQ(t2.feed(longer.data(), longer.size(), r2), SessionStatus::kError);
  EXPECT_EQ(r2.events.back(), (Event{'c', 0, 200}));
  EXPECT_EQ(t2.error(), ErrorClass::kParse);
  EXPECT_EQ(t2.in_flight(), 0u);  // nothing for the connection to fail: the error is its own

  Http1ClientSession blank;
  blank.reset();
  const std::string crlf = "\r\n\n";
  EXPECT_EQ(blank.feed(crlf.data(), crlf.size(), r), SessionStatus::kOk);
  EXPECT_TRUE(blank.reusable());
}

TEST(Http1ClientSession, AnAnswerBeforeTheRequestIsWrittenStopsTheRest) {
  const RequestTemplate t = get_template("/upload", "POST");
  Http1ClientSession s(2);
  s.reset();
  s.submit(0, t);
  s.submit(1, t);
  s.consume_output(10);  // only part of the first request is out
  Recorder r;
  const std::string early = "HTTP/1.1 413 Payload Too Large\r\nContent-Length: 0\r\n\r\n";
  EXPECT_EQ(s.feed(early.data(), early.size(), r), SessionStatus::kError);
  EXPECT_EQ(r.events.back(), (Event{'c', 0, 413}));
  EXPECT_EQ(s.error(), ErrorClass::kWrite);  // the pipelined second request was never sent
  EXPECT_TRUE(s.pending_output().empty());
  EXPECT_FALSE(s.reusable());
  EXPECT_EQ(s.in_flight(), 1u);  // the connection fails it
}

TEST(Http1ClientSession, EndOfFileCompletesReadUntilCloseAndFailsTheRest) {
  const RequestTemplate t = get_template();
  Http1ClientSession s(2);
  s.reset();
  s.submit(0, t);
  s.submit(1, t);
  drain(s);
  Recorder r;
  const std::string until_close = "HTTP/1.0 200 OK\r\n\r\nbody...";
  s.feed(until_close.data(), until_close.size(), r);
  EXPECT_EQ(s.on_eof(r), SessionStatus::kError);
  EXPECT_EQ(r.events.back(), (Event{'c', 0, 200}));
  EXPECT_EQ(s.error(), ErrorClass::kRead);
  EXPECT_STREQ(s.error_reason(), "closed before response");
  EXPECT_EQ(s.in_flight(), 1u);
}

TEST(Http1ClientSession, EndOfFileMidResponseIsTruncated) {
  const RequestTemplate t = get_template();
  Http1ClientSession s;
  s.reset();
  s.submit(0, t);
  drain(s);
  Recorder r;
  const std::string part = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc";
  s.feed(part.data(), part.size(), r);
  EXPECT_EQ(s.on_eof(r), SessionStatus::kError);
  EXPECT_EQ(s.error(), ErrorClass::kRead);
  EXPECT_EQ(std::string(s.error_reason()), parse_error_kind_name(ParseErrorKind::kTruncated));
  EXPECT_EQ(r.events, (std::vector<Event>{{'f', 0, 0}}));
}

TEST(Http1ClientSession, MalformedResponseIsAParseError) {
  const RequestTemplate t = get_template();
  Http1ClientSession s;
  s.reset();
  s.submit(0, t);
  drain(s);
  Recorder r;
  const std::string bad = "HTTP/1.1 2000 OK\r\n\r\n";
  EXPECT_EQ(s.feed(bad.data(), bad.size(), r), SessionStatus::kError);
  EXPECT_EQ(s.error(), ErrorClass::kParse);
  EXPECT_FALSE(s.reusable());
}

TEST(Http1ClientSession, BodyBytesCanBeSkippedUnseen) {
  const RequestTemplate t = get_template();
  Http1ClientSession s;
  s.reset();
  s.submit(0, t);
  drain(s);
  Recorder r;
  const std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n";
  s.feed(head.data(), head.size(), r);
  EXPECT_EQ(s.skippable_body_bytes(), 1000u);
  s.skip_body(999, r);
  EXPECT_EQ(r.events.size(), 1u);
  s.skip_body(1, r);
  EXPECT_EQ(r.events.back(), (Event{'c', 0, 200}));
  EXPECT_EQ(s.skippable_body_bytes(), 0u);
}

TEST(Http1ClientSession, HeadResponsesHaveNoBody) {
  const RequestTemplate t = get_template("/", "HEAD");
  Http1ClientSession s(2);
  s.reset();
  s.submit(0, t);
  s.submit(1, t);
  drain(s);
  Recorder r;
  const std::string two =
      "HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n"
      "HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n";
  s.feed(two.data(), two.size(), r);
  EXPECT_EQ(r.events.size(), 4u);
  EXPECT_EQ(s.in_flight(), 0u);
}

TEST(Http1ClientSession, InterimResponsesAreCounted) {
  const RequestTemplate t = get_template();
  Http1ClientSession s;
  s.reset();
  s.submit(0, t);
  drain(s);
  Recorder r;
  const std::string with_interim = "HTTP/1.1 103 Early Hints\r\n\r\n" + kOk;
  s.feed(with_interim.data(), with_interim.size(), r);
  EXPECT_EQ(r.events.back(), (Event{'c', 0, 200}));
  EXPECT_EQ(r.interims, 1u);
}

TEST(Http1ClientSession, Http09IsTheBytesUntilClose) {
  RequestSpec spec;
  spec.path = "/x";
  const RequestTemplate t = make_request_template(spec, "http", true);
  EXPECT_EQ(t.http1, "GET /x\r\n");
  Http1ClientSession s(8, true);
  s.reset();
  EXPECT_EQ(s.capacity(), 1u);  // no pipelining in HTTP/0.9
  s.submit(0, t);
  EXPECT_EQ(s.capacity(), 0u);
  EXPECT_EQ(drain(s), "GET /x\r\n");
  Recorder r;
  const std::string html = "<html>no head at all</html>";
  s.feed(html.data(), html.size(), r);
  EXPECT_EQ(s.skippable_body_bytes(), 0u);
  EXPECT_EQ(s.on_eof(r), SessionStatus::kOk);
  EXPECT_EQ(r.events, (std::vector<Event>{{'f', 0, 0}, {'c', 0, 200}}));
  EXPECT_FALSE(s.reusable());
}

// A server that answers an HTTP/0.9 request with an HTTP/1.x status line said what happened: that
// status is counted (a 400 is not a success), whatever the split of the bytes.
TEST(Http1ClientSession, Http09CountsAnHttp1StatusLine) {
  RequestSpec spec;
  const RequestTemplate t = make_request_template(spec, "http", true);
  const std::string reply = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
  for (size_t step : {reply.size(), size_t{1}, size_t{5}}) {
    Http1ClientSession s(1, true);
    s.reset();
    s.submit(0, t);
    drain(s);
    Recorder r;
    for (size_t at = 0; at < reply.size(); at += step) {
      s.feed(reply.data() + at, std::min(step, reply.size() - at), r);
    }
    EXPECT_EQ(s.on_eof(r), SessionStatus::kOk);
    EXPECT_EQ(r.events, (std::vector<Event>{{'f', 0, 0}, {'c', 0, 400}})) << step;
  }
  // Not a status line: the whole reply is the response, a 200.
  for (const std::string& other :
       {std::string("HTTP/1.1 4x0 no"), std::string("HTTP/1.1"), std::string("HTTP/2.0 400 Bad")}) {
    Http1ClientSession s(1, true);
    s.reset();
    s.submit(0, t);
    drain(s);
    Recorder r;
    s.feed(other.data(), other.size(), r);
    EXPECT_EQ(s.on_eof(r), SessionStatus::kOk);
    EXPECT_EQ(r.events, (std::vector<Event>{{'f', 0, 0}, {'c', 0, 200}})) << other;
  }
}

// An h2c-only server answers HTTP/1.1 with HTTP/2 frames (SETTINGS, GOAWAY): the parse error
// says so and names --h2.
TEST(Http1ClientSession, Http2FramesInsteadOfAStatusLineSayUseH2) {
  const RequestTemplate t = get_template();
  Http1ClientSession s;
  s.reset();
  s.submit(0, t);
  drain(s);
  Recorder r;
  const std::string settings("\x00\x00\x06\x04\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x64", 15);
  EXPECT_EQ(s.feed(settings.data(), settings.size(), r), SessionStatus::kError);
  EXPECT_EQ(s.error(), ErrorClass::kParse);
  EXPECT_NE(std::string(s.error_reason()).find("use --h2"), std::string::npos) << s.error_reason();
  // Other garbage keeps the parser's own reason.
  Http1ClientSession s2;
  s2.reset();
  s2.submit(0, t);
  drain(s2);
  const std::string junk = "XTTP/1.1 200 OK\r\n\r\n";
  EXPECT_EQ(s2.feed(junk.data(), junk.size(), r), SessionStatus::kError);
  EXPECT_EQ(std::string(s2.error_reason()).find("--h2"), std::string::npos);
}

// 10,000 connections hold 10,000 sessions (issue 24): a byte budget, 344 before the HTTP/0.9
// state moved out and the small fields were packed.
TEST(Http1ClientSessionMemory, StaysWithinItsByteBudget) {
  EXPECT_LE(sizeof(Http1ClientSession), 296u);
}

// The HTTP/0.9 state exists only for HTTP/0.9 sessions; an HTTP/1.1 session allocates its request
// ring and nothing else.
TEST(Http1ClientSessionMemory, Http09StateIsAllocatedOnlyForHttp09) {
  test::count_allocations(true);
  const uint64_t before = test::allocations();
  { Http1ClientSession http1(1, false); }
  const uint64_t http1_allocations = test::allocations() - before;
  { Http1ClientSession http09(1, true); }
  const uint64_t http09_allocations = test::allocations() - before - http1_allocations;
  test::count_allocations(false);
  EXPECT_EQ(http1_allocations, 1u);   // the ring of requests in flight
  EXPECT_EQ(http09_allocations, 2u);  // the ring and the HTTP/0.9 state
}

// One request per connection in HTTP/0.9: the session (kept across reconnects) keeps its captured
// body's capacity, so the steady state allocates nothing per request.
TEST(Http1ClientSessionMemory, Http09CaptureAllocatesNothingPerRequest) {
  RequestSpec spec;
  const RequestTemplate t = make_request_template(spec, "http", true);
  const std::string reply = "<html>" + std::string(200, 'x') + "</html>";
  Http1ClientSession s(1, true);
  s.set_capture(true);
  Recorder r;
  r.events.reserve(64);
  auto one_request = [&] {
    s.reset();
    s.submit(0, t);
    drain(s);
    s.feed(reply.data(), reply.size(), r);
    ASSERT_EQ(s.on_eof(r), SessionStatus::kOk);
  };
  one_request();  // the first grows the capture buffer
  test::count_allocations(true);
  const uint64_t before = test::allocations();
  for (int i = 0; i < 10; ++i) one_request();
  const uint64_t during = test::allocations() - before;
  test::count_allocations(false);
  EXPECT_EQ(during, 0u);
  EXPECT_EQ(r.events.size(), 22u);
}

TEST(Http1ClientSession, Http09CloseWithoutABytesIsAnError) {
  RequestSpec spec;
  const RequestTemplate t = make_request_template(spec, "http", true);
  Http1ClientSession s(1, true);
  s.reset();
  s.submit(0, t);
  drain(s);
  Recorder r;
  EXPECT_EQ(s.on_eof(r), SessionStatus::kError);
  EXPECT_EQ(s.error(), ErrorClass::kRead);
}

TEST(Http1ClientSession, ResetForgetsTheLastConnection) {
  const RequestTemplate t = get_template();
  Http1ClientSession s(2);
  s.reset();
  s.submit(0, t);
  s.submit(1, t);
  s.reset();
  EXPECT_EQ(s.in_flight(), 0u);
  EXPECT_TRUE(s.pending_output().empty());
  EXPECT_EQ(s.capacity(), 2u);
  s.submit(1, t);
  Recorder r;
  drain(s);
  s.feed(kOk.data(), kOk.size(), r);
  EXPECT_EQ(r.events.back(), (Event{'c', 1, 200}));
}

TEST(Http1ClientSession, AnEarlyAnswerWhoseBodyIsSkippedStopsTheRestToo) {
  // The same request as above, but the early answer has a body that the connection drops in the
  // kernel: the response completes in skip_body(), which must fail the unsent request behind it
  // as feed() does (it used to leave it in flight until a timeout).
  const RequestTemplate t = get_template("/upload", "POST");
  Http1ClientSession s(2);
  s.reset();
  s.submit(0, t);
  s.submit(1, t);
  s.consume_output(10);
  Recorder r;
  const std::string head = "HTTP/1.1 413 Payload Too Large\r\nContent-Length: 1000\r\n\r\n";
  EXPECT_EQ(s.feed(head.data(), head.size(), r), SessionStatus::kOk);
  EXPECT_EQ(s.skippable_body_bytes(), 1000u);
  EXPECT_EQ(s.skip_body(600, r), SessionStatus::kOk);
  EXPECT_EQ(s.skip_body(400, r), SessionStatus::kError);
  EXPECT_EQ(r.events.back(), (Event{'c', 0, 413}));
  EXPECT_EQ(s.error(), ErrorClass::kWrite);
  EXPECT_STREQ(s.error_reason(), "server answered before the request was sent");
  EXPECT_TRUE(s.pending_output().empty());
  EXPECT_FALSE(s.reusable());
  EXPECT_EQ(s.in_flight(), 1u);  // the connection fails it
}

TEST(Http1ClientSession, AnEarlyAnswerWithASkippedBodyAndNothingBehindItIsFine) {
  const RequestTemplate t = get_template("/upload", "POST");
  Http1ClientSession s;
  s.reset();
  s.submit(0, t);
  s.consume_output(10);
  Recorder r;
  const std::string head = "HTTP/1.1 413 Payload Too Large\r\nContent-Length: 1000\r\n\r\n";
  s.feed(head.data(), head.size(), r);
  EXPECT_EQ(s.skip_body(1000, r), SessionStatus::kOk);
  EXPECT_EQ(r.events.back(), (Event{'c', 0, 413}));
  EXPECT_EQ(s.in_flight(), 0u);
  EXPECT_FALSE(s.reusable());
}

}  // namespace
}  // namespace hail
