#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cli/gnu_getopt.h"
#include "cli/webbench_flags.h"
#include "http/request.h"

namespace hail {
namespace {

constexpr uint64_t kSec = 1'000'000'000;
const std::string kUrl = "http://127.0.0.1:8080/x?y=1";

std::string joined(const std::vector<std::string>& args) {
  std::string line;
  for (const auto& a : args) line += a + " ";
  return line;
}

WebbenchCommand parse_ok(const std::vector<std::string>& args) {
  WebbenchParse p = parse_webbench_flags(args);
  EXPECT_TRUE(p.ok) << joined(args) << ": " << p.message;
  EXPECT_EQ(p.exit_status, 0);
  return p.command;
}

std::string bytes_of(const WebbenchCommand& c) {
  return make_request_template(c.run.request, c.run.url.scheme, c.run.http09).http1;
}

TEST(WebbenchFlags, DefaultsAreWebbenchs) {
  WebbenchCommand c = parse_ok({kUrl});
  EXPECT_EQ(c.url_text, kUrl);
  EXPECT_EQ(c.method, "GET");
  EXPECT_EQ(c.http_level, 1);
  EXPECT_EQ(c.clients, 1);
  EXPECT_EQ(c.seconds, 30);
  EXPECT_FALSE(c.force);
  EXPECT_FALSE(c.reload);
  EXPECT_FALSE(c.proxy);
  EXPECT_TRUE(c.connect_problem.empty());
  EXPECT_EQ(c.run.connections, 1u);
  EXPECT_EQ(c.run.threads, 0u);
  EXPECT_EQ(c.run.duration_ns, 30 * kSec);
  EXPECT_EQ(c.run.timeout_ns, 31 * kSec);  // no timeout of its own: past the end of the run
  EXPECT_EQ(c.run.requests, 0u);
  EXPECT_EQ(c.run.warmup_ns, 0u);
  EXPECT_EQ(c.run.protocol, HttpProtocol::kHttp1);
  EXPECT_FALSE(c.run.http09);
  EXPECT_EQ(c.run.url.scheme, "http");
  EXPECT_EQ(c.run.url.host, "127.0.0.1");
  EXPECT_EQ(c.run.url.port, 8080);
  // One request per connection, HTTP/1.0, webbench's User-Agent; Host without the port.
  EXPECT_FALSE(c.run.request.keep_alive);
  EXPECT_EQ(c.run.request.http_minor, 0);
  EXPECT_EQ(c.run.request.method, "GET");
  EXPECT_EQ(c.run.request.path, "/x?y=1");
  EXPECT_EQ(c.run.request.authority, "127.0.0.1");
  EXPECT_EQ(bytes_of(c),
            "GET /x?y=1 HTTP/1.0\r\nHost: 127.0.0.1\r\nUser-Agent: WebBench 1.5\r\n"
            "Accept: */*\r\n\r\n");
}

struct Case {
  std::vector<std::string> args;
  std::string method;
  int http_level;
  int64_t clients, seconds;
  bool force, reload;
  std::string bytes;  // the request hail sends
};

TEST(WebbenchFlags, Table) {
  const std::string kHead10 = "Host: 127.0.0.1\r\nUser-Agent: WebBench 1.5\r\nAccept: */*\r\n";
  const Case cases[] = {
      {{"-c", "10", "-t", "5", kUrl},
       "GET",
       1,
       10,
       5,
       false,
       false,
       "GET /x?y=1 HTTP/1.0\r\n" + kHead10 + "\r\n"},
      {{"--clients", "3", "--time=7", kUrl}, "GET", 1, 3, 7, false, false, ""},
      {{"--cl", "3", "--ti", "7", kUrl}, "GET", 1, 3, 7, false, false, ""},  // unique prefixes
      {{"-fc10", "-t2", kUrl}, "GET", 1, 10, 2, true, false, ""},            // a cluster
      {{kUrl, "-c", "4"}, "GET", 1, 4, 30, false, false, ""},                // options after
      // atoi: digits up to the first other character, 0 when none; then webbench's 0 rules.
      {{"-c", "10k", "-t", "5s", kUrl}, "GET", 1, 10, 5, false, false, ""},
      {{"-c", "0", "-t", "0", kUrl}, "GET", 1, 1, 60, false, false, ""},
      {{"-c", "abc", "-t", "x", kUrl}, "GET", 1, 1, 60, false, false, ""},
      {{"-c", " +2", "-t", "1.9", kUrl}, "GET", 1, 2, 1, false, false, ""},
      {{"-f", "--force", kUrl}, "GET", 1, 1, 30, true, false, ""},
      {{"-2", kUrl},
       "GET",
       2,
       1,
       30,
       false,
       false,
       "GET /x?y=1 HTTP/1.1\r\n" + kHead10 + "Connection: close\r\n\r\n"},
      {{"--http11", "-1", kUrl}, "GET", 1, 1, 30, false, false, ""},  // the last one wins
      {{"-9", kUrl}, "GET", 0, 1, 30, false, false, "GET /x?y=1\r\n"},
      {{"--http09", kUrl}, "GET", 0, 1, 30, false, false, "GET /x?y=1\r\n"},
      // HTTP/0.9 has only GET: HEAD moves to 1.0, OPTIONS and TRACE to 1.1.
      {{"-9", "--head", kUrl},
       "HEAD",
       1,
       1,
       30,
       false,
       false,
       "HEAD /x?y=1 HTTP/1.0\r\n" + kHead10 + "\r\n"},
      {{"--options", kUrl},
       "OPTIONS",
       2,
       1,
       30,
       false,
       false,
       "OPTIONS /x?y=1 HTTP/1.1\r\n" + kHead10 + "Connection: close\r\n\r\n"},
      {{"-1", "--trace", kUrl}, "TRACE", 2, 1, 30, false, false, ""},
      {{"--head", "--get", kUrl}, "GET", 1, 1, 30, false, false, ""},
      {{"--op", kUrl}, "OPTIONS", 2, 1, 30, false, false, ""},
      // -r without a proxy: the banner says so, no Pragma is sent, HTTP/0.9 stays.
      {{"-r", kUrl}, "GET", 1, 1, 30, false, true, "GET /x?y=1 HTTP/1.0\r\n" + kHead10 + "\r\n"},
      {{"-9", "--reload", kUrl}, "GET", 0, 1, 30, false, true, "GET /x?y=1\r\n"},
      // The path as typed, fragment included; a port of 0 or none is 80.
      {{"http://h:0/a#b"},
       "GET",
       1,
       1,
       30,
       false,
       false,
       "GET /a#b HTTP/1.0\r\nHost: h\r\nUser-Agent: WebBench 1.5\r\nAccept: */*\r\n\r\n"},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(joined(k.args));
    WebbenchCommand c = parse_ok(k.args);
    EXPECT_EQ(c.method, k.method);
    EXPECT_EQ(c.run.request.method, k.method);
    EXPECT_EQ(c.http_level, k.http_level);
    EXPECT_EQ(c.run.http09, k.http_level == 0);
    EXPECT_EQ(c.run.request.http_minor, k.http_level == 2 ? 1 : 0);
    EXPECT_EQ(c.clients, k.clients);
    EXPECT_EQ(c.run.connections, static_cast<uint32_t>(k.clients));
    EXPECT_EQ(c.seconds, k.seconds);
    EXPECT_EQ(c.run.duration_ns, static_cast<uint64_t>(k.seconds) * kSec);
    EXPECT_EQ(c.force, k.force);
    EXPECT_EQ(c.reload, k.reload);
    EXPECT_FALSE(c.run.request.keep_alive);
    if (!k.bytes.empty()) {
      EXPECT_EQ(bytes_of(c), k.bytes);
    }
  }
}

TEST(WebbenchFlags, TargetHostAndPort) {
  WebbenchCommand c = parse_ok({"http://example.com/"});
  EXPECT_EQ(c.run.url.host, "example.com");
  EXPECT_EQ(c.run.url.port, 80);
  c = parse_ok({"HTTP://example.com:abc/"});  // scheme in any case; atoi("abc") = 0 -> 80
  EXPECT_EQ(c.run.url.port, 80);
  EXPECT_EQ(c.run.request.authority, "example.com");
  c = parse_ok({"http://[::1]:8080/v6"});  // hail's addition: webbench cuts at the first ':'
  EXPECT_EQ(c.run.url.host, "::1");
  EXPECT_EQ(c.run.url.port, 8080);
  EXPECT_EQ(c.run.request.authority, "[::1]");
  // Ports and hosts webbench's own check connection would fail on: reported after the banner.
  c = parse_ok({"http://h:70000/"});
  EXPECT_EQ(c.connect_problem, "port 70000 is not 1-65535");
  c = parse_ok({"http:///"});
  EXPECT_FALSE(c.connect_problem.empty());
}

TEST(WebbenchFlags, Proxy) {
  WebbenchCommand c = parse_ok({"-p", "127.0.0.1:3128", "-r", "http://example.com:8080/a?b"});
  EXPECT_TRUE(c.proxy);
  EXPECT_EQ(c.proxy_host, "127.0.0.1");
  EXPECT_EQ(c.proxy_port, 3128);
  EXPECT_EQ(c.run.url.host, "127.0.0.1");
  EXPECT_EQ(c.run.url.port, 3128);
  EXPECT_TRUE(c.run.connect_host.empty());
  // The absolute URL as request-target; Pragma with -r; Host is the URL's authority.
  EXPECT_EQ(bytes_of(c),
            "GET http://example.com:8080/a?b HTTP/1.0\r\nHost: example.com:8080\r\n"
            "User-Agent: WebBench 1.5\r\nAccept: */*\r\nPragma: no-cache\r\n\r\n");
  // -9 -r through a proxy is HTTP/1.0; any scheme goes through a proxy.
  c = parse_ok({"-9", "-r", "--proxy=cache:8000", "ftp://files.example/x"});
  EXPECT_EQ(c.http_level, 1);
  EXPECT_EQ(c.run.request.path, "ftp://files.example/x");
  EXPECT_EQ(c.run.url.port, 8000);
  c = parse_ok({"-9", "-p", "cache:8000", "http://h/x"});
  EXPECT_EQ(bytes_of(c), "GET http://h/x\r\n");
  // No ':' in -p: the port stays what it was (80, or an earlier -p's).
  c = parse_ok({"-p", "cache", "http://h/"});
  EXPECT_EQ(c.proxy_host, "cache");
  EXPECT_EQ(c.proxy_port, 80);
  c = parse_ok({"-p", "a:81", "-p", "b", "http://h/"});
  EXPECT_EQ(c.proxy_host, "b");
  EXPECT_EQ(c.proxy_port, 81);
  c = parse_ok({"-p", "", "http://h/"});  // webbench's banner: "via proxy server :80"
  EXPECT_TRUE(c.proxy);
  EXPECT_FALSE(c.connect_problem.empty());
  c = parse_ok({"-p", "cache:x", "http://h/"});  // atoi: port 0, which cannot be connected to
  EXPECT_EQ(c.proxy_port, 0);
  EXPECT_FALSE(c.connect_problem.empty());
}

struct ErrorCase {
  std::vector<std::string> args;
  std::string message;  // exactly as webbench prints it on stderr
  bool usage;
  bool copyright_first;
};

TEST(WebbenchFlags, ErrorsAsWebbenchReportsThem) {
  const ErrorCase cases[] = {
      {{}, "", true, false},  // no argument at all: the usage alone
      {{"-h"}, "", true, false},
      {{"-?", kUrl}, "", true, false},
      {{"--help", kUrl}, "", true, false},
      {{"--hel"}, "", true, false},
      {{"-f"}, "webbench: Missing URL!\n", true, false},
      {{"-c", "5", "--", "-t"}, "\n-t: is not a valid URL.\n", false, true},  // "--" ends options
      {{"-x", kUrl}, "webbench: invalid option -- 'x'\n", true, false},
      {{"-v", kUrl}, "webbench: invalid option -- 'v'\n", true, false},
      {{kUrl, "-c"}, "webbench: option requires an argument -- 'c'\n", true, false},
      {{"--foo=bar", kUrl}, "webbench: unrecognized option '--foo=bar'\n", true, false},
      {{"--force=1", kUrl}, "webbench: option '--force' doesn't allow an argument\n", true, false},
      {{kUrl, "--time"}, "webbench: option '--time' requires an argument\n", true, false},
      {{"--h", kUrl},
       "webbench: option '--h' is ambiguous; possibilities: '--help' '--http09' '--http10' "
       "'--http11' '--head'\n",
       true,
       false},
      {{"--http1", kUrl},
       "webbench: option '--http1' is ambiguous; possibilities: '--http10' '--http11'\n",
       true,
       false},
      {{"--t=1", kUrl},
       "webbench: option '--t=1' is ambiguous; possibilities: '--time' '--trace'\n",
       true,
       false},
      {{"-p", ":3128", kUrl}, "Error in option --proxy :3128: Missing hostname.\n", false, false},
      {{"-p", "cache:", kUrl},
       "Error in option --proxy cache: Port number is missing.\n",
       false,
       false},
      // build_request's checks, after the copyright lines.
      {{"localhost/"}, "\nlocalhost/: is not a valid URL.\n", false, true},
      {{"https://127.0.0.1/"},
       "\nOnly HTTP protocol is directly supported, set --proxy for others.\n",
       false,
       true},
      {{"http://127.0.0.1:8080"},
       "\nInvalid URL syntax - hostname don't ends with '/'.\n",
       false,
       true},
      {{"http://" + std::string(1494, 'a')}, "URL is too long.\n", false, true},
  };
  for (const ErrorCase& k : cases) {
    SCOPED_TRACE(joined(k.args).substr(0, 80));
    WebbenchParse p = parse_webbench_flags(k.args);
    EXPECT_FALSE(p.ok);
    EXPECT_FALSE(p.show_version);
    EXPECT_EQ(p.exit_status, 2);
    EXPECT_EQ(p.message, k.message);
    EXPECT_EQ(p.show_usage, k.usage);
    EXPECT_EQ(p.copyright_first, k.copyright_first);
  }
  // 1500 characters is still a URL webbench takes.
  EXPECT_TRUE(parse_webbench_flags({"http://h/" + std::string(1491, 'a')}).ok);
}

TEST(WebbenchFlags, HailsOwnRefusalsComeWithoutUsage) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"-c", "-5", kUrl},
                                               {"-c", "1000001", kUrl},
                                               {"-t", "-1", kUrl},
                                               {"-t", "99999999999999", kUrl}}) {
    WebbenchParse p = parse_webbench_flags(args);
    SCOPED_TRACE(joined(args));
    EXPECT_FALSE(p.ok);
    EXPECT_FALSE(p.show_usage);
    EXPECT_FALSE(p.copyright_first);
    EXPECT_EQ(p.exit_status, 2);
    EXPECT_EQ(p.message.rfind("hail: ", 0), 0u) << p.message;
  }
  EXPECT_EQ(parse_webbench_flags({"-c", "-5", kUrl}).message,
            "hail: -c -5: must be 1 to 1000000 clients\n");
  // A request-target hail cannot send (webbench would send the control byte as typed).
  WebbenchParse p = parse_webbench_flags({"http://h/a\tb"});
  EXPECT_FALSE(p.ok);
  EXPECT_TRUE(p.copyright_first);
  EXPECT_EQ(p.message.rfind("hail: ", 0), 0u) << p.message;
}

