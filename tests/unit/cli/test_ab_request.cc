// ab's request as one set of parts: the bytes sent, what -v 2 prints and RunOptions::request.
// The expected bytes are what ab 2.3 (Debian's apache2-utils) sends and prints for the same
// command lines.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cli/ab_flags.h"
#include "cli/ab_request.h"
#include "report/ab_report.h"

namespace hail {
namespace {

AbCommand parse_ok(const std::vector<std::string>& args) {
  AbParse p = parse_ab_flags(args, "ab");
  EXPECT_EQ(p.outcome, AbParse::Outcome::kRun) << p.err;
  return p.command;
}

TEST(AbRequest, VerboseTwoPrintsTheBytesSent) {
  const std::string path = testing::TempDir() + "ab_request_body.txt";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fputs("abc", f);
  std::fclose(f);
  const AbCommand c = parse_ok({"-v", "2", "-n", "1", "-k", "-C", "a=b", "-A", "u:p", "-H",
                                "X-A: 1", "-p", path, "http://127.0.0.1:18431/index.html"});
  const std::string head =
      "POST /index.html HTTP/1.0\r\nConnection: Keep-Alive\r\nCookie: a=b\r\n"
      "Authorization: Basic dTpw\r\nContent-length: 3\r\nContent-type: text/plain\r\nX-A: 1\r\n"
      "Host: 127.0.0.1:18431\r\nUser-Agent: ApacheBench/2.3\r\nAccept: */*\r\n\r\n";
  EXPECT_EQ(c.request_head, head);
  EXPECT_EQ(c.run.raw_request, head + "abc");
  EXPECT_EQ(render_ab_request_info(c.run.request.method, c.request_head),
            "INFO: POST header == \n---\n" + head + "\n---\n");
  std::remove(path.c_str());
}

TEST(AbRequest, HostFromHeaderAndBodylessPost) {
  // -m POST sends no Content-length; -H Host takes the default Host's place (after the -H lines).
  const AbCommand c = parse_ok({"-m", "POST", "-H", "Host: foo", "http://127.0.0.1:8080/i"});
  EXPECT_EQ(c.request_head,
            "POST /i HTTP/1.0\r\nHost: foo\r\nUser-Agent: ApacheBench/2.3\r\nAccept: */*\r\n\r\n");
  EXPECT_EQ(c.run.raw_request, c.request_head);
  EXPECT_EQ(c.run.request.authority, "foo");
}

TEST(AbRequest, ProxyGetsTheWholeUrl) {
  const AbCommand c = parse_ok({"-X", "proxy.local:3128", "http://h:81/p"});
  EXPECT_EQ(c.request_head,
            "GET http://h:81/p HTTP/1.0\r\nHost: h:81\r\nUser-Agent: ApacheBench/2.3\r\n"
            "Accept: */*\r\n\r\n");
}

TEST(AbRequest, ParseAbUrl) {
  AbUrl url;
  ASSERT_TRUE(parse_ab_url("https://[::1]:8443/a?b#c", &url));
  EXPECT_TRUE(url.tls);
  EXPECT_EQ(url.hostname, "::1");
  EXPECT_EQ(url.host_field, "[::1]");
  EXPECT_EQ(url.port, 8443);
  EXPECT_EQ(url.path, "/a?b#c");
  AbUrl bare;
  ASSERT_TRUE(parse_ab_url("example.com/", &bare));
  EXPECT_EQ(bare.port, 80);
  for (const char* bad : {"http://h", "http://8080/", "http://h:0/", "http://[::1%lo]:1/"}) {
    AbUrl u;
    EXPECT_FALSE(parse_ab_url(bad, &u)) << bad;
  }
}

}  // namespace
}  // namespace hail
