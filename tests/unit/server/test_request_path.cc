#include <gtest/gtest.h>

#include "server/request_path.h"

namespace hail {
namespace {

TEST(PercentDecode, Table) {
  struct Case {
    std::string_view in;
    bool ok;
    std::string_view out;
  };
  const Case cases[] = {
      {"/", true, "/"},         {"/a/b.html", true, "/a/b.html"},
      {"/a%20b", true, "/a b"}, {"/%2e%2E/x", true, "/../x"},
      {"/a%2Fb", true, "/a/b"}, {"/a+b", true, "/a+b"},
      {"/%41%7a", true, "/Az"}, {"/%ff", true, "/\xff"},
      {"/%00", false, ""},      {"/a%0", false, ""},
      {"/a%", false, ""},       {"/%g1", false, ""},
      {"/%1g", false, ""},      {"/%%41", false, ""},
      {"", true, ""},
  };
  for (const Case& c : cases) {
    std::string out;
    EXPECT_EQ(percent_decode_path(c.in, &out), c.ok) << c.in;
    if (c.ok) {
      EXPECT_EQ(out, c.out) << c.in;
    }
  }
}

TEST(DotDotSegment, Table) {
  struct Case {
    std::string_view path;
    bool dot_dot;
  };
  const Case cases[] = {
      {"/", false},    {"/..", true},     {"/../etc/passwd", true}, {"/a/../b", true},
      {"/a/..", true}, {"..", true},      {"/a/...", false},        {"/..a", false},
      {"/a..", false}, {"/a/./b", false}, {"//..//", true},         {"/a/b/c", false},
      {"", false},     {"/.../..", true},
  };
  for (const Case& c : cases) EXPECT_EQ(has_dot_dot_segment(c.path), c.dot_dot) << c.path;
}

TEST(RouteRequest, Endpoints) {
  struct Case {
    ServeMethod method;
    std::string_view target;
    Endpoint endpoint;
    uint64_t number;
    int error_status;
  };
  using M = ServeMethod;
  using E = Endpoint;
  const Case cases[] = {
      {M::kGet, "/bytes/0", E::kBytes, 0, 0},
      {M::kGet, "/bytes/1024", E::kBytes, 1024, 0},
      {M::kGet, "/bytes/1024?x=1", E::kBytes, 1024, 0},
      {M::kGet, "/bytes/1099511627776", E::kBytes, uint64_t{1} << 40, 0},
      {M::kGet, "/bytes/1099511627777", E::kError, 0, 400},
      {M::kGet, "/bytes/99999999999999999999999", E::kError, 0, 400},
      {M::kGet, "/bytes/", E::kError, 0, 400},
      {M::kGet, "/bytes/12a", E::kError, 0, 400},
      {M::kGet, "/bytes/-1", E::kError, 0, 400},
      {M::kGet, "/bytes/+1", E::kError, 0, 400},
      {M::kGet, "/bytes/1/", E::kError, 0, 400},
      {M::kGet, "/byt%65s/7", E::kBytes, 7, 0},
      {M::kHead, "/bytes/5", E::kBytes, 5, 0},
      {M::kPost, "/bytes/5", E::kBytes, 5, 0},
      {M::kPut, "/bytes/5", E::kBytes, 5, 0},
      {M::kOther, "/bytes/5", E::kError, 0, 405},
      {M::kGet, "/delay/0", E::kDelay, 0, 0},
      {M::kGet, "/delay/250", E::kDelay, 250, 0},
      {M::kGet, "/delay/3600000", E::kDelay, 3600000, 0},
      {M::kGet, "/delay/3600001", E::kError, 0, 400},
      {M::kGet, "/status/200", E::kStatus, 200, 0},
      {M::kGet, "/status/204", E::kStatus, 204, 0},
      {M::kGet, "/status/599", E::kStatus, 599, 0},
      {M::kGet, "/status/600", E::kError, 0, 400},
      {M::kGet, "/status/199", E::kError, 0, 400},
      {M::kGet, "/status/100", E::kError, 0, 400},
      {M::kGet, "/status/abc", E::kError, 0, 400},
      {M::kOther, "/echo", E::kEcho, 0, 0},
      {M::kPost, "/echo", E::kEcho, 0, 0},
      {M::kGet, "/echo?q", E::kEcho, 0, 0},
      {M::kGet, "/stats", E::kStats, 0, 0},
      {M::kHead, "/stats", E::kStats, 0, 0},
      {M::kPost, "/stats", E::kError, 0, 405},
      {M::kGet, "/", E::kStatic, 0, 0},
      {M::kGet, "/index.html", E::kStatic, 0, 0},
      {M::kGet, "/echo/x", E::kStatic, 0, 0},
      {M::kPost, "/a.txt", E::kStatic, 0, 0},
      {M::kOther, "/a.txt", E::kError, 0, 405},
      {M::kGet, "/../etc/passwd", E::kError, 0, 400},
      {M::kGet, "/%2e%2e/", E::kError, 0, 400},
      {M::kGet, "/a/%2E%2E/%2e%2e/x", E::kError, 0, 400},
      {M::kOther, "/%2e%2e/", E::kError, 0, 400},
      {M::kGet, "/a%00b", E::kError, 0, 400},
      {M::kGet, "/a%zz", E::kError, 0, 400},
      {M::kGet, "*", E::kError, 0, 400},
      {M::kGet, "http://h/x", E::kError, 0, 400},
      {M::kGet, "", E::kError, 0, 400},
  };
  for (const Case& c : cases) {
    std::string decoded;
    const Route route = route_request(c.method, c.target, &decoded);
    EXPECT_EQ(route.endpoint, c.endpoint) << c.target;
    if (c.endpoint == Endpoint::kError) {
      EXPECT_EQ(route.error_status, c.error_status) << c.target;
    } else if (c.endpoint != Endpoint::kStatic) {
      EXPECT_EQ(route.number, c.number) << c.target;
    }
  }
}

TEST(RouteRequest, StaticPathIsDecodedWithoutQuery) {
  std::string decoded;
  const Route route = route_request(ServeMethod::kGet, "/dir/a%20file.html?v=2#frag", &decoded);
  EXPECT_EQ(route.endpoint, Endpoint::kStatic);
  EXPECT_EQ(decoded, "/dir/a file.html");
}

TEST(RouteRequest, MethodNotAllowedNamesAllowedMethods) {
  std::string decoded;
  EXPECT_EQ(route_request(ServeMethod::kOther, "/x", &decoded).allow, "GET, HEAD, POST, PUT");
  EXPECT_EQ(route_request(ServeMethod::kPut, "/stats", &decoded).allow, "GET, HEAD");
}

TEST(ContentType, Table) {
  struct Case {
    std::string_view path;
    std::string_view type;
  };
  const Case cases[] = {
      {"/index.html", "text/html; charset=utf-8"},
      {"/A.HTML", "text/html; charset=utf-8"},
      {"/x/style.css", "text/css; charset=utf-8"},
      {"/app.js", "text/javascript; charset=utf-8"},
      {"/data.json", "application/json"},
      {"/img.png", "image/png"},
      {"/img.JPeG", "image/jpeg"},
      {"/f.woff2", "font/woff2"},
      {"/noext", "application/octet-stream"},
      {"/dir.d/noext", "application/octet-stream"},
      {"/trailingdot.", "application/octet-stream"},
      {"/a.unknown", "application/octet-stream"},
      {"/.txt", "text/plain; charset=utf-8"},
  };
  for (const Case& c : cases) EXPECT_EQ(content_type_for_path(c.path), c.type) << c.path;
}

}  // namespace
}  // namespace hail
