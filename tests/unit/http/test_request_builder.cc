#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "http/raw_request.h"
#include "http/request_builder.h"

namespace hail {
namespace {

RequestBuilder ab_post() {
  RequestBuilder b("POST", "/x?y=1", HttpVersion::k10);
  b.add_field("Connection", "Keep-Alive");
  b.add_field("Content-length", "6");
  b.add_field("Content-type", "text/plain");
  b.add_field("X-A", "1");
  b.add_field("Host", "127.0.0.1:8080");
  b.add_field("User-Agent", "ApacheBench/2.3");
  b.add_field("Accept", "*/*");
  b.set_body("hello\n");
  return b;
}

TEST(RequestBuilder, RendersFieldsInTheirOrderAndNothingElse) {
  const RequestBuilder b = ab_post();
  const std::string head =
      "POST /x?y=1 HTTP/1.0\r\nConnection: Keep-Alive\r\nContent-length: 6\r\n"
      "Content-type: text/plain\r\nX-A: 1\r\nHost: 127.0.0.1:8080\r\n"
      "User-Agent: ApacheBench/2.3\r\nAccept: */*\r\n\r\n";
  EXPECT_EQ(b.http1_head(), head);
  EXPECT_EQ(b.http1(), head + "hello\n");
  // No defaults: a bodyless POST has no Content-Length, a request without Host has none.
  RequestBuilder bare("POST", "/", HttpVersion::k11);
  EXPECT_EQ(bare.http1(), "POST / HTTP/1.1\r\n\r\n");
  EXPECT_EQ(RequestBuilder("GET", "/x", HttpVersion::k09).http1(), "GET /x\r\n");
}

TEST(RequestBuilder, SpecIsTheSameRequest) {
  const RequestSpec spec = ab_post().spec();
  EXPECT_EQ(spec.method, "POST");
  EXPECT_EQ(spec.path, "/x?y=1");
  EXPECT_EQ(spec.authority, "127.0.0.1:8080");
  EXPECT_EQ(spec.body, "hello\n");
  EXPECT_EQ(spec.http_minor, 0);
  EXPECT_TRUE(spec.keep_alive);  // HTTP/1.0 with Connection: Keep-Alive
  const std::vector<std::pair<std::string, std::string>> fields = {
      {"Connection", "Keep-Alive"},      {"Content-length", "6"},
      {"Content-type", "text/plain"},    {"X-A", "1"},
      {"User-Agent", "ApacheBench/2.3"}, {"Accept", "*/*"}};
  EXPECT_EQ(spec.headers, fields);
  EXPECT_TRUE(ab_post().validate().ok());

  RequestBuilder close("GET", "/", HttpVersion::k11);
  close.add_field("Host", "a");
  close.add_field("Host", "b");  // the last Host names the authority, as in HTTP/2
  close.add_field("Connection", "close");
  EXPECT_EQ(close.spec().authority, "b");
  EXPECT_FALSE(close.spec().keep_alive);
  EXPECT_EQ(close.spec().http_minor, 1);
  EXPECT_FALSE(RequestBuilder("GET", "/", HttpVersion::k10).spec().keep_alive);
  EXPECT_FALSE(RequestBuilder("GET", "/", HttpVersion::k09).spec().keep_alive);
}

TEST(RequestBuilder, AbsoluteTargetNamesTheAuthorityWithoutHost) {
  RequestBuilder proxy("GET", "http://example.com:8080/a?b", HttpVersion::k10);
  proxy.add_field("User-Agent", "WebBench 1.5");
  EXPECT_EQ(proxy.spec().authority, "example.com:8080");
  EXPECT_EQ(RequestBuilder("GET", "ftp://files.example/x", HttpVersion::k10).spec().authority,
            "files.example");
  EXPECT_EQ(RequestBuilder("GET", "/a://b", HttpVersion::k10).spec().authority, "");
}

TEST(RequestBuilder, ValidateRefusesWhatCannotBeSent) {
  EXPECT_FALSE(RequestBuilder("GE T", "/", HttpVersion::k10).validate().ok());
  EXPECT_FALSE(RequestBuilder("GET", "/a b", HttpVersion::k10).validate().ok());
  RequestBuilder bad_name("GET", "/", HttpVersion::k10);
  bad_name.add_field("Bad Name", "x");
  EXPECT_FALSE(bad_name.validate().ok());
  RequestBuilder bad_host("GET", "/", HttpVersion::k10);
  bad_host.add_field("Host", "a b");
  EXPECT_EQ(bad_host.validate().error().message, "invalid Host value 'a b'");
}

// The engine parses the bytes (parse_raw_requests); the builder's template must be that parse.
TEST(RequestBuilder, TemplateIsTheParseOfItsBytes) {
  RequestBuilder webbench("GET", "/x", HttpVersion::k11);
  webbench.add_field("User-Agent", "WebBench 1.5");
  webbench.add_field("Host", "127.0.0.1");
  webbench.add_field("Connection", "close");
  RequestBuilder head("HEAD", "http://h/x", HttpVersion::k10);
  head.add_field("Pragma", "no-cache");
  for (const RequestBuilder& b : {ab_post(), webbench, head}) {
    SCOPED_TRACE(b.http1());
    std::vector<RequestTemplate> parsed;
    ASSERT_TRUE(parse_raw_requests(b.http1(), "https", &parsed).ok());
    ASSERT_EQ(parsed.size(), 1u);
    const RequestTemplate t = b.request_template("https");
    EXPECT_EQ(t.http1, parsed[0].http1);
    EXPECT_EQ(t.method, parsed[0].method);
    EXPECT_EQ(t.scheme, parsed[0].scheme);
    EXPECT_EQ(t.authority, parsed[0].authority);
    EXPECT_EQ(t.path, parsed[0].path);
    EXPECT_EQ(t.h2_fields, parsed[0].h2_fields);
    EXPECT_EQ(t.body, parsed[0].body);
    EXPECT_EQ(t.head, parsed[0].head);
    EXPECT_EQ(t.close_after, parsed[0].close_after);
  }
  const RequestTemplate old =
      RequestBuilder("GET", "/x", HttpVersion::k09).request_template("http");
  EXPECT_EQ(old.http1, "GET /x\r\n");
}

}  // namespace
}  // namespace hail
