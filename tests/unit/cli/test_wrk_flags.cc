#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "cli/wrk_flags.h"

namespace hail {
namespace {

constexpr uint64_t kSec = 1'000'000'000;
const std::string kUrl = "http://127.0.0.1:8080/x?y=1";

WrkCommand parse_ok(const std::vector<std::string>& args) {
  WrkParse p = parse_wrk_flags(args);
  EXPECT_TRUE(p.ok) << p.message;
  return p.command;
}

TEST(WrkFlags, DefaultsAreWrks) {
  WrkCommand c = parse_ok({kUrl});
  EXPECT_EQ(c.threads, 2u);
  EXPECT_EQ(c.connections, 10u);
  EXPECT_EQ(c.run.threads, 2u);
  EXPECT_EQ(c.run.connections, 10u);
  EXPECT_EQ(c.run.duration_ns, 10 * kSec);
  EXPECT_EQ(c.run.timeout_ns, 2 * kSec);
  EXPECT_FALSE(c.latency_distribution);
  EXPECT_EQ(c.url_text, kUrl);
  EXPECT_EQ(c.run.request.method, "GET");
  EXPECT_EQ(c.run.request.path, "/x?y=1");
  EXPECT_EQ(c.run.request.authority, "127.0.0.1:8080");
  EXPECT_TRUE(c.run.request.keep_alive);
  EXPECT_EQ(c.run.request.http_minor, 1);
  EXPECT_EQ(c.run.pipeline, 1u);
  EXPECT_EQ(c.run.protocol, HttpProtocol::kHttp1);
  EXPECT_EQ(c.run.warmup_ns, 0u);
  EXPECT_EQ(c.run.interval_ns, 0u);
  EXPECT_TRUE(c.run.script_path.empty());
  EXPECT_TRUE(c.run.request.headers.empty());
}

struct Case {
  std::vector<std::string> args;
  uint64_t threads, connections, run_connections, duration_s, timeout_s;
  bool latency;
};

TEST(WrkFlags, Table) {
  const Case cases[] = {
      {{"-c", "100", "-t", "4", "-d", "30s", kUrl}, 4, 100, 100, 30, 2, false},
      {{"-c1k", kUrl}, 2, 1000, 1000, 10, 2, false},
      {{"-c", "1K", kUrl}, 2, 1000, 1000, 10, 2, false},
      {{"-c", "2 k", kUrl}, 2, 2000, 2000, 10, 2, false},  // sscanf skips spaces before the unit
      {{"-c", "1m", "-t", "1", kUrl}, 1, 1'000'000, 1'000'000, 10, 2, false},  // m: mega, any case
      {{"-d", "2m", kUrl}, 2, 10, 10, 120, 2, false},
      {{"-d", "30", kUrl}, 2, 10, 10, 30, 2, false},  // a bare number: seconds
      {{"-d", "1h", kUrl}, 2, 10, 10, 3600, 2, false},
      {{"-d", "5S", kUrl}, 2, 10, 10, 5, 2, false},
      {{"-d", "+5", kUrl}, 2, 10, 10, 5, 2, false},
      {{"-d", " 5", kUrl}, 2, 10, 10, 5, 2, false},
      {{"--timeout", "5", kUrl}, 2, 10, 10, 10, 5, false},
      {{"--timeout", "1m", kUrl}, 2, 10, 10, 10, 60, false},
      {{"-T", "3s", kUrl}, 2, 10, 10, 10, 3, false},  // undocumented short forms
      {{"-L", kUrl}, 2, 10, 10, 10, 2, true},
      {{"--latency", kUrl}, 2, 10, 10, 10, 2, true},
      {{"--lat", kUrl}, 2, 10, 10, 10, 2, true},  // getopt_long: unique prefixes
      {{"--conn", "20", "--thr=5", "--dur", "3", kUrl}, 5, 20, 20, 3, 2, false},
      {{"--connections=7", "--threads", "7", "--duration=1m", kUrl}, 7, 7, 7, 60, 2, false},
      {{kUrl, "-c", "12"}, 2, 12, 12, 10, 2, false},     // options after the URL
      {{"-Lc10", "-t2", kUrl}, 2, 10, 10, 10, 2, true},  // a cluster of short options
      // Each thread gets connections / threads: wrk opens 9, not 10.
      {{"-c", "10", "-t", "3", kUrl}, 3, 10, 9, 10, 2, false},
      {{"-c", "3", "-t", "3", kUrl}, 3, 3, 3, 10, 2, false},
  };
  for (const Case& k : cases) {
    std::string line;
    for (const auto& a : k.args) line += a + " ";
    SCOPED_TRACE(line);
    WrkCommand c = parse_ok(k.args);
    EXPECT_EQ(c.threads, k.threads);
    EXPECT_EQ(c.connections, k.connections);
    EXPECT_EQ(c.run.threads, k.threads);
    EXPECT_EQ(c.run.connections, k.run_connections);
    EXPECT_EQ(c.run.duration_ns, k.duration_s * kSec);
    EXPECT_EQ(c.run.timeout_ns, k.timeout_s * kSec);
    EXPECT_EQ(c.latency_distribution, k.latency);
  }
}

struct ErrorCase {
  std::vector<std::string> args;
  std::string message;  // wrk's stderr line ("" for none)
  bool from_getopt;
  bool usage;
};

void expect_errors(WrkParse (*parse)(const std::vector<std::string>&),
                   std::span<const ErrorCase> cases) {
  for (const ErrorCase& k : cases) {
    std::string line;
    for (const auto& a : k.args) line += a + " ";
    SCOPED_TRACE(line);
    WrkParse p = parse(k.args);
    EXPECT_FALSE(p.ok);
    EXPECT_EQ(p.message, k.message);
    EXPECT_EQ(p.message_has_program, k.from_getopt);
    EXPECT_EQ(p.show_usage, k.usage);
    EXPECT_FALSE(p.hail_usage);
  }
}

TEST(WrkFlags, ErrorsAsWrkReportsThem) {
  const ErrorCase cases[] = {
      // Values wrk's scan_metric / scan_time refuse: usage alone.
      {{"-d", "500ms", kUrl}, "", false, true},
      {{"--timeout", "500ms", kUrl}, "", false, true},
      {{"-d", "1.5s", kUrl}, "", false, true},
      {{"-c", "1.5k", kUrl}, "", false, true},
      {{"-c", "5x", kUrl}, "", false, true},
      {{"-c", "10kb", kUrl}, "", false, true},
      {{"-c", "", kUrl}, "", false, true},
      {{"-c", "-5", kUrl}, "", false, true},  // wrk wraps it to 2^64-5; hail refuses
      {{"-c", "99999999999999999999", kUrl}, "", false, true},
      {{"-d", "0", kUrl}, "", false, true},
      {{"-t", "0", kUrl}, "", false, true},
      // Usage requests and options wrk's getopt table knows but refuses.
      {{"--help"}, "", false, true},
      {{"-r", kUrl}, "", false, true},
      {{"-?", kUrl}, "", false, true},
      {{}, "", false, true},  // no URL
      {{"-c", "10"}, "", false, true},
      // getopt's own messages.
      {{"-h"}, "invalid option -- 'h'", true, true},
      {{"-x", kUrl}, "invalid option -- 'x'", true, true},
      {{"--foo=bar", kUrl}, "unrecognized option '--foo=bar'", true, true},
      {{kUrl, "-c"}, "option requires an argument -- 'c'", true, true},
      {{kUrl, "--connections"}, "option '--connections' requires an argument", true, true},
      {{"--lat=1", kUrl}, "option '--latency' doesn't allow an argument", true, true},
      {{"--t", "5", kUrl},
       "option '--t' is ambiguous; possibilities: '--threads' '--timeout'",
       true,
       true},
      {{"--he", kUrl},
       "option '--he' is ambiguous; possibilities: '--header' '--help'",
       true,
       true},
      // wrk's own checks.
      {{"-c", "1", "-t", "2", kUrl}, "number of connections must be >= threads", false, true},
      {{"-c", "0", kUrl}, "number of connections must be >= threads", false, true},
      {{"localhost:8080"}, "invalid URL: localhost:8080", false, true},
      {{"http:///x"}, "invalid URL: http:///x", false, true},
      {{"-"}, "invalid URL: -", false, true},
  };
  expect_errors(parse_wrk_flags, cases);
}

TEST(WrkFlags, HailsOwnLimitsComeWithoutUsage) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"-c", "2M", kUrl},
                                               {"-t", "2k", "-c", "2k", kUrl},
                                               {"--timeout", "0", kUrl},
                                               {"-d", "999999999999h", kUrl}}) {
    WrkParse p = parse_wrk_flags(args);
    EXPECT_FALSE(p.ok) << args[0];
    EXPECT_FALSE(p.show_usage) << args[0];
    EXPECT_EQ(p.message.rfind("hail: ", 0), 0u) << p.message;
  }
  // wrk takes any scheme; hail's URL rules are stricter, and say why after wrk's line.
  WrkParse p = parse_wrk_flags({"ftp://127.0.0.1/"});
  EXPECT_FALSE(p.ok);
  EXPECT_TRUE(p.show_usage);
  EXPECT_EQ(p.message.rfind("invalid URL: ftp://127.0.0.1/\nhail: ", 0), 0u) << p.message;
}

