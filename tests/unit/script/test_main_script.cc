#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "script/script.h"
#include "script/stats_view.h"
#include "script_test_util.h"
#include "stats/histogram.h"

namespace hail {
namespace {

using script_test::local_target;
using script_test::script_path;
using script_test::TempScript;
using script_test::url_args;

SocketAddress address_of(const char* ip, uint16_t port) {
  auto resolved = resolve(ip, port);
  EXPECT_TRUE(resolved.ok());
  return resolved.ok() && !resolved->empty() ? resolved->front() : SocketAddress{};
}

// wrk's start-up order: per thread, load its state, setup() in the main state, then init().
struct ScriptedRun {
  std::unique_ptr<MainScript> main;
  std::vector<std::unique_ptr<ThreadScript>> threads;
  std::vector<Status> setups;
};

ScriptedRun start(const std::string& path, int thread_count, std::vector<SocketAddress> addrs = {},
                  const std::vector<std::string>& args = url_args()) {
  ScriptedRun run;
  auto main = MainScript::load(path, local_target(), std::move(addrs));
  EXPECT_TRUE(main.ok()) << main.error().message;
  if (!main.ok()) return run;
  run.main = std::move(main).value();
  for (int i = 0; i < thread_count; ++i) {
    auto thread = ThreadScript::load(path, local_target());
    EXPECT_TRUE(thread.ok()) << thread.error().message;
    if (!thread.ok()) return run;
    run.setups.push_back(run.main->setup(**thread, static_cast<uint32_t>(i)));
    if (run.setups.back().ok()) {
      Status init = (*thread)->init(args);
      EXPECT_TRUE(init.ok()) << init.error().message;
    }
    run.threads.push_back(std::move(thread).value());
  }
  return run;
}

std::string request_of(ThreadScript& thread) {
  auto bytes = thread.request();
  EXPECT_TRUE(bytes.ok()) << bytes.error().message;
  return bytes.ok() ? std::string(*bytes) : std::string();
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t end = text.find('\n'); end != std::string::npos; end = text.find('\n', start)) {
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  if (start < text.size()) lines.push_back(text.substr(start));
  return lines;
}

Histogram sample_latency() {
  Histogram histogram;
  for (uint64_t ns : {1500, 2500, 2600, 10'000, 250'000}) histogram.record(ns);
  return histogram;
}

TEST(MainScript, SetupPassesIdsAndDoneReadsThreadGlobals) {
  testing::internal::CaptureStdout();
  ScriptedRun run = start(script_path("setup_ids.lua"), 2);
  ASSERT_EQ(run.threads.size(), 2u);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "thread 1 created\nthread 2 created\n");
  for (int i = 0; i < 3; ++i) request_of(*run.threads[0]);
  request_of(*run.threads[1]);
  ASSERT_TRUE(run.threads[0]->response(200, nullptr, 0, "").ok());
  ASSERT_TRUE(run.main->has_done());
  Histogram empty;
  HistogramStatsView stats(empty, 1);
  testing::internal::CaptureStdout();
  Status done = run.main->done(ScriptSummary{}, stats, stats);
  EXPECT_EQ(testing::internal::GetCapturedStdout(),
            "thread 1 made 3 requests and got 1 responses\n"
            "thread 2 made 1 requests and got 0 responses\n");
  EXPECT_TRUE(done.ok()) << done.error().message;
}

TEST(MainScript, GetAndSetCopyValuesAndTables) {
  ScriptedRun run = start(script_path("transfer.lua"), 1);
  ASSERT_EQ(run.threads.size(), 1u);
  EXPECT_EQ(request_of(*run.threads[0]),
            R"({["count"]=42.5,["flag"]=true,["name"]="a<NUL>b",["nested"]={["outer"]=)"
            R"({["inner"]={["leaf"]="deep"}},[1]="first",[2]=2,[true]="yes"},["off"]=false})");
  Histogram empty;
  HistogramStatsView stats(empty, 1);
  testing::internal::CaptureStdout();
  Status done = run.main->done(ScriptSummary{}, stats, stats);
  const std::string output = testing::internal::GetCapturedStdout();
  ASSERT_TRUE(done.ok()) << done.error().message;
  EXPECT_EQ(output.substr(0, output.find("false\t")),
            "{[\"from\"]=\"thread\",[\"list\"]={[1]=1,[2]=2,[3]=3},[2.5]=false}\nnil\n");
  EXPECT_NE(output.find("false\tcannot transfer 'function' to thread"), std::string::npos)
      << output;
}

TEST(MainScript, UntransferableValuesAreLuaErrors) {
  TempScript file(R"(
function setup(thread)
  if thread:get("kind") == nil then end
  local loop = {}
  loop.self = loop
  thread:set("loop", loop)
end)");
  ScriptedRun run = start(file.path(), 1);
  ASSERT_EQ(run.setups.size(), 1u);
  ASSERT_FALSE(run.setups[0].ok());
  EXPECT_EQ(
      run.setups[0].error().message.rfind(file.path() + ":6: cannot transfer tables nested", 0), 0u)
      << run.setups[0].error().message;

  TempScript function_value("function setup(thread) thread:set('f', print) end");
  run = start(function_value.path(), 1);
  ASSERT_FALSE(run.setups[0].ok());
  EXPECT_EQ(run.setups[0].error().message,
            function_value.path() + ":1: cannot transfer 'function' to thread");
}

TEST(MainScript, ThreadAddressDefaultsToTheFirstAndSetupMayChooseAnother) {
  const std::vector<SocketAddress> addrs = {address_of("127.0.0.1", 8080),
                                            address_of("127.0.0.2", 9090)};
  ScriptedRun run = start("", 1, addrs);
  ASSERT_EQ(run.threads.size(), 1u);
  ASSERT_TRUE(run.threads[0]->address().has_value());
  EXPECT_EQ(run.threads[0]->address()->to_string(), "127.0.0.1:8080");

  TempScript file(R"(
function setup(thread)
  print(#wrk.addrs, tostring(thread.addr))
  thread.addr = wrk.addrs[2]
  print(tostring(thread.addr), type(thread.nothing))
end)");
  testing::internal::CaptureStdout();
  run = start(file.path(), 1, addrs);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "2\t127.0.0.1:8080\n127.0.0.2:9090\tnil\n");
  ASSERT_EQ(run.threads.size(), 1u);
  EXPECT_EQ(run.threads[0]->address()->to_string(), "127.0.0.2:9090");
  EXPECT_EQ(run.threads[0]->index(), 0u);

  run = start("", 1, {});  // no TCP address (a Unix socket run): thread.addr stays nil
  ASSERT_EQ(run.threads.size(), 1u);
  EXPECT_TRUE(run.setups[0].ok()) << run.setups[0].error().message;
  EXPECT_FALSE(run.threads[0]->address().has_value());
}

TEST(MainScript, StopFromSetupAndFromTheThread) {
  TempScript file("function setup(thread) if thread:get('id') == nil then thread:stop() end end");
  ScriptedRun run = start(file.path(), 2);
  ASSERT_EQ(run.threads.size(), 2u);
  EXPECT_TRUE(run.threads[0]->stop_requested());
  EXPECT_TRUE(run.threads[1]->stop_requested());

  run = start(script_path("stop_after.lua"), 1, {}, {"u", "3"});
  ASSERT_EQ(run.threads.size(), 1u);
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(run.threads[0]->response(200, nullptr, 0, "").ok());
  EXPECT_FALSE(run.threads[0]->stop_requested());
  ASSERT_TRUE(run.threads[0]->response(200, nullptr, 0, "").ok());
  EXPECT_TRUE(run.threads[0]->stop_requested());
}

TEST(MainScript, LookupGivesAddrObjectsPrintedAsWrkDoes) {
  TempScript file(R"(
local function show(list)
  local out = {}
  for i = 1, #list do out[i] = tostring(list[i]) end
  return table.concat(out, " ")
end
print(show(wrk.lookup("127.0.0.1", "8080")))
print(show(wrk.lookup("::1", "8080")))
print(show(wrk.lookup("localhost", "8080")))
print(pcall(wrk.lookup, "127.0.0.1", "no-such-service-hail"))
)");
  testing::internal::CaptureStdout();
  auto main = MainScript::load(file.path(), local_target(), {});
  const std::string output = testing::internal::GetCapturedStdout();
  ASSERT_TRUE(main.ok()) << main.error().message;
  const std::vector<std::string> lines = split_lines(output);
  ASSERT_EQ(lines.size(), 4u) << output;
  EXPECT_EQ(lines[0], "127.0.0.1:8080");
  EXPECT_EQ(lines[1], "::1:8080");  // IPv6 without brackets, as wrk's getnameinfo "%s:%s"
  EXPECT_TRUE(lines[2].find("127.0.0.1:8080") != std::string::npos ||
              lines[2].find("::1:8080") != std::string::npos)
      << lines[2];
  EXPECT_EQ(lines[3].rfind("false\tunable to resolve 127.0.0.1:no-such-service-hail", 0), 0u)
      << lines[3];
}

TEST(MainScript, ConnectTellsWhetherTheAddressAccepts) {
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in bound{};
  bound.sin_family = AF_INET;
  bound.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&bound), sizeof bound), 0);
  ASSERT_EQ(listen(listener, 8), 0);
  socklen_t length = sizeof bound;
  ASSERT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&bound), &length), 0);
  const std::string port = std::to_string(ntohs(bound.sin_port));

  TempScript file(R"(
function init(args)
  result = tostring(wrk.connect(wrk.lookup("127.0.0.1", args[1])[1]))
end
function request() return result end)");
  auto probe = [&] {
    auto thread = ThreadScript::load(file.path(), local_target());
    EXPECT_TRUE(thread.ok());
    if (!thread.ok()) return std::string();
    EXPECT_TRUE((*thread)->init({"u", port}).ok());
    return request_of(**thread);
  };
  EXPECT_EQ(probe(), "true");
  close(listener);
  EXPECT_EQ(probe(), "false");
}

