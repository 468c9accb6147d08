#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "cli/ab_flags.h"
#include "http/request.h"
#include "report/ab_report.h"

namespace hail {
namespace {

constexpr uint64_t kSec = 1'000'000'000;
const std::string kUrl = "http://127.0.0.1:8080/x?y=1";

AbCommand parse_ok(const std::vector<std::string>& args) {
  AbParse p = parse_ab_flags(args, "ab");
  EXPECT_EQ(p.outcome, AbParse::Outcome::kRun) << p.err;
  return p.command;
}

std::string header(const RequestSpec& spec, const std::string& name) {
  for (const auto& [n, v] : spec.headers) {
    if (n == name) return v;
  }
  return "<none>";
}

TEST(AbFlags, DefaultsAreAbs) {
  AbCommand c = parse_ok({kUrl});
  EXPECT_EQ(c.requests, 1);
  EXPECT_EQ(c.concurrency, 1);
  EXPECT_EQ(c.run.requests, 1u);
  EXPECT_EQ(c.run.connections, 1u);
  EXPECT_EQ(c.run.duration_ns, 0u);  // no time limit
  EXPECT_EQ(c.run.timeout_ns, 30 * kSec);
  EXPECT_EQ(c.run.request.method, "GET");
  EXPECT_EQ(c.run.request.path, "/x?y=1");
  EXPECT_EQ(c.run.request.authority, "127.0.0.1:8080");
  EXPECT_EQ(c.run.request.http_minor, 0);
  EXPECT_FALSE(c.run.request.keep_alive);
  EXPECT_EQ(c.run.protocol, HttpProtocol::kHttp1);
  // ab's report needs every request's record and the first response's facts: both collectors are
  // registered with the run.
  ASSERT_NE(c.request_log, nullptr);
  ASSERT_NE(c.first_response, nullptr);
  ASSERT_EQ(c.run.collectors.size(), 2u);
  EXPECT_EQ(c.run.collectors[0].get(), c.request_log.get());
  EXPECT_EQ(c.run.collectors[1].get(), c.first_response.get());
  EXPECT_EQ(c.hostname, "127.0.0.1");
  EXPECT_EQ(c.port, 8080);
  EXPECT_EQ(c.path, "/x?y=1");
  EXPECT_EQ(c.heartbeat, 0);
  EXPECT_TRUE(c.percentiles);
  EXPECT_TRUE(c.confidence);
  EXPECT_FALSE(c.tls);
  EXPECT_TRUE(c.notes.empty());
}

TEST(AbFlags, RequestBytesCarryAbsFields) {
  AbCommand c = parse_ok({kUrl});
  EXPECT_EQ(render_request(c.run.request),
            "GET /x?y=1 HTTP/1.0\r\nHost: 127.0.0.1:8080\r\nUser-Agent: ApacheBench/2.3\r\n"
            "Accept: */*\r\n\r\n");
  AbCommand k = parse_ok({"-k", "http://h/"});
  EXPECT_EQ(render_request(k.run.request),
            "GET / HTTP/1.0\r\nHost: h\r\nUser-Agent: ApacheBench/2.3\r\nAccept: */*\r\n"
            "Connection: Keep-Alive\r\n\r\n");
  EXPECT_TRUE(k.run.request.keep_alive);
  EXPECT_FALSE(request_asks_to_close(render_request(k.run.request)));
  EXPECT_TRUE(request_asks_to_close(render_request(c.run.request)));
}

TEST(AbFlags, Table) {
  struct Case {
    std::vector<std::string> args;
    int requests;
    int concurrency;
    uint64_t duration_ns;
    int heartbeat;
  };
  const Case cases[] = {
      {{"-n", "1000", "-c", "10", kUrl}, 1000, 10, 0, 100},
      {{"-n1000", "-c10", kUrl}, 1000, 10, 0, 100},
      {{"-n", "150", kUrl}, 150, 1, 0, 0},      // progress lines only above 150
      {{"-n", "151", kUrl}, 151, 1, 0, 100},    // ... and never more often than every 100
      {{"-n", "5000", kUrl}, 5000, 1, 0, 500},  // else every 10%
      {{"-q", "-n", "5000", kUrl}, 5000, 1, 0, 0},
      {{"-t", "5", kUrl}, 50000, 1, 5 * kSec, 5000},               // -t implies -n 50000
      {{"-n", "100", "-t", "5", kUrl}, 50000, 1, 5 * kSec, 5000},  // ... and overrides an -n
      {{"-t", "5", "-n", "100", kUrl}, 100, 1, 5 * kSec, 0},       // ... unless -n comes later
      {{"-t", "0", kUrl}, 50000, 1, 0, 5000},                      // -t 0: no time limit
      {{"-n", "7abc", kUrl}, 7, 1, 0, 0},                          // atoi
      {{"-kqn3", kUrl}, 3, 1, 0, 0},                               // clustered options
      {{"-n", "3", "--", kUrl}, 3, 1, 0, 0},
  };
  for (const Case& tc : cases) {
    AbCommand c = parse_ok(tc.args);
    SCOPED_TRACE(tc.args[0] + " " + tc.args[1]);
    EXPECT_EQ(c.requests, tc.requests);
    EXPECT_EQ(c.run.requests, static_cast<uint64_t>(tc.requests));
    EXPECT_EQ(c.concurrency, tc.concurrency);
    EXPECT_EQ(c.run.duration_ns, tc.duration_ns);
    EXPECT_EQ(c.heartbeat, tc.heartbeat);
  }
}

TEST(AbFlags, OutputChoices) {
  AbCommand c = parse_ok({"-d", "-S", "-l", "-r", "-e", "p.csv", "-g", "g.tsv", "-v", "2", kUrl});
  EXPECT_FALSE(c.percentiles);
  EXPECT_FALSE(c.confidence);
  EXPECT_TRUE(c.variable_length);
  EXPECT_EQ(c.csv_path, "p.csv");
  EXPECT_EQ(c.gnuplot_path, "g.tsv");
  EXPECT_EQ(c.verbosity, 2);
}

TEST(AbFlags, MethodsAndBodies) {
  const std::string path = testing::TempDir() + "ab_body.txt";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fputs("hello\n", f);
  std::fclose(f);

  AbCommand post = parse_ok({"-p", path, "-T", "application/json", kUrl});
  EXPECT_EQ(post.run.request.method, "POST");
  EXPECT_EQ(post.run.request.body, "hello\n");
  EXPECT_TRUE(post.send_body);
  EXPECT_EQ(render_request(post.run.request),
            "POST /x?y=1 HTTP/1.0\r\nHost: 127.0.0.1:8080\r\nUser-Agent: ApacheBench/2.3\r\n"
            "Accept: */*\r\nContent-length: 6\r\nContent-type: application/json\r\n\r\nhello\n");
  // ab's order: Connection, Cookie, Authorization, the body's fields, then -H lines.
  AbCommand all = parse_ok({"-k", "-H", "X-A: 1", "-p", path, "-A", "u:p", "-C", "a=b", kUrl});
  const std::vector<std::pair<std::string, std::string>> order = {
      {"Connection", "Keep-Alive"},      {"Cookie", "a=b"},
      {"Authorization", "Basic dTpw"},   {"Content-length", "6"},
      {"Content-type", "text/plain"},    {"X-A", "1"},
      {"User-Agent", "ApacheBench/2.3"}, {"Accept", "*/*"}};
  EXPECT_EQ(all.run.request.headers, order);
  AbCommand put = parse_ok({"-u", path, kUrl});
  EXPECT_EQ(put.run.request.method, "PUT");
  EXPECT_EQ(header(put.run.request, "Content-type"), "text/plain");  // ab's default
  EXPECT_EQ(parse_ok({"-i", kUrl}).run.request.method, "HEAD");
  EXPECT_EQ(parse_ok({"-m", "PATCH", kUrl}).run.request.method, "PATCH");
  EXPECT_EQ(parse_ok({"-i", "-m", "PUT", kUrl}).run.request.method, "PUT");  // ab lets -m win
  // -p then -m: the custom method carries the body.
  AbCommand custom = parse_ok({"-p", path, "-m", "PATCH", kUrl});
  EXPECT_EQ(custom.run.request.method, "PATCH");
  EXPECT_EQ(custom.run.request.body, "hello\n");
  // -T alone changes nothing: ab sends it only with a body.
  EXPECT_EQ(header(parse_ok({"-T", "a/b", kUrl}).run.request, "Content-type"), "<none>");
  std::remove(path.c_str());
}

TEST(AbFlags, HeadersCookiesAuth) {
  AbCommand c = parse_ok({"-C", "a=b", "-C", "c=d", "-A", "user:pw", "-P", " pu:pp", "-H", "X-A: 1",
                          "-H", "accept: text/html", kUrl});
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"Cookie", "c=d"},  // ab keeps only the last -C
      {"Authorization", "Basic dXNlcjpwdw=="},
      {"Proxy-Authorization", "Basic cHU6cHA="},  // leading spaces skipped, as in ab
      {"X-A", "1"},
      {"accept", "text/html"},
      {"User-Agent", "ApacheBench/2.3"},
  };
  EXPECT_EQ(c.run.request.headers, expected);
  AbCommand host = parse_ok({"-H", "Host: other:9", kUrl});
  EXPECT_EQ(host.run.request.authority, "other:9");
  EXPECT_EQ(render_request(host.run.request),
            "GET /x?y=1 HTTP/1.0\r\nHost: other:9\r\nUser-Agent: ApacheBench/2.3\r\n"
            "Accept: */*\r\n\r\n");
  AbCommand ua = parse_ok({"-H", "User-Agent: me", kUrl});
  EXPECT_EQ(header(ua.run.request, "User-Agent"), "me");
  EXPECT_EQ(ua.run.request.headers.size(), 2u);  // the -H field and Accept
}

