#include "stats/time_series.h"

#include <algorithm>
#include <bit>

namespace hail {

void WindowSeries::begin(uint64_t start_ns, bool warmup) {
  active_ = true;
  current_ = Window{};
  current_.start_ns = start_ns;
  current_.warmup = warmup;
  histogram_.reset();
}

void WindowSeries::close_window(uint64_t now_ns, uint64_t open_connections, bool next_warmup,
                                bool last) {
  if (!active_) return;
  current_.end_ns = std::max(now_ns, current_.start_ns);
  current_.open_connections = open_connections;
  current_.max_ns = histogram_.max();
  histogram_.for_each_recorded([this](uint64_t value_ns, uint64_t count) {
    const uint32_t key = quantize(value_ns);
    auto& pairs = current_.latency;
    if (!pairs.empty() && pairs.back().first == key) {
      pairs.back().second += static_cast<uint32_t>(count);
    } else {
      pairs.emplace_back(key, static_cast<uint32_t>(count));
    }
  });
  windows_.push_back(std::move(current_));
  if (last) {
    active_ = false;
    return;
  }
  begin(now_ns, next_warmup);
}

uint32_t WindowSeries::quantize(uint64_t value_ns) {
  if (value_ns < 256) return static_cast<uint32_t>(value_ns);
  const int shift = std::bit_width(value_ns) - 8;
  return static_cast<uint32_t>((static_cast<uint64_t>(shift) << 8) | (value_ns >> shift));
}

uint64_t WindowSeries::dequantize(uint32_t key) {
  if (key < 256) return key;
  const int shift = static_cast<int>(key >> 8);
  const uint64_t mantissa = key & 0xff;
  return ((mantissa + 1) << shift) - 1;
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
  Histogram merged;
  for (size_t i = 0; i < count; ++i) {
    WindowStats& w = out[i];
    merged.reset();
    bool first = true;
    uint64_t max_ns = 0;
    for (const WindowSeries* s : series) {
      if (i >= s->windows().size()) continue;
      const WindowSeries::Window& src = s->windows()[i];
      uint64_t start = src.start_ns - std::min(src.start_ns, load_start_ns);
      uint64_t end = src.end_ns - std::min(src.end_ns, load_start_ns);
      w.start_ns = first ? start : std::min(w.start_ns, start);
      w.end_ns = first ? end : std::max(w.end_ns, end);
      w.warmup = first ? src.warmup : (w.warmup && src.warmup);
      first = false;
      w.completed += src.completed;
      w.status_errors += src.status_errors;
      for (size_t e = 0; e < kErrorClassCount; ++e) w.errors[e] += src.errors[e];
      w.open_connections += src.open_connections;
      for (const auto& [key, n] : src.latency) merged.record_n(WindowSeries::dequantize(key), n);
      max_ns = std::max(max_ns, src.max_ns);
    }
    if (merged.count() > 0) {
      // Slot values are the highest of their slot; clamp to the exact maximum like Histogram does.
      w.p50_ns = std::min(merged.value_at_percentile(50), max_ns);
      w.p90_ns = std::min(merged.value_at_percentile(90), max_ns);
      w.p99_ns = std::min(merged.value_at_percentile(99), max_ns);
      w.max_ns = max_ns;
    }
  }
  return out;
}

}  // namespace hail
