// The plan and annotate steps of a run on their own: how connections, -n and the connection cap
// split over workers (remainders to the first), the staged curve and its steps, window
// boundaries, the load model chosen; and the notes made from merged results.
#include <gtest/gtest.h>

#include <string>

#include "core/clock.h"
#include "core/url.h"
#include "load/load_model.h"
#include "load/run_notes.h"
#include "load/run_plan.h"

namespace hail {
namespace {

constexpr uint64_t kSec = kNsPerSec;

RunOptions options() {
  RunOptions o;
  auto url = parse_url("http://127.0.0.1:9/");
  EXPECT_TRUE(url.ok());
  o.url = url.value();
  o.request.path = "/";
  o.request.authority = o.url.authority();
  return o;
}

TEST(RunPlan, SplitsConnectionsAndRequestsExactly) {
  RunOptions o = options();
  o.connections = 10;
  o.threads = 3;
  o.requests = 1001;
  auto p = plan_run(o);
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->threads, 3u);
  ASSERT_EQ(p->shares.size(), 3u);
  uint64_t connections = 0, requests = 0;
  for (const WorkerShare& s : p->shares) {
    connections += s.connections;
    requests += s.requests;
    EXPECT_EQ(s.max_connections, s.connections);  // closed loop: no extra slots
  }
  EXPECT_EQ(connections, 10u);
  EXPECT_EQ(requests, 1001u);
  EXPECT_EQ(p->shares[0].connections, 4u);  // the first take the remainders
  EXPECT_EQ(p->shares[2].connections, 3u);
  EXPECT_EQ(p->shares[0].requests, 334u);
  EXPECT_EQ(p->shares[2].requests, 333u);
  EXPECT_FALSE(p->open_loop);
}

TEST(RunPlan, AShardLeftWithNothingIsRefusedBeforeThePlan) {
  RunOptions o = options();
  o.connections = 3;
  o.shard = ShardSpec{2, 4, "--shard"};
  EXPECT_TRUE(check_shard_split(o).ok());  // shards 0-2 take one connection each
  o.shard.index = 3;
  ASSERT_FALSE(check_shard_split(o).ok());
  EXPECT_NE(check_shard_split(o).error().message.find("-c 3 split over 4 shards leaves shard 3"),
            std::string::npos);
  EXPECT_FALSE(plan_run(o).ok());  // the plan refuses it the same way
  o.connections = 8;
  o.requests = 3;
  EXPECT_FALSE(check_shard_split(o).ok());  // -n 3 leaves shard 3 none
  o.requests = 4;
  EXPECT_TRUE(check_shard_split(o).ok());
  // Closed-loop stages: the curve's peak is what is split, not -c.
  o.requests = 0;
  o.connections = 1;
  o.stages = {Stage{kSec, 8, false}};
  EXPECT_TRUE(check_shard_split(o).ok());
}

TEST(RunPlan, AutoIoKeepsEpollForManyConnectionsPerWorker) {
  RunOptions o = options();
  o.threads = 1;
  o.connections = kUringAutoMaxConnections + 1;
  auto p = plan_run(o);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->io, IoBackend::kEpoll);
  o.connections = kUringAutoMaxConnections;
  p = plan_run(o);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->io, resolve_io(IoChoice::kAuto).value());  // io_uring where this kernel allows it
}

TEST(RunPlan, RateModeSplitsTheConnectionCapAndIsOpenLoop) {
  RunOptions o = options();
  o.connections = 4;
  o.max_connections = 9;
  o.threads = 2;
  o.rate_per_s = 1000;
  auto p = plan_run(o);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->open_loop);
  EXPECT_EQ(p->max_open, 9u);
  EXPECT_EQ(p->shares[0].connections, 2u);
  EXPECT_EQ(p->shares[0].max_connections, 5u);
  EXPECT_EQ(p->shares[1].max_connections, 4u);
}

TEST(RunPlan, NeverMoreThreadsThanConnections) {
  RunOptions o = options();
  o.connections = 2;
  o.threads = 8;
  auto p = plan_run(o);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->threads, 2u);
  EXPECT_EQ(effective_threads(8, 3), 3u);
}