TEST(AbFlags, Base64AndAtoi) {
  EXPECT_EQ(ab_base64(""), "");
  EXPECT_EQ(ab_base64("f"), "Zg==");
  EXPECT_EQ(ab_base64("fo"), "Zm8=");
  EXPECT_EQ(ab_base64("foo"), "Zm9v");
  EXPECT_EQ(ab_base64("user:pw"), "dXNlcjpwdw==");
  EXPECT_EQ(ab_atoi("42"), 42);
  EXPECT_EQ(ab_atoi("  -7x"), -7);
  EXPECT_EQ(ab_atoi("abc"), 0);
  EXPECT_EQ(ab_atoi("9999999999"), 1410065407);    // glibc: strtol, then the low 32 bits
  EXPECT_EQ(ab_atoi("99999999999999999999"), -1);  // clamped to LONG_MAX first
}

TEST(AbFlags, UrlForms) {
  AbCommand bare = parse_ok({"127.0.0.1:8080/"});  // ab does not need the scheme
  EXPECT_EQ(bare.hostname, "127.0.0.1");
  EXPECT_EQ(bare.port, 8080);
  AbCommand v6 = parse_ok({"http://[::1]:81/a"});
  EXPECT_EQ(v6.hostname, "::1");
  EXPECT_EQ(v6.run.request.authority, "[::1]:81");
  AbCommand def = parse_ok({"http://example.com/"});
  EXPECT_EQ(def.port, 80);
  EXPECT_EQ(def.run.request.authority, "example.com");
  AbCommand tls = parse_ok({"https://example.com/"});
  EXPECT_TRUE(tls.tls);
  EXPECT_EQ(tls.port, 443);
  EXPECT_EQ(tls.tls_sni, "example.com");
  EXPECT_FALSE(tls.run.tls.resume);
  EXPECT_TRUE(parse_ok({"https://127.0.0.1/"}).tls_sni.empty());  // no SNI for an IP
  AbCommand frag = parse_ok({"http://h/p#f"});
  EXPECT_EQ(frag.run.request.path, "/p#f");  // sent as typed, as ab does
  EXPECT_EQ(frag.path, "/p#f");
}

