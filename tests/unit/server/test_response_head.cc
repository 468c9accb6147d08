#include <gtest/gtest.h>

#include "core/clock.h"
#include "server/response_head.h"

namespace hail {
namespace {

std::string render(const HeadFields& fields) {
  std::string out = "prefix|";
  append_head(&out, fields);
  return out;
}

TEST(ResponseHead, Table) {
  struct Case {
    HeadFields fields;
    std::string_view expected;
  };
  HeadFields ok;
  ok.content_type = "text/plain";
  ok.content_length = 3;
  HeadFields close = ok;
  close.keep_alive = false;
  HeadFields http10_keep = ok;
  http10_keep.http10 = true;
  HeadFields http10_close = http10_keep;
  http10_close.keep_alive = false;
  HeadFields no_content;
  no_content.status = 204;
  HeadFields not_modified;
  not_modified.status = 304;
  not_modified.content_length = 10;
  HeadFields dated;
  dated.status = 404;
  dated.date_line = "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n";
  dated.extra_lines = "Allow: GET\r\n";
  HeadFields unknown;
  unknown.status = 299;
  unknown.content_length = 1099511627776;

  const Case cases[] = {
      {ok,
       "prefix|HTTP/1.1 200 OK\r\nServer: hail\r\nContent-Type: text/plain\r\nContent-Length: "
       "3\r\n\r\n"},
      {close,
       "prefix|HTTP/1.1 200 OK\r\nServer: hail\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n"
       "Connection: close\r\n\r\n"},
      {http10_keep,
       "prefix|HTTP/1.1 200 OK\r\nServer: hail\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n"
       "Connection: keep-alive\r\n\r\n"},
      {http10_close,
       "prefix|HTTP/1.1 200 OK\r\nServer: hail\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n"
       "Connection: close\r\n\r\n"},
      {no_content, "prefix|HTTP/1.1 204 No Content\r\nServer: hail\r\n\r\n"},
      {not_modified, "prefix|HTTP/1.1 304 Not Modified\r\nServer: hail\r\n\r\n"},
      {dated,
       "prefix|HTTP/1.1 404 Not Found\r\nServer: hail\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
       "Content-Length: 0\r\nAllow: GET\r\n\r\n"},
      {unknown,
       "prefix|HTTP/1.1 299 Unknown\r\nServer: hail\r\nContent-Length: 1099511627776\r\n\r\n"},
  };
  for (const Case& c : cases) EXPECT_EQ(render(c.fields), c.expected);
}

TEST(ResponseHead, ReasonPhrases) {
  EXPECT_EQ(reason_phrase(200), "OK");
  EXPECT_EQ(reason_phrase(413), "Content Too Large");
  EXPECT_EQ(reason_phrase(431), "Request Header Fields Too Large");
  EXPECT_EQ(reason_phrase(599), "Unknown");
  EXPECT_EQ(status_body(404), "404 Not Found\n");
  EXPECT_TRUE(status_has_no_body(204));
  EXPECT_TRUE(status_has_no_body(304));
  EXPECT_FALSE(status_has_no_body(200));
}

TEST(HttpDate, Format) {
  EXPECT_EQ(format_http_date(784111777), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(format_http_date(0), "Thu, 01 Jan 1970 00:00:00 GMT");
  EXPECT_EQ(format_http_date(951782400), "Tue, 29 Feb 2000 00:00:00 GMT");
}

TEST(HttpDate, CacheRefreshesOncePerSecond) {
  HttpDateCache cache;
  const uint64_t now = mono_now_ns();
  const std::string& line = cache.line(now);
  ASSERT_EQ(line.size(), std::string("Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n").size());
  EXPECT_TRUE(line.starts_with("Date: "));
  EXPECT_TRUE(line.ends_with(" GMT\r\n"));
  const std::string first = line;
  // Same monotonic instant: no re-render, same storage.
  EXPECT_EQ(&cache.line(now), &line);
  EXPECT_EQ(cache.line(now), first);
}

}  // namespace
}  // namespace hail
