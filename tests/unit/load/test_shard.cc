// Execution shards: --shard and --start-at parsing, the launchers' environment table, and the
// central promise — the union of every shard's plan (each shard split again over its own number
// of threads) is exactly the single process's plan: fixed and Poisson arrivals, rate stages, -n,
// connections, and request mixes.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/url.h"
#include "load/run_plan.h"
#include "load/schedule.h"
#include "load/shard.h"
#include "load/url_mix.h"

namespace hail {
namespace {

constexpr uint64_t kT0 = 1'000'000'000;

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(ParseShard, AcceptsIndexBelowCount) {
  auto s = parse_shard("3/4");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->index, 3u);
  EXPECT_EQ(s->count, 4u);
  EXPECT_EQ(s->source, "--shard");
  EXPECT_TRUE(parse_shard("0/1").ok());
  EXPECT_FALSE(parse_shard("0/1")->sharded());
  for (const char* bad : {"4/4", "1", "/4", "1/", "a/4", "1/0", "-1/4", "1/100001", "1/4/5"}) {
    auto r = parse_shard(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find("--shard"), std::string::npos) << r.error().message;
  }
}

struct EnvCase {
  std::map<std::string, std::string> vars;
  uint32_t shards;  // --shards
  bool ok;
  bool found;
  uint32_t index, count;
  const char* source;
};

TEST(DetectShard, EngineTable) {
  const std::vector<EnvCase> cases = {
      {{}, 0, true, false, 0, 1, ""},
      {{{"OMPI_COMM_WORLD_RANK", "2"}, {"OMPI_COMM_WORLD_SIZE", "4"}},
       0,
       true,
       true,
       2,
       4,
       "Open MPI"},
      {{{"PMI_RANK", "1"}, {"PMI_SIZE", "3"}}, 0, true, true, 1, 3, "PMI"},
      {{{"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "8"}}, 0, true, true, 5, 8, "Slurm"},
      {{{"JOB_COMPLETION_INDEX", "3"}}, 6, true, true, 3, 6, "Kubernetes"},
      {{{"JOB_COMPLETION_INDEX", "3"}, {"HAIL_SHARDS", "5"}}, 0, true, true, 3, 5, "Kubernetes"},
      // --shards wins over HAIL_SHARDS.
      {{{"JOB_COMPLETION_INDEX", "3"}, {"HAIL_SHARDS", "5"}}, 7, true, true, 3, 7, "Kubernetes"},
      // Open MPI first: srun under mpirun, or PMI set alongside.
      {{{"OMPI_COMM_WORLD_RANK", "0"},
        {"OMPI_COMM_WORLD_SIZE", "2"},
        {"SLURM_PROCID", "1"},
        {"SLURM_NTASKS", "4"}},
       0,
       true,
       true,
       0,
       2,
       "Open MPI"},
      {{{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}, {"SLURM_PROCID", "3"}, {"SLURM_NTASKS", "4"}},
       0,
       true,
       true,
       1,
       2,
       "PMI"},
      // Errors: a rank without a size, an index beyond the count, garbage, no Kubernetes count.
      {{{"SLURM_PROCID", "1"}}, 0, false, false, 0, 0, ""},
      {{{"SLURM_PROCID", "4"}, {"SLURM_NTASKS", "4"}}, 0, false, false, 0, 0, ""},
      {{{"OMPI_COMM_WORLD_RANK", "x"}, {"OMPI_COMM_WORLD_SIZE", "4"}}, 0, false, false, 0, 0, ""},
      {{{"PMI_RANK", "0"}, {"PMI_SIZE", "0"}}, 0, false, false, 0, 0, ""},
      {{{"JOB_COMPLETION_INDEX", "0"}}, 0, false, false, 0, 0, ""},
      {{{"JOB_COMPLETION_INDEX", "6"}}, 6, false, false, 0, 0, ""},
      {{{"JOB_COMPLETION_INDEX", "1"}, {"HAIL_SHARDS", "many"}}, 0, false, false, 0, 0, ""},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const EnvCase& c = cases[i];
    auto r = detect_shard(env_of(c.vars), c.shards);
    ASSERT_EQ(r.ok(), c.ok) << "case " << i;
    if (!r.ok()) {
      EXPECT_FALSE(r.error().message.empty());
      continue;
    }
    ASSERT_EQ(r.value().has_value(), c.found) << "case " << i;
    if (!c.found) continue;
    EXPECT_EQ(r.value()->index, c.index) << "case " << i;
    EXPECT_EQ(r.value()->count, c.count) << "case " << i;
    EXPECT_EQ(r.value()->source, c.source) << "case " << i;
  }
}

TEST(ParseStartAt, UnixSecondsAndRfc3339) {
  const EnvLookup none = env_of({});
  EXPECT_EQ(parse_start_at("1767225600", none).value(), 1767225600ull * kNsPerSec);
  EXPECT_EQ(parse_start_at("1767225600.25", none).value(), 1767225600ull * kNsPerSec + 250'000'000);
  // 2026-01-01T00:00:00Z is 1767225600.
  EXPECT_EQ(parse_start_at("2026-01-01T00:00:00Z", none).value(), 1767225600ull * kNsPerSec);
  EXPECT_EQ(parse_start_at("2026-01-01T01:30:00.5+01:30", none).value(),
            1767225600ull * kNsPerSec + 500'000'000);
  EXPECT_EQ(parse_start_at("2025-12-31T23:00:00-01:00", none).value(), 1767225600ull * kNsPerSec);
  EXPECT_EQ(parse_start_at("2024-02-29T12:00:00Z", none).value(), 1709208000ull * kNsPerSec);
  for (const char* bad : {"", "soon", "2026-01-01T00:00:00", "2026-02-30T00:00:00Z",
                          "2025-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-01-01T24:00:00Z",
                          "12.5.3", "1e9", "+5s", "+", "99999999999999999999"}) {
    auto r = parse_start_at(bad, none);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find("--start-at"), std::string::npos);
  }
}

TEST(ParseStartAt, OffsetFromTheLaunchersReference) {
  EXPECT_EQ(parse_start_at("+30s", env_of({{"HAIL_START_REF", "1767225600"}})).value(),
            1767225630ull * kNsPerSec);
  EXPECT_EQ(parse_start_at("+1m", env_of({{"HAIL_START_REF", "2026-01-01T00:00:00Z"}})).value(),
            1767225660ull * kNsPerSec);
  // Slurm's job start when HAIL_START_REF is not set; HAIL_START_REF wins when both are.
  EXPECT_EQ(parse_start_at("+20s", env_of({{"SLURM_JOB_START_TIME", "1767225600"}})).value(),
            1767225620ull * kNsPerSec);
  EXPECT_EQ(parse_start_at(
                "+0s", env_of({{"SLURM_JOB_START_TIME", "1"}, {"HAIL_START_REF", "1767225600"}}))
                .value(),
            1767225600ull * kNsPerSec);
  EXPECT_FALSE(parse_start_at("+5s", env_of({{"HAIL_START_REF", "yesterday"}})).ok());
  EXPECT_FALSE(parse_start_at("+5 parsecs", env_of({{"HAIL_START_REF", "1"}})).ok());
}

// One shard's workers, as RunPlan::slice gives them: slice i + N*w of N*T.
std::vector<WorkerSlice> slices_of(uint32_t shard, uint32_t shards, uint32_t threads) {
  std::vector<WorkerSlice> out;
  for (uint32_t w = 0; w < threads; ++w) {
    out.push_back(WorkerSlice{shard + uint64_t{shards} * w, uint64_t{shards} * threads});
  }
  return out;
}

// Every planned time of a schedule, up to `max`.
template <typename Make>
std::vector<uint64_t> plan_of(Make make, WorkerSlice slice, size_t max) {
  RateSchedule s = make(slice);
  std::vector<uint64_t> times;
  while (s.next_planned_ns() != kNoMoreRequests && times.size() < max) {
    times.push_back(s.next_planned_ns());
    s.advance();
  }
  return times;
}

// The union of the plans of 3 shards running 2, 1 and 3 threads, cut at `until`, against the
// single process's plan (1 shard, 1 thread) cut there too.
template <typename Make>
void expect_union_is_single_plan(Make make, uint64_t until) {
  const size_t kMax = 1'000'000;
  std::vector<uint64_t> single = plan_of(make, WorkerSlice{0, 1}, kMax);
  std::erase_if(single, [&](uint64_t t) { return t >= until; });
  ASSERT_GT(single.size(), 100u);
  const uint32_t threads_of[] = {2, 1, 3};
  std::vector<uint64_t> all;
  for (uint32_t shard = 0; shard < 3; ++shard) {
    for (WorkerSlice slice : slices_of(shard, 3, threads_of[shard])) {
      for (uint64_t t : plan_of(make, slice, kMax)) {
        if (t < until) all.push_back(t);
      }
    }
  }
  std::sort(all.begin(), all.end());
  ASSERT_EQ(all.size(), single.size());
  EXPECT_TRUE(all == single);
}

TEST(ShardPlans, FixedRateUnionIsTheSinglePlan) {
  expect_union_is_single_plan(
      [](WorkerSlice slice) {
        return RateSchedule(4000, kT0, {Arrival::kFixed, slice});
      },
      kT0 + 5 * kNsPerSec);
}

TEST(ShardPlans, PoissonUnionIsTheSinglePlanFromOneSeed) {
  expect_union_is_single_plan(
      [](WorkerSlice slice) {
        return RateSchedule(4000, kT0, {Arrival::kPoisson, slice}, std::mt19937_64(2026));
      },
      kT0 + 5 * kNsPerSec);
}

StageCurve curve(const char* text) {
  auto stages = parse_stages(text);
  EXPECT_TRUE(stages.ok());
  return StageCurve(stages.value(), 100);
}

TEST(ShardPlans, RateStagesUnionIsTheSinglePlan) {
  for (Arrival arrival : {Arrival::kFixed, Arrival::kPoisson}) {
    expect_union_is_single_plan(
        [arrival](WorkerSlice slice) {
          return RateSchedule(curve("2s:3000,1s:3000,2s:0"), kT0, {arrival, slice},
                              std::mt19937_64(7));
        },
        UINT64_MAX);
  }
}

TEST(ShardPlans, RequestCountUnionIsTheFirstNOfTheSinglePlan) {
  for (uint64_t n : {1000ull, 1001ull, 7ull}) {
    std::vector<uint64_t> single = plan_of(
        [n](WorkerSlice s) {
          return RateSchedule(500, kT0, {Arrival::kFixed, s, n});
        },
        WorkerSlice{0, 1}, 10'000);
    ASSERT_EQ(single.size(), n);
    std::vector<uint64_t> all;
    const uint32_t threads_of[] = {2, 1, 3};
    for (uint32_t shard = 0; shard < 3; ++shard) {
      for (WorkerSlice slice : slices_of(shard, 3, threads_of[shard])) {
        auto part = plan_of(
            [n](WorkerSlice s) {
              return RateSchedule(500, kT0, {Arrival::kFixed, s, n});
            },
            slice, 10'000);
        all.insert(all.end(), part.begin(), part.end());
      }
    }
    std::sort(all.begin(), all.end());
    EXPECT_TRUE(all == single) << n;
  }
}

RunOptions options_for(uint32_t shard, uint32_t shards) {
  RunOptions o;
  o.url = parse_url("http://127.0.0.1:9/").value();
  o.request.path = "/";
  o.request.authority = o.url.authority();
  o.shard = ShardSpec{shard, shards, "--shard"};
  return o;
}

TEST(ShardPlans, ConnectionsAndRequestsSplitExactlyOverShardsAndThreads) {
  for (uint32_t shards : {1u, 3u, 4u, 7u}) {
    uint64_t connections = 0, requests = 0, max_open = 0;
    for (uint32_t i = 0; i < shards; ++i) {
      RunOptions o = options_for(i, shards);
      o.connections = 50;
      o.requests = 10'007;
      o.threads = 1 + i % 3;  // shards need not run the same number of threads
      auto p = plan_run(o);
      ASSERT_TRUE(p.ok()) << p.error().message;
      EXPECT_EQ(p->whole_connections, 50u);
      for (const WorkerShare& s : p->shares) {
        connections += s.connections;
        requests += s.requests;
      }
      max_open += p->max_open;
      // Remainders go to the first shards: parts differ by at most one.
      EXPECT_LE(p->connections, 50 / shards + 1);
      EXPECT_GE(p->connections, 50 / shards);
    }
    EXPECT_EQ(connections, 50u) << shards;
    EXPECT_EQ(requests, 10'007u) << shards;
    EXPECT_EQ(max_open, 50u) << shards;
  }
}

TEST(ShardPlans, RateModeConnectionCapSplits) {
  uint64_t max_open = 0;
  for (uint32_t i = 0; i < 4; ++i) {
    RunOptions o = options_for(i, 4);
    o.connections = 10;
    o.rate_per_s = 1000;
    o.max_connections = 103;
    auto p = plan_run(o);
    ASSERT_TRUE(p.ok());
    max_open += p->max_open;
  }
  EXPECT_EQ(max_open, 103u);
}

TEST(ShardPlans, AShardWithNothingToDoIsRefused) {
  RunOptions o = options_for(3, 4);
  o.connections = 3;
  auto p = plan_run(o);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("-c 3"), std::string::npos) << p.error().message;
  o.connections = 8;
  o.requests = 2;
  p = plan_run(o);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("-n 2"), std::string::npos) << p.error().message;
}

TEST(ShardPlans, ClosedLoopStageTargetsSumToTheCurve) {
  // A closed loop's connection target T(t) splits as slice_share over every slice of every
  // shard (ClosedLoopPacer::share_of): the parts add up to T for any T.
  const uint32_t threads_of[] = {2, 1, 3};
  for (uint64_t target = 0; target <= 200; ++target) {
    uint64_t sum = 0;
    for (uint32_t shard = 0; shard < 3; ++shard) {
      for (WorkerSlice s : slices_of(shard, 3, threads_of[shard])) {
        sum += slice_share(target, s.count, s.index);
      }
    }
    ASSERT_EQ(sum, target);
  }
}

TEST(ShardPlans, PoissonSeedIsSharedByShards) {
  // Without --seed, shards of one test agree on the seed through the --start-at instant.
  uint64_t seeds[2];
  for (uint32_t i = 0; i < 2; ++i) {
    RunOptions o = options_for(i, 2);
    o.rate_per_s = 100;
    o.arrival = Arrival::kPoisson;
    o.start_at_unix_ns = 1767225600ull * kNsPerSec;
    seeds[i] = plan_run(o).value().seed;
  }
  EXPECT_EQ(seeds[0], seeds[1]);
}

std::vector<uint32_t> picks(MixChooser c, size_t n) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < n; ++i) out.push_back(c.next());
  return out;
}

TEST(ShardPlans, MixPicksInterleaveToTheSingleChoosersSequence) {
  const std::vector<double> weights = {5, 3, 1.5, 0.5};
  for (MixOrder order : {MixOrder::kRandom, MixOrder::kRoundRobin}) {
    const size_t kPicks = 6000;
    const std::vector<uint32_t> single = picks(MixChooser(weights, order, 99), kPicks);
    const uint32_t threads_of[] = {2, 1, 3};
    std::vector<uint32_t> merged(kPicks, UINT32_MAX);
    for (uint32_t shard = 0; shard < 3; ++shard) {
      for (WorkerSlice s : slices_of(shard, 3, threads_of[shard])) {
        // Slice (index, count) of the whole sequence; the counts differ per shard here, so map
        // each slice's m-th pick to its place k = index + m * count.
        MixChooser c(weights, order, 99);
        c.set_slice(s.index, s.count);
        for (uint64_t k = s.index; k < kPicks; k += s.count) merged[k] = c.next();
      }
    }
    // Shards 0..2 with 2, 1, 3 threads: slices of count 6, 3, 9 cover every k exactly once.
    EXPECT_TRUE(merged == single) << mix_order_name(order);
  }
}

}  // namespace
}  // namespace hail
