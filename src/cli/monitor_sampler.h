// --monitor SOURCE: the monitors a run samples once per window, built from the flag's values and
// checked before the run (an unknown pid, a name no process has: the run refuses to start). The
// sampler is called by LiveRun on the supervising (main) thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "load/window_sampler.h"

namespace hail {

// Parses every value (a bad one: its one-line error), makes its monitor, checks its source (a
// prom: endpoint is scraped once). metrics: --monitor-metric values, for every prom: monitor.
// A scrape may take up to half an interval (at most 1 s, at least 50 ms).
Result<std::shared_ptr<WindowSampler>> make_monitor_sampler(const std::vector<std::string>& specs,
                                                            const std::vector<std::string>& metrics,
                                                            uint64_t interval_ns);

}  // namespace hail