TEST(WebbenchFlags, VersionStopsAtOnce) {
  WebbenchParse p = parse_webbench_flags({"-V", "-x"});
  EXPECT_TRUE(p.show_version);
  EXPECT_EQ(p.exit_status, 0);
  EXPECT_TRUE(parse_webbench_flags({"--vers"}).show_version);
  p = parse_webbench_flags({"-x", "-V"});  // the error comes first
  EXPECT_FALSE(p.show_version);
  EXPECT_EQ(p.exit_status, 2);
  EXPECT_EQ(webbench_version_line("1.2.3"), "1.5 (hail 1.2.3)\n");
}

TEST(WebbenchFlags, UsageIsWebbenchs) {
  const std::string usage = webbench_usage();
  EXPECT_EQ(usage.rfind("webbench [option]... URL\n  -f|--force               Don't wait", 0), 0u);
  EXPECT_NE(usage.find("\n  -?|-h|--help             This information.\n"), std::string::npos);
  const std::string last = "  -V|--version             Display program version.\n";
  EXPECT_EQ(usage.substr(usage.size() - last.size()), last);
}

TEST(WebbenchFlags, Atoi) {
  EXPECT_EQ(webbench_atoi(""), 0);
  EXPECT_EQ(webbench_atoi("abc"), 0);
  EXPECT_EQ(webbench_atoi(" \t12x"), 12);
  EXPECT_EQ(webbench_atoi("-3"), -3);
  EXPECT_EQ(webbench_atoi("+4"), 4);
  EXPECT_EQ(webbench_atoi("- 4"), 0);
  EXPECT_EQ(webbench_atoi("99999999999999999999999"), int64_t{1} << 62);
}

