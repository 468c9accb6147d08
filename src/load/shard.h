// Execution shards: which part of one test this process runs (--shard I/N, or the launcher's
// environment: Open MPI, PMI, Slurm, Kubernetes Indexed Jobs) and when the shards start together
// (--start-at). Pure: the environment is read through an injected lookup and the clock is passed
// in, so the rules are tested with tables. Any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace hail {

// More shards than this is a typo, not a fleet (each shard's Poisson walk draws every arrival).
inline constexpr uint32_t kMaxShards = 100000;

struct ShardSpec {
  uint32_t index = 0;  // 0-based
  uint32_t count = 1;
  // Where it came from: "--shard", "Open MPI", "PMI", "Slurm", "Kubernetes"; empty: not sharded.
  std::string source;
  bool sharded() const { return count > 1; }
};

// "I/N" with 0 <= I < N <= kMaxShards.
Result<ShardSpec> parse_shard(std::string_view text);

// Returns the variable's value, or nullopt when it is not set.
using EnvLookup = std::function<std::optional<std::string>(const char* name)>;
EnvLookup process_env();

// The launcher's shard from the environment, first match wins: Open MPI (OMPI_COMM_WORLD_RANK /
// OMPI_COMM_WORLD_SIZE), PMI (PMI_RANK / PMI_SIZE: MPICH, Intel MPI, Slurm's srun --mpi=pmi2),
// Slurm (SLURM_PROCID / SLURM_NTASKS), Kubernetes Indexed Jobs (JOB_COMPLETION_INDEX, the count
// from `shards` (--shards, 0: not given) or HAIL_SHARDS). nullopt: no launcher (one process).
// An engine whose variables are present but malformed, or a Kubernetes index without a count, is
// an error naming the variable.
Result<std::optional<ShardSpec>> detect_shard(const EnvLookup& env, uint32_t shards);

// --start-at: Unix time in seconds ("1767225600", "1767225600.25"), RFC 3339
// ("2026-12-02T12:00:00Z", "2026-12-02T13:00:00.5+01:00"), or "+DURATION" after a reference
// instant the launcher shares: HAIL_START_REF (Unix seconds or RFC 3339), else Slurm's
// SLURM_JOB_START_TIME. Returns Unix ns.
Result<uint64_t> parse_start_at(std::string_view text, const EnvLookup& env);

// The part of `total` that slice `index` of `count` takes when the k-th unit goes to slice
// k mod count: total / count, plus one for the first total % count slices.
inline uint64_t slice_share(uint64_t total, uint64_t count, uint64_t index) {
  return total / count + (index < total % count ? 1 : 0);
}

}  // namespace hail
