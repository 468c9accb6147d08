// parse_raw_requests: a table of accepted inputs (single, pipelined, chunked, Content-Length, HEAD,
// close decisions, the HTTP/2 view), every error, reuse without allocation, and the property that
// parsing a rendered request gives the template make_request_template builds.
#include <gtest/gtest.h>

#include <iterator>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "http/raw_request.h"
#include "http/request.h"
#include "unit/http/allocation_counter.h"

namespace hail {
namespace {

using Fields = std::vector<std::pair<std::string, std::string>>;

std::vector<RequestTemplate> parse_ok(std::string_view bytes, std::string_view scheme = "http") {
  std::vector<RequestTemplate> out;
  const Status s = parse_raw_requests(bytes, scheme, &out);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  std::string joined;
  for (const RequestTemplate& t : out) joined += t.http1;
  EXPECT_EQ(joined, bytes) << "the templates' bytes are the input's";
  return out;
}

std::string parse_error(std::string_view bytes) {
  std::vector<RequestTemplate> out;
  const Status s = parse_raw_requests(bytes, "http", &out);
  return s.ok() ? "(accepted)" : s.error().message;
}

TEST(ParseRawRequests, SingleGet) {
  const std::string in = "GET /a?b=c HTTP/1.1\r\nHost: example.test\r\nUser-Agent: wrk\r\n\r\n";
  const auto out = parse_ok(in, "https");
  ASSERT_EQ(out.size(), 1u);
  const RequestTemplate& t = out[0];
  EXPECT_EQ(t.http1, in);
  EXPECT_EQ(t.method, "GET");
  EXPECT_EQ(t.path, "/a?b=c");
  EXPECT_EQ(t.authority, "example.test");
  EXPECT_EQ(t.scheme, "https");
  EXPECT_EQ(t.h2_fields, (Fields{{"user-agent", "wrk"}}));
  EXPECT_EQ(t.body, "");
  EXPECT_FALSE(t.head);
  EXPECT_FALSE(t.close_after);
}

TEST(ParseRawRequests, ThreePipelinedRequests) {
  const std::string a = "GET /1 HTTP/1.1\r\nHost: h\r\n\r\n";
  const std::string b = "POST /2 HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello";
  const std::string c = "HEAD /3 HTTP/1.1\r\nHost: h\r\n\r\n";
  const auto out = parse_ok(a + b + c);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].http1, a);
  EXPECT_EQ(out[1].http1, b);
  EXPECT_EQ(out[2].http1, c);
  EXPECT_EQ(out[0].path, "/1");
  EXPECT_EQ(out[1].method, "POST");
  EXPECT_EQ(out[1].body, "hello");
  EXPECT_EQ(out[1].h2_fields, (Fields{{"content-length", "5"}}));
  EXPECT_TRUE(out[2].head);
  EXPECT_FALSE(out[0].head);
}

TEST(ParseRawRequests, ChunkedBodyIsDecodedForHttp2AndKeptForHttp1) {
  const std::string in =
      "POST /up HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Trailer: 1\r\n\r\n";
  const auto out = parse_ok(in + "GET / HTTP/1.1\r\n\r\n");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].http1, in);
  EXPECT_EQ(out[0].body, "hello world");
  // Transfer-Encoding means nothing in HTTP/2; the decoded length is given instead.
  EXPECT_EQ(out[0].h2_fields, (Fields{{"content-length", "11"}}));
  EXPECT_EQ(out[1].path, "/");
}

TEST(ParseRawRequests, ContentLengthBody) {
  const auto out = parse_ok("PUT /x HTTP/1.1\r\ncontent-length: 3\r\ncontent-length: 3\r\n\r\nabc");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].body, "abc");
  EXPECT_EQ(out[0].authority, "");  // no Host: no :authority
  EXPECT_EQ(out[0].h2_fields, (Fields{{"content-length", "3"}, {"content-length", "3"}}));
}

TEST(ParseRawRequests, HeadRequest) {
  const auto out = parse_ok("HEAD / HTTP/1.1\r\nHost: h\r\n\r\n");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].head);
  EXPECT_EQ(out[0].method, "HEAD");
}