TEST(WrkFlags, VersionIsPrintedAndParsingGoesOn) {
  WrkParse p = parse_wrk_flags({"-v", kUrl});
  EXPECT_TRUE(p.ok);
  EXPECT_EQ(p.version_lines, 1);
  p = parse_wrk_flags({"-v"});  // then the usage, as no URL follows
  EXPECT_FALSE(p.ok);
  EXPECT_TRUE(p.show_usage);
  EXPECT_EQ(p.version_lines, 1);
  p = parse_wrk_flags({"-v", "-x", "--version", kUrl});  // stops at -x
  EXPECT_EQ(p.version_lines, 1);
  EXPECT_EQ(p.message, "invalid option -- 'x'");
  p = parse_wrk_flags({"-vL", "--ver", kUrl});
  EXPECT_TRUE(p.ok);
  EXPECT_EQ(p.version_lines, 2);
  EXPECT_TRUE(p.command.latency_distribution);
  EXPECT_EQ(wrk_version_line("1.2.3"), "wrk 4.1.0 (hail 1.2.3) [epoll]\n");
}

TEST(WrkFlags, ScriptAndItsArguments) {
  // GNU getopt moves non-options behind the options: the first is the URL, the rest (and all
  // words after "--") are the script's.
  WrkCommand c = parse_ok({"-s", "a.lua", kUrl, "one", "-c", "4", "two", "--", "-t", "three"});
  EXPECT_EQ(c.run.script_path, "a.lua");
  EXPECT_EQ(c.run.connections, 4u);
  EXPECT_EQ(c.threads, 2u);
  EXPECT_EQ(c.run.script_args, (std::vector<std::string>{"one", "two", "-t", "three"}));
  c = parse_ok({"--script=b.lua", "--", kUrl, "-c", "5"});
  EXPECT_EQ(c.url_text, kUrl);
  EXPECT_EQ(c.connections, 10u);
  EXPECT_EQ(c.run.script_args, (std::vector<std::string>{"-c", "5"}));
  // Without a script wrk ignores the extra words.
  c = parse_ok({kUrl, "extra", "words"});
  EXPECT_TRUE(c.run.script_args.empty());
}

