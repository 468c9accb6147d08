// Runner: turns RunOptions into a finished RunResult. It resolves the target, checks resource
// limits, starts one Worker thread per -t, waits for them (calling the front-end's tick a few times
// a second) and merges their recorders. Called from the main thread; it never prints.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/result.h"
#include "load/run_options.h"
#include "load/targets.h"
#include "net/address.h"
#include "stats/run_result.h"

namespace hail {

struct RunProgress {
  uint64_t elapsed_ns = 0;  // since the load started (warm-up included)
  uint64_t warmup_ns = 0;
  uint64_t completed = 0;  // measured phase only
  uint64_t errors = 0;
};

// Called about every 50 ms from the main thread while the run goes on; returning true stops the run
// early (the front-end's way to pass SIGINT/SIGTERM on). The result is then marked interrupted.
using TickFn = std::function<bool(const RunProgress&)>;

class ScriptRun;

// Errors are environmental (unresolvable host, resource limits) or the script's (it does not load,
// or a hook failed before the run): exit status 1 in the front-ends. With a script, *script_out
// receives its states so that the front-end can call done() after printing its report.
Result<RunResult> run_load(const RunOptions& options, const TickFn& tick,
                           std::unique_ptr<ScriptRun>* script_out = nullptr);

// Raises RLIMIT_NOFILE toward the hard limit so that `needed` descriptors fit; an error says which
// limit is too low and how to raise it.
Status ensure_fd_limit(uint64_t needed);

// The CPUs this process may run on (its affinity mask).
uint32_t usable_cpus();

// Threads actually used for a run: -t, or one per usable CPU, never more than connections.
uint32_t effective_threads(uint32_t requested, uint32_t connections);

}  // namespace hail
