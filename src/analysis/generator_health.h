// Generator health: whether hail itself limited the load it offered or distorted the latencies it
// measured, judged from a RunResult alone, so that reports never blame the server for hail's
// limits. Owner: analysis. Pure functions: any thread.
#pragma once

// Checks (the last three in open-loop runs, -R, only; in closed loop they are not applicable):
// - cpu: the busiest worker thread's CPU time over the run's wall time, at least 90% of one core is
//   saturation (the runner's note uses the same share: a thread that busy adds its own queueing to
//   every request).
// - lag: scheduler lag p99 (planned -> sent) above both 10% of the latency p99 and 1 ms. The
//   corrected latency is lag + service time, so a lag above a tenth of it moves the percentiles
//   that SLOs and searches judge by more than their own resolution; under 1 ms it is the timer and
//   VM jitter any generator adds (bench/RESULTS.md: ~1 ms lag p99 on a healthy VM run), which no
//   millisecond SLO resolves. A lag from requests queued behind busy connections is the server's
//   (or --max-connections'): the coordinated-omission correction counts it on purpose. The result
//   cannot split the two per request, so a high lag is blamed on hail only when no requests waited
//   for a connection (the backlog check passed).
// - rate: completed responses per second at least 99% of the target (not applicable when the run
//   measured no time; lag is not applicable when no request was sent). Below it, the sent rate
//   (attempted / measured time) says who fell short: requests waiting for a connection mean the
//   server or the connection cap; hail sending fewer than 99% of the plan with none waiting
//   means hail; the plan sent but fewer answered means the server.
// - backlog: requests waited for a connection: more than 1% of a second's plan (10 ms of it, and
//   more than one request) still waiting when the run ended, or the windows' outstanding requests
//   growing: over the second half of the measured windows, fewer outcomes (completed + request
//   errors) than planned (the windows' targets, trapezoid over each window) by more than 1% and
//   more than 3 standard deviations of Poisson arrivals (3 sqrt(planned)). In a steady run the
//   outstanding requests at the end and at the middle cancel out, so only growth shows.
// limited_by_hail: the cpu check failed and the load depended on it (closed loop, or the rate
// missed, or the lag high), or the lag check failed, or hail sent under 99% of the plan while no
// requests waited for a connection.

#include <string>
#include <vector>

#include "stats/run_result.h"

namespace hail {

inline constexpr double kHealthBusyCpuShare = 0.90;
inline constexpr double kHealthLagShareOfLatency = 0.10;
inline constexpr uint64_t kHealthLagFloorNs = 1'000'000;
inline constexpr double kHealthRateShare = 0.99;

struct HealthCheck {
  std::string name;        // "cpu", "lag", "rate", "backlog"
  bool applicable = true;  // false: not measured in this kind of run (then ok)
  bool ok = true;
  double value = 0;  // cpu: share of one core; lag: ns; rate: achieved/target; backlog: count
  double limit = 0;  // in value's unit: the boundary the check compares with
  std::string explanation;  // one plain-language sentence
};

struct GeneratorHealth {
  bool limited_by_hail = false;
  std::vector<HealthCheck> checks;  // cpu, lag, rate, backlog, in that order
};

GeneratorHealth check_generator_health(const RunResult& run);

// The backlog estimate from the windows: outstanding requests gained over the second half of the
// measured windows (planned - outcomes; negative when they caught up), and what was planned there.
// Needs at least 4 measured windows with a target; false otherwise. Public for tests.
bool outstanding_growth(const RunResult& run, double& gained, double& planned);

}  // namespace hail
