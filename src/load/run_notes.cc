#include "load/run_notes.h"

namespace hail {

namespace {
std::string format_share(double share) {
  return std::to_string(static_cast<int>(share * 100.0 + 0.5)) + "%";
}
}  // namespace

std::vector<std::string> run_notes(const RunResult& result, const RunFacts& facts) {
  std::vector<std::string> notes;
  if (facts.gave_up) {
    notes.push_back("no connection to " + facts.authority +
                    " could be opened; the run stopped early");
  }
  if (result.server_gone) {
    const uint64_t attempted = result.counters.attempted - result.counters.retried;
    const uint64_t unsent =
        result.requests_target > attempted ? result.requests_target - attempted : 0;
    notes.push_back("the server at " + facts.authority +
                    " stopped accepting connections: every attempt failed for longer than the "
                    "request timeout with none open, so the run gave up; " +
                    std::to_string(unsent) + " of the " + std::to_string(result.requests_target) +
                    " requests were never sent");
  }
  const bool rate_missed = result.rate_mode() && result.duration_ns > 0 &&
                           result.requests_per_s() < 0.99 * result.rate_target_per_s;
  const bool hail_busy = result.max_worker_cpu_utilization >= kBusyWorkerShare;
  // A rate run that kept its plan was not limited by hail, however busy its threads were (the
  // lag distribution shows how closely sends kept to the plan).
  if (hail_busy && (!result.rate_mode() || rate_missed)) {
    notes.push_back("the busiest hail worker thread was on CPU " +
                    format_share(result.max_worker_cpu_utilization) +
                    " of the run: hail itself may have limited the load (try more -t "
                    "threads, or give hail more cores)");
  }
  if (rate_missed) {
    // Who limited the rate: a busy hail worker, or a server (or connection cap) that fell behind.
    notes.push_back(
        "target rate not reached: " +
        std::to_string(static_cast<uint64_t>(result.requests_per_s())) + " of " +
        std::to_string(static_cast<uint64_t>(result.rate_target_per_s)) + " req/s; " +
        (hail_busy ? "hail's worker threads were the limit (add -t threads or cores)"
                   : "the server, or too few connections (--max-connections), was the limit"));
  }
  if (facts.script_delay_ignored) {
    notes.push_back(
        "the script's delay() was ignored: in rate mode (-R) the plan sets when "
        "requests go out");
  }
  if (!result.script_error.empty()) {
    notes.push_back("a script error stopped the run: " + result.script_error);
  }
  if (facts.threads > facts.usable_cpus) {
    notes.push_back("more worker threads (" + std::to_string(facts.threads) + ") than CPU cores (" +
                    std::to_string(facts.usable_cpus) + ")");
  }
  return notes;
}

}  // namespace hail
