// Http1ClientSession's keep-alive decisions: a request that says "Connection: close" is the last
// on its connection, decided once when the request template is built, and the HTTP/2 view of a
// template drops the connection-specific fields.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "http/http1_client_session.h"
#include "http/request.h"
#include "unit/http/http1_session_harness.h"

namespace hail {
namespace {

using namespace http1_test;  // NOLINT: the shared test helpers

RequestTemplate template_of(int http_minor, bool keep_alive,
                            std::vector<std::pair<std::string, std::string>> headers = {},
                            std::string body = "") {
  RequestSpec spec;
  spec.authority = "h";
  spec.http_minor = http_minor;
  spec.keep_alive = keep_alive;
  spec.headers = std::move(headers);
  spec.body = std::move(body);
  if (!spec.body.empty()) spec.method = "POST";
  return make_request_template(spec, "http");
}

TEST(RequestAsksToClose, FromTheRenderedRequest) {
  EXPECT_FALSE(request_asks_to_close(template_of(1, true).http1));
  EXPECT_TRUE(request_asks_to_close(template_of(1, false).http1));  // --no-keepalive
  EXPECT_FALSE(request_asks_to_close(template_of(0, true).http1));  // --http1.0: keep-alive
  EXPECT_TRUE(request_asks_to_close(template_of(0, false).http1));  // HTTP/1.0 default
  EXPECT_TRUE(
      request_asks_to_close(template_of(1, true, {{"Connection", "Keep-Alive, CLOSE"}}).http1));
  EXPECT_TRUE(request_asks_to_close(template_of(1, true, {{"connection", "\tclose "}}).http1));
  EXPECT_FALSE(request_asks_to_close(template_of(1, true, {{"Connection", "Upgrade"}}).http1));
  EXPECT_FALSE(request_asks_to_close(template_of(1, true, {{"X-Connection", "close"}}).http1));
  EXPECT_FALSE(request_asks_to_close(template_of(0, true, {{"Connection", "keep-alive"}}).http1));
  // Only the head counts: the same words in the body mean nothing.
  EXPECT_FALSE(request_asks_to_close(template_of(1, true, {}, "\r\nConnection: close\r\n").http1));
  EXPECT_FALSE(request_asks_to_close(""));
}

TEST(Http1ClientSession, ARequestThatSaysCloseIsTheLastOnItsConnection) {
  // --no-keepalive against a server that ignores "Connection: close" and answers keep-alive:
  // the connection must still carry no other request (RFC 9112 §9.6).
  for (int minor : {1, 0}) {
    const RequestTemplate t = template_of(minor, false);
    Http1ClientSession s;
    s.reset();
    EXPECT_EQ(s.capacity(), 1u);
    s.submit(0, t);
    EXPECT_EQ(s.capacity(), 0u) << minor;
    drain(s);
    Recorder r;
    EXPECT_EQ(s.feed(kOk.data(), kOk.size(), r), SessionStatus::kOk);
    EXPECT_EQ(r.events.back(), (Event{'c', 0, 200}));
    EXPECT_FALSE(s.reusable()) << minor;
    // A new connection takes one request again.
    s.reset();
    EXPECT_TRUE(s.reusable());
    EXPECT_EQ(s.capacity(), 1u);
    s.submit(1, t);
    EXPECT_FALSE(s.reusable());
  }
}

TEST(Http1ClientSession, KeepAliveRequestsStayReusableAfterAClosingTemplate) {
  // The close decision follows the template: another one (at another address) is looked at anew.
  const RequestTemplate closing = template_of(1, false);
  const RequestTemplate keeping = template_of(1, true);
  Http1ClientSession s;
  s.reset();
  s.submit(0, closing);
  EXPECT_FALSE(s.reusable());
  s.reset();
  s.submit(0, keeping);
  EXPECT_TRUE(s.reusable());
  drain(s);
  Recorder r;
  s.feed(kOk.data(), kOk.size(), r);
  EXPECT_TRUE(s.reusable());
  EXPECT_EQ(s.capacity(), 1u);
}

TEST(RequestTemplate, Http2ViewDropsConnectionFieldsAndLowersNames) {
  RequestSpec spec;
  spec.method = "POST";
  spec.path = "/api?q=1";
  spec.authority = "example.com:8443";
  spec.body = "{}";
  spec.headers = {{"Content-Type", "application/json"},
                  {"Connection", "keep-alive"},
                  {"Keep-Alive", "timeout=5"},
                  {"Transfer-Encoding", "chunked"},
                  {"Upgrade", "h2c"},
                  {"TE", "gzip"},
                  {"X-Trace", "1"}};
  const RequestTemplate t = make_request_template(spec, "https");
  EXPECT_EQ(t.scheme, "https");
  EXPECT_EQ(t.authority, "example.com:8443");
  EXPECT_EQ(t.path, "/api?q=1");
  EXPECT_EQ(t.body, "{}");
  using Fields = std::vector<std::pair<std::string, std::string>>;
  // In the order of the rendered request: the defaults first.
  EXPECT_EQ(t.h2_fields, (Fields{{"user-agent", "hail/" HAIL_TEST_VERSION},
                                 {"accept", "*/*"},
                                 {"content-type", "application/json"},
                                 {"x-trace", "1"},
                                 {"content-length", "2"}}));
  EXPECT_NE(t.http1.find("Content-Type: application/json\r\n"), std::string::npos);
}

TEST(RequestTemplate, HostHeaderBecomesTheAuthorityAndTeTrailersStays) {
  RequestSpec spec;
  spec.method = "HEAD";
  spec.authority = "127.0.0.1:80";
  spec.headers = {{"Host", "virtual.test"}, {"te", "trailers"}, {"Accept", "text/html"}};
  const RequestTemplate t = make_request_template(spec, "http");
  EXPECT_EQ(t.authority, "virtual.test");
  EXPECT_TRUE(t.head);
  using Fields = std::vector<std::pair<std::string, std::string>>;
  // The user's Accept takes the default's place, as in the rendered request.
  EXPECT_EQ(t.h2_fields, (Fields{{"user-agent", "hail/" HAIL_TEST_VERSION},
                                 {"accept", "text/html"},
                                 {"te", "trailers"}}));
}

TEST(RequestTemplate, CloseAfterIsDecidedWhenTheTemplateIsBuilt) {
  EXPECT_FALSE(template_of(1, true).close_after);
  EXPECT_TRUE(template_of(1, false).close_after);
  EXPECT_FALSE(template_of(0, true).close_after);
  EXPECT_TRUE(template_of(0, false).close_after);
  EXPECT_TRUE(template_of(1, true, {{"Connection", "close"}}).close_after);
  RequestSpec spec;
  spec.keep_alive = false;
  EXPECT_FALSE(make_request_template(spec, "http", true).close_after);  // "GET /\r\n"
}

TEST(Http1ClientSession, TheCloseDecisionIsTheTemplatesFlag) {
  // The session reads close_after and no longer scans the bytes: a flag set on keep-alive bytes
  // still ends reuse, and a cleared one on closing bytes does not.
  RequestTemplate flagged = template_of(1, true);
  flagged.close_after = true;
  RequestTemplate unflagged = template_of(1, false);
  unflagged.close_after = false;
  Http1ClientSession s(2);
  s.reset();
  s.submit(0, unflagged);
  EXPECT_TRUE(s.reusable());
  EXPECT_EQ(s.capacity(), 1u);
  s.submit(1, flagged);
  EXPECT_FALSE(s.reusable());
  EXPECT_EQ(s.capacity(), 0u);
}

TEST(RequestAsksToClose, BareLineFeedsAndLeadingEmptyLines) {
  EXPECT_TRUE(request_asks_to_close("GET / HTTP/1.1\nConnection: close\n\n"));
  EXPECT_TRUE(request_asks_to_close("\r\n\nGET / HTTP/1.1\r\nConnection: close\r\n\r\n"));
  EXPECT_TRUE(request_asks_to_close("\r\nGET / HTTP/1.0\r\n\r\n"));
  EXPECT_FALSE(request_asks_to_close("\nGET / HTTP/1.0\nConnection: keep-alive\n\n"));
  EXPECT_FALSE(request_asks_to_close("GET / HTTP/1.1\n\nConnection: close\n"));  // body
  EXPECT_FALSE(request_asks_to_close("\r\n\r\n"));
}

}  // namespace
}  // namespace hail
