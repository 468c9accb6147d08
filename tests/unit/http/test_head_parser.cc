// parse_response_head on its own: a table of heads (every framing field form, case, lists,
// whitespace, line ends, errors) with the facts each must give, every prefix of a head, the size
// limit, reads next to a guard page, field capture, and the deliberate differences from llhttp
// (head_parser.h D1-D6) checked against the llhttp-based oracle.
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/head_parser.h"
#include "unit/http/llhttp_reference.h"
#include "unit/http/response_trace.h"

namespace hail::test {
namespace {

using S = HeadParseStatus;
using E = HeadError;

struct Expect {
  S status = S::kComplete;
  E error = E::kNone;
  int status_code = 200;
  int minor = 1;
  bool te = false;
  bool chunked = false;
  bool has_cl = false;
  uint64_t cl = 0;
  bool close = false;
  bool keep_alive = false;
  const char* reason = nullptr;  // checked when set
};

struct Case {
  const char* name;
  std::string head;
  Expect want;
};

Expect Cl(uint64_t n) {
  Expect e;
  e.has_cl = true;
  e.cl = n;
  return e;
}
Expect Te(bool chunked) {
  Expect e;
  e.te = true;
  e.chunked = chunked;
  return e;
}
Expect Conn(bool close, bool keep_alive, int minor = 1) {
  Expect e;
  e.close = close;
  e.keep_alive = keep_alive;
  e.minor = minor;
  return e;
}
Expect Status(int code, int minor = 1) {
  Expect e;
  e.status_code = code;
  e.minor = minor;
  return e;
}
Expect Err(E kind, const char* reason = nullptr) {
  Expect e;
  e.status = S::kError;
  e.error = kind;
  e.reason = reason;
  return e;
}
Expect Incomplete() {
  Expect e;
  e.status = S::kIncomplete;
  return e;
}

std::string H(const std::string& fields) {
  return "HTTP/1.1 200 OK\r\n" + fields + "\r\n";
}

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

std::vector<Case> cases() {
  return {
      // --- status line ------------------------------------------------------------------------
      {"Minimal", "HTTP/1.1 200 OK\r\n\r\n", {}},
      {"Http10", "HTTP/1.0 404 Not Found\r\n\r\n", Status(404, 0)},
      {"NoReason", "HTTP/1.1 204\r\n\r\n", Status(204)},
      {"EmptyReason", "HTTP/1.1 204 \r\n\r\n", Status(204)},
      {"ReasonAnyBytes", "HTTP/1.1 500 a\x01\x7f\xff:\t \r\n\r\n", Status(500)},
      {"Status100", "HTTP/1.1 100 Continue\r\n\r\n", Status(100)},
      {"Status599", "HTTP/1.1 599 X\r\n\r\n", Status(599)},
      // RFC 9110 §15: a three-digit number outside 100..599 is no status.
      {"Status600", "HTTP/1.1 600 X\r\n\r\n", Err(E::kSyntax, "invalid status code")},
      {"Status999", "HTTP/1.1 999 X\r\n\r\n", Err(E::kSyntax, "invalid status code")},
      {"LeadingEmptyLines", "\r\n\n\r\nHTTP/1.1 200 OK\r\n\r\n", {}},
      {"LfOnly", "HTTP/1.1 200 OK\nContent-Length: 3\n\n", Cl(3)},
      {"MixedLineEnds", "HTTP/1.1 200 OK\r\nA: b\n\r\n", {}},
      {"Status099", "HTTP/1.1 099 X\r\n\r\n", Err(E::kSyntax, "invalid status code")},
      {"Status0200", "HTTP/1.1 0200 X\r\n\r\n", Err(E::kSyntax, "invalid status code")},
      {"Status2000", "HTTP/1.1 2000 X\r\n\r\n", Err(E::kSyntax, "invalid status code")},
      {"Status20", "HTTP/1.1 20 X\r\n\r\n", Err(E::kSyntax, "invalid status code")},
      {"StatusThenTab", "HTTP/1.1 200\tOK\r\n\r\n", Err(E::kSyntax, "invalid status code")},
      {"StatusLetters", "HTTP/1.1 2x0 OK\r\n\r\n", Err(E::kSyntax, "invalid status code")},
      {"TwoSpaces", "HTTP/1.1  200 OK\r\n\r\n", Err(E::kSyntax, "invalid status code")},
      {"Http11Lower", "http/1.1 200 OK\r\n\r\n", Err(E::kSyntax, "malformed status line")},
      {"Http2", "HTTP/2.0 200 OK\r\n\r\n", Err(E::kSyntax, "unsupported HTTP version")},
      {"Http09", "HTTP/0.9 200 OK\r\n\r\n", Err(E::kSyntax, "unsupported HTTP version")},
      // RFC 9110 §2.5: a higher minor version of HTTP/1 is read as the highest one supported.
      {"Http12", "HTTP/1.2 200 OK\r\n\r\n", Status(200, 1)},
      {"Http19", "HTTP/1.9 404 X\r\n\r\n", Status(404, 1)},
      {"Http110", "HTTP/1.10 200 OK\r\n\r\n", Err(E::kSyntax, "malformed status line")},
      {"NoSpaceAfterVersion", "HTTP/1.1\r\n\r\n", Err(E::kSyntax, "malformed status line")},
      {"Garbage", "\x81\x05hello", Err(E::kSyntax, "malformed status line")},
      {"BareCrInReason", "HTTP/1.1 200 O\rK\r\n\r\n", Err(E::kSyntax, "bare CR in header section")},
      {"BareCrBeforeStatus", "\rHTTP/1.1 200 OK\r\n\r\n",
       Err(E::kSyntax, "bare CR in header section")},

      // --- Content-Length ------------------------------------------------------------------------
      {"ClZero", H("Content-Length: 0\r\n"), Cl(0)},
      {"ClCase", H("cOnTeNt-LeNgTh: 12\r\n"), Cl(12)},
      {"ClNoSpace", H("Content-Length:7\r\n"), Cl(7)},
      {"ClOws", H("Content-Length: \t 7   \r\n"), Cl(7)},
      {"ClLeadingZeros", H("Content-Length: 0000000000000000000000000007\r\n"), Cl(7)},
      {"ClMax", H("Content-Length: 18446744073709551615\r\n"), Cl(18446744073709551615ULL)},
      {"ClOverflow", H("Content-Length: 18446744073709551616\r\n"),
       Err(E::kFraming, "Content-Length overflow")},
      {"ClEmpty", H("Content-Length:\r\n"), Err(E::kFraming, "Empty Content-Length")},
      {"ClBlank", H("Content-Length:  \t\r\n"), Err(E::kFraming, "Empty Content-Length")},
      {"ClDuplicate", H("Content-Length: 5\r\nContent-Length: 5\r\n"),
       Err(E::kFraming, "Duplicate Content-Length")},
      {"ClConflict", H("Content-Length: 5\r\ncontent-length: 6\r\n"),
       Err(E::kFraming, "Duplicate Content-Length")},
      {"ClList", H("Content-Length: 5, 5\r\n"), Err(E::kFraming)},
      {"ClTrailingTab", H("Content-Length: 5\t\r\n"), Err(E::kFraming)},
      {"ClPlus", H("Content-Length: +5\r\n"), Err(E::kFraming)},
      {"ClHex", H("Content-Length: 0x5\r\n"), Err(E::kFraming)},
      {"ClSpaceInside", H("Content-Length: 5 5\r\n"), Err(E::kFraming)},
      {"ClLongerName", H("Content-Lengths: x\r\n"), {}},
      {"ClShorterName", H("Content-Lengt: x\r\n"), {}},

      // --- Transfer-Encoding ---------------------------------------------------------------------
      {"TeChunked", H("Transfer-Encoding: chunked\r\n"), Te(true)},
      {"TeCase", H("TRANSFER-ENCODING: ChUnKeD\r\n"), Te(true)},
      {"TeListLast", H("Transfer-Encoding: gzip, chunked\r\n"), Te(true)},
      {"TeListTight", H("Transfer-Encoding: gzip,chunked\r\n"), Te(true)},
      {"TeListTabs", H("Transfer-Encoding: gzip,\t chunked  \r\n"), Te(true)},
      {"TeNotLast", H("Transfer-Encoding: chunked, gzip\r\n"), Te(false)},
      {"TeGzip", H("Transfer-Encoding: gzip\r\n"), Te(false)},
      {"TeTrailingComma", H("Transfer-Encoding: chunked,\r\n"), Te(false)},
      {"TeTrailingTab", H("Transfer-Encoding: chunked\t\r\n"), Te(false)},  // llhttp's reading
      {"TeLonger", H("Transfer-Encoding: chunkedx\r\n"), Te(false)},
      {"TeControlByte", H("Transfer-Encoding: x\x01, chunked\r\n"), Te(false)},
      {"TeTwoFieldsLastWins", H("Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n"),
       Te(false)},
      {"TeTwoFieldsChunkedLast", H("Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n"),
       Te(true)},
      {"TeEmptyIgnored", H("Transfer-Encoding: chunked\r\nTransfer-Encoding: \r\n"), Te(true)},
      {"TeOnlyEmpty", H("Transfer-Encoding:\r\n"), {}},
      {"TeAndCl", H("Transfer-Encoding: chunked\r\nContent-Length: 5\r\n"),
       Err(E::kFraming, "Content-Length can't be present with Transfer-Encoding")},
      {"ClAndTeGzip", H("Content-Length: 5\r\nTransfer-Encoding: gzip\r\n"), Err(E::kFraming)},
      {"ClAndEmptyTe", H("Content-Length: 5\r\nTransfer-Encoding:\r\n"), Cl(5)},

      // --- Connection ----------------------------------------------------------------------------
      {"ConnClose", H("Connection: close\r\n"), Conn(true, false)},
      {"ConnCloseCase", H("connection: CLOSE\r\n"), Conn(true, false)},
      {"ConnKeepAlive", H("Connection: Keep-Alive\r\n"), Conn(false, true)},
      {"ConnList", H("Connection: Upgrade, close\r\n"), Conn(true, false)},
      {"ConnListBoth", H("Connection: keep-alive ,\tclose \r\n"), Conn(true, true)},
      {"ConnEmptyElements", H("Connection: ,, close,,\r\n"), Conn(true, false)},
      {"ConnNotAToken", H("Connection: closed, keep-alives, xclose\r\n"), Conn(false, false)},
      {"ConnTrailingTab", H("Connection: close\t\r\n"), Conn(false, false)},  // llhttp's reading
      {"ConnControlByteEndsList", H("Connection: close, a\x01, keep-alive\r\n"), Conn(true, false)},
      {"ConnControlByteInToken", H("Connection: clo\x7fse\r\n"), Conn(false, false)},
      {"ConnTwoFields", H("Connection: keep-alive\r\nConnection: close\r\n"), Conn(true, true)},
      {"ProxyConnection", H("Proxy-Connection: close\r\n"), Conn(true, false)},
      {"ConnEmpty", H("Connection:\r\n"), {}},
      {"ConnLongerName", H("Connections: close\r\n"), {}},

      // --- field syntax --------------------------------------------------------------------------
      {"TcharName", H("!#$%&'*+-.^_`|~09AZaz: v\r\n"), {}},
      {"EmptyValue", H("X:\r\n"), {}},
      {"CtlInValue", H(std::string("X: a\0b\x01\x7f\xff\r\n", 11)), {}},
      {"ObsFold", H("X: a\r\n  b\r\n\tc\r\nContent-Length: 1\r\n"), Cl(1)},
      {"ObsFoldLf", H("X: a\n b\nContent-Length: 1\n"), Cl(1)},
      {"SpaceBeforeColon", H("Content-Length : 5\r\n"),
       Err(E::kSyntax, "invalid character in field name")},
      {"SpaceInName", H("X Y: z\r\n"), Err(E::kSyntax, "invalid character in field name")},
      {"TabBeforeColon", H("X\t: z\r\n"), Err(E::kSyntax, "invalid character in field name")},
      {"NonAsciiName", H("X\xc3\xa9: z\r\n"), Err(E::kSyntax, "invalid character in field name")},
      {"NoColon", H("NoColon\r\n"), Err(E::kSyntax, "invalid character in field name")},
      {"EmptyName", H(": v\r\n"), Err(E::kSyntax, "empty field name")},
      {"SpaceFirstLine", H(" X: v\r\n"), Err(E::kSyntax, "whitespace before the first field line")},
      {"TabFirstLine", H("\tX: v\r\n"), Err(E::kSyntax, "whitespace before the first field line")},
      {"FoldAfterCl", H("Content-Length: 1\r\n 2\r\n"),
       Err(E::kSyntax, "obs-fold in a framing field")},
      {"FoldAfterTe", H("Transfer-Encoding: gzip\r\n chunked\r\n"),
       Err(E::kSyntax, "obs-fold in a framing field")},
      {"FoldAfterConnection", H("Connection: keep-alive\r\n\tclose\r\n"),
       Err(E::kSyntax, "obs-fold in a framing field")},
      {"FoldAfterEmptyTe", H("Transfer-Encoding:\r\n chunked\r\n"),
       Err(E::kSyntax, "obs-fold in a framing field")},
      {"BareCrInValue", H("X: a\rb\r\n"), Err(E::kSyntax, "bare CR in header section")},
      {"BareCrEndsHead", "HTTP/1.1 200 OK\r\n\rX", Err(E::kSyntax, "bare CR in header section")},
      {"CrCrLf", "HTTP/1.1 200 OK\r\r\n\r\n", Err(E::kSyntax, "bare CR in header section")},
      {"ControlByteStartsName", H("\x01X: v\r\n"),
       Err(E::kSyntax, "invalid character in field name")},

      // --- incomplete
      // ------------------------------------------------------------------------------
      {"Empty", "", Incomplete()},
      {"OnlyCrlf", "\r\n", Incomplete()},
      {"NoFinalEmptyLine", "HTTP/1.1 200 OK\r\nA: b\r\n", Incomplete()},
      {"EndsInCr", "HTTP/1.1 200 OK\r\nA: b\r\n\r", Incomplete()},
      {"BadNameLineNotEnded", "HTTP/1.1 200 OK\r\nX Y: z", Incomplete()},  // judged at its end
      {"BadClLineNotEnded", "HTTP/1.1 200 OK\r\nContent-Length: x", Incomplete()},
  };
}

class HeadTable : public testing::TestWithParam<Case> {};

void check(const std::string& head, const Expect& w, const HeadParseResult& r,
           const ResponseHead& h) {
  ASSERT_EQ(r.status, w.status) << r.reason;
  EXPECT_EQ(r.error, w.error);
  if (w.reason != nullptr) {
    EXPECT_STREQ(r.reason, w.reason);
  }
  if (w.status == S::kIncomplete) {
    EXPECT_EQ(r.consumed, head.size());
  }
  if (w.status != S::kComplete) return;
  EXPECT_EQ(r.consumed, head.size());
  EXPECT_STREQ(r.reason, "");
  EXPECT_EQ(h.http_major, 1);
  EXPECT_EQ(h.http_minor, w.minor);
  EXPECT_EQ(h.status, w.status_code);
  EXPECT_EQ(h.transfer_encoding, w.te);
  EXPECT_EQ(h.chunked, w.chunked);
  EXPECT_EQ(h.has_content_length, w.has_cl);
  EXPECT_EQ(h.content_length, w.cl);
  EXPECT_EQ(h.connection_close, w.close);
  EXPECT_EQ(h.connection_keep_alive, w.keep_alive);
}

TEST_P(HeadTable, Parses) {
  const Case& c = GetParam();
  static GuardedBuffer guard(1 << 17);  // any read past the head faults
  const char* at = guard.place(c.head.data(), c.head.size());
  ResponseHead h;
  check(c.head, c.want, parse_response_head(at, c.head.size(), &h), h);
}

TEST_P(HeadTable, FollowingBytesDoNotMatter) {
  const Case& c = GetParam();
  if (c.want.status != S::kComplete) return;
  for (const char* tail : {"", "x", "\r", "\n", " ", "HTTP/1.1 200 OK\r\n\r\n"}) {
    const std::string s = c.head + tail + std::string(100, 'b');
    ResponseHead h;
    check(c.head, c.want, parse_response_head(s.data(), s.size(), &h), h);
  }
}

// A complete head is incomplete at every shorter length, and an erroneous one is incomplete or the
// same error (never complete): what Http1ResponseParser relies on to gather split heads.
TEST_P(HeadTable, EveryPrefix) {
  const Case& c = GetParam();
  static GuardedBuffer guard(1 << 17);
  for (size_t n = 0; n < c.head.size(); ++n) {
    const char* at = guard.place(c.head.data(), n);
    ResponseHead h;
    HeadParseResult r = parse_response_head(at, n, &h);
    if (c.want.status == S::kComplete) {
      ASSERT_EQ(r.status, S::kIncomplete) << "prefix of " << n;
      EXPECT_EQ(r.consumed, n);
    } else {
      ASSERT_NE(r.status, S::kComplete) << "prefix of " << n;
      if (r.status == S::kError) {
        EXPECT_EQ(r.error, c.want.error) << "prefix of " << n;
      }
    }
  }
}

std::string case_name(const testing::TestParamInfo<Case>& param_info) {
  return param_info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Table, HeadTable, testing::ValuesIn(cases()), case_name);

// Every accepted head of the table reads the same as with llhttp, and every rejected one is either
// rejected by llhttp too or a documented deliberate difference.
TEST_P(HeadTable, AgreesWithLlhttpOrIsDeliberate) {
  const Case& c = GetParam();
  ResponseHead h;
  const HeadParseResult r = parse_response_head(c.head.data(), c.head.size(), &h);
  const RefHead o = ref_parse_head(c.head.data(), c.head.size(), false);
  static const std::vector<std::string> kDeliberate = {
      "Status0200",           // D1
      "SpaceBeforeColon",     // D2
      "SpaceInName",          // D2
      "EmptyName",            // D3
      "SpaceFirstLine",       // D4
      "FoldAfterTe",          // D5
      "FoldAfterConnection",  // D5
      "FoldAfterEmptyTe",     // D5
  };
  const bool deliberate =
      std::find(kDeliberate.begin(), kDeliberate.end(), c.name) != kDeliberate.end();
  if (deliberate) {
    EXPECT_EQ(r.status, S::kError);
    EXPECT_EQ(o.status, S::kComplete) << "llhttp rejects it too: not a difference";
    return;
  }
  if (r.status == S::kIncomplete && o.status == S::kError) return;  // judged at the line's end
  ASSERT_EQ(r.status, o.status) << r.reason << " / " << o.reason;
  if (r.status != S::kComplete) return;
  EXPECT_EQ(r.consumed, o.consumed);
  EXPECT_EQ(h.status, o.status_code);
  EXPECT_EQ(h.http_minor, o.http_minor);
  EXPECT_EQ(h.transfer_encoding, (o.flags & F_TRANSFER_ENCODING) != 0);
  if (h.transfer_encoding) {
    EXPECT_EQ(h.chunked, (o.flags & F_CHUNKED) != 0);
  }
  EXPECT_EQ(h.has_content_length, (o.flags & F_CONTENT_LENGTH) != 0);
  if (h.has_content_length) {
    EXPECT_EQ(h.content_length, o.content_length);
  }
  EXPECT_EQ(h.connection_close, (o.flags & F_CONNECTION_CLOSE) != 0);
  EXPECT_EQ(h.connection_keep_alive, (o.flags & F_CONNECTION_KEEP_ALIVE) != 0);
}

TEST(HeadParser, WaitingForLineEnd) {
  ResponseHead h;
  auto waiting = [&](const std::string& s) {
    HeadParseResult r = parse_response_head(s.data(), s.size(), &h);
    EXPECT_EQ(r.status, S::kIncomplete) << s;
    return r.waiting_for_line_end;
  };
  EXPECT_TRUE(waiting("HTTP/1.1 200 O"));
  EXPECT_TRUE(waiting("HTTP/1.1 200 OK\r\nX-Long: aaaa"));
  EXPECT_TRUE(waiting("HTTP/1.1 200 OK\r\nX-Lo"));
  EXPECT_TRUE(waiting("HTTP/1.1 200 OK\r\nA: b\r\n c"));
  EXPECT_FALSE(waiting("HTTP/1.1 20"));                  // the status line may still fail
  EXPECT_FALSE(waiting("HTTP/1.1 200 OK\r"));            // the next byte must be LF
  EXPECT_FALSE(waiting("HTTP/1.1 200 OK\r\n"));          // a SP next could be an error
  EXPECT_FALSE(waiting("HTTP/1.1 200 OK\r\nA: b\r\n"));  // the head may end
}

TEST(HeadParser, SizeLimit) {
  const std::string start = "HTTP/1.1 200 OK\r\nX: ";
  std::string exact =
      start + std::string(kMaxResponseHeadBytes - start.size() - 4, 'a') + "\r\n\r\n";
  ASSERT_EQ(exact.size(), kMaxResponseHeadBytes);
  ResponseHead h;
  HeadParseResult r = parse_response_head(exact.data(), exact.size(), &h);
  EXPECT_EQ(r.status, S::kComplete);
  EXPECT_EQ(r.consumed, kMaxResponseHeadBytes);

  std::string over =
      start + std::string(kMaxResponseHeadBytes - start.size() - 3, 'a') + "\r\n\r\n";
  r = parse_response_head(over.data(), over.size(), &h);
  EXPECT_EQ(r.status, S::kError);
  EXPECT_EQ(r.error, E::kTooLarge);
  EXPECT_EQ(r.consumed, kMaxResponseHeadBytes);
  // Short of the limit, an unfinished head is just incomplete.
  r = parse_response_head(over.data(), kMaxResponseHeadBytes - 1, &h);
  EXPECT_EQ(r.status, S::kIncomplete);
  // An error inside the limit wins over the limit.
  std::string bad = "HTTP/1.1 200 OK\r\nX Y: z\r\n" + std::string(kMaxResponseHeadBytes, 'a');
  r = parse_response_head(bad.data(), bad.size(), &h);
  EXPECT_EQ(r.error, E::kSyntax);
}

TEST(HeadParser, ConsumedIsTheHeadLength) {
  const std::string head = "\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n";
  const std::string s = head + "helloHTTP/1.1 200 OK\r\n\r\n";
  ResponseHead h;
  HeadParseResult r = parse_response_head(s.data(), s.size(), &h);
  ASSERT_EQ(r.status, S::kComplete);
  EXPECT_EQ(r.consumed, head.size());
}

using Fields = std::vector<std::pair<std::string, std::string>>;

Fields fields_of(const std::string& s, HeadParseStatus want = S::kComplete) {
  Fields out;
  HeadFieldSink sink{[](void* ctx, std::string_view name, std::string_view value) {
                       static_cast<Fields*>(ctx)->emplace_back(name, value);
                     },
                     &out};
  ResponseHead h;
  EXPECT_EQ(parse_response_head(s.data(), s.size(), &h, &sink).status, want);
  return out;
}

TEST(HeadParser, FieldsInOrderWithRawFolds) {
  const Fields got = fields_of(
      "HTTP/1.1 200 OK\r\nContent-Type: text/plain \r\nX-Empty:\r\nX-Fold: a \r\n  b\t\r\n"
      "X-Late:\r\n \r\n\tlate\r\nset-cookie: a=1\r\nSet-Cookie:b=2\r\n\r\nbody");
  const Fields want = {{"Content-Type", "text/plain"}, {"X-Empty", ""},
                       {"X-Fold", "a \r\n  b"},        {"X-Late", "late"},
                       {"set-cookie", "a=1"},          {"Set-Cookie", "b=2"}};
  EXPECT_EQ(got, want);
}

TEST(HeadParser, NoFieldsUnlessComplete) {
  EXPECT_TRUE(fields_of("HTTP/1.1 200 OK\r\nA: b\r\n", S::kIncomplete).empty());
  EXPECT_TRUE(fields_of("HTTP/1.1 200 OK\r\nA: b\r\nC D: e\r\n\r\n", S::kError).empty());
}

TEST(HeadParser, FieldsMatchLlhttpOnceJoined) {
  const std::string s =
      "HTTP/1.1 200 OK\r\nA:  x  \r\nB: y\r\n z \r\n\t\r\nC:\r\n w\nD: \x01q\x7f\r\n\r\n";
  Fields joined;
  for (auto& [name, value] : fields_of(s)) {
    std::string v;
    for (char c : value) {
      if (c != '\r' && c != '\n') v.push_back(c);
    }
    joined.emplace_back(name, v);
  }
  EXPECT_EQ(joined, ref_parse_head(s.data(), s.size(), true).fields);
}

}  // namespace
}  // namespace hail::test
