// Run notes: the plain-language warnings a report prints under the numbers (the target could not be
// reached, hail itself may have been the limit, the rate was missed and by whom, a script's delay()
// was ignored or a script stopped the run, more threads than cores). Produced from a merged
// RunResult and a few facts of the run, never from one worker's view. Pure; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stats/run_result.h"

namespace hail {

struct RunFacts {
  std::string authority;              // the target's host:port, as the notes name it
  bool gave_up = false;               // every worker failed to open any connection
  bool script_delay_ignored = false;  // a script's delay() in rate mode
  uint32_t threads = 1;
  uint32_t usable_cpus = 1;
};

// A worker thread on CPU this share of the run likely limited the load itself.
inline constexpr double kBusyWorkerShare = 0.90;

std::vector<std::string> run_notes(const RunResult& result, const RunFacts& facts);

}  // namespace hail