TEST(AbFlags, HtmlOutput) {
  AbCommand plain = parse_ok({kUrl});
  EXPECT_FALSE(plain.html);
  EXPECT_EQ(plain.html_attributes.td, "bgcolor=white");
  EXPECT_TRUE(parse_ok({"-w", kUrl}).html);
  AbCommand c = parse_ok({"-x", "border=1", "-y", "class=r", "-z", "class=d", kUrl});
  EXPECT_TRUE(c.html);
  EXPECT_EQ(c.html_attributes.table, "border=1");
  EXPECT_EQ(c.html_attributes.tr, "class=r");
  EXPECT_EQ(c.html_attributes.td, "class=d");
  // -V prints the header in the form chosen so far.
  EXPECT_TRUE(parse_ab_flags({"-w", "-V"}, "ab").out.starts_with("<p>\n This is ApacheBench"));
  EXPECT_TRUE(parse_ab_flags({"-V", "-w"}, "ab").out.starts_with("This is ApacheBench"));
}

TEST(AbFlags, LongRequestHeadsAreSentWhole) {
  // ab's "Request too long" check never fires (apr_snprintf returns what it wrote, at most 8191
  // bytes): ab sends the head cut short. hail sends it whole.
  AbCommand c = parse_ok({"-H", "X-Big: " + std::string(9000, 'x'), kUrl});
  EXPECT_GT(render_request(c.run.request).size(), 9000u);
}

