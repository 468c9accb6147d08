// Http1ResponseParser API behaviour that the framing table does not show: exact end of the header
// section, body skipping, limits, capture mode, error stickiness, moves, and no allocation per
// response in steady state.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <utility>

#include "http/response_parser.h"
#include "unit/http/allocation_counter.h"
#include "unit/http/feed_harness.h"

namespace hail::test {
namespace {

ParseResult feed(Http1ResponseParser& p, const std::string& s) {
  return p.feed(s.data(), s.size());
}

TEST(ResponseParser, HeaderSectionEndsRightAfterCrlfCrlf) {
  Http1ResponseParser p;
  const std::string head = "HTTP/1.1 204 No Content\r\nA: b\r\n\r\n";
  ParseResult r = feed(p, head + "NEXT");
  EXPECT_EQ(r.status, ParseStatus::kComplete);
  EXPECT_EQ(r.consumed, head.size());
  EXPECT_EQ(p.status(), 204);
}

TEST(ResponseParser, HeaderSectionEndsRightAfterLfLf) {
  Http1ResponseParser p;
  const std::string head = "HTTP/1.1 204 No Content\nA: b\n\n";
  ParseResult r = feed(p, head + "\r\nX");
  EXPECT_EQ(r.status, ParseStatus::kComplete);
  EXPECT_EQ(r.consumed, head.size());
}

TEST(ResponseParser, FinalByteOfHeadAloneCompletes) {
  Http1ResponseParser p;
  const std::string head = "HTTP/1.1 304 Not Modified\r\n\r\n";
  ParseResult r = p.feed(head.data(), head.size() - 1);
  EXPECT_EQ(r.status, ParseStatus::kNeedMore);
  EXPECT_EQ(r.consumed, head.size() - 1);
  r = p.feed(head.data() + head.size() - 1, 1);
  EXPECT_EQ(r.status, ParseStatus::kComplete);
  EXPECT_EQ(r.consumed, 1u);
}

TEST(ResponseParser, SkipPartOfContentLengthBody) {
  Http1ResponseParser p;
  ParseResult r = feed(p, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n012");
  EXPECT_EQ(r.status, ParseStatus::kNeedMore);
  EXPECT_EQ(p.skippable_body_bytes(), 7u);
  EXPECT_FALSE(p.in_body_until_close());
  r = p.skip_body(4);
  EXPECT_EQ(r.status, ParseStatus::kNeedMore);
  EXPECT_EQ(r.consumed, 4u);
  EXPECT_EQ(p.skippable_body_bytes(), 3u);
  r = feed(p, "789NEXT");
  EXPECT_EQ(r.status, ParseStatus::kComplete);
  EXPECT_EQ(r.consumed, 3u);
  EXPECT_EQ(p.body_bytes(), 10u);
  EXPECT_EQ(p.skippable_body_bytes(), 0u);
}

TEST(ResponseParser, SkipRestOfContentLengthBodyCompletes) {
  Http1ResponseParser p;
  feed(p, "HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n");
  EXPECT_EQ(p.skippable_body_bytes(), 1000000u);
  EXPECT_EQ(p.skip_body(999999).status, ParseStatus::kNeedMore);
  ParseResult r = p.skip_body(1);
  EXPECT_EQ(r.status, ParseStatus::kComplete);
  EXPECT_TRUE(p.complete());
  EXPECT_TRUE(p.keep_alive());
  EXPECT_EQ(p.body_bytes(), 1000000u);
}

TEST(ResponseParser, SkipChunkDataThenFeedFraming) {
  Http1ResponseParser p;
  feed(p, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
  EXPECT_EQ(p.skippable_body_bytes(), 0u);  // chunk-size line not seen yet
  feed(p, "a\r\n01");
  EXPECT_EQ(p.skippable_body_bytes(), 8u);
  EXPECT_EQ(p.skip_body(5).status, ParseStatus::kNeedMore);
  EXPECT_EQ(p.skippable_body_bytes(), 3u);
  EXPECT_EQ(p.skip_body(3).status, ParseStatus::kNeedMore);
  EXPECT_EQ(p.skippable_body_bytes(), 0u);  // the CRLF after the data must be fed
  ParseResult r = feed(p, "\r\n3\r\nabc\r\n0\r\n\r\n");
  EXPECT_EQ(r.status, ParseStatus::kComplete);
  EXPECT_EQ(p.body_bytes(), 13u);
}

TEST(ResponseParser, UntilCloseIsSkippableWithoutLimit) {
  Http1ResponseParser p;
  feed(p, "HTTP/1.1 200 OK\r\n\r\nabc");
  EXPECT_TRUE(p.in_body_until_close());
  EXPECT_EQ(p.skippable_body_bytes(), SIZE_MAX);
  EXPECT_EQ(p.skip_body(1000).status, ParseStatus::kNeedMore);
  EXPECT_EQ(p.body_bytes(), 1003u);
  ParseResult r = p.on_eof();
  EXPECT_EQ(r.status, ParseStatus::kComplete);
  EXPECT_FALSE(p.keep_alive());
  EXPECT_EQ(p.on_eof().status, ParseStatus::kComplete);  // idempotent
}

TEST(ResponseParser, NothingSkippableOutsideBody) {
  Http1ResponseParser p;
  EXPECT_EQ(p.skippable_body_bytes(), 0u);
  feed(p, "HTTP/1.1 200 OK\r\nContent-");
  EXPECT_EQ(p.skippable_body_bytes(), 0u);
  EXPECT_EQ(p.skip_body(3).consumed, 0u);
  feed(p, "Length: 0\r\n\r\n");
  EXPECT_TRUE(p.complete());
  EXPECT_EQ(p.skippable_body_bytes(), 0u);
}

std::string head_of_size(size_t total) {
  // "HTTP/1.1 200 OK\r\n" + "X: <pad>\r\n" + "Content-Length: 0\r\n" + "\r\n"
  const std::string start = "HTTP/1.1 200 OK\r\n";
  const std::string end = "Content-Length: 0\r\n\r\n";
  const size_t fixed = start.size() + end.size() + 5;  // "X: " and "\r\n"
  return start + "X: " + std::string(total - fixed, 'a') + "\r\n" + end;
}

TEST(ResponseParser, HeadOfExactlyTheLimitPasses) {
  const std::string head = head_of_size(Http1ResponseParser::kMaxHeadBytes);
  ASSERT_EQ(head.size(), Http1ResponseParser::kMaxHeadBytes);
  Trace expected;
  ResponseRecord r;
  r.status = 200;
  r.http_minor = 1;
  r.keep_alive = true;
  r.end = head.size();
  expected.responses.push_back(r);
  check_every_split(head, {}, expected);
}

TEST(ResponseParser, HeadOneByteOverTheLimitFails) {
  const std::string head = head_of_size(Http1ResponseParser::kMaxHeadBytes + 1);
  Trace expected;
  expected.final_status = ParseStatus::kError;
  expected.error_kind = ParseErrorKind::kHeadTooLarge;
  check_every_split(head, {}, expected);
  Http1ResponseParser p;
  EXPECT_EQ(feed(p, head).status, ParseStatus::kError);
  EXPECT_STREQ(p.error_reason(), "header section too large");
}

TEST(ResponseParser, VeryLongHeaderLineFailsWithoutWaitingForItsEnd) {
  Http1ResponseParser p;
  std::string s = "HTTP/1.1 200 OK\r\nX-Long: " + std::string(70000, 'v');
  ParseResult r = feed(p, s);
  EXPECT_EQ(r.status, ParseStatus::kError);
  EXPECT_EQ(r.consumed, Http1ResponseParser::kMaxHeadBytes);
  EXPECT_EQ(p.error_kind(), ParseErrorKind::kHeadTooLarge);
}

TEST(ResponseParser, LimitIsPerHeadNotPerBody) {
  Http1ResponseParser p;
  std::string body(200000, 'b');
  std::string s = "HTTP/1.1 200 OK\r\nContent-Length: 200000\r\n\r\n" + body;
  ParseResult r = feed(p, s);
  EXPECT_EQ(r.status, ParseStatus::kComplete);
  EXPECT_EQ(p.body_bytes(), 200000u);
}

TEST(ResponseParser, ErrorIsStickyUntilBeginResponse) {
  Http1ResponseParser p;
  EXPECT_EQ(feed(p, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n").status,
            ParseStatus::kError);
  EXPECT_EQ(p.error_kind(), ParseErrorKind::kBadFraming);
  EXPECT_STREQ(p.error_reason(), "Duplicate Content-Length");
  EXPECT_FALSE(p.keep_alive());
  EXPECT_EQ(feed(p, "HTTP/1.1 200 OK\r\n\r\n").status, ParseStatus::kError);
  EXPECT_EQ(p.on_eof().status, ParseStatus::kError);
  EXPECT_EQ(p.skippable_body_bytes(), 0u);
  p.begin_response(false);
  EXPECT_EQ(p.error_kind(), ParseErrorKind::kNone);
  EXPECT_STREQ(p.error_reason(), "");
  EXPECT_EQ(feed(p, "HTTP/1.1 204 No Content\r\n\r\n").status, ParseStatus::kComplete);
}

TEST(ResponseParser, ErrorReasons) {
  struct {
    const char* input;
    const char* reason;
  } cases[] = {
      {"HTTP/1.1 99 X\r\n\r\n", "invalid status code"},
      {"HTTP/2.0 200 X\r\n\r\n", "unsupported HTTP version"},
      {"HTTP/1.1 200 X\r\nA: b\rc\r\n\r\n", "bare CR in header section"},
      {"HTTP/1.1 200 X\r\nTransfer-Encoding: chunked\r\n\r\nxyz\r\n", "bad chunk size"},
      {"HTTP/1.1 200 X\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab",
       "missing CRLF after chunk data"},
  };
  for (const auto& c : cases) {
    Http1ResponseParser p;
    EXPECT_EQ(feed(p, c.input).status, ParseStatus::kError) << c.input;
    EXPECT_STREQ(p.error_reason(), c.reason) << c.input;
  }
}

TEST(ResponseParser, EofKinds) {
  Http1ResponseParser p;
  EXPECT_FALSE(p.started());
  EXPECT_EQ(p.on_eof().status, ParseStatus::kError);
  EXPECT_EQ(p.error_kind(), ParseErrorKind::kClosedBeforeResponse);

  p.begin_response(false);
  feed(p, "H");
  EXPECT_TRUE(p.started());
  EXPECT_EQ(p.on_eof().status, ParseStatus::kError);
  EXPECT_EQ(p.error_kind(), ParseErrorKind::kTruncated);

  p.begin_response(false);
  feed(p, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nab");
  EXPECT_EQ(p.on_eof().status, ParseStatus::kError);
  EXPECT_EQ(p.error_kind(), ParseErrorKind::kTruncated);

  p.begin_response(false);
  feed(p, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nab");
  EXPECT_EQ(p.on_eof().status, ParseStatus::kComplete);  // already complete: nothing lost
}

TEST(ResponseParser, ErrorKindNamesAreDistinct) {
  std::set<std::string> names;
  for (auto k :
       {ParseErrorKind::kNone, ParseErrorKind::kClosedBeforeResponse, ParseErrorKind::kTruncated,
        ParseErrorKind::kBadHead, ParseErrorKind::kHeadTooLarge, ParseErrorKind::kBadFraming,
        ParseErrorKind::kBadChunk}) {
    names.insert(parse_error_kind_name(k));
  }
  EXPECT_EQ(names.size(), 7u);
}

TEST(ResponseParser, VersionAndStatusAccessors) {
  Http1ResponseParser p;
  EXPECT_EQ(p.status(), 0);
  feed(p, "HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(p.status(), 404);
  EXPECT_EQ(p.http_major(), 1);
  EXPECT_EQ(p.http_minor(), 0);
  EXPECT_FALSE(p.keep_alive());
}

TEST(ResponseParser, CaptureHeadersAndBody) {
  Http1ResponseParser p;
  p.set_capture(true);
  const std::string s =
      "HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n"
      "HTTP/1.1 200 OK\r\nContent-Type: text/plain \r\nX-Empty:\r\nX-Fold: a\r\n  b\r\n"
      "set-cookie: a=1\r\nSet-Cookie: b=2\r\nContent-Length: 5\r\n\r\nhello";
  ParseResult r = feed(p, s);
  ASSERT_EQ(r.status, ParseStatus::kComplete);
  EXPECT_EQ(p.interim_responses(), 1u);
  std::vector<std::pair<std::string, std::string>> want = {
      {"Content-Type", "text/plain"}, {"X-Empty", ""},       {"X-Fold", "a  b"},
      {"set-cookie", "a=1"},          {"Set-Cookie", "b=2"}, {"Content-Length", "5"}};
  EXPECT_EQ(p.headers(), want);
  EXPECT_EQ(p.body(), "hello");
  EXPECT_FALSE(p.body_truncated());
  EXPECT_EQ(p.skippable_body_bytes(), 0u);
}

TEST(ResponseParser, CaptureChunkedAndUntilCloseBodies) {
  Http1ResponseParser p;
  p.set_capture(true);
  feed(p,
       "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n2\r\nde\r\n0\r\n\r\n");
  EXPECT_TRUE(p.complete());
  EXPECT_EQ(p.body(), "abcde");
  p.begin_response(false);
  EXPECT_TRUE(p.body().empty());
  EXPECT_TRUE(p.headers().empty());
  feed(p, "HTTP/1.1 200 OK\r\n\r\nuntil");
  EXPECT_EQ(p.skippable_body_bytes(), 0u);  // capture wants the bytes
  feed(p, " close");
  EXPECT_EQ(p.on_eof().status, ParseStatus::kComplete);
  EXPECT_EQ(p.body(), "until close");
}

TEST(ResponseParser, CaptureTruncatesBodyAtLimitButFramesAll) {
  Http1ResponseParser p;
  p.set_capture(true, 4);
  feed(p, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n012");
  EXPECT_EQ(p.skippable_body_bytes(), 0u);
  feed(p, "34");
  EXPECT_EQ(p.body(), "0123");
  EXPECT_TRUE(p.body_truncated());
  EXPECT_EQ(p.skippable_body_bytes(), 5u);  // the cap is reached: the rest may be discarded
  EXPECT_EQ(p.skip_body(5).status, ParseStatus::kComplete);
  EXPECT_EQ(p.body_bytes(), 10u);
  EXPECT_EQ(p.body(), "0123");
}

TEST(ResponseParser, CaptureTruncationDoesNotDependOnSplits) {
  FeedOptions opt;
  opt.capture = true;
  opt.max_capture_body_bytes = 3;
  const std::string cl = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789";
  const std::string chunked =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n01\r\n8\r\n23456789\r\n0\r\n\r\n";
  for (const std::string& s : {cl, chunked}) {
    std::vector<std::string> violations;
    Trace whole = run_parser(s, {}, opt, &violations);
    ASSERT_EQ(whole.responses.size(), 1u);
    EXPECT_EQ(whole.responses[0].body, "012");
    EXPECT_TRUE(whole.responses[0].body_truncated);
    EXPECT_EQ(whole.responses[0].body_bytes, 10u);
    check_every_split(s, opt, whole);
  }
  // Exactly at the cap: nothing was cut off.
  opt.max_capture_body_bytes = 10;
  Trace exact = run_parser(cl, {}, opt, nullptr);
  EXPECT_FALSE(exact.responses.at(0).body_truncated);
  check_every_split(cl, opt, exact);
}

TEST(ResponseParser, CaptureOffCollectsNothing) {
  Http1ResponseParser p;
  feed(p, "HTTP/1.1 200 OK\r\nA: b\r\nContent-Length: 1\r\n\r\nx");
  EXPECT_TRUE(p.complete());
  EXPECT_TRUE(p.headers().empty());
  EXPECT_TRUE(p.body().empty());
}

TEST(ResponseParser, SetCaptureMidResponseAppliesToTheNext) {
  Http1ResponseParser p;
  feed(p, "HTTP/1.1 200 OK\r\nA: 1\r\n");
  p.set_capture(true);
  feed(p, "B: 2\r\nContent-Length: 0\r\n\r\n");
  EXPECT_TRUE(p.complete());
  EXPECT_TRUE(p.headers().empty());
  p.begin_response(false);
  feed(p, "HTTP/1.1 200 OK\r\nA: 1\r\nContent-Length: 0\r\n\r\n");
  ASSERT_EQ(p.headers().size(), 2u);
  EXPECT_EQ(p.headers()[0].first, "A");
}

TEST(ResponseParser, MoveInTheMiddleOfAResponse) {
  Http1ResponseParser a;
  a.set_capture(true);
  feed(a, "HTTP/1.1 200 OK\r\nX-Na");
  Http1ResponseParser b(std::move(a));
  feed(b, "me: va");
  Http1ResponseParser c;
  c = std::move(b);
  ParseResult r = feed(c, "lue\r\nContent-Length: 2\r\n\r\nok");
  ASSERT_EQ(r.status, ParseStatus::kComplete);
  ASSERT_EQ(c.headers().size(), 2u);
  EXPECT_EQ(c.headers()[0], (std::pair<std::string, std::string>("X-Name", "value")));
  EXPECT_EQ(c.body(), "ok");
}

TEST(ResponseParser, NoAllocationPerResponseInSteadyState) {
  Http1ResponseParser p;
  const std::string nginx =
      "HTTP/1.1 200 OK\r\nServer: nginx/1.25.3\r\nDate: Mon, 01 Jan 2024 00:00:00 GMT\r\n"
      "Content-Type: text/html\r\nContent-Length: 12\r\nLast-Modified: Mon, 01 Jan 2024 00:00:00 "
      "GMT\r\nConnection: keep-alive\r\nETag: \"65920000-c\"\r\nAccept-Ranges: bytes\r\n\r\n"
      "hello world\n";
  const std::string chunked =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;a=b\r\nhello\r\n0\r\nT: 1\r\n\r\n";
  for (int i = 0; i < 10; ++i) {  // warm up (function-local statics, ...)
    p.begin_response(false);
    feed(p, nginx);
  }
  test::count_allocations(true);
  const uint64_t before = test::allocations();
  for (int i = 0; i < 1000; ++i) {
    p.begin_response(false);
    ParseResult r = feed(p, i % 2 ? nginx : chunked);
    ASSERT_EQ(r.status, ParseStatus::kComplete);
  }
  const uint64_t allocated = test::allocations() - before;
  test::count_allocations(false);
  EXPECT_EQ(allocated, 0u);
}

TEST(ResponseParser, NoAllocationForSplitHeadsInSteadyState) {
  // A head cut across feeds is gathered in a buffer whose capacity outlives the response.
  Http1ResponseParser p;
  const std::string s =
      "HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: text/html\r\nContent-Length: 3\r\n"
      "Connection: keep-alive\r\n\r\nabc";
  auto feed_split = [&](size_t cut) {
    p.begin_response(false);
    EXPECT_EQ(p.feed(s.data(), cut).status, ParseStatus::kNeedMore);
    ParseResult r = p.feed(s.data() + cut, s.size() - cut);
    EXPECT_EQ(r.status, ParseStatus::kComplete);
    EXPECT_EQ(r.consumed, s.size() - cut);
  };
  for (size_t cut = 1; cut < 80; ++cut) feed_split(cut);  // warm up: the buffer grows once
  test::count_allocations(true);
  const uint64_t before = test::allocations();
  for (int i = 0; i < 200; ++i) feed_split(1 + static_cast<size_t>(i) % 79);
  const uint64_t allocated = test::allocations() - before;
  test::count_allocations(false);
  EXPECT_EQ(allocated, 0u);
}

TEST(ResponseParser, SplitHeadErrorIsReportedInTheFeedThatShowsIt) {
  Http1ResponseParser p;
  EXPECT_EQ(feed(p, "HTTP/1.1 200 OK\r\nX Y").status, ParseStatus::kNeedMore);
  EXPECT_EQ(feed(p, ": z").status, ParseStatus::kNeedMore);  // a field line is judged at its end
  ParseResult r = feed(p, "\r\n\r\n");
  EXPECT_EQ(r.status, ParseStatus::kError);
  EXPECT_LE(r.consumed, 4u);
  EXPECT_EQ(p.error_kind(), ParseErrorKind::kBadHead);
  EXPECT_STREQ(p.error_reason(), "invalid character in field name");
}

TEST(ResponseParser, SplitHeadLongLineOneByteAtATime) {
  // Bytes that cannot end a line are only appended, not parsed again each time.
  Http1ResponseParser p;
  const std::string start = "HTTP/1.1 200 OK\r\nX: ";
  EXPECT_EQ(feed(p, start).status, ParseStatus::kNeedMore);
  for (int i = 0; i < 20000; ++i) ASSERT_EQ(p.feed("v", 1).status, ParseStatus::kNeedMore);
  EXPECT_EQ(feed(p, "\r\nContent-Length: 0\r\n\r").status, ParseStatus::kNeedMore);
  ParseResult r = feed(p, "\nNEXT");
  EXPECT_EQ(r.status, ParseStatus::kComplete);
  EXPECT_EQ(r.consumed, 1u);
}

}  // namespace
}  // namespace hail::test