TEST(ParseRawRequests, CloseAfter) {
  struct Case {
    const char* in;
    bool close;
  };
  const Case cases[] = {
      {"GET / HTTP/1.1\r\nConnection: close\r\n\r\n", true},
      {"GET / HTTP/1.1\r\nconnection: Keep-Alive, Close\r\n\r\n", true},
      {"GET / HTTP/1.1\r\n\r\n", false},
      {"GET / HTTP/1.0\r\n\r\n", true},
      {"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", false},
      {"\r\nGET / HTTP/1.0\n\n", true},
      {"GET / HTTP/1.1\nConnection: close\n\n", true},
  };
  for (const Case& c : cases) {
    const auto out = parse_ok(c.in);
    ASSERT_EQ(out.size(), 1u) << c.in;
    EXPECT_EQ(out[0].close_after, c.close) << c.in;
  }
  const auto two = parse_ok("GET /a HTTP/1.1\r\nConnection: close\r\n\r\nGET /b HTTP/1.1\r\n\r\n");
  ASSERT_EQ(two.size(), 2u);
  EXPECT_TRUE(two[0].close_after);
  EXPECT_FALSE(two[1].close_after);
}

TEST(ParseRawRequests, Http2FieldsFollowTheRules) {
  const auto out = parse_ok(
      "POST /p HTTP/1.1\r\n"
      "Host: first\r\n"
      "X-Custom:   spaced value \t\r\n"
      "Connection: keep-alive\r\n"
      "Keep-Alive: timeout=5\r\n"
      "Proxy-Connection: keep-alive\r\n"
      "Upgrade: h2c\r\n"
      "TE: gzip\r\n"
      "te: trailers\r\n"
      "HOST: second\r\n"
      "Accept: */*\r\n"
      "\r\n");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].authority, "second");  // the last Host wins, as in make_request_template
  // POST gives content a meaning: an empty body still has its content-length.
  EXPECT_EQ(out[0].h2_fields, (Fields{{"x-custom", "spaced value"},
                                      {"te", "trailers"},
                                      {"accept", "*/*"},
                                      {"content-length", "0"}}));
}

TEST(ParseRawRequests, LenientWhereScriptsAreSloppy) {
  // Bare LF line ends, no Host, any method token, empty lines around requests.
  const auto out =
      parse_ok("\r\n\nPURGE /cache HTTP/1.1\nX-A: 1\n\n\r\nGET /b HTTP/1.0\r\n\r\n\r\n");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].http1, "\r\n\nPURGE /cache HTTP/1.1\nX-A: 1\n\n");
  EXPECT_EQ(out[0].method, "PURGE");
  EXPECT_EQ(out[0].h2_fields, (Fields{{"x-a", "1"}}));
  EXPECT_EQ(out[1].http1, "\r\nGET /b HTTP/1.0\r\n\r\n\r\n");  // trailing empty lines go with it
  EXPECT_EQ(out[1].path, "/b");
  EXPECT_TRUE(out[1].close_after);
}