TEST(AbFlags, Proxy) {
  AbCommand c = parse_ok({"-X", "proxy.local:3128", "http://h:81/p"});
  EXPECT_TRUE(c.proxy);
  EXPECT_EQ(c.run.connect_host, "proxy.local");
  EXPECT_EQ(c.run.connect_port, 3128);
  EXPECT_EQ(c.run.request.path, "http://h:81/p");  // absolute form, as typed
  EXPECT_EQ(c.run.request.authority, "h:81");
  // Without a port ab connects to port 0 and fails as a refused connection does.
  AbParse no_port = parse_ab_flags({"-X", "proxy.local", kUrl}, "ab");
  EXPECT_EQ(no_port.outcome, AbParse::Outcome::kFailRun);
  EXPECT_EQ(no_port.exit_status, 111);
  EXPECT_EQ(no_port.err, "apr_socket_recv: Connection refused (111)\n");
  EXPECT_EQ(no_port.command.proxy_port, 0);
}

TEST(AbFlags, AcceptedButNotHonoured) {
  AbCommand c = parse_ok({"-B", "10.0.0.1", "-b", "4096", kUrl});
  ASSERT_EQ(c.notes.size(), 2u);
  EXPECT_EQ(c.notes[0], "-b 4096 ignored: hail keeps the system's socket buffer sizes");
  EXPECT_EQ(c.notes[1], "-B 10.0.0.1 ignored: hail cannot bind its connections to a local address");
  AbCommand tls = parse_ok({"-I", "-f", "TLS1.2", "https://h/"});
  ASSERT_EQ(tls.notes.size(), 1u);
  EXPECT_NE(tls.run.tls.min_version, 0);
  EXPECT_EQ(tls.run.tls.min_version, tls.run.tls.max_version);
  EXPECT_EQ(parse_ok({"-s", "-1", kUrl}).run.timeout_ns > 1'000'000 * kSec, true);
  EXPECT_EQ(parse_ok({"-s", "2", kUrl}).run.timeout_ns, 2 * kSec);
}

struct ErrorCase {
  std::vector<std::string> args;
  AbParse::Outcome outcome;
  int status;
  std::string err_start;  // the start of stderr
};