TEST(WrkFlags, HeadersAsWrkReadsThem) {
  WrkCommand c = parse_ok({"-H", "X-A: 1", "-H", "X-B:2", "--header", "X-A: 3", "-H",
                           "Host: example.com", "-H", "x-a: 4", "-H", "NoColon", kUrl});
  ASSERT_EQ(c.run.request.headers.size(), 3u);
  // The same name (exactly) replaces the value; a different case is another header.
  EXPECT_EQ(c.run.request.headers[0], (std::pair<std::string, std::string>{"X-A", "3"}));
  EXPECT_EQ(c.run.request.headers[1], (std::pair<std::string, std::string>{"Host", "example.com"}));
  EXPECT_EQ(c.run.request.headers[2], (std::pair<std::string, std::string>{"x-a", "4"}));
  // wrk drops a header without ": " silently; hail lets the caller warn.
  EXPECT_EQ(c.dropped_headers, (std::vector<std::string>{"X-B:2", "NoColon"}));

  WrkParse p = parse_wrk_flags({"-H", "Bad Name: x", kUrl});
  EXPECT_FALSE(p.ok);
  EXPECT_FALSE(p.show_usage);
  EXPECT_EQ(p.message.rfind("invalid value for -H: ", 0), 0u) << p.message;
}

TEST(WrkFlags, HttpsStaysOnHttp1) {
  WrkCommand c = parse_ok({"https://example.com/"});
  EXPECT_EQ(c.run.url.scheme, "https");
  EXPECT_EQ(c.run.url.port, 443);
  EXPECT_EQ(c.run.protocol, HttpProtocol::kHttp1);
  EXPECT_EQ(c.url_text, "https://example.com/");
}