TEST(ParseRawRequests, Errors) {
  struct Case {
    std::string in;
    std::string error;
  };
  const std::string ok = "GET / HTTP/1.1\r\nHost: h\r\n\r\n";
  const std::vector<Case> cases = {
      {"", "empty request: the script gave no bytes"},
      {"\r\n\r\n", "request 1: no request line, only empty lines"},
      {ok + "Host: x\r\n\r\n", "request 2: invalid request line \"Host: x\""},
      {"GET\r\n\r\n", "request 1: invalid request line \"GET\""},
      {"G@T / HTTP/1.1\r\n\r\n", "request 1: invalid request line \"G@T / HTTP/1.1\""},
      {"GET  / HTTP/1.1\r\n\r\n", "request 1: invalid request line \"GET  / HTTP/1.1\""},
      {"GET /a\x01 HTTP/1.1\r\n\r\n", "request 1: invalid request target \"/a\\x01\""},
      {"GET /\r\n\r\n",
       "request 1: no HTTP version in the request line \"GET /\" (HTTP/0.9 requests are not "
       "supported)"},
      {"GET / HTTP/2.0\r\n\r\n",
       "request 1: unsupported HTTP version \"HTTP/2.0\" (HTTP/1.0 or HTTP/1.1)"},
      {"GET / HTTP/1.1\rX\r\n\r\n",
       "request 1: unsupported HTTP version \"HTTP/1.1\\x0dX\" (HTTP/1.0 or HTTP/1.1)"},
      {"GET / HTTP/1.1\r\nBad Name: x\r\n\r\n", "request 1: invalid header line \"Bad Name: x\""},
      {"GET / HTTP/1.1\r\nNoColon\r\n\r\n", "request 1: invalid header line \"NoColon\""},
      {"GET / HTTP/1.1\r\n: x\r\n\r\n", "request 1: invalid header line \": x\""},
      {"GET / HTTP/1.1\r\nX: a\x01z\r\n\r\n", "request 1: invalid value in header \"X\""},
      {"GET / HTTP/1.1\r\nX: a\rb\r\n\r\n", "request 1: invalid value in header \"X\""},
      {"GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n",
       "request 1: obs-fold (a field line starting with whitespace) in \" b\""},
      {"POST / HTTP/1.1\r\nContent-Length: abc\r\n\r\n", "request 1: bad Content-Length \"abc\""},
      {"POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", "request 1: bad Content-Length \"-1\""},
      {"POST / HTTP/1.1\r\nContent-Length: 1, 1\r\n\r\nx",
       "request 1: bad Content-Length \"1, 1\""},
      {"POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n",
       "request 1: bad Content-Length \"99999999999999999999\""},
      {"POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
       "request 1: conflicting Content-Length fields"},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n",
       "request 1: both Transfer-Encoding and Content-Length"},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
       "request 1: Transfer-Encoding without chunked as the last coding"},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n\r\n",
       "request 1: bad chunked body: bad chunk size"},
      {ok + "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
       "request 2: truncated chunked body (52 bytes after the last complete request)"},
      {"POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabcd",
       "request 1: truncated body: Content-Length 10 but 4 bytes follow the head"},
      {ok + "GET /b HTTP/1.1\r\n",
       "request 2: incomplete request: 17 bytes after the last complete one"},
      {"GET / HTTP/1.1", "request 1: incomplete request: 14 bytes after the last complete one"},
      {ok + "\r", "request 2: incomplete request: 1 bytes after the last complete one"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(parse_error(c.in), c.error) << quote(c.in);
  }
}

TEST(ParseRawRequests, ReusesTheTemplatesWithoutAllocating) {
  const std::string three =
      "GET /first HTTP/1.1\r\nHost: h\r\nX-Long-Header-Name: a value long enough to be on the "
      "heap\r\n\r\n"
      "POST /second/path/that/is/long HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
      "20\r\n0123456789abcdef0123456789abcdef\r\n0\r\n\r\n"
      "PUT /third HTTP/1.1\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbody";
  const std::string one = "DELETE /x HTTP/1.0\r\n\r\n";
  std::vector<RequestTemplate> out;
  ASSERT_TRUE(parse_raw_requests(three, "http", &out).ok());
  const std::vector<RequestTemplate> want = out;
  ASSERT_EQ(want.size(), 3u);
  // Fewer requests, then the same three again: nothing of the others is left behind.
  ASSERT_TRUE(parse_raw_requests(one, "http", &out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].h2_fields, Fields{});
  EXPECT_EQ(out[0].body, "");
  EXPECT_TRUE(out[0].close_after);
  ASSERT_TRUE(parse_raw_requests(three, "http", &out).ok());
  ASSERT_TRUE(parse_raw_requests(three, "http", &out).ok());
  test::count_allocations(true);
  const uint64_t before = test::allocations();
  for (int i = 0; i < 100; ++i) {
    if (!parse_raw_requests(three, "http", &out).ok()) break;
  }
  const uint64_t allocations = test::allocations() - before;
  test::count_allocations(false);
  EXPECT_EQ(allocations, 0u);
  ASSERT_EQ(out.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(out[i].http1, want[i].http1);
    EXPECT_EQ(out[i].h2_fields, want[i].h2_fields);
    EXPECT_EQ(out[i].body, want[i].body);
    EXPECT_EQ(out[i].close_after, want[i].close_after);
  }
  EXPECT_EQ(out[1].body, "0123456789abcdef0123456789abcdef");
}