TEST(AbFlags, ErrorsAsAbPrintsThem) {
  const std::string usage = render_ab_usage("ab");
  const ErrorCase cases[] = {
      {{}, AbParse::Outcome::kExit, 22, "ab: wrong number of arguments\nUsage: ab [options]"},
      {{"-h"}, AbParse::Outcome::kExit, 22, "Usage: ab [options]"},
      {{"-n", "0", kUrl}, AbParse::Outcome::kExit, 1, "Invalid number of requests\n\n"},
      {{"-n", "abc", kUrl}, AbParse::Outcome::kExit, 1, "Invalid number of requests\n\n"},
      {{"-c", "5", "-n", "2", kUrl},
       AbParse::Outcome::kExit,
       22,
       "ab: Cannot use concurrency level greater than total number of requests\nUsage:"},
      {{"-t", "1", "-c", "3", "-n", "2", kUrl},
       AbParse::Outcome::kExit,
       22,
       "ab: Cannot use concurrency level greater than total number of requests\n"},
      {{"-c", "-5", "-n", "1", kUrl},
       AbParse::Outcome::kExit,
       22,
       "ab: Invalid Concurrency [Range 0..200000]\nUsage:"},
      {{"http://127.0.0.1:1"}, AbParse::Outcome::kExit, 22, "ab: invalid URL\nUsage:"},
      {{"http://127.0.0.1:0/"}, AbParse::Outcome::kExit, 22, "ab: invalid URL\n"},
      {{"http://[::1%lo]:1/"}, AbParse::Outcome::kExit, 22, "ab: invalid URL\n"},
      {{"http:///x"}, AbParse::Outcome::kExit, 22, "ab: invalid URL\n"},
      {{kUrl, "extra"}, AbParse::Outcome::kExit, 22, "ab: wrong number of arguments\n"},
      {{kUrl, "-n", "5"}, AbParse::Outcome::kExit, 22, "ab: wrong number of arguments\n"},
      {{"-", kUrl}, AbParse::Outcome::kExit, 22, "ab: wrong number of arguments\n"},
      {{"-n"},
       AbParse::Outcome::kExit,
       22,
       "ab: option requires an argument -- n\nab: wrong number of arguments\nUsage:"},
      {{"-Q", "-n", "5", kUrl},
       AbParse::Outcome::kExit,
       22,
       "ab: illegal option -- Q\nab: wrong number of arguments\n"},
      {{"-Qk", kUrl}, AbParse::Outcome::kExit, 22, "ab: illegal option -- Q\nab: wrong number"},
      {{"-i", "-p", "/nonexistent", kUrl},
       AbParse::Outcome::kExit,
       1,
       "Cannot mix POST with other methods\n\n"},
      {{"-m", "PUT", "-i", kUrl},
       AbParse::Outcome::kExit,
       1,
       "Cannot mix HEAD with other methods\n\n"},
      {{"-p", "/nonexistent", kUrl},
       AbParse::Outcome::kExit,
       1,
       "ab: Could not open POST data file (/nonexistent): No such file or directory\n"},
      {{"-A", std::string(800, 'a'), kUrl},
       AbParse::Outcome::kExit,
       1,
       "Authentication credentials too long\n\n"},
      {{"-E", "cert.pem", "https://h/"}, AbParse::Outcome::kExit, 1, "hail: -E:"},
      {{"-H", "no colon", kUrl}, AbParse::Outcome::kExit, 1, "hail: -H: header 'no colon'"},
      {{"-s", "0", kUrl},
       AbParse::Outcome::kFailRun,
       119,
       "apr_pollset_poll: The timeout specified has expired (70007)\n"},
      {{"-c", "0", kUrl},
       AbParse::Outcome::kFailRun,
       22,
       "apr_pollset_poll: Invalid argument (22)\n"},
  };
  for (const ErrorCase& tc : cases) {
    std::string joined;
    for (const std::string& a : tc.args) joined += a.substr(0, 40) + " ";
    SCOPED_TRACE(joined);
    AbParse p = parse_ab_flags(tc.args, "ab");
    EXPECT_EQ(p.outcome, tc.outcome);
    EXPECT_EQ(p.exit_status, tc.status);
    EXPECT_EQ(p.err.substr(0, tc.err_start.size()), tc.err_start) << p.err;
    if (tc.err_start.ends_with("\n\n")) {
      EXPECT_EQ(p.err, tc.err_start);  // ab's err(): exactly this
    }
    EXPECT_TRUE(p.out.empty());
  }
}