TEST(WrkUnits, ScanMetricAndTime) {
  struct Scan {
    const char* text;
    bool ok;
    uint64_t value;
  };
  const Scan metric[] = {
      {"0", true, 0},
      {"12", true, 12},
      {"1k", true, 1000},
      {"1K", true, 1000},
      {"3M", true, 3'000'000},
      {"1g", true, 1'000'000'000},
      {"1T", true, 1'000'000'000'000},
      {"2P", true, 2'000'000'000'000'000},
      {"7 k", true, 7000},
      {"7k trailing", true, 7000},  // sscanf stops after two characters
      {"1kk", false, 0},
      {"1x", false, 0},
      {"1.5k", false, 0},
      {"k", false, 0},
      {"", false, 0},
      {"-1", false, 0},
      {"20000P", false, 0},  // beyond 2^64
  };
  for (const Scan& s : metric) {
    uint64_t v = 0;
    EXPECT_EQ(scan_wrk_metric(s.text, &v), s.ok) << s.text;
    if (s.ok) {
      EXPECT_EQ(v, s.value) << s.text;
    }
  }
  const Scan time[] = {
      {"10", true, 10},  {"10s", true, 10},  {"10S", true, 10},    {"2m", true, 120},
      {"2M", true, 120}, {"1h", true, 3600}, {"3 h", true, 10800}, {"500ms", false, 0},
      {"1d", false, 0},  {"1.5m", false, 0}, {"s", false, 0},
  };
  for (const Scan& s : time) {
    uint64_t v = 0;
    EXPECT_EQ(scan_wrk_time_s(s.text, &v), s.ok) << s.text;
    if (s.ok) {
      EXPECT_EQ(v, s.value) << s.text;
    }
  }
}

TEST(WrkFlags, UsageIsWrksByteForByte) {
  const std::string usage = wrk_usage();
  EXPECT_EQ(usage.rfind("Usage: wrk <options> <url>                            \n", 0), 0u);
  // wrk pads every line but the last to 54 columns with spaces.
  size_t start = 0;
  int lines = 0;
  while (start < usage.size()) {
    const size_t end = usage.find('\n', start);
    ASSERT_NE(end, std::string::npos);
    const bool last = end + 1 == usage.size();
    EXPECT_EQ(end - start, last ? 53u : 54u) << usage.substr(start, end - start);
    start = end + 1;
    ++lines;
  }
  EXPECT_EQ(lines, 14);
  EXPECT_TRUE(usage.ends_with("  Time arguments may include a time unit (2s, 2m, 2h)\n"));
}

}  // namespace
}  // namespace hail

namespace hail {
namespace {

TEST(WrkFlags, VerdictFlags) {
  WrkCommand c = parse_ok(
      {"-d", "1", "--slo", "p99<5ms", "--slo=rps>=100", "--slo-abort", "--junit=j.xml", kUrl});
  EXPECT_EQ(c.verdict.slo, (std::vector<std::string>{"p99<5ms", "rps>=100"}));
  EXPECT_TRUE(c.verdict.slo_abort);
  EXPECT_EQ(c.verdict.junit_path, "j.xml");
  EXPECT_GT(c.run.interval_ns, 0u);

  WrkParse bad = parse_wrk_flags({"--slo", "p99<", kUrl});
  EXPECT_FALSE(bad.ok);
  EXPECT_TRUE(bad.hail_usage);
  EXPECT_FALSE(bad.show_usage);
  EXPECT_EQ(bad.message.rfind("hail: --slo \"p99<\"", 0), 0u) << bad.message;
  WrkParse lonely = parse_wrk_flags({"--junit", "j.xml", kUrl});
  EXPECT_FALSE(lonely.ok);
  EXPECT_TRUE(lonely.hail_usage);
  EXPECT_NE(lonely.message.find("--junit needs at least one --slo"), std::string::npos);
  EXPECT_EQ(wrk_usage().find("slo"), std::string::npos);
}

}  // namespace
}  // namespace hail

