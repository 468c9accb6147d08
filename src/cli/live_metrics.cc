#include "cli/live_metrics.h"

#include <sys/resource.h>

#include <algorithm>

#include "core/clock.h"

namespace hail {

double process_cpu_seconds() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

LiveMetrics::LiveMetrics(const RunOptions& options)
    : rate_mode_(options.rate_per_s > 0),
      rate_per_s_(options.rate_per_s),
      shards_(std::max<uint32_t>(options.shard.count, 1)) {
  state_.run_id = options.run_id;
  state_.shard = std::to_string(options.shard.index) + "/" + std::to_string(options.shard.count);
  state_.has_tags = !options.mix.empty();
  set_duration_buckets(state_, latency_);
  state_.target_rate_per_s = rate_mode_ ? rate_per_s_ / shards_ : 0;
}

void LiveMetrics::absorb(const WindowStats& w) {
  for (size_t c = 0; c < kStatusClassCount; ++c) state_.requests_by_class[c] += w.status_classes[c];
  for (size_t e = 0; e < kErrorClassCount; ++e) state_.errors[e] += w.errors[e];
  latency_.merge(w.latency.decode());
  for (const TagWindow& t : w.tags) tags_[t.name] += t.completed;
  if (!w.tags.empty()) state_.has_tags = true;  // hail.tag in a script
  state_.achieved_rate_per_s = w.requests_per_s();
  state_.schedule_lag_s =
      rate_mode_ ? static_cast<double>(w.lag.value_at_percentile(99)) / 1e9 : 0.0;
  state_.open_connections = w.open_connections;
}

void LiveMetrics::update(const LiveRun& live) {
  const RunProgress p = live.progress();
  state_.in_flight = p.in_flight;
  state_.warmup = p.elapsed_ns < p.warmup_ns;
  if (rate_mode_) {
    if (!curve_ && !live.plan().curve.empty()) {
      curve_.emplace(live.plan().curve, live.plan().initial);
    }
    const double whole = curve_ ? curve_->value_at(p.elapsed_ns) : rate_per_s_;
    state_.target_rate_per_s = whole / shards_;
  }
  const std::vector<WindowStats>& windows = live.intervals();
  bool changed = false;
  while (absorbed_ < windows.size() && windows[absorbed_].sources >= live.workers()) {
    absorb(windows[absorbed_++]);
    changed = true;
  }
  if (changed) set_duration_buckets(state_, latency_);
  state_.cpu_seconds = process_cpu_seconds();
}

void LiveMetrics::finish(const RunResult& result) {
  while (absorbed_ < result.intervals.size()) absorb(result.intervals[absorbed_++]);
  set_duration_buckets(state_, latency_);
  state_.in_flight = 0;
  state_.warmup = false;
  state_.up = false;
  state_.cpu_seconds = process_cpu_seconds();
}

MetricsSnapshot LiveMetrics::snapshot() const {
  MetricsSnapshot s = state_;
  s.tags.clear();
  for (const auto& [name, completed] : tags_) s.tags.push_back({name, completed});
  return s;
}

}  // namespace hail
