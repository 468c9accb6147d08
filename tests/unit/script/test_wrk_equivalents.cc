#include <arpa/inet.h>
#include <dirent.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "script/request_count.h"
#include "script/script.h"
#include "script/stats_view.h"
#include "script_test_util.h"
#include "stats/histogram.h"
#include "unit/support/loopback_listener.h"

namespace hail {
namespace {

using script_test::local_target;
using script_test::parse_request;
using script_test::script_path;

// A loopback listener on an ephemeral port (wrk.connect and addr.lua-style scripts need one).
using Listener = test::LoopbackListener;

// The lead's start-up sequence, as wrk's main(): per thread load, setup() in the main state,
// init(), and on thread 0 one request() whose requests are counted (wrk's verify call).
struct ScriptedRun {
  std::unique_ptr<MainScript> main;
  std::vector<std::unique_ptr<ThreadScript>> threads;
  size_t pipeline = 0;
  std::string error;
};

ScriptedRun start(const std::string& path, const ScriptTarget& target,
                  std::vector<SocketAddress> addrs, int thread_count,
                  const std::vector<std::string>& args) {
  ScriptedRun run;
  auto main = MainScript::load(path, target, std::move(addrs));
  if (!main.ok()) {
    run.error = main.error().message;
    return run;
  }
  run.main = std::move(main).value();
  for (int i = 0; i < thread_count; ++i) {
    auto thread = ThreadScript::load(path, target);
    if (!thread.ok()) {
      run.error = thread.error().message;
      return run;
    }
    Status status = run.main->setup(**thread, static_cast<uint32_t>(i));
    if (status.ok()) status = (*thread)->init(args);
    if (!status.ok()) {
      run.error = status.error().message;
      return run;
    }
    if (i == 0) {
      auto first = (*thread)->request();
      if (!first.ok()) {
        run.error = first.error().message;
        return run;
      }
      auto counted = count_requests(*first);
      if (!counted.ok()) {
        run.error = counted.error().message;
        return run;
      }
      run.pipeline = *counted;
    }
    run.threads.push_back(std::move(thread).value());
  }
  return run;
}

ScriptedRun start(const std::string& path, int thread_count = 1) {
  return start(path, local_target(), {}, thread_count, {"http://127.0.0.1:8080/"});
}

std::string request_of(ThreadScript& thread) {
  auto bytes = thread.request();
  EXPECT_TRUE(bytes.ok()) << bytes.error().message;
  return bytes.ok() ? std::string(*bytes) : std::string();
}

TEST(WrkEquivalents, CounterChangesPathAndHeaderPerThread) {
  ScriptedRun run = start(script_path("counter_paths.lua"), 2);
  ASSERT_EQ(run.error, "");
  EXPECT_EQ(run.pipeline, 1u);
  ThreadScript& first = *run.threads[0];
  EXPECT_FALSE(first.is_static());
  // The counting call consumed "/0" on thread 0, exactly as wrk's verify call does.
  auto request = parse_request(request_of(first));
  EXPECT_EQ(request.request_line, "GET /1 HTTP/1.1");
  EXPECT_EQ(request.headers["X-Counter"], std::vector<std::string>{"1"});
  EXPECT_EQ(parse_request(request_of(first)).request_line, "GET /2 HTTP/1.1");
  request = parse_request(request_of(*run.threads[1]));
  EXPECT_EQ(request.request_line, "GET /0 HTTP/1.1");
  EXPECT_EQ(request.headers["X-Counter"], std::vector<std::string>{"0"});
}

TEST(WrkEquivalents, PipelineSendsThreeRequestsPerWrite) {
  ScriptedRun run = start(script_path("pipeline_three.lua"));
  ASSERT_EQ(run.error, "");
  EXPECT_EQ(run.pipeline, 3u);
  const std::string bytes = request_of(*run.threads[0]);
  size_t at = 0;
  for (const char* line : {"GET /?one HTTP/1.1", "GET /?two HTTP/1.1", "GET /?three HTTP/1.1"}) {
    at = bytes.find(line, at);
    ASSERT_NE(at, std::string::npos) << line;
  }
}

TEST(WrkEquivalents, PostSetsMethodBodyAndContentLength) {
  ScriptedRun run = start(script_path("post_form.lua"));
  ASSERT_EQ(run.error, "");
  EXPECT_EQ(run.pipeline, 1u);
  EXPECT_TRUE(run.threads[0]->is_static());
  const auto request = parse_request(request_of(*run.threads[0]));
  EXPECT_EQ(request.request_line, "POST / HTTP/1.1");
  EXPECT_EQ(request.body, "name=hail&kind=load+generator");
  EXPECT_EQ(request.headers.at("Content-Length"),
            std::vector<std::string>{std::to_string(request.body.size())});
  EXPECT_EQ(request.headers.at("Content-Type"),
            std::vector<std::string>{"application/x-www-form-urlencoded"});
  EXPECT_EQ(request.headers.at("Host"), std::vector<std::string>{"127.0.0.1:8080"});
}

TEST(WrkEquivalents, AuthKeepsTheTokenFromAResponseHeader) {
  ScriptedRun run = start(script_path("auth_token.lua"));
  ASSERT_EQ(run.error, "");
  ThreadScript& thread = *run.threads[0];
  ASSERT_TRUE(thread.wants_response());
  EXPECT_EQ(parse_request(request_of(thread)).request_line, "GET /login HTTP/1.1");
  const ScriptResponseHeader refused[] = {{"X-Token", "wrong"}};
  ASSERT_TRUE(thread.response(500, refused, 1, "").ok());
  EXPECT_EQ(parse_request(request_of(thread)).request_line, "GET /login HTTP/1.1");
  const ScriptResponseHeader granted[] = {{"Content-Length", "0"}, {"X-Token", "s3cret"}};
  ASSERT_TRUE(thread.response(200, granted, 2, "").ok());
  const auto request = parse_request(request_of(thread));
  EXPECT_EQ(request.request_line, "GET /private HTTP/1.1");
  EXPECT_EQ(request.headers.at("X-Token"), std::vector<std::string>{"s3cret"});
}

TEST(WrkEquivalents, StopAfterOneHundredResponses) {
  ScriptedRun run = start(script_path("stop_after.lua"));
  ASSERT_EQ(run.error, "");
  ThreadScript& thread = *run.threads[0];
  for (int i = 1; i < 100; ++i) ASSERT_TRUE(thread.response(200, nullptr, 0, "").ok());
  EXPECT_FALSE(thread.stop_requested());
  ASSERT_TRUE(thread.response(200, nullptr, 0, "").ok());
  EXPECT_TRUE(thread.stop_requested());
}

TEST(WrkEquivalents, DelayIsBetweenTenAndFiftyMilliseconds) {
  ScriptedRun run = start(script_path("random_delay.lua"));
  ASSERT_EQ(run.error, "");
  ThreadScript& thread = *run.threads[0];
  ASSERT_TRUE(thread.has_delay());
  EXPECT_TRUE(thread.is_static());
  for (int i = 0; i < 200; ++i) {
    auto delay = thread.delay_ms();
    ASSERT_TRUE(delay.ok());
    EXPECT_GE(*delay, 10);
    EXPECT_LE(*delay, 50);
  }
}

TEST(WrkEquivalents, AddrPicksAReachableAddressPerThread) {
  Listener listener;
  ScriptTarget target = local_target();
  target.port = std::to_string(listener.port());
  auto addrs = resolve("127.0.0.1", listener.port());
  ASSERT_TRUE(addrs.ok());
  testing::internal::CaptureStdout();
  ScriptedRun run = start(script_path("addr_pick.lua"), target, *addrs, 2, {"http://127.0.0.1/"});
  const std::string output = testing::internal::GetCapturedStdout();
  ASSERT_EQ(run.error, "");
  const std::string expected = "thread addr: 127.0.0.1:" + target.port + "\n";
  EXPECT_EQ(output, expected + expected);
  for (const auto& thread : run.threads) {
    ASSERT_TRUE(thread->address().has_value());
    EXPECT_EQ(thread->address()->to_string(), "127.0.0.1:" + target.port);
  }
}

// After start-up each state belongs to its worker: states share nothing, so workers may run
// their scripts at the same time.
TEST(WrkEquivalents, ThreadStatesRunConcurrently) {
  ScriptedRun run = start(script_path("counter_paths.lua"), 4);
  ASSERT_EQ(run.error, "");
  std::vector<std::string> last(run.threads.size());
  std::vector<std::thread> workers;
  for (size_t i = 0; i < run.threads.size(); ++i) {
    workers.emplace_back([&, i] {
      for (int n = 0; n < 20'000; ++n) {
        auto bytes = run.threads[i]->request();
        if (!bytes.ok()) return;
        last[i] = std::string(*bytes);
        (void)run.threads[i]->response(200, nullptr, 0, "");
      }
    });
  }
  for (auto& worker : workers) worker.join();
  // Thread 0's counting call took "/0" before the run.
  EXPECT_EQ(parse_request(last[0]).request_line, "GET /20000 HTTP/1.1");
  for (size_t i = 1; i < last.size(); ++i) {
    EXPECT_EQ(parse_request(last[i]).request_line, "GET /19999 HTTP/1.1");
  }
}

// Every real wrk script (HAIL_WRK_SCRIPTS_DIR, else the ones Debian's wrk package ships, which
// ./run installs) through the whole sequence: start-up, requests, responses, delays, done().
// Skipped when neither exists.
TEST(WrkEquivalents, RealWrkScriptsRunUnchanged) {
  const char* dir = std::getenv("HAIL_WRK_SCRIPTS_DIR");
  if (dir == nullptr && access("/usr/share/doc/wrk/examples/scripts", R_OK) == 0) {
    dir = "/usr/share/doc/wrk/examples/scripts";
  }
  if (dir == nullptr) GTEST_SKIP() << "HAIL_WRK_SCRIPTS_DIR not set and wrk is not installed";
  std::vector<std::string> names;
  if (DIR* listing = opendir(dir)) {
    while (const dirent* entry = readdir(listing)) {
      const std::string name = entry->d_name;
      if (name.size() > 4 && name.substr(name.size() - 4) == ".lua") names.push_back(name);
    }
    closedir(listing);
  }
  std::sort(names.begin(), names.end());
  ASSERT_FALSE(names.empty());
  Listener listener;
  ScriptTarget target = local_target();
  target.port = std::to_string(listener.port());
  auto addrs = resolve("127.0.0.1", listener.port());
  ASSERT_TRUE(addrs.ok());
  Histogram latency_ns;
  for (uint64_t i = 1; i <= 1000; ++i) latency_ns.record(i * 1000);
  const HistogramStatsView latency(latency_ns, 1000);
  for (const std::string& name : names) {
    testing::internal::CaptureStdout();
    ScriptedRun run =
        start(std::string(dir) + "/" + name, target, *addrs, 2, {"http://127.0.0.1/"});
    std::string problem = run.error;
    const ScriptResponseHeader headers[] = {{"X-Token", "t"}};
    for (auto& thread : run.threads) {
      for (int i = 0; i < 150 && problem.empty() && !thread->stop_requested(); ++i) {
        auto bytes = thread->request();
        if (!bytes.ok()) problem = bytes.error().message;
        if (problem.empty() && thread->wants_response()) {
          Status status = thread->response(200, headers, 1, "body");
          if (!status.ok()) problem = status.error().message;
        }
        if (problem.empty() && thread->has_delay()) {
          auto delay = thread->delay_ms();
          if (!delay.ok()) problem = delay.error().message;
        }
      }
    }
    if (problem.empty() && run.main->has_done()) {
      ScriptSummary summary;
      summary.duration_us = 1'000'000;
      summary.requests = 300;
      summary.bytes = 3000;
      Status done = run.main->done(summary, latency, latency);
      if (!done.ok()) problem = done.error().message;
    }
    const std::string output = testing::internal::GetCapturedStdout();
    EXPECT_EQ(problem, "") << name;
    std::printf("%s: pipeline %zu, output:\n%s", name.c_str(), run.pipeline, output.c_str());
  }
}

}  // namespace
}  // namespace hail