std::string format_g(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

TEST(MainScript, DoneGetsTheSummaryAndStatistics) {
  ScriptedRun run = start(script_path("stats_done.lua"), 1);
  ASSERT_TRUE(run.main->has_done());
  const Histogram latency_ns = sample_latency();
  Histogram rates;
  rates.record(900);
  rates.record(1100);
  const HistogramStatsView latency(latency_ns, 1000);
  const HistogramStatsView requests(rates, 1);
  ScriptSummary summary{10'000'000, 5, 1234, 1, 2, 3, 4, 5};
  testing::internal::CaptureStdout();
  Status done = run.main->done(summary, latency, requests);
  const std::string output = testing::internal::GetCapturedStdout();
  ASSERT_TRUE(done.ok()) << done.error().message;

  std::string expected = "summary 10000000 5 1234\nerrors 1 2 3 4 5\n";
  expected += "latency 1 250 " + format_g(latency.mean()) + " " + format_g(latency.stdev()) + "\n";
  expected += "p50 2 p99 250 count 4\n";
  expected += "value 1 1\nvalue 2 2\nvalue 10 1\nvalue 250 1\n";
  expected += "outside 0 4\n";
  expected += "requests 900 1100 2\n";
  expected += "unknown nil\n";
  EXPECT_EQ(output, expected);

  testing::internal::CaptureStdout();  // the objects kept from the first call are dead now
  done = run.main->done(summary, latency, requests);
  const std::string after = testing::internal::GetCapturedStdout();
  // The script caught the error with pcall: Lua itself positioned it, naming the file as LuaJIT
  // does (a long path keeps only its tail, behind "...").
  const std::string path = script_path("stats_done.lua");
  const std::string tail = ":8: statistics are only available during done()\n";
  ASSERT_GT(after.size(), std::string("after: ").size() + tail.size());
  EXPECT_EQ(after.rfind("after: ", 0), 0u) << after;
  EXPECT_EQ(after.substr(after.size() - tail.size()), tail);
  std::string name = after.substr(7, after.size() - 7 - tail.size());
  if (name.rfind("...", 0) == 0) name.erase(0, 3);
  ASSERT_LE(name.size(), path.size());
  EXPECT_EQ(path.substr(path.size() - name.size()), name) << after;
}

TEST(MainScript, ReportScriptWritesPercentilesWithIoWrite) {
  ScriptedRun run = start(script_path("report_csv.lua"), 1);
  const Histogram latency_ns = sample_latency();
  const HistogramStatsView latency(latency_ns, 1000);
  testing::internal::CaptureStdout();
  Status done = run.main->done(ScriptSummary{}, latency, latency);
  const std::string output = testing::internal::GetCapturedStdout();
  ASSERT_TRUE(done.ok()) << done.error().message;
  EXPECT_EQ(output, "percentile,latency_us\n50,2\n90,250\n99,250\n99.999,250\n");
}

TEST(MainScript, NoDoneFunctionAndErrorsInDone) {
  ScriptedRun run = start("", 1);
  EXPECT_FALSE(run.main->has_done());
  TempScript file("function done(summary)\n  return summary.missing.field\nend\n");
  run = start(file.path(), 1);
  Histogram empty;
  HistogramStatsView stats(empty, 1);
  Status done = run.main->done(ScriptSummary{}, stats, stats);
  ASSERT_FALSE(done.ok());
  EXPECT_EQ(done.error().message.rfind(file.path() + ":2: attempt to index", 0), 0u)
      << done.error().message;
}

TEST(MainScript, ThreadObjectsOutlivingTheirThreadRaiseInsteadOfCrashing) {
  testing::internal::CaptureStdout();
  ScriptedRun run = start(script_path("setup_ids.lua"), 2);
  testing::internal::GetCapturedStdout();
  ASSERT_EQ(run.threads.size(), 2u);
  run.threads.clear();
  Histogram empty;
  HistogramStatsView stats(empty, 1);
  Status done = run.main->done(ScriptSummary{}, stats, stats);
  ASSERT_FALSE(done.ok());
  EXPECT_NE(done.error().message.find("no longer exists"), std::string::npos)
      << done.error().message;
}

TEST(MainScript, AddrsAreSetAfterTheTopLevelRuns) {
  TempScript file("print(tostring(wrk.addrs))\nfunction setup(t) print(#wrk.addrs) end\n");
  testing::internal::CaptureStdout();
  ScriptedRun run = start(file.path(), 1, {address_of("127.0.0.1", 80)});
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "nil\nnil\n1\n");
}

}  // namespace
}  // namespace hail