TEST(GnuGetopt, PermutationAndDoubleDash) {
  const GetoptLongOption longs[] = {{"alpha", false, 'a'}, {"beta", true, 'b'}};
  const std::vector<std::string> args = {"x", "-ab", "1", "-", "--beta=2", "y", "--", "-a"};
  GnuGetopt g(args, "ab:", longs);
  GetoptOption o;
  ASSERT_TRUE(g.next(&o));
  EXPECT_EQ(o.val, 'a');
  ASSERT_TRUE(g.next(&o));
  EXPECT_EQ(o.val, 'b');
  EXPECT_EQ(o.arg, "1");
  ASSERT_TRUE(g.next(&o));
  EXPECT_EQ(o.val, 'b');
  EXPECT_EQ(o.arg, "2");
  EXPECT_FALSE(g.next(&o));
  EXPECT_TRUE(g.error().empty());
  EXPECT_EQ(g.non_options(), (std::vector<std::string>{"x", "-", "y", "-a"}));
}

TEST(GnuGetopt, SamePrefixMatchesAreNotAmbiguous) {
  // glibc takes several prefix matches that would do the same thing.
  const GetoptLongOption longs[] = {{"color", false, 'c'}, {"colour", false, 'c'}};
  const std::vector<std::string> args = {"--col"};
  GnuGetopt g(args, "", longs);
  GetoptOption o;
  ASSERT_TRUE(g.next(&o));
  EXPECT_EQ(o.val, 'c');
}

}  // namespace
}  // namespace hail

namespace hail {
namespace {

TEST(WebbenchFlags, VerdictFlags) {
  WebbenchCommand c =
      parse_ok({"-t", "1", "--slo", "error_rate<1%", "--slo-abort", "--junit", "j.xml", kUrl});
  EXPECT_EQ(c.verdict.slo, std::vector<std::string>{"error_rate<1%"});
  EXPECT_TRUE(c.verdict.slo_abort);
  EXPECT_EQ(c.verdict.junit_path, "j.xml");
  EXPECT_GT(c.run.interval_ns, 0u);

  WebbenchParse bad = parse_webbench_flags({"--slo", "nonsense", kUrl});
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.exit_status, 2);
  EXPECT_EQ(bad.message.rfind("hail: --slo \"nonsense\"", 0), 0u) << bad.message;
  WebbenchParse lonely = parse_webbench_flags({"--slo-abort", kUrl});
  EXPECT_FALSE(lonely.ok);
  EXPECT_EQ(lonely.exit_status, 2);
  EXPECT_EQ(webbench_usage().find("slo"), std::string::npos);
}

}  // namespace
}  // namespace hail