TEST(AbFlags, UsageAndVersion) {
  AbParse h = parse_ab_flags({"-h"}, "/tmp/x/ab");
  EXPECT_EQ(h.err, render_ab_usage("/tmp/x/ab"));
  EXPECT_TRUE(h.err.starts_with("Usage: /tmp/x/ab [options] [http[s]://]hostname[:port]/path\n"));
  // getopt's messages name the base name; ab's own the program as invoked.
  AbParse bad = parse_ab_flags({"-Q"}, "/tmp/x/ab");
  EXPECT_TRUE(
      bad.err.starts_with("ab: illegal option -- Q\n/tmp/x/ab: wrong number of arguments\n"))
      << bad.err;
  AbParse v = parse_ab_flags({"-V", "-n", "0"}, "ab");  // -V ends the parse at once
  EXPECT_EQ(v.outcome, AbParse::Outcome::kExit);
  EXPECT_EQ(v.exit_status, 0);
  EXPECT_EQ(v.out,
            "This is ApacheBench, Version 2.3 <$Revision$>\n"
            "Copyright 1996 Adam Twiss, Zeus Technology Ltd, http://www.zeustech.net/\n"
            "Licensed to The Apache Software Foundation, http://www.apache.org/\n\n");
  EXPECT_EQ(std::count(h.err.begin(), h.err.end(), '\n'), 45);
}

}  // namespace
}  // namespace hail

namespace hail {
namespace {

// hail's verdict flags on ab's command line: long options APR itself would end the options at.
TEST(AbFlags, VerdictFlags) {
  AbCommand c = parse_ok({"-n", "10", "--slo", "p(99)<10ms", "-k", "--slo=error_rate<1%",
                          "--slo-abort", "--junit", "out.xml", kUrl});
  EXPECT_EQ(c.verdict.slo, (std::vector<std::string>{"p(99)<10ms", "error_rate<1%"}));
  EXPECT_TRUE(c.verdict.slo_abort);
  EXPECT_EQ(c.verdict.junit_path, "out.xml");
  EXPECT_TRUE(c.keep_alive);         // options after them are still read
  EXPECT_GT(c.run.interval_ns, 0u);  // windowed thresholds need the series

  AbParse bad = parse_ab_flags({"--slo", "p(99)<10xs", kUrl}, "ab");
  EXPECT_EQ(bad.outcome, AbParse::Outcome::kExit);
  EXPECT_EQ(bad.exit_status, 2);
  EXPECT_EQ(bad.err.rfind("hail: --slo \"p(99)<10xs\"", 0), 0u) << bad.err;
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--slo-abort", kUrl}, {"--junit", "x.xml", kUrl}, {"--slo-abort=1", kUrl}}) {
    AbParse p = parse_ab_flags(args, "ab");
    EXPECT_EQ(p.outcome, AbParse::Outcome::kExit) << args[0];
    EXPECT_NE(p.exit_status, 0) << args[0];
  }
  // Any other long option is what APR makes of it: the end of the options.
  AbParse other = parse_ab_flags({"--other", kUrl}, "ab");
  EXPECT_EQ(other.outcome, AbParse::Outcome::kRun) << other.err;
  // Without them, ab's usage text does not change.
  EXPECT_EQ(render_ab_usage("ab").find("slo"), std::string::npos);
}

}  // namespace
}  // namespace hail