// Random valid specs (what validate_request accepts, minus user framing fields, which would make
// the body mean something else).
RequestSpec random_spec(std::mt19937& rng) {
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  auto word = [&](size_t max_len, const char* alphabet) {
    std::string s;
    const size_t len = 1 + pick(max_len);
    const size_t n = std::char_traits<char>::length(alphabet);
    for (size_t i = 0; i < len; ++i) s += alphabet[pick(n)];
    return s;
  };
  static const char* const kMethods[] = {"GET",    "POST", "PUT",     "PATCH",
                                         "DELETE", "HEAD", "OPTIONS", "PURGE"};
  static const char* const kNames[] = {
      "Host",    "User-Agent",   "Accept", "Connection",      "TE", "Keep-Alive", "Upgrade",
      "X-Trace", "Content-Type", "Cookie", "proxy-connection"};
  static const char* const kValues[] = {"close",  "keep-alive",        "trailers",      "gzip",
                                        "a b\tc", "\xc3\xa9t\xc3\xa9", "Upgrade, close"};
  RequestSpec spec;
  spec.method = kMethods[pick(std::size(kMethods))];
  spec.path = "/" + word(20, "abcxyz019/?&=%-._~!$'()*+,;:@");
  spec.authority = pick(8) == 0 ? "" : word(12, "abc.123:");
  const size_t fields = pick(6);
  for (size_t i = 0; i < fields; ++i) {
    std::string name =
        pick(3) == 0 ? word(10, "abcXYZ-_!#$%&'*+.^`|~019") : kNames[pick(std::size(kNames))];
    std::string value = pick(2) == 0 ? kValues[pick(std::size(kValues))] : word(15, "ab c,=;/");
    while (!value.empty() && (value.back() == ' ')) value.pop_back();
    while (!value.empty() && (value.front() == ' ')) value.erase(0, 1);
    spec.headers.emplace_back(std::move(name), std::move(value));
  }
  if (pick(2) == 0) {
    const size_t len = pick(40);
    for (size_t i = 0; i < len; ++i) spec.body += static_cast<char>(rng() & 0xff);
    if (pick(4) == 0) spec.body += "\r\n\r\nGET / HTTP/1.1\r\n\r\n";  // looks like a request
  }
  spec.http_minor = static_cast<int>(pick(2));
  spec.keep_alive = pick(2) == 0;
  return spec;
}

void expect_same(const RequestTemplate& got, const RequestTemplate& want, const std::string& why) {
  EXPECT_EQ(got.http1, want.http1) << why;
  EXPECT_EQ(got.method, want.method) << why;
  EXPECT_EQ(got.scheme, want.scheme) << why;
  EXPECT_EQ(got.authority, want.authority) << why;
  EXPECT_EQ(got.path, want.path) << why;
  EXPECT_EQ(got.h2_fields, want.h2_fields) << why;
  EXPECT_EQ(got.body, want.body) << why;
  EXPECT_EQ(got.head, want.head) << why;
  EXPECT_EQ(got.close_after, want.close_after) << why;
}

TEST(ParseRawRequests, ARenderedRequestGivesTheTemplateMakeRequestTemplateBuilds) {
  std::mt19937 rng(20261130);
  std::vector<RequestTemplate> out;
  for (int round = 0; round < 3000; ++round) {
    const size_t n = 1 + rng() % 4;  // pipelined: several rendered requests in a row
    std::vector<RequestSpec> specs;
    std::string bytes;
    for (size_t i = 0; i < n; ++i) {
      specs.push_back(random_spec(rng));
      ASSERT_TRUE(validate_request(specs.back()).ok()) << render_request(specs.back());
      bytes += render_request(specs.back());
    }
    const std::string scheme = round % 2 == 0 ? "http" : "https";
    const Status s = parse_raw_requests(bytes, scheme, &out);
    ASSERT_TRUE(s.ok()) << s.error().message << "\n" << quote(bytes);
    ASSERT_EQ(out.size(), n) << quote(bytes);
    for (size_t i = 0; i < n; ++i) {
      expect_same(out[i], make_request_template(specs[i], scheme), quote(out[i].http1));
    }
    if (HasFailure()) break;
  }
}

}  // namespace
}  // namespace hail
