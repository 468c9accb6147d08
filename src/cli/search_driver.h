// `hail search`'s driver: runs the SearchController's probes on one live run, retargeted from
// level to level on warm connections, and turns each probe's windows into the outcome the
// controller decides from. Owner: cli. Main thread only (the workers run on their own).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "analysis/search_controller.h"
#include "analysis/slo_expr.h"
#include "core/result.h"
#include "load/run_options.h"

namespace hail {

struct SearchPlan {
  RunOptions run;  // the load: URL, request, protocol, -c, -t, --arrival, --max-connections, ...
  std::vector<SloThreshold> thresholds;
  SearchConfig config;
  uint64_t interval_ns = 500'000'000;  // the probes' windows
};

struct SearchRunResult {
  SearchVerdict verdict;
  bool interrupted = false;  // SIGINT / SIGTERM: the verdict so far
  uint32_t threads = 0;
};

// Hooks for the front-end: should_stop() is asked every ~50 ms (SIGINT); on_probe() is told each
// probe's record as it is decided; on_tick() gets a one-line status for a live progress display.
struct SearchHooks {
  std::function<bool()> should_stop;
  std::function<void(const ProbeRecord&, size_t index)> on_probe;
  std::function<void(const std::string&)> on_tick;
};

// Errors are the run's (an unresolvable host, resource limits, no connection ever opened).
Result<SearchRunResult> run_search(const SearchPlan& plan, const SearchHooks& hooks);

}  // namespace hail