// wrk2's command line (parse_wrk2_flags): wrk 4.0's rules plus -R (required), -U, -B.
namespace hail {
namespace {

WrkCommand parse2_ok(const std::vector<std::string>& args) {
  WrkParse p = parse_wrk2_flags(args);
  EXPECT_TRUE(p.ok) << p.message;
  return p.command;
}

TEST(Wrk2Flags, DefaultsAreWrksAndTheRateFillsRateMode) {
  const WrkCommand wrk = parse_ok({kUrl});
  const WrkCommand c = parse2_ok({"-R", "2000", kUrl});
  // wrk2 keeps wrk's defaults: 2 threads, 10 connections, 10 s, a 2 s timeout.
  EXPECT_EQ(std::tie(c.threads, c.connections, c.run.connections, c.run.duration_ns,
                     c.run.timeout_ns, c.run.wrk_requests),
            std::tie(wrk.threads, wrk.connections, wrk.run.connections, wrk.run.duration_ns,
                     wrk.run.timeout_ns, wrk.run.wrk_requests));
  EXPECT_EQ(c.rate_per_s, 2000u);
  EXPECT_DOUBLE_EQ(c.run.rate_per_s, 2000.0);
  EXPECT_DOUBLE_EQ(wrk.run.rate_per_s, 0.0);  // wrk: closed loop
  // wrk2's fixed pool: never more connections than -c.
  EXPECT_EQ(c.run.max_connections, 10u);
  EXPECT_FALSE(c.latency_distribution || c.uncorrected_distribution || c.batch_latency);
}

TEST(Wrk2Flags, TheArticlesCommandLine) {
  WrkCommand c = parse2_ok({"-t2", "-c100", "-d30s", "-R2000", "--latency", kUrl});
  EXPECT_EQ(c.run.connections, 100u);
  EXPECT_EQ(c.run.duration_ns, 30 * kSec);
  EXPECT_DOUBLE_EQ(c.run.rate_per_s, 2000.0);
  EXPECT_TRUE(c.latency_distribution);
  EXPECT_FALSE(c.uncorrected_distribution);
}

TEST(Wrk2Flags, RateUnitsAndSpellings) {
  EXPECT_EQ(parse2_ok({"--rate", "2k", kUrl}).rate_per_s, 2000u);
  EXPECT_EQ(parse2_ok({"--rate=1M", kUrl}).rate_per_s, 1'000'000u);
  EXPECT_EQ(parse2_ok({"--ra", "7", kUrl}).rate_per_s, 7u);  // getopt_long's unique prefix
  EXPECT_EQ(parse2_ok({"-R", "3 k", kUrl}).rate_per_s, 3000u);
  // The last -R wins.
  EXPECT_EQ(parse2_ok({"-R", "1", "-R", "5", kUrl}).rate_per_s, 5u);
}

TEST(Wrk2Flags, UncorrectedImpliesLatencyAndBatchIsAccepted) {
  WrkCommand c = parse2_ok({"-U", "-R1", kUrl});
  EXPECT_TRUE(c.latency_distribution);
  EXPECT_TRUE(c.uncorrected_distribution);
  c = parse2_ok({"--u_latency", "--batch_latency", "-R1", kUrl});
  EXPECT_TRUE(c.uncorrected_distribution);
  EXPECT_TRUE(c.batch_latency);
  c = parse2_ok({"-LB", "-R1", kUrl});
  EXPECT_TRUE(c.latency_distribution);
  EXPECT_TRUE(c.batch_latency);
}

TEST(Wrk2Flags, ErrorsAsWrk2ReportsThem) {
  const ErrorCase cases[] = {
      // -R is required: wrk2's message, then its usage, once the URL and -c have passed.
      {{kUrl}, "Throughput MUST be specified with the --rate or -R option", false, true},
      {{"-R", "0", kUrl}, "Throughput MUST be specified with the --rate or -R option", false, true},
      {{"-c", "1", "-t", "2", kUrl}, "number of connections must be >= threads", false, true},
      {{"notaurl"}, "invalid URL: notaurl", false, true},
      {{}, "", false, true},  // no URL: usage alone, even without -R
      // Values scan_metric refuses: usage alone.
      {{"-R", "1.5k", kUrl}, "", false, true},
      {{"-R", "-5", kUrl}, "", false, true},
      {{"-R", "500ms", kUrl}, "", false, true},
      // Usage requests.
      {{"--help"}, "", false, true},
      {{"-r", "-R1", kUrl}, "", false, true},
      {{"-?", "-R1", kUrl}, "", false, true},
      // getopt's messages, with wrk2's table.
      {{"-h", "-R1", kUrl}, "invalid option -- 'h'", true, true},
      {{"-x", "-R1", kUrl}, "invalid option -- 'x'", true, true},
      {{kUrl, "-R"}, "option requires an argument -- 'R'", true, true},
      {{"--u_latency=1", "-R1", kUrl},
       "option '--u_latency' doesn't allow an argument",
       true,
       true},
      {{"--t", "5", "-R1", kUrl},
       "option '--t' is ambiguous; possibilities: '--threads' '--timeout'",
       true,
       true},
      // hail's limits: its own line, no usage.
      {{"-R", "2G", kUrl},
       "hail: -R 2000000000: at most 1000000000 requests per second",
       false,
       false},
  };
  expect_errors(parse_wrk2_flags, cases);
}

TEST(Wrk2Flags, VersionIsPrintedAndParsingGoesOn) {
  WrkParse p = parse_wrk2_flags({"-v", "-R1", kUrl});
  EXPECT_TRUE(p.ok);
  EXPECT_EQ(p.version_lines, 1);
  p = parse_wrk2_flags({"-v", "--version", kUrl});  // then -R's message and the usage
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.version_lines, 2);
  EXPECT_EQ(wrk2_version_line("1.2.3"), "wrk 4.0.0 (wrk2, hail 1.2.3) [epoll]\n");
}

TEST(Wrk2Flags, UsageIsWrk2sByteForByte) {
  const std::string expected =
      "Usage: wrk <options> <url>                            \n"
      "  Options:                                            \n"
      "    -c, --connections <N>  Connections to keep open   \n"
      "    -d, --duration    <T>  Duration of test           \n"
      "    -t, --threads     <N>  Number of threads to use   \n"
      "                                                      \n"
      "    -s, --script      <S>  Load Lua script file       \n"
      "    -H, --header      <H>  Add header to request      \n"
      "    -L  --latency          Print latency statistics   \n"
      "    -U  --u_latency        Print uncorrected latency statistics\n"
      "        --timeout     <T>  Socket/request timeout     \n"
      "    -B, --batch_latency    Measure latency of whole   \n"
      "                           batches of pipelined ops   \n"
      "                           (as opposed to each op)    \n"
      "    -v, --version          Print version details      \n"
      "    -R, --rate        <T>  work rate (throughput)     \n"
      "                           in requests/sec (total)    \n"
      "                           [Required Parameter]       \n"
      "                                                      \n"
      "                                                      \n"
      "  Numeric arguments may include a SI unit (1k, 1M, 1G)\n"
      "  Time arguments may include a time unit (2s, 2m, 2h)\n";
  EXPECT_EQ(wrk2_usage(), expected);
  EXPECT_EQ(wrk2_usage().find("slo"), std::string::npos);
}

TEST(Wrk2Flags, VerdictFlags) {
  WrkCommand c = parse2_ok({"-R1", "--slo", "p99<5ms", "--slo-abort", "--junit=j.xml", kUrl});
  EXPECT_EQ(c.verdict.slo, (std::vector<std::string>{"p99<5ms"}));
  EXPECT_TRUE(c.verdict.slo_abort);
  EXPECT_EQ(c.verdict.junit_path, "j.xml");
  WrkParse bad = parse_wrk2_flags({"--slo", "p99<", "-R1", kUrl});
  EXPECT_FALSE(bad.ok);
  EXPECT_TRUE(bad.hail_usage);
  EXPECT_FALSE(bad.show_usage);
}

TEST(Wrk2Flags, FlagNamesCoverTheTable) {
  std::vector<std::string> names;
  for (const FlagName& f : wrk2_flag_names()) names.push_back(f.name);
  for (const char* name : {"-R", "--rate", "-U", "--u_latency", "-B", "--batch_latency", "-L",
                           "--latency", "--slo", "--slo-abort", "--junit"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  }
}

}  // namespace
}  // namespace hail
