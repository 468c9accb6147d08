// Request rendering and -H parsing: exact bytes for a table of specs, and every rejected header
// form.
#include <gtest/gtest.h>
#include <llhttp.h>

#include <string>

#include "http/request.h"

namespace hail {
namespace {

#ifndef HAIL_TEST_VERSION
#define HAIL_TEST_VERSION "0.1.0"
#endif

const std::string kUa = "User-Agent: hail/" HAIL_TEST_VERSION "\r\n";

RequestSpec spec(std::string authority = "example.com") {
  RequestSpec s;
  s.authority = std::move(authority);
  return s;
}

TEST(RenderRequest, DefaultGet) {
  EXPECT_EQ(render_request(spec()),
            "GET / HTTP/1.1\r\nHost: example.com\r\n" + kUa + "Accept: */*\r\n\r\n");
}

TEST(RenderRequest, Table) {
  struct Case {
    const char* name;
    RequestSpec spec;
    std::string want;
  };
  std::vector<Case> cases;
  {
    RequestSpec s = spec("h:8080");
    s.path = "/a/b?c=d&e";
    s.http_minor = 1;
    s.keep_alive = false;
    cases.push_back({"close", s,
                     "GET /a/b?c=d&e HTTP/1.1\r\nHost: h:8080\r\n" + kUa +
                         "Accept: */*\r\nConnection: close\r\n\r\n"});
  }
  {
    RequestSpec s = spec();
    s.http_minor = 0;
    cases.push_back({"http10 keep-alive", s,
                     "GET / HTTP/1.0\r\nHost: example.com\r\n" + kUa +
                         "Accept: */*\r\nConnection: keep-alive\r\n\r\n"});
    s.keep_alive = false;
    cases.push_back({"http10 close", s,
                     "GET / HTTP/1.0\r\nHost: example.com\r\n" + kUa + "Accept: */*\r\n\r\n"});
  }
  {
    RequestSpec s = spec();
    s.method = "POST";
    s.body = "a=1&b=2";
    s.headers = {{"Content-Type", "application/x-www-form-urlencoded"}};
    cases.push_back({"post body", s,
                     "POST / HTTP/1.1\r\nHost: example.com\r\n" + kUa +
                         "Accept: */*\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                         "Content-Length: 7\r\n\r\na=1&b=2"});
  }
  {
    RequestSpec s = spec();
    s.method = "POST";
    cases.push_back({"post empty body", s,
                     "POST / HTTP/1.1\r\nHost: example.com\r\n" + kUa +
                         "Accept: */*\r\nContent-Length: 0\r\n\r\n"});
    s.method = "DELETE";
    cases.push_back({"delete empty body", s,
                     "DELETE / HTTP/1.1\r\nHost: example.com\r\n" + kUa + "Accept: */*\r\n\r\n"});
    s.method = "get";  // sent verbatim: methods are case-sensitive
    cases.push_back({"lowercase method", s,
                     "get / HTTP/1.1\r\nHost: example.com\r\n" + kUa + "Accept: */*\r\n\r\n"});
  }
  {
    RequestSpec s = spec();
    s.headers = {{"X-First", "1"},
                 {"host", "override:1"},
                 {"X-Second", "2"},
                 {"USER-AGENT", "curl/8"},
                 {"accept", "text/html"}};
    cases.push_back({"overrides in place, order kept", s,
                     "GET / HTTP/1.1\r\nhost: override:1\r\nUSER-AGENT: curl/8\r\n"
                     "accept: text/html\r\nX-First: 1\r\nX-Second: 2\r\n\r\n"});
  }
  {
    RequestSpec s = spec();
    s.headers = {{"Accept", "a"}, {"X", "y"}, {"Accept", "b"}};
    cases.push_back({"repeated override", s,
                     "GET / HTTP/1.1\r\nHost: example.com\r\n" + kUa +
                         "Accept: a\r\nAccept: b\r\nX: y\r\n\r\n"});
  }
  {
    RequestSpec s = spec();
    s.method = "PUT";
    s.body = "xyz";
    s.headers = {{"content-length", "3"}};
    cases.push_back({"user content-length", s,
                     "PUT / HTTP/1.1\r\nHost: example.com\r\n" + kUa +
                         "Accept: */*\r\ncontent-length: 3\r\n\r\nxyz"});
    s.headers = {{"Transfer-Encoding", "chunked"}};
    s.body = "3\r\nxyz\r\n0\r\n\r\n";
    cases.push_back({"user transfer-encoding", s,
                     "PUT / HTTP/1.1\r\nHost: example.com\r\n" + kUa +
                         "Accept: */*\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nxyz\r\n0\r\n\r\n"});
  }
  {
    RequestSpec s = spec();
    s.keep_alive = false;
    s.headers = {{"connection", "Upgrade"}};
    cases.push_back({"user connection", s,
                     "GET / HTTP/1.1\r\nHost: example.com\r\n" + kUa +
                         "Accept: */*\r\nconnection: Upgrade\r\n\r\n"});
  }
  {
    RequestSpec s = spec("");
    s.method = "OPTIONS";
    s.path = "*";
    cases.push_back({"asterisk form, empty host", s,
                     "OPTIONS * HTTP/1.1\r\nHost: \r\n" + kUa + "Accept: */*\r\n\r\n"});
  }
  for (const Case& c : cases) {
    EXPECT_TRUE(validate_request(c.spec).ok()) << c.name;
    EXPECT_EQ(render_request(c.spec), c.want) << c.name;
  }
}

TEST(RenderRequest, ParsesAsOneRequestWithItsBody) {
  // The rendered head must be well-formed HTTP: let llhttp (in request mode) read it back.
  RequestSpec s = spec();
  s.method = "POST";
  s.body = std::string(1000, 'x');
  s.headers = {{"X-Test", "v a l"}};
  std::string req = render_request(s);
  llhttp_settings_t settings;
  llhttp_settings_init(&settings);
  llhttp_t p;
  llhttp_init(&p, HTTP_REQUEST, &settings);
  EXPECT_EQ(llhttp_execute(&p, req.data(), req.size()), HPE_OK);
  EXPECT_EQ(p.method, HTTP_POST);
  EXPECT_EQ(llhttp_message_needs_eof(&p), 0);
  EXPECT_EQ(p.finish, HTTP_FINISH_SAFE);  // message complete, nothing pending
}

TEST(ParseHeaderArg, Valid) {
  struct {
    const char* arg;
    const char* name;
    const char* value;
  } cases[] = {
      {"X-Foo: bar", "X-Foo", "bar"},
      {"X-Foo:bar", "X-Foo", "bar"},
      {"X-Foo:   spaced out \t", "X-Foo", "spaced out"},
      {"X-Empty:", "X-Empty", ""},
      {"X-Empty:   ", "X-Empty", ""},
      {"Authorization: Bearer a:b:c", "Authorization", "Bearer a:b:c"},
      {"x!#$%&'*+-.^_`|~09: v", "x!#$%&'*+-.^_`|~09", "v"},
      {"X-Tab: a\tb", "X-Tab", "a\tb"},
      {"X-Utf8: caf\xc3\xa9", "X-Utf8", "caf\xc3\xa9"},
  };
  for (const auto& c : cases) {
    auto r = parse_header_arg(c.arg);
    ASSERT_TRUE(r.ok()) << c.arg << ": " << r.error().message;
    EXPECT_EQ(r->first, c.name) << c.arg;
    EXPECT_EQ(r->second, c.value) << c.arg;
  }
}

TEST(ParseHeaderArg, Errors) {
  struct {
    std::string arg;
    const char* message_part;
  } cases[] = {
      {"NoColon", "no ':'"},
      {"", "no ':'"},
      {": value", "empty name"},
      {"Bad Name: v", "not allowed"},
      {" Lead: v", "not allowed"},
      {"Trail : v", "not allowed"},
      {"X(y): v", "not allowed"},
      {"X\"y: v", "not allowed"},
      {"X-A: a\r\nX-Injected: 1", "control"},
      {"X-A: a\nb", "control"},
      {"X-A: a\rb", "control"},
      {std::string("X-A: a\0b", 8), "control"},
      {"X-A: a\x7f", "control"},
      {"X\r\nY: v", "not allowed"},
  };
  for (const auto& c : cases) {
    auto r = parse_header_arg(c.arg);
    ASSERT_FALSE(r.ok()) << testing::PrintToString(c.arg);
    EXPECT_NE(r.error().message.find(c.message_part), std::string::npos)
        << testing::PrintToString(c.arg) << " -> " << r.error().message;
  }
}

TEST(ValidateMethod, TokensOnly) {
  for (const char* ok : {"GET", "HEAD", "POST", "M-SEARCH", "PROPFIND", "get", "X_CUSTOM.1"}) {
    EXPECT_TRUE(validate_method(ok).ok()) << ok;
  }
  for (const char* bad : {"", "GE T", "GET\r\n", "G(ET", "GET/", "GÉT", "GET:"}) {
    Status s = validate_method(bad);
    EXPECT_FALSE(s.ok()) << bad;
  }
}

TEST(ValidateRequest, Rejects) {
  RequestSpec s = spec();
  EXPECT_TRUE(validate_request(s).ok());
  s.path = "/a b";
  EXPECT_FALSE(validate_request(s).ok());
  s.path = "";
  EXPECT_FALSE(validate_request(s).ok());
  s.path = "/x\r\n";
  EXPECT_FALSE(validate_request(s).ok());
  s = spec("bad host");
  EXPECT_FALSE(validate_request(s).ok());
  s = spec("h\r\nX: y");
  EXPECT_FALSE(validate_request(s).ok());
  s = spec();
  s.http_minor = 2;
  EXPECT_FALSE(validate_request(s).ok());
  s = spec();
  s.method = "BAD METHOD";
  EXPECT_FALSE(validate_request(s).ok());
  s = spec();
  s.headers = {{"X", "a\nb"}};
  EXPECT_FALSE(validate_request(s).ok());
  s.headers = {{"X Y", "v"}};
  EXPECT_FALSE(validate_request(s).ok());
}

}  // namespace
}  // namespace hail

namespace hail {
namespace {

TEST(RequestTemplate, KnowsWhetherItAsksToUpgradeAndWhetherItMayBeRepeated) {
  EXPECT_TRUE(request_asks_to_upgrade("GET / HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\n\r\n"));
  EXPECT_TRUE(request_asks_to_upgrade("\r\nGET / HTTP/1.1\nupgrade: h2c\n\n"));
  EXPECT_FALSE(request_asks_to_upgrade("GET / HTTP/1.1\r\nHost: h\r\n\r\nUpgrade: in the body"));
  EXPECT_FALSE(request_asks_to_upgrade("GET / HTTP/1.1\r\nX-Upgrade: no\r\n\r\n"));
  for (const char* m : {"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"}) {
    EXPECT_TRUE(is_idempotent_method(m)) << m;
  }
  for (const char* m : {"POST", "PATCH", "CONNECT", "get", "PROPFIND"}) {
    EXPECT_FALSE(is_idempotent_method(m)) << m;
  }
  RequestSpec spec;
  spec.method = "POST";
  spec.path = "/";
  spec.authority = "h";
  spec.headers = {{"Upgrade", "h2c"}};
  const RequestTemplate t = make_request_template(spec, "http");
  EXPECT_TRUE(t.asks_upgrade);
  EXPECT_FALSE(t.idempotent);
  spec.method = "GET";
  spec.headers.clear();
  const RequestTemplate g = make_request_template(spec, "http");
  EXPECT_FALSE(g.asks_upgrade);
  EXPECT_TRUE(g.idempotent);
}

}  // namespace
}  // namespace hail
