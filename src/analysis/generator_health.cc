#include "analysis/generator_health.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "core/strings.h"
#include "core/units.h"

namespace hail {

namespace {

std::string percent(double share) {
  return string_printf("%.1f%%", share * 100);
}

HealthCheck cpu_check(const RunResult& run) {
  HealthCheck c;
  c.name = "cpu";
  c.value = run.max_worker_cpu_utilization;
  c.limit = kHealthBusyCpuShare;
  c.ok = c.value < c.limit;
  c.explanation = c.ok ? "the busiest worker thread was on CPU " + percent(c.value) + " of the run"
                       : "the busiest worker thread was on CPU " + percent(c.value) +
                             " of the run: hail was saturated (add -t threads or cores)";
  return c;
}

HealthCheck not_applicable(const char* name, const char* why) {
  HealthCheck c;
  c.name = name;
  c.applicable = false;
  c.explanation = why;
  return c;
}

}  // namespace

bool outstanding_growth(const RunResult& run, double& gained, double& planned) {
  gained = planned = 0;
  std::vector<const WindowStats*> measured;
  for (const WindowStats& w : run.intervals) {
    if (!w.warmup && w.duration_ns() > 0) measured.push_back(&w);
  }
  if (measured.size() < 4) return false;
  for (size_t i = measured.size() / 2; i < measured.size(); ++i) {
    const WindowStats& w = *measured[i];
    // Intervals carry the target at their end: the trapezoid with the previous window's end is
    // exact for a linear ramp and the same as either for a hold.
    const double rate = (measured[i - 1]->target_end + w.target_end) / 2;
    if (w.target_end <= 0) return false;
    const uint64_t outcomes =
        w.completed + w.error_total() - w.errors[static_cast<size_t>(ErrorClass::kConnect)];
    const double plan = rate * static_cast<double>(w.duration_ns()) / 1e9;
    planned += plan;
    gained += plan - static_cast<double>(outcomes);
  }
  return true;
}

GeneratorHealth check_generator_health(const RunResult& run) {
  GeneratorHealth health;
  HealthCheck cpu = cpu_check(run);
  if (!run.rate_mode()) {
    health.limited_by_hail = !cpu.ok;
    if (!cpu.ok) cpu.explanation += "; in closed loop that limits the load itself";
    health.checks.push_back(std::move(cpu));
    const char* why = "closed loop: no plan to keep (open-loop runs, -R, only)";
    health.checks.push_back(not_applicable("lag", why));
    health.checks.push_back(not_applicable("rate", why));
    health.checks.push_back(not_applicable("backlog", why));
    return health;
  }

  // Backlog first: whether requests waited for a connection decides who the lag and a missed rate
  // belong to.
  HealthCheck backlog;
  backlog.name = "backlog";
  backlog.value = static_cast<double>(run.backlog);
  backlog.limit = std::max(1.0, 0.01 * run.rate_target_per_s);
  double gained = 0, planned = 0;
  const bool measured = outstanding_growth(run, gained, planned);
  const bool growing =
      measured && gained > std::max(0.01 * planned, 3 * std::sqrt(std::max(planned, 0.0)));
  const bool left_waiting = backlog.value > backlog.limit;
  backlog.ok = !growing && !left_waiting;
  if (backlog.ok) {
    backlog.explanation = string_printf("%llu planned requests waited for a connection at the end",
                                        static_cast<unsigned long long>(run.backlog));
    if (measured) {
      backlog.explanation += string_printf(
          "; outstanding requests did not grow over the second half (%+.0f of %.0f planned)",
          gained, planned);
    }
  } else {
    backlog.explanation =
        growing ? string_printf(
                      "outstanding requests grew by %.0f (%s of the %.0f planned) over "
                      "the second half of the run",
                      gained, percent(gained / planned).c_str(), planned)
                : std::string("planned requests were left waiting");
    backlog.explanation += string_printf(
        ", %llu still waiting for a connection at the end: the server (or --max-connections) "
        "could not keep up with the plan",
        static_cast<unsigned long long>(run.backlog));
  }
  const bool waited = !backlog.ok;

  HealthCheck lag;
  lag.name = "lag";
  const double latency_p99 = static_cast<double>(run.latency.value_at_percentile(99));
  lag.value = static_cast<double>(run.lag.value_at_percentile(99));
  lag.limit =
      std::max(static_cast<double>(kHealthLagFloorNs), kHealthLagShareOfLatency * latency_p99);
  const bool lag_high = run.lag.count() > 0 && lag.value > lag.limit;
  const std::string lag_text =
      "scheduler lag p99 " + format_duration_ns(lag.value) + " is " +
      (latency_p99 > 0 ? percent(lag.value / latency_p99) : std::string("-")) +
      " of the latency p99 (" + format_duration_ns(latency_p99) + ")";
  if (run.lag.count() == 0) {
    lag = not_applicable("lag", "no request was sent");
  } else if (!lag_high) {
    lag.explanation = lag_text;
  } else if (waited) {
    lag.explanation = lag_text +
                      ", but requests waited for a connection: the lag is queueing behind the "
                      "server (or --max-connections), which the corrected latency counts";
  } else {
    lag.ok = false;
    lag.explanation = lag_text +
                      " with no request waiting for a connection: hail sent late, and "
                      "the latencies include hail's own delay";
  }

  HealthCheck rate;
  rate.name = "rate";
  rate.limit = kHealthRateShare;
  const double seconds = run.duration_s();
  const double target = run.rate_target_per_s;
  rate.value = run.requests_per_s() / target;
  const double sent_share =
      seconds > 0 ? static_cast<double>(run.counters.attempted) / seconds / target : 0.0;
  rate.ok = rate.value >= rate.limit;
  bool hail_short = false;
  if (run.duration_ns == 0) {
    rate = not_applicable("rate", "no measured time");
  } else if (rate.ok) {
    rate.explanation = "completed " + percent(rate.value) + " of the target rate";
  } else if (waited) {
    rate.explanation = "completed " + percent(rate.value) +
                       " of the target rate: requests waited for a connection, so the server (or "
                       "--max-connections) was the limit";
  } else if (sent_share >= kHealthRateShare) {
    rate.explanation = "completed " + percent(rate.value) +
                       " of the target rate though hail sent " + percent(sent_share) +
                       " of the plan: the server answered fewer (errors, timeouts, or responses "
                       "still outstanding at the end)";
  } else {
    hail_short = true;
    rate.explanation = "completed " + percent(rate.value) + " of the target rate: hail sent only " +
                       percent(sent_share) +
                       " of the plan with no request waiting for a connection, so hail was the "
                       "limit";
  }

  health.limited_by_hail =
      (!cpu.ok && (!rate.ok || lag_high)) || !lag.ok || (!rate.ok && hail_short);
  health.checks.push_back(std::move(cpu));
  health.checks.push_back(std::move(lag));
  health.checks.push_back(std::move(rate));
  health.checks.push_back(std::move(backlog));
  return health;
}

}  // namespace hail
