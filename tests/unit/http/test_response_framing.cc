// Table of response streams checked at every split point, one byte at a time and near a guard page,
// with and without body skipping: status, body length, keep-alive, interim count, where each
// response ends and how the stream ends must not depend on how the bytes arrive.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "http/response_parser.h"
#include "unit/http/feed_harness.h"

namespace hail::test {
namespace {

using K = ParseErrorKind;

struct Case {
  std::string name;
  std::string input;
  FeedOptions opt;
  Trace expected;
};

ResponseRecord R(int status, uint64_t body, bool keep_alive, size_t end, uint32_t interim = 0,
                 int minor = 1) {
  ResponseRecord r;
  r.status = status;
  r.http_minor = minor;
  r.keep_alive = keep_alive;
  r.body_bytes = body;
  r.interim = interim;
  r.end = end;
  return r;
}

// Stream ends waiting for more bytes; `started`: bytes of an unfinished response were seen.
Trace Open(std::vector<ResponseRecord> rs, bool started = false) {
  Trace t;
  t.responses = std::move(rs);
  t.started = started;
  return t;
}

Trace EofComplete(std::vector<ResponseRecord> rs) {
  Trace t;
  t.responses = std::move(rs);
  t.final_status = ParseStatus::kComplete;
  return t;
}

Trace Err(std::vector<ResponseRecord> rs, ParseErrorKind kind) {
  Trace t;
  t.responses = std::move(rs);
  t.final_status = ParseStatus::kError;
  t.error_kind = kind;
  return t;
}

FeedOptions Eof() {
  FeedOptions o;
  o.eof = true;
  return o;
}

FeedOptions Head() {
  FeedOptions o;
  o.head_request = true;
  return o;
}

FeedOptions Upgrade() {
  FeedOptions o;
  o.upgrade_requested = true;
  return o;
}

const std::string kOk5 = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
const std::string kChunkedHead = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
const std::string kNoContent = "HTTP/1.1 204 No Content\r\n\r\n";

std::vector<Case> framing_cases() {
  std::vector<Case> c;
  const size_t ok5 = kOk5.size();

  // --- Content-Length -------------------------------------------------------------------------
  c.push_back({"ContentLength", kOk5, {}, Open({R(200, 5, true, ok5)})});
  {
    std::string s = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
    c.push_back({"ContentLengthZero", s, {}, Open({R(200, 0, true, s.size())})});
  }
  {
    std::string s = "HTTP/1.1 404 Not Found\r\nServer: x\r\nContent-Length: 3\r\n\r\nabc";
    c.push_back({"NotFoundWithBody", s, {}, Open({R(404, 3, true, s.size())})});
  }
  c.push_back(
      {"ContentLengthShortThenEof", kOk5.substr(0, ok5 - 2), Eof(), Err({}, K::kTruncated)});
  c.push_back({"ContentLengthShortOpen", kOk5.substr(0, ok5 - 2), {}, Open({}, true)});
  {
    std::string s = "HTTP/1.1 200 OK\r\nContent-Length: 00007\r\n\r\n1234567";
    c.push_back({"ContentLengthLeadingZeros", s, {}, Open({R(200, 7, true, s.size())})});
  }
  c.push_back({"ConflictingContentLength",
               "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
               {},
               Err({}, K::kBadFraming)});
  c.push_back({"DuplicateEqualContentLength",
               "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello",
               {},
               Err({}, K::kBadFraming)});
  c.push_back({"ContentLengthList",
               "HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\nhello",
               {},
               Err({}, K::kBadFraming)});
  c.push_back({"ContentLengthNotNumber",
               "HTTP/1.1 200 OK\r\nContent-Length: five\r\n\r\n",
               {},
               Err({}, K::kBadFraming)});
  c.push_back({"ContentLengthNegative",
               "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
               {},
               Err({}, K::kBadFraming)});
  c.push_back({"ContentLengthOverflow",
               "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\n",
               {},
               Err({}, K::kBadFraming)});
  c.push_back({"ContentLengthAndChunked",
               "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
               "5\r\nhello\r\n0\r\n\r\n",
               {},
               Err({}, K::kBadFraming)});
  c.push_back({"ChunkedAndContentLength",
               "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n",
               {},
               Err({}, K::kBadFraming)});
  c.push_back({"ContentLengthAndGzip",
               "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nTransfer-Encoding: gzip\r\n\r\n",
               {},
               Err({}, K::kBadFraming)});

  // --- pipelining and what follows a response -----------------------------------------------
  {
    std::string b = kChunkedHead + "3\r\nabc\r\n0\r\n\r\n";
    std::string s = kOk5 + b + kNoContent;
    c.push_back(
        {"PipelinedThree",
         s,
         {},
         Open({R(200, 5, true, ok5), R(200, 3, true, ok5 + b.size()), R(204, 0, true, s.size())})});
  }
  c.push_back({"ResponseThenGarbage",
               kOk5 + "garbage\r\n\r\n",
               {},
               Err({R(200, 5, true, ok5)}, K::kBadHead)});
  c.push_back(
      {"ResponseThenPartialNext", kOk5 + "HTTP/1.1 2", {}, Open({R(200, 5, true, ok5)}, true)});
  c.push_back({"PipelinedThenEofBeforeNext", kOk5, Eof(),
               Err({R(200, 5, true, ok5)}, K::kClosedBeforeResponse)});
  // llhttp skips empty lines before a status line, which tolerates servers that send a stray CRLF
  // after a body; the CRLF belongs to the next response.
  c.push_back({"StrayCrlfBeforeNext",
               kOk5 + "\r\n" + kOk5,
               {},
               Open({R(200, 5, true, ok5), R(200, 5, true, 2 * ok5 + 2)})});

  // --- interim responses -----------------------------------------------------------------
  {
    std::string s = "HTTP/1.1 100 Continue\r\n\r\n" + kOk5;
    c.push_back({"ContinueThenOk", s, {}, Open({R(200, 5, true, s.size(), 1)})});
  }
  {
    std::string s =
        "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload; as=style\r\n"
        "Link: </script.js>; rel=preload; as=script\r\n\r\n"
        "HTTP/1.1 100 Continue\r\n\r\n"
        "HTTP/1.1 102 Processing\r\nContent-Length: 3\r\n\r\n" +
        kOk5;
    c.push_back({"EarlyHintsAndContinueThenOk", s, {}, Open({R(200, 5, true, s.size(), 3)})});
  }
  c.push_back({"ContinueThenEof", "HTTP/1.1 100 Continue\r\n\r\n", Eof(), Err({}, K::kTruncated)});
  {
    std::string s;
    for (uint32_t i = 0; i <= Http1ResponseParser::kMaxInterimResponses; ++i) {
      s += "HTTP/1.1 100 Continue\r\n\r\n";
    }
    c.push_back({"TooManyInterim", s + kOk5, {}, Err({}, K::kHeadTooLarge)});
  }
  {
    std::string s =
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n";
    // To a request that asked to upgrade, the bytes after a 101 belong to the new protocol: the
    // response ends at the empty line and must not keep the connection for HTTP/1.
    c.push_back({"SwitchingProtocols", s, Upgrade(), Open({R(101, 0, false, s.size())})});
    c.push_back({"SwitchingProtocolsThenFrames", s + "\x81\x05hello", Upgrade(),
                 Err({R(101, 0, false, s.size())}, K::kBadHead)});
    // To any other request a 101 is a protocol error: it has left HTTP without being asked.
    c.push_back({"SwitchingProtocolsUnasked", s, {}, Err({}, K::kBadHead)});
  }

  // --- responses without a body ------------------------------------------------------------
  {
    std::string s = "HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n";
    c.push_back({"HeadWithContentLength", s + s, Head(),
                 Open({R(200, 0, true, s.size()), R(200, 0, true, 2 * s.size())})});
    std::string t = kChunkedHead;
    c.push_back({"HeadWithChunked", t, Head(), Open({R(200, 0, true, t.size())})});
  }
  {
    std::string s = "HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n";
    c.push_back({"NoContentIgnoresContentLength",
                 s + kOk5,
                 {},
                 Open({R(204, 0, true, s.size()), R(200, 5, true, s.size() + ok5)})});
    std::string t = "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\nETag: \"x\"\r\n\r\n";
    c.push_back({"NotModifiedIgnoresContentLength",
                 t + kOk5,
                 {},
                 Open({R(304, 0, true, t.size()), R(200, 5, true, t.size() + ok5)})});
    std::string u = "HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n";
    c.push_back({"NotModifiedIgnoresChunked",
                 u + kOk5,
                 {},
                 Open({R(304, 0, true, u.size()), R(200, 5, true, u.size() + ok5)})});
  }

  // --- chunked ---------------------------------------------------------------------------
  {
    std::string s =
        kChunkedHead +
        "0005;ext=1;q=\"a;b\\\"c\" ; flag\r\nhello\r\n00A\r\n0123456789\r\n"
        "1f\r\n0123456789abcdef0123456789abcde\r\n0\r\nX-Trailer: yes\r\nOther: 1\r\n\r\n";
    c.push_back({"ChunkedExtensionsTrailersZerosHex", s, {}, Open({R(200, 46, true, s.size())})});
  }
  {
    std::string s = kChunkedHead + "0\r\n\r\n";
    c.push_back({"ChunkedEmpty", s, {}, Open({R(200, 0, true, s.size())})});
  }
  {
    std::string s = kChunkedHead + "5\nhello\n0\nTrailer: 1\n\n";
    c.push_back({"ChunkedBareLf", s, {}, Open({R(200, 5, true, s.size())})});
  }
  {
    std::string s =
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
    c.push_back({"GzipThenChunked", s, {}, Open({R(200, 3, true, s.size())})});
  }
  c.push_back(
      {"ChunkSizeOverflow", kChunkedHead + "10000000000000001\r\n", {}, Err({}, K::kBadChunk)});
  c.push_back(
      {"ChunkSizeAboveLimit", kChunkedHead + "4000000000000001\r\n", {}, Err({}, K::kBadChunk)});
  c.push_back({"ChunkSizeAtLimit", kChunkedHead + "4000000000000000\r\nabc", {}, Open({}, true)});
  c.push_back({"ChunkSizeBad", kChunkedHead + "zz\r\n", {}, Err({}, K::kBadChunk)});
  c.push_back({"ChunkSizeMissing", kChunkedHead + "\r\n", {}, Err({}, K::kBadChunk)});
  c.push_back({"ChunkSizeNegative", kChunkedHead + "-5\r\n", {}, Err({}, K::kBadChunk)});
  c.push_back(
      {"ChunkDataNoCrlf", kChunkedHead + "5\r\nhelloX\r\n0\r\n\r\n", {}, Err({}, K::kBadChunk)});
  c.push_back(
      {"ChunkDataBareCr", kChunkedHead + "5\r\nhello\rX0\r\n\r\n", {}, Err({}, K::kBadChunk)});
  c.push_back({"ChunkSizeBareCr", kChunkedHead + "5\rhello\r\n", {}, Err({}, K::kBadChunk)});
  c.push_back({"ChunkedTruncatedEof", kChunkedHead + "5\r\nhel", Eof(), Err({}, K::kTruncated)});
  c.push_back({"ChunkedNoTrailerEndEof", kChunkedHead + "0\r\n", Eof(), Err({}, K::kTruncated)});
  {
    std::string s =
        "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n"
        "2\r\nhi\r\n0\r\n\r\n";
    c.push_back({"Http10Chunked", s, {}, Open({R(200, 2, false, s.size(), 0, 0)})});
  }

  // --- read until close ------------------------------------------------------------------
  {
    std::string s = "HTTP/1.1 200 OK\r\nServer: test\r\n\r\nbody until close";
    c.push_back({"UntilClose", s, Eof(), EofComplete({R(200, 16, false, s.size())})});
    c.push_back({"UntilCloseOpen", s, {}, Open({}, true)});
    std::string e = "HTTP/1.1 200 OK\r\n\r\n";
    c.push_back({"UntilCloseEmpty", e, Eof(), EofComplete({R(200, 0, false, e.size())})});
  }
  {
    std::string s = "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nnot chunked 0\r\n\r\n";
    c.push_back(
        {"TransferEncodingNotChunked", s, Eof(), EofComplete({R(200, 17, false, s.size())})});
    std::string t = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n";
    c.push_back({"ChunkedNotFinal", t, Eof(), EofComplete({R(200, 5, false, t.size())})});
  }

  // --- keep-alive ------------------------------------------------------------------------
  {
    std::string s = "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nhi";
    c.push_back({"Http10Close", s, {}, Open({R(200, 2, false, s.size(), 0, 0)})});
    std::string t = "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nhi";
    c.push_back({"Http10KeepAlive",
                 t + t,
                 {},
                 Open({R(200, 2, true, t.size(), 0, 0), R(200, 2, true, 2 * t.size(), 0, 0)})});
    std::string u = "HTTP/1.0 200 OK\r\n\r\nuntil close";
    c.push_back({"Http10UntilClose", u, Eof(), EofComplete({R(200, 11, false, u.size(), 0, 0)})});
    std::string v = "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nhi";
    c.push_back({"ConnectionClose", v, {}, Open({R(200, 2, false, v.size())})});
    std::string w = "HTTP/1.1 200 OK\r\nConnection: keep-alive, CLOSE\r\nContent-Length: 0\r\n\r\n";
    c.push_back({"ConnectionCloseInList", w, {}, Open({R(200, 0, false, w.size())})});
    std::string x =
        "HTTP/1.0 204 No Content\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n";
    c.push_back({"Http10KeepAliveAndClose", x, {}, Open({R(204, 0, false, x.size(), 0, 0)})});
  }

  // --- head syntax -----------------------------------------------------------------------
  {
    std::string s = "HTTP/1.1 200\r\nContent-Length: 1\r\n\r\nx";
    c.push_back({"NoReasonPhrase", s, {}, Open({R(200, 1, true, s.size())})});
    std::string t = "HTTP/1.1 200 \r\nContent-Length: 1\r\n\r\nx";
    c.push_back({"EmptyReasonPhrase", t, {}, Open({R(200, 1, true, t.size())})});
    std::string u = "HTTP/1.1 503 Service Unavailable: try again\r\nContent-Length: 0\r\n\r\n";
    c.push_back({"ReasonWithColon", u, {}, Open({R(503, 0, true, u.size())})});
    std::string v = "HTTP/1.1 599 Whatever\r\nContent-Length: 0\r\n\r\n";
    c.push_back({"Status599", v, {}, Open({R(599, 0, true, v.size())})});
  }
  {
    std::string s = "HTTP/1.1 200 OK\nContent-Length: 2\nServer: lf-only\n\nhi";
    c.push_back({"LfOnly", s, {}, Open({R(200, 2, true, s.size())})});
    std::string t = "HTTP/1.1 200 OK\r\nContent-Length: 2\nServer: mixed\r\n\nhi";
    c.push_back({"MixedLineEnds", t, {}, Open({R(200, 2, true, t.size())})});
  }
  {
    std::string s = "HTTP/1.1 200 OK\r\nX-Folded: a\r\n  b\r\n\tc\r\nContent-Length: 1\r\n\r\nZ";
    c.push_back({"ObsFold", s, {}, Open({R(200, 1, true, s.size())})});
  }
  {
    std::string s =
        "HTTP/1.1 200 OK\r\nX-Ctl: a\x01z\r\nX-Latin: caf\xe9\r\nContent-Length: 0\r\n\r\n";
    c.push_back({"ControlAndObsTextInValue", s, {}, Open({R(200, 0, true, s.size())})});
  }
  {
    std::string s = "HTTP/1.1 200 OK\r\n";
    for (int i = 0; i < 300; ++i)
      s += "X-Header-" + std::to_string(i) + ": value " + std::to_string(i) + "\r\n";
    s += "Content-Length: 3\r\n\r\nabc";
    c.push_back({"ManyHeaders", s, {}, Open({R(200, 3, true, s.size())})});
  }
  c.push_back({"GarbageStatusLine", "hello world\r\n\r\n", {}, Err({}, K::kBadHead)});
  c.push_back({"LowercaseHttp", "http/1.1 200 OK\r\n\r\n", {}, Err({}, K::kBadHead)});
  c.push_back(
      {"Http2Version", "HTTP/2.0 200 OK\r\nContent-Length: 0\r\n\r\n", {}, Err({}, K::kBadHead)});
  c.push_back(
      {"Http09Version", "HTTP/0.9 200 OK\r\nContent-Length: 0\r\n\r\n", {}, Err({}, K::kBadHead)});
  {
    // RFC 9110 §2.5: HTTP/1.2 is processed as HTTP/1.1 (keep-alive by default).
    std::string s = "HTTP/1.2 200 OK\r\nContent-Length: 0\r\n\r\n";
    c.push_back({"Http12Version", s, {}, Open({R(200, 0, true, s.size())})});
  }
  c.push_back(
      {"Status999", "HTTP/1.1 999 X\r\nContent-Length: 0\r\n\r\n", {}, Err({}, K::kBadHead)});
  c.push_back(
      {"Status600", "HTTP/1.1 600 X\r\nContent-Length: 0\r\n\r\n", {}, Err({}, K::kBadHead)});
  c.push_back(
      {"Status99", "HTTP/1.1 99 Low\r\nContent-Length: 0\r\n\r\n", {}, Err({}, K::kBadHead)});
  c.push_back(
      {"Status000", "HTTP/1.1 000 Zero\r\nContent-Length: 0\r\n\r\n", {}, Err({}, K::kBadHead)});
  c.push_back(
      {"Status1000", "HTTP/1.1 1000 High\r\nContent-Length: 0\r\n\r\n", {}, Err({}, K::kBadHead)});
  c.push_back(
      {"StatusAbc", "HTTP/1.1 abc Letters\r\nContent-Length: 0\r\n\r\n", {}, Err({}, K::kBadHead)});
  c.push_back({"StatusMissing", "HTTP/1.1\r\n\r\n", {}, Err({}, K::kBadHead)});
  c.push_back({"DoubleSpaceBeforeStatus", "HTTP/1.1  200 OK\r\n\r\n", {}, Err({}, K::kBadHead)});
  c.push_back({"BareCrInStatusLine",
               "HTTP/1.1 200 OK\rX\r\nContent-Length: 0\r\n\r\n",
               {},
               Err({}, K::kBadHead)});
  c.push_back({"BareCrInValue",
               "HTTP/1.1 200 OK\r\nX: a\rb\r\nContent-Length: 0\r\n\r\n",
               {},
               Err({}, K::kBadHead)});
  c.push_back(
      {"BareCrEndsHead", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\rXY", {}, Err({}, K::kBadHead)});
  c.push_back({"LfThenBareCrEndsHead", "HTTP/1.1 200 OK\n\rXY", {}, Err({}, K::kBadHead)});
  c.push_back(
      {"HeaderWithoutColon", "HTTP/1.1 200 OK\r\nNoColon\r\n\r\n", {}, Err({}, K::kBadHead)});
  {
    // Accepted like any other control byte in a value (llhttp's lenient header mode): it cannot
    // move a frame boundary, and refusing it would cost one more scan of every head.
    std::string s("HTTP/1.1 200 OK\r\nX: a\0b\r\nContent-Length: 1\r\n\r\nx", 47);
    c.push_back({"NulInValue", s, {}, Open({R(200, 1, true, s.size())})});
  }
  // Stricter than llhttp was (head_parser.h D1-D6): each of these framed somehow before.
  c.push_back({"StatusLeadingZero",
               "HTTP/1.1 0200 OK\r\nContent-Length: 0\r\n\r\n",
               {},
               Err({}, K::kBadHead)});
  c.push_back({"SpaceBeforeColonOfContentLength",
               "HTTP/1.1 200 OK\r\nContent-Length : 5\r\n\r\nhello",
               {},
               Err({}, K::kBadHead)});
  c.push_back({"EmptyFieldName", "HTTP/1.1 200 OK\r\n: x\r\n\r\n", {}, Err({}, K::kBadHead)});
  c.push_back({"SpaceBeforeFirstField",
               "HTTP/1.1 200 OK\r\n Content-Length: 1\r\n\r\nx",
               {},
               Err({}, K::kBadHead)});
  c.push_back({"ObsFoldInTransferEncoding",
               "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n chunked\r\n\r\n0\r\n\r\n", Eof(),
               Err({}, K::kBadHead)});
  c.push_back(
      {"VersionRejectedBeforeHeadEnds", "HTTP/2.0 200 OK\r\nX: y", {}, Err({}, K::kBadHead)});
  // Faults inside a framing value are judged once the line has ended.
  c.push_back({"BadContentLengthLineThenEof", "HTTP/1.1 200 OK\r\nContent-Length: 1x", Eof(),
               Err({}, K::kTruncated)});
  c.push_back({"ProxyConnectionClose",
               "HTTP/1.1 200 OK\r\nProxy-Connection: close\r\nContent-Length: 1\r\n\r\nx",
               {},
               Open({R(200, 1, false, 64)})});
  c.push_back({"EofMidStatusLine", "HTTP/1.1 20", Eof(), Err({}, K::kTruncated)});
  c.push_back({"EofMidHeaders", "HTTP/1.1 200 OK\r\nContent-Len", Eof(), Err({}, K::kTruncated)});
  c.push_back({"EofBeforeAnyByte", "", Eof(), Err({}, K::kClosedBeforeResponse)});
  return c;
}

std::string case_name(const testing::TestParamInfo<Case>& param_info) {
  return param_info.param.name;
}

class ResponseFraming : public testing::TestWithParam<Case> {};

TEST_P(ResponseFraming, SameResultAtEverySplit) {
  const Case& c = GetParam();
  check_every_split(c.input, c.opt, c.expected);
}

INSTANTIATE_TEST_SUITE_P(Table, ResponseFraming, testing::ValuesIn(framing_cases()), case_name);

// The same table in capture mode must frame identically (capture only adds copies).
std::vector<Case> capture_cases() {
  std::vector<Case> out;
  for (Case c : framing_cases()) {
    c.opt.capture = true;
    c.name += "Captured";
    out.push_back(std::move(c));
  }
  return out;
}

class ResponseFramingCaptured : public testing::TestWithParam<Case> {};

TEST_P(ResponseFramingCaptured, SameFramingAsWithoutCapture) {
  const Case& c = GetParam();
  std::vector<std::string> violations;
  const Trace whole = run_parser(c.input, {}, c.opt, &violations);
  Trace framing = whole;
  for (auto& r : framing.responses) {
    r.headers.clear();
    r.body.clear();
    r.body_truncated = false;
  }
  EXPECT_EQ(framing, c.expected);
  EXPECT_TRUE(violations.empty());
  // Captured headers and bodies must not depend on the split either.
  check_every_split(c.input, c.opt, whole);
}

INSTANTIATE_TEST_SUITE_P(Table, ResponseFramingCaptured, testing::ValuesIn(capture_cases()),
                         case_name);

}  // namespace
}  // namespace hail::test
