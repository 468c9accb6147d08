#include "report/run_merge.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "core/strings.h"
#include "core/units.h"
#include "report/json_exact.h"
#include "report/shard_merge.h"

namespace hail {

namespace {

// HdrHistogram's counts are signed 64-bit numbers: a merged total above this has no encoding.
constexpr uint64_t kMaxHistogramTotal = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

bool sum_fits(uint64_t a, uint64_t b, uint64_t max = std::numeric_limits<uint64_t>::max()) {
  return a <= max && b <= max - a;
}

std::string duration_text(uint64_t ns) {
  return format_duration_ns(static_cast<double>(ns));
}

// --- refusals ------------------------------------------------------------------------------

// Every input's time series has the same interval length, or no input has one.
Result<uint64_t> common_interval(const std::vector<MergeInput>& inputs) {
  const MergeInput* with = nullptr;
  const MergeInput* without = nullptr;
  for (const MergeInput& in : inputs) {
    const uint64_t interval = in.document.result.interval_ns;
    if (interval == 0) {
      if (without == nullptr) without = &in;
      continue;
    }
    if (with == nullptr) {
      with = &in;
    } else if (interval != with->document.result.interval_ns) {
      return make_error("cannot merge time series of different intervals: " + in.name + " has " +
                        duration_text(interval) + ", " + with->name + " " +
                        duration_text(with->document.result.interval_ns));
    }
  }
  if (with != nullptr && without != nullptr) {
    return make_error("cannot merge " + with->name + ", which has a time series, with " +
                      without->name + ", which has none");
  }
  return with != nullptr ? with->document.result.interval_ns : 0;
}

bool histogram_sum_fits(uint64_t a, uint64_t b) {
  return sum_fits(a, b, kMaxHistogramTotal);
}

bool windows_fit(const WindowStats& a, const WindowStats& b) {
  return a.latency.can_merge(b.latency) && a.service.can_merge(b.service) &&
         a.lag.can_merge(b.lag) && sum_fits(a.completed, b.completed) &&
         sum_fits(a.open_connections, b.open_connections);
}

// Whether `part` adds into `into` without a count overflowing: counters, histogram totals (which
// must stay readable), tags by name and steps by index, as RunResult::merge pairs them.
bool result_fits(const RunResult& into, const RunResult& part) {
  for (const CounterKey& k : kCounterKeys) {
    if (!sum_fits(into.counters.*k.member, part.counters.*k.member)) return false;
  }
  for (size_t c = 0; c < kErrorClassCount; ++c) {
    if (!sum_fits(into.counters.errors[c], part.counters.errors[c])) return false;
  }
  for (const RunHistogramKey& k : kRunHistogramKeys) {
    if (!histogram_sum_fits((into.*k.member).count(), (part.*k.member).count())) return false;
  }
  for (const TagResult& tag : part.tags) {
    for (const TagResult& row : into.tags) {
      if (row.name == tag.name && !histogram_sum_fits(row.latency.count(), tag.latency.count())) {
        return false;
      }
    }
  }
  for (size_t i = 0; i < part.steps.size() && i < into.steps.size(); ++i) {
    if (!windows_fit(into.steps[i], part.steps[i])) return false;
  }
  return true;
}

// --- warnings ------------------------------------------------------------------------------

std::string http_version_text(const RunResult& r) {
  return r.protocols.empty() ? (r.http_minor == 0 ? "http/1.0" : "http/1.1") : r.protocols.name();
}

std::string stages_text(const RunResult& r) {
  if (r.steps.empty()) return "none";
  return std::to_string(r.steps.size()) + (r.ladder ? " ladder steps" : " stages");
}

// One line per setting of `in` that differs from the first input's.
void warn_differences(const MergeInput& first, const MergeInput& in,
                      std::vector<std::string>& warnings) {
  const RunResult& a = first.document.result;
  const RunResult& b = in.document.result;
  const auto differs = [&](const char* what, const std::string& va, const std::string& vb) {
    if (va == vb) return;
    warnings.push_back(in.name + " has " + what + " " + vb + ", " + first.name + " " + va);
  };
  differs("URL", a.url, b.url);
  differs("method", a.method, b.method);
  differs("protocol", http_version_text(a), http_version_text(b));
  differs("keep-alive", a.keep_alive ? "on" : "off", b.keep_alive ? "on" : "off");
  differs("timeout", duration_text(a.timeout_ns), duration_text(b.timeout_ns));
  const auto span = [](uint64_t ns) { return ns == 0 ? std::string("none") : duration_text(ns); };
  differs("warm-up", span(a.warmup_ns), span(b.warmup_ns));
  differs("duration", span(a.duration_target_ns), span(b.duration_target_ns));
  differs("load model", a.rate_mode() ? "open loop (-R)" : "closed loop",
          b.rate_mode() ? "open loop (-R)" : "closed loop");
  differs("pipeline", std::to_string(a.pipeline), std::to_string(b.pipeline));
  differs("streams", std::to_string(a.streams), std::to_string(b.streams));
  differs("stages", stages_text(a), stages_text(b));
}

// --- the timeline --------------------------------------------------------------------------

MergeSummary summarize(const std::vector<MergeInput>& inputs) {
  MergeSummary m;
  std::vector<std::pair<uint64_t, uint64_t>> measured;
  for (const MergeInput& in : inputs) {
    const RunResult& r = in.document.result;
    m.inputs.push_back(MergedInput{in.name, r.start_unix_ns, r.warmup_ns, r.duration_ns});
    measured.emplace_back(m.inputs.back().measured_start_unix_ns(),
                          m.inputs.back().measured_end_unix_ns());
  }
  const auto [first_start, last_start] = std::minmax_element(
      m.inputs.begin(), m.inputs.end(),
      [](const MergedInput& x, const MergedInput& y) { return x.start_unix_ns < y.start_unix_ns; });
  m.start_spread_ns = last_start->start_unix_ns - first_start->start_unix_ns;
  const auto [first_end, last_end] =
      std::minmax_element(measured.begin(), measured.end(),
                          [](const auto& x, const auto& y) { return x.second < y.second; });
  m.end_spread_ns = last_end->second - first_end->second;
  m.measured_union_ns = union_length_ns(std::move(measured));
  return m;
}

// Connections, threads and the target rate: what ran at the same time adds up.
void set_load_shares(const std::vector<MergeInput>& inputs, RunResult& merged) {
  std::vector<TimedValue> connections, threads, rates;
  for (const MergeInput& in : inputs) {
    const RunResult& r = in.document.result;
    const uint64_t start = r.start_unix_ns + r.warmup_ns;
    const uint64_t end = start + r.duration_ns;
    connections.push_back({start, end, static_cast<double>(r.connections)});
    threads.push_back({start, end, static_cast<double>(r.threads)});
    rates.push_back({start, end, r.rate_target_per_s});
  }
  const auto as_u32 = [](double v) {
    return static_cast<uint32_t>(std::min(v, double{std::numeric_limits<uint32_t>::max()}));
  };
  merged.connections = as_u32(peak_concurrent_sum(std::move(connections)));
  merged.threads = as_u32(peak_concurrent_sum(std::move(threads)));
  merged.rate_target_per_s = peak_concurrent_sum(std::move(rates));
}

// `shards`: the shard notes (their start skew replaces the inputs' start skew).
void set_notes(const std::vector<MergeInput>& inputs, const MergeSummary& m,
               const std::optional<ShardCheck>& shards, RunResult& merged) {
  merged.notes.clear();
  // Within 80 columns with the report's "  Note: ". The rates above it count over the "measured"
  // time (measured_union_ns).
  const std::string start_skew =
      shards ? "" : "start skew " + duration_text(m.start_spread_ns) + ", ";
  merged.notes.push_back(string_printf("merged %zu run%s: %send skew %s, %s measured",
                                       inputs.size(), inputs.size() == 1 ? "" : "s",
                                       start_skew.c_str(), duration_text(m.end_spread_ns).c_str(),
                                       duration_text(m.measured_union_ns).c_str()));
  if (shards) {
    merged.notes.insert(merged.notes.end(), shards->notes.begin(), shards->notes.end());
  }
  std::set<std::string> seen;
  for (const MergeInput& in : inputs) {
    for (const std::string& note : in.document.result.notes) {
      std::string line = in.name + ": " + note;
      if (seen.insert(line).second) merged.notes.push_back(std::move(line));
    }
  }
}

}  // namespace

uint64_t union_length_ns(std::vector<std::pair<uint64_t, uint64_t>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  uint64_t total = 0;
  bool open = false;
  uint64_t start = 0, end = 0;
  for (const auto& [s, e] : intervals) {
    if (e <= s) continue;
    if (open && s <= end) {
      end = std::max(end, e);
      continue;
    }
    if (open) total += end - start;
    open = true;
    start = s;
    end = e;
  }
  if (open) total += end - start;
  return total;
}

double peak_concurrent_sum(std::vector<TimedValue> values) {
  // At an instant where one interval ends and another starts, the ending one no longer counts.
  std::vector<std::pair<uint64_t, double>> events;  // (time, change), ends sorted before starts
  for (const TimedValue& v : values) {
    const uint64_t end = v.end > v.start ? v.end : v.start + 1;
    events.emplace_back(v.start, v.value);
    events.emplace_back(end, -v.value);
  }
  std::sort(events.begin(), events.end());
  double now = 0, peak = 0;
  for (const auto& [time, change] : events) {
    now += change;
    peak = std::max(peak, now);
  }
  return peak;
}

Result<std::vector<WindowStats>> align_intervals(const std::vector<SeriesInput>& series,
                                                 uint64_t interval_ns, uint64_t origin_unix_ns) {
  // Key (cell, measured): a cell's warm-up row sorts before its measured row.
  std::map<std::pair<uint64_t, bool>, WindowStats> cells;
  for (const SeriesInput& s : series) {
    const uint64_t base = s.start_unix_ns - origin_unix_ns;
    for (const WindowStats& w : *s.windows) {
      if (!sum_fits(base, w.end_ns) || !sum_fits(base + w.end_ns, interval_ns / 2)) {
        return make_error("cannot merge the time series: a window's time overflows");
      }
      const uint64_t at = base + w.start_ns;
      const uint64_t cell = (at + interval_ns / 2) / interval_ns;
      WindowStats moved = w;
      moved.start_ns = cell * interval_ns;
      moved.end_ns = moved.start_ns + (w.end_ns - w.start_ns);
      moved.sources = std::max<uint32_t>(moved.sources, 1);  // merge_window skips 0 sources
      WindowStats& into = cells[{cell, !w.warmup}];
      if (into.sources != 0 && !windows_fit(into, moved)) {
        return make_error("cannot merge the time series: the counts of the window at " +
                          duration_text(moved.start_ns) + " overflow");
      }
      merge_window(into, moved);
    }
  }
  std::vector<WindowStats> out;
  out.reserve(cells.size());
  for (auto& [key, w] : cells) out.push_back(std::move(w));
  return out;
}

Result<MergeOutcome> merge_runs(std::vector<MergeInput> inputs, std::string_view version) {
  if (inputs.empty()) return make_error("nothing to merge");
  auto interval = common_interval(inputs);
  if (!interval) return interval.error();
  auto shards = check_shards(inputs);
  if (!shards) return shards.error();
  MergeOutcome out;
  for (size_t i = 1; i < inputs.size(); ++i) warn_differences(inputs[0], inputs[i], out.warnings);
  if (*shards) {
    out.warnings.insert(out.warnings.end(), (*shards)->warnings.begin(), (*shards)->warnings.end());
  }

  // What comes from the inputs as a whole, before their results move into the merge.
  RunResult& merged = out.merged.result;
  const MergeSummary summary = summarize(inputs);
  if (summary.measured_union_ns > kMaxDurationNs) {
    return make_error("cannot merge runs measured for more than 100 years in all");
  }
  set_notes(inputs, summary, *shards, merged);
  RunResult shares;
  set_load_shares(inputs, shares);
  uint64_t origin = std::numeric_limits<uint64_t>::max();
  for (const MergeInput& in : inputs) origin = std::min(origin, in.document.result.start_unix_ns);

  // The series are aligned apart; everything else adds up in RunResult::merge (which leaves the
  // notes alone), steps by index once they are on the merged timeline.
  std::vector<std::vector<WindowStats>> series(inputs.size());
  std::vector<SeriesInput> aligned;
  for (size_t i = 0; i < inputs.size(); ++i) {
    RunResult& part = inputs[i].document.result;
    const uint64_t offset = part.start_unix_ns - origin;
    for (WindowStats& step : part.steps) {
      if (!sum_fits(step.end_ns, offset)) {
        return make_error("cannot merge " + inputs[i].name + ": a stage's time overflows");
      }
      step.start_ns += offset;
      step.end_ns += offset;
      step.sources = std::max<uint32_t>(step.sources, 1);
    }
    series[i] = std::move(part.intervals);
    part.intervals.clear();
    aligned.push_back({part.start_unix_ns, &series[i]});
    if (!result_fits(merged, part)) {
      return make_error("cannot merge " + inputs[i].name +
                        ": its counts added to the others' overflow");
    }
    merged.merge(part);
  }
  if (*interval != 0) {
    auto intervals = align_intervals(aligned, *interval, origin);
    if (!intervals) return intervals.error();
    merged.intervals = std::move(intervals.value());
  }
  merged.interval_ns = *interval;
  merged.start_unix_ns = origin;
  merged.duration_ns = summary.measured_union_ns;
  merged.connections = shares.connections;
  merged.threads = shares.threads;
  merged.rate_target_per_s = shares.rate_target_per_s;
  out.merged.version = std::string(version);
  out.merged.merge = summary;
  if (*shards) {
    // The merge is the test (or the part of it that ran), not one shard of it.
    merged.shard_index = 0;
    merged.shard_count = 1;
    merged.shard_source.clear();
    out.merged.shards = std::move((*shards)->summary);
  }
  return out;
}

}  // namespace hail