TEST(RunPlan, ClosedLoopStagesUseThePeakAndAWarmUpHold) {
  RunOptions o = options();
  o.threads = 2;
  o.stages = {{10 * kSec, 6, false}, {5 * kSec, 2, true}};
  o.stages_initial = 1;
  o.warmup_ns = 3 * kSec;
  o.duration_ns = 15 * kSec;
  o.interval_ns = kSec;
  auto p = plan_run(o);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->connections, 6u);  // the curve's peak, not -c
  ASSERT_EQ(p->curve.size(), 3u);
  EXPECT_EQ(p->curve[0].duration_ns, 3 * kSec);  // the warm-up holds the starting value
  EXPECT_TRUE(p->curve[0].hold);
  EXPECT_DOUBLE_EQ(p->curve[0].target, 1);
  ASSERT_EQ(p->steps.size(), 2u);
  EXPECT_EQ(p->steps[1].start_ns, 10 * kSec);
  EXPECT_DOUBLE_EQ(p->steps[0].from, 1);
  EXPECT_DOUBLE_EQ(p->steps[0].to, 6);
  p->start_clock(100 * kSec, 1'700'000'000 * kSec);
  EXPECT_EQ(p->measure_start_ns, 103 * kSec);
  EXPECT_EQ(p->end_ns, 118 * kSec);
  const WindowSettings w = p->windows();
  EXPECT_EQ(w.interval_ns, kSec);
  EXPECT_EQ(w.step_boundaries_ns, (std::vector<uint64_t>{103 * kSec, 113 * kSec, 118 * kSec}));
}

TEST(RunPlan, AGivenLoadModelIsUsed) {
  class Nothing final : public LoadModel {
   public:
    bool open_loop() const override { return true; }
    std::unique_ptr<Pacer> make_pacer(const RunPlan&, const WorkerShare&, PacerHost&,
                                      ThreadScript*) const override {
      return nullptr;
    }
  };
  RunOptions o = options();
  o.load_model = std::make_shared<Nothing>();
  auto p = plan_run(o);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->model, o.load_model);
  EXPECT_TRUE(p->open_loop);
}

TEST(RunPlan, MoreHostsThanConnectionsIsRefused) {
  RunOptions o = options();
  o.connections = 1;
  for (const char* u : {"http://127.0.0.1:9/a", "http://127.0.0.2:9/b"}) {
    MixLine line;
    line.url = parse_url(u).value();
    line.method = "GET";
    line.label = u;
    o.mix.push_back(line);
  }
  auto p = plan_run(o);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("names 2 hosts"), std::string::npos);
}

TEST(RunNotes, FromMergedResults) {
  RunResult r;
  RunFacts f;
  f.authority = "example:80";
  EXPECT_TRUE(run_notes(r, f).empty());
  f.gave_up = true;
  f.threads = 4;
  f.usable_cpus = 2;
  r.max_worker_cpu_utilization = 0.95;
  r.script_error = "x.lua:3: boom";
  auto notes = run_notes(r, f);
  ASSERT_EQ(notes.size(), 4u);
  EXPECT_EQ(notes[0], "no connection to example:80 could be opened; the run stopped early");
  EXPECT_NE(notes[1].find("on CPU 95% of the run"), std::string::npos);
  EXPECT_EQ(notes[2], "a script error stopped the run: x.lua:3: boom");
  EXPECT_EQ(notes[3], "more worker threads (4) than CPU cores (2)");
}

TEST(RunNotes, AMissedRateNamesWhoLimitedIt) {
  RunResult r;
  r.rate_target_per_s = 1000;
  r.duration_ns = kSec;
  r.counters.completed = 500;
  RunFacts f;
  auto server = run_notes(r, f);
  ASSERT_EQ(server.size(), 1u);
  EXPECT_EQ(server[0],
            "target rate not reached: 500 of 1000 req/s; the server, or too few connections "
            "(--max-connections), was the limit");
  r.max_worker_cpu_utilization = 0.99;
  auto hail = run_notes(r, f);
  ASSERT_EQ(hail.size(), 2u);
  EXPECT_NE(hail[1].find("hail's worker threads were the limit"), std::string::npos);
  // A rate kept is not blamed on hail, however busy it was.
  r.counters.completed = 1000;
  EXPECT_TRUE(run_notes(r, f).empty());
  f.script_delay_ignored = true;
  EXPECT_EQ(run_notes(r, f).size(), 1u);
}

}  // namespace
}  // namespace hail
