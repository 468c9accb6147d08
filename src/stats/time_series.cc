#include "stats/time_series.h"

#include <algorithm>
#include <utility>

namespace hail {

void WindowStats::update_percentiles() {
  p50_ns = latency.value_at_percentile(50);
  p90_ns = latency.value_at_percentile(90);
  p99_ns = latency.value_at_percentile(99);
  max_ns = latency.max();
}

void merge_window(WindowStats& into, const WindowStats& from) {
  if (from.sources == 0) return;
  if (into.sources == 0) {
    into = from;
    return;
  }
  into.start_ns = std::min(into.start_ns, from.start_ns);
  into.end_ns = std::max(into.end_ns, from.end_ns);
  into.warmup = into.warmup && from.warmup;
  into.completed += from.completed;
  into.status_errors += from.status_errors;
  for (size_t c = 0; c < kStatusClassCount; ++c) into.status_classes[c] += from.status_classes[c];
  for (size_t e = 0; e < kErrorClassCount; ++e) into.errors[e] += from.errors[e];
  into.latency.merge(from.latency);
  into.service.merge(from.service);
  into.lag.merge(from.lag);
  into.update_percentiles();
  into.open_connections += from.open_connections;
  into.target_start += from.target_start;
  into.target_end += from.target_end;
  into.sources += from.sources;
  for (const TagWindow& t : from.tags) {
    auto it = std::find_if(into.tags.begin(), into.tags.end(),
                           [&](const TagWindow& x) { return x.name == t.name; });
    if (it == into.tags.end()) {
      into.tags.push_back(t);
      continue;
    }
    it->completed += t.completed;
    it->status_errors += t.status_errors;
    for (size_t e = 0; e < kErrorClassCount; ++e) it->errors[e] += t.errors[e];
    it->latency.merge(t.latency);
  }
}

void WindowSeries::begin(uint64_t start_ns, bool warmup) {
  active_ = true;
  current_ = Window{};
  current_.index = next_index_++;
  current_.start_ns = start_ns;
  current_.warmup = warmup;
  histogram_.reset();
  if (open_loop_) {
    service_.reset();
    lag_.reset();
  }
}

void WindowSeries::close_window(uint64_t now_ns, uint64_t open_connections, bool next_warmup,
                                bool last) {
  if (!active_) return;
  current_.end_ns = std::max(now_ns, current_.start_ns);
  current_.open_connections = open_connections;
  current_.latency = EncodedHistogram(histogram_);
  if (open_loop_) {
    current_.service = EncodedHistogram(service_);
    current_.lag = EncodedHistogram(lag_);
  }
  current_.max_ns = histogram_.max();
  if (tag_names_ != nullptr) close_tags();
  {
    std::lock_guard<std::mutex> lock(closed_mutex_);
    closed_.push_back(std::move(current_));
  }
  if (last) {
    active_ = false;
    return;
  }
  begin(now_ns, next_warmup);
}

WindowSeries::TagAccumulator& WindowSeries::tag_accumulator(uint16_t tag) {
  if (tag >= tag_accumulators_.size()) tag_accumulators_.resize(tag + 1);
  TagAccumulator& t = tag_accumulators_[tag];
  if (!t.latency) t.latency = std::make_unique<Histogram>();
  return t;
}

void WindowSeries::close_tags() {
  for (size_t id = 0; id < tag_accumulators_.size(); ++id) {
    TagAccumulator& t = tag_accumulators_[id];
    uint64_t errors = 0;
    for (uint64_t e : t.errors) errors += e;
    if (t.completed == 0 && errors == 0) continue;
    TagWindow& w = current_.tags.emplace_back();
    w.name = tag_names_->tag(static_cast<uint16_t>(id)).name;
    w.completed = t.completed;
    w.status_errors = t.status_errors;
    w.errors = t.errors;
    w.latency = EncodedHistogram(*t.latency);
    t.latency->reset();
    t.completed = t.status_errors = 0;
    t.errors = {};
  }
}

std::vector<WindowSeries::Window> WindowSeries::take_closed() {
  std::vector<Window> taken;
  std::lock_guard<std::mutex> lock(closed_mutex_);
  taken.swap(closed_);
  return taken;
}

WindowStats window_stats(const WindowSeries::Window& window, uint64_t load_start_ns) {
  WindowStats w;
  w.start_ns = window.start_ns - std::min(window.start_ns, load_start_ns);
  w.end_ns = window.end_ns - std::min(window.end_ns, load_start_ns);
  w.warmup = window.warmup;
  w.completed = window.completed;
  w.status_errors = window.status_errors;
  w.status_classes = window.status_classes;
  w.errors = window.errors;
  w.latency = window.latency;
  w.service = window.service;
  w.lag = window.lag;
  w.update_percentiles();
  w.open_connections = window.open_connections;
  w.tags = window.tags;
  w.sources = 1;
  return w;
}

uint64_t next_interval_boundary(uint64_t now_ns, uint64_t start_ns, uint64_t measure_start_ns,
                                uint64_t interval_ns) {
  if (interval_ns == 0) return UINT64_MAX;
  if (now_ns < measure_start_ns) {
    uint64_t elapsed = now_ns < start_ns ? 0 : now_ns - start_ns;
    uint64_t next = start_ns + (elapsed / interval_ns + 1) * interval_ns;
    return std::min(next, measure_start_ns);
  }
  uint64_t elapsed = now_ns - measure_start_ns;
  return measure_start_ns + (elapsed / interval_ns + 1) * interval_ns;
}

std::vector<WindowStats> merge_windows(const std::vector<const WindowSeries*>& series,
                                       uint64_t load_start_ns) {
  size_t count = 0;
  for (const WindowSeries* s : series) count = std::max(count, s->windows().size());
  std::vector<WindowStats> out(count);
  for (size_t i = 0; i < count; ++i) {
    for (const WindowSeries* s : series) {
      if (i < s->windows().size())
        merge_window(out[i], window_stats(s->windows()[i], load_start_ns));
    }
  }
  return out;
}

}  // namespace hail
