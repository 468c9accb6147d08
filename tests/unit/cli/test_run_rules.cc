#include <gtest/gtest.h>

#include <string>

#include "cli/run_rules.h"
#include "core/url.h"

namespace hail {
namespace {

RunOptions run_for(const std::string& url) {
  RunOptions run;
  run.url = parse_url(url).value();
  run.request.path = run.url.path;
  run.request.authority = run.url.authority();
  return run;
}

std::string error_of(RunOptions run, const GivenFlags& given) {
  const Status st = validate(run, given);
  return st.ok() ? "" : st.error().message;
}

TEST(RunRules, ImpliedValues) {
  RunOptions run = run_for("http://h/");
  run.request.body = "x";
  run.requests = 10;
  run.threads = 8;
  run.connections = 2;
  GivenFlags given;
  given.body = true;
  given.keep_series = true;
  given.interval_ns = 250'000'000;
  ASSERT_TRUE(validate(run, given).ok());
  EXPECT_EQ(run.request.method, "POST");  // a body without -m
  EXPECT_EQ(run.duration_ns, 0u);         // -n alone has no time limit
  EXPECT_EQ(run.threads, 2u);             // never more threads than connections
  EXPECT_EQ(run.interval_ns, 250'000'000u);
}

TEST(RunRules, GivenDurationAndMethodStay) {
  RunOptions run = run_for("http://h/");
  run.request.method = "PUT";
  run.requests = 10;
  GivenFlags given;
  given.duration = true;
  given.method = true;
  given.body = true;
  ASSERT_TRUE(validate(run, given).ok());
  EXPECT_EQ(run.request.method, "PUT");
  EXPECT_EQ(run.duration_ns, 10'000'000'000u);
  EXPECT_EQ(run.interval_ns, 0u);  // no series kept unless written somewhere
}

TEST(RunRules, HlogKeepsTheSeriesAtTheInterval) {
  RunOptions run = run_for("http://h/");
  GivenFlags given;
  given.hlog = true;  // no --interval: the default
  ASSERT_TRUE(validate(run, given).ok());
  EXPECT_EQ(run.interval_ns, kDefaultIntervalNs);
  RunOptions other = run_for("http://h/");
  given.interval_ns = 100'000'000;
  ASSERT_TRUE(validate(other, given).ok());
  EXPECT_EQ(other.interval_ns, 100'000'000u);
}

TEST(RunRules, StagesSetTheDuration) {
  RunOptions run = run_for("http://h/");
  run.stages = {{1'000'000'000, 10, false}, {2'000'000'000, 10, false}};
  GivenFlags given;
  given.repeat = 2;
  ASSERT_TRUE(validate(run, given).ok());
  EXPECT_EQ(run.stages.size(), 4u);
  EXPECT_EQ(run.duration_ns, 6'000'000'000u);
  EXPECT_EQ(run.stages_initial, 0.0);
  given.duration = true;
  EXPECT_EQ(error_of(run_for("http://h/"), given), "--repeat needs --stages or --ladder");
}

TEST(RunRules, TheFirstBrokenRuleIsReported) {
  RunOptions run = run_for("http://h/");
  run.http09 = true;
  run.protocol = HttpProtocol::kHttp2;
  run.request.method = "POST";
  GivenFlags given;
  given.method = true;
  given.tls_flag = "--sni";
  EXPECT_EQ(error_of(run, given), "--sni applies to https:// URLs only");
  given.tls_flag.clear();
  EXPECT_EQ(error_of(run, given), "--http0.9 and --h2 given together; use one");
  run.protocol = HttpProtocol::kAuto;
  EXPECT_EQ(error_of(run, given), "--http0.9 sends GET requests only (no -m POST)");
  run.script_path = "x.lua";
  EXPECT_EQ(error_of(run, given),
            "--http0.9 and -s given together: scripts send HTTP/1.x requests");
}

TEST(RunRules, RateModeOnly) {
  RunOptions run = run_for("http://h/");
  GivenFlags given;
  given.arrival = true;
  EXPECT_EQ(error_of(run, given), "--arrival and --max-connections only apply to rate mode (-R)");
  run.rate_per_s = 10;
  run.max_connections = 5;
  run.connections = 20;
  EXPECT_EQ(error_of(run, given), "--max-connections (5) is lower than -c (20)");
  run.think_ns = 1;
  EXPECT_EQ(error_of(run, given),
            "--think applies to the closed loop; with -R the rate sets the pacing");
}

// What the other tools' front-ends fill passes: their own rules come first.
TEST(RunRules, OtherToolsSettingsPass) {
  RunOptions wrk = run_for("https://h/");
  wrk.protocol = HttpProtocol::kHttp1;
  wrk.threads = 2;
  wrk.connections = 10;
  GivenFlags given;
  given.duration = true;
  given.connections = true;
  EXPECT_TRUE(validate(wrk, given).ok());
  RunOptions webbench = run_for("http://h/");
  webbench.http09 = true;
  webbench.protocol = HttpProtocol::kHttp1;
  webbench.request.keep_alive = false;
  given.method = true;
  EXPECT_TRUE(validate(webbench, given).ok());
}

TEST(RunRules, CipherLists) {
  TlsClientConfig tls;
  EXPECT_TRUE(check_cipher_lists(tls).ok());
  tls.ciphers = "NO-SUCH-CIPHER";
  EXPECT_FALSE(check_cipher_lists(tls).ok());
  tls.ciphers = "ECDHE-RSA-AES128-GCM-SHA256";
  EXPECT_TRUE(check_cipher_lists(tls).ok());
}

}  // namespace
}  // namespace hail
