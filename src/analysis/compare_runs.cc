#include "analysis/compare_runs.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace hail {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// A window's histogram kept sparse: its non-empty slots and its exact extremes. Resamples add
// these into one scratch histogram per source, so the cost of a resample is the number of
// non-empty slots of the windows it picks, and no histogram is allocated per window.
struct SparseHistogram {
  std::vector<std::pair<size_t, uint64_t>> slots;
  uint64_t min_ns = 0;
  uint64_t max_ns = 0;
  uint64_t out_of_range = 0;

  void add_to(Histogram& into) const {
    if (slots.empty()) return;
    for (const auto& [index, count] : slots) into.add_at_index(index, count);
    into.widen_extremes(min_ns, max_ns, out_of_range);
  }
};

struct PreparedWindow {
  SparseHistogram latency, service, lag;
  uint64_t completed = 0;
  uint64_t failed = 0;          // status errors and request errors
  uint64_t request_errors = 0;  // requests that ended without a response
  uint64_t duration_ns = 0;
};

// The totals a set of windows (or a run) is judged on.
struct Sample {
  const Histogram* latency = nullptr;
  const Histogram* service = nullptr;
  const Histogram* lag = nullptr;
  uint64_t completed = 0;
  uint64_t failed = 0;
  uint64_t request_errors = 0;
  double duration_s = 0;
};

double histogram_stat(const Histogram* h, double which) {
  if (h == nullptr || h->count() == 0) return 0;
  if (which == kStatMean) return h->mean();
  if (which == kStatMax) return static_cast<double>(h->max());
  return static_cast<double>(h->value_at_percentile(which));
}

double metric_value(const MetricDef& def, const Sample& s) {
  switch (def.source) {
    case MetricSource::kLatency:
      return histogram_stat(s.latency, def.percentile);
    case MetricSource::kService:
      return histogram_stat(s.service, def.percentile);
    case MetricSource::kLag:
      return histogram_stat(s.lag, def.percentile);
    case MetricSource::kRps:
      return s.duration_s > 0 ? static_cast<double>(s.completed) / s.duration_s : 0;
    case MetricSource::kErrorRate: {
      const uint64_t attempts = s.completed + s.request_errors;
      return attempts ? static_cast<double>(s.failed) / static_cast<double>(attempts) : 0;
    }
  }
  return 0;
}

double change_of(const MetricDef& def, double base, double candidate) {
  if (def.absolute) return candidate - base;
  if (base == 0) return candidate == 0 ? 0 : kInfinity;
  return candidate / base - 1;
}

uint64_t request_errors_of(const std::array<uint64_t, kErrorClassCount>& errors) {
  uint64_t n = 0;
  for (size_t i = 0; i < kErrorClassCount; ++i) {
    if (is_request_error(static_cast<ErrorClass>(i))) n += errors[i];
  }
  return n;
}

const TagWindow* find_tag_window(const WindowStats& w, const std::string& name) {
  for (const TagWindow& t : w.tags) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

// Whether any measured window of `run` has a share of tag `name`.
bool windows_have_tag(const RunResult& run, const std::string& name) {
  return std::any_of(run.intervals.begin(), run.intervals.end(), [&](const WindowStats& w) {
    return !w.warmup && find_tag_window(w, name) != nullptr;
  });
}

SparseHistogram sparse(const EncodedHistogram& encoded, Histogram& scratch) {
  SparseHistogram out;
  if (encoded.count() == 0) return out;
  scratch.reset();
  encoded.add_to(scratch);
  scratch.for_each_index(
      [&](size_t index, uint64_t count) { out.slots.emplace_back(index, count); });
  out.min_ns = encoded.min();
  out.max_ns = encoded.max();
  out.out_of_range = encoded.out_of_range();
  return out;
}

// The measured windows of a run, or (tag not empty) that tag's share of each of them: a window in
// which the tag had no outcome is an empty window of the same duration, so that blocks of
// consecutive windows stay blocks of the same time.
Result<std::vector<PreparedWindow>> prepare_windows(const RunResult& run, const char* side,
                                                    size_t min_windows,
                                                    const std::string& tag = std::string()) {
  std::vector<PreparedWindow> out;
  Histogram scratch;
  for (const WindowStats& w : run.intervals) {
    if (w.warmup) continue;
    for (const EncodedHistogram* h : {&w.latency, &w.service, &w.lag}) {
      if (h->count() != 0 && h->highest_trackable_ns() != scratch.highest_trackable_ns()) {
        return make_error(std::string("the ") + side +
                          " run's windows use another histogram layout than hail's default");
      }
    }
    PreparedWindow p;
    p.duration_ns = w.duration_ns();
    if (tag.empty()) {
      p.latency = sparse(w.latency, scratch);
      p.service = sparse(w.service, scratch);
      p.lag = sparse(w.lag, scratch);
      p.completed = w.completed;
      p.request_errors = request_errors_of(w.errors);
      p.failed = w.status_errors + p.request_errors;
    } else if (const TagWindow* t = find_tag_window(w, tag)) {
      p.latency = sparse(t->latency, scratch);
      p.completed = t->completed;
      p.request_errors = request_errors_of(t->errors);
      p.failed = t->status_errors + p.request_errors;
    }
    out.push_back(std::move(p));
  }
  if (out.size() < min_windows) {
    return make_error(std::string("the ") + side + " run has " + std::to_string(out.size()) +
                      " measured --interval windows; comparing single runs needs at least " +
                      std::to_string(min_windows) +
                      " (record with a shorter --interval or a longer -d, e.g. -d 10s --interval "
                      "500ms, or compare repeated runs with --base/--candidate)");
  }
  return out;
}

// Computes every metric of the windows `picks` (indices into `windows`), into `values`.
class WindowStatistic {
 public:
  WindowStatistic(const std::vector<PreparedWindow>& windows, std::span<const MetricDef> defs)
      : windows_(windows), defs_(defs) {}

  void compute(std::span<const size_t> picks, std::vector<double>& values) {
    latency_.reset();
    service_.reset();
    lag_.reset();
    Sample s{&latency_, &service_, &lag_};
    uint64_t duration_ns = 0;
    for (size_t i : picks) {
      const PreparedWindow& w = windows_[i];
      w.latency.add_to(latency_);
      w.service.add_to(service_);
      w.lag.add_to(lag_);
      s.completed += w.completed;
      s.failed += w.failed;
      s.request_errors += w.request_errors;
      duration_ns += w.duration_ns;
    }
    s.duration_s = static_cast<double>(duration_ns) / 1e9;
    values.resize(defs_.size());
    for (size_t m = 0; m < defs_.size(); ++m) values[m] = metric_value(defs_[m], s);
  }

  // How many requests of the last compute() stand at or beyond metric m's statistic: the
  // percentile's tail, 1 for the maximum; the whole count for means and counters.
  double tail_requests(size_t m) const {
    const MetricDef& def = defs_[m];
    const Histogram* h = def.source == MetricSource::kService ? &service_
                         : def.source == MetricSource::kLag   ? &lag_
                                                              : &latency_;
    const auto count = static_cast<double>(h->count());
    if (def.source == MetricSource::kRps || def.source == MetricSource::kErrorRate ||
        def.percentile == kStatMean) {
      return count;
    }
    if (def.percentile == kStatMax) return count > 0 ? 1 : 0;
    return count * (100 - def.percentile) / 100;
  }

 private:
  const std::vector<PreparedWindow>& windows_;
  std::span<const MetricDef> defs_;
  Histogram latency_, service_, lag_;
};

double tolerance_of(const MetricDef& def, const CompareOptions& options) {
  const auto it = options.tolerances.find(def.name);
  return it != options.tolerances.end() ? it->second : def.default_tolerance;
}

MetricComparison start_metric(const MetricDef& def, const CompareOptions& options) {
  MetricComparison m;
  m.name = def.name;
  m.absolute = def.absolute;
  m.lower_is_better = def.lower_is_better;
  m.is_time = def.source == MetricSource::kLatency || def.source == MetricSource::kService ||
              def.source == MetricSource::kLag;
  m.tolerance = tolerance_of(def, options);
  return m;
}

bool has_open_loop(const RunResult& r) {
  return r.rate_mode() && r.service_time.count() > 0;
}

Sample run_sample(const RunResult& r) {
  Sample s{&r.latency, &r.service_time, &r.lag};
  s.completed = r.counters.completed;
  s.request_errors = r.counters.request_errors();
  s.failed = r.counters.status_errors + s.request_errors;
  s.duration_s = r.duration_s();
  return s;
}

uint64_t tag_status_errors(const TagResult& t) {
  uint64_t n = 0;
  for (const auto& [status, count] : t.status_codes) {
    if (status < 200 || status >= 400) n += count;
  }
  return n;
}

Sample tag_sample(const RunResult& r, const TagResult& t) {
  Sample s{&t.latency};
  s.completed = t.completed;
  s.request_errors = request_errors_of(t.errors);
  s.failed = tag_status_errors(t) + s.request_errors;
  s.duration_s = r.duration_s();
  return s;
}

const TagResult* find_tag(const RunResult& r, const std::string& name) {
  for (const TagResult& t : r.tags) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

}  // namespace

bool Comparison::any_regressed() const {
  return std::any_of(metrics.begin(), metrics.end(),
                     [](const MetricComparison& m) { return m.verdict == Verdict::kRegressed; });
}

namespace {

// The block bootstrap of `defs` over two runs' prepared windows: one line per metric, appended to
// out.metrics with `tag`; names of the metrics too extreme to judge are appended to `extremes`.
void bootstrap_metrics(const std::vector<PreparedWindow>& base_windows,
                       const std::vector<PreparedWindow>& cand_windows,
                       std::span<const MetricDef> defs, const CompareOptions& options,
                       const std::string& tag, Comparison& out, std::string& extremes) {
  WindowStatistic base_stat(base_windows, defs);
  WindowStatistic cand_stat(cand_windows, defs);
  std::vector<size_t> picks;
  std::vector<double> base_point, cand_point, b, c;
  std::vector<double> fewest_tail(defs.size(), kInfinity);
  for (size_t side = 0; side < 2; ++side) {
    const size_t n = side == 0 ? base_windows.size() : cand_windows.size();
    picks.resize(n);
    for (size_t i = 0; i < n; ++i) picks[i] = i;
    WindowStatistic& stat = side == 0 ? base_stat : cand_stat;
    stat.compute(picks, side == 0 ? base_point : cand_point);
    for (size_t m = 0; m < defs.size(); ++m) {
      fewest_tail[m] = std::min(fewest_tail[m], stat.tail_requests(m));
    }
  }
  // Paired resamples: each round resamples both runs (independently) and records both statistics
  // and their change, so the change's interval comes from the same rounds as the sides'. Every
  // line (the run's, each tag's) starts from the seed: each is reproducible on its own.
  SeededRng rng(options.seed);
  std::vector<std::vector<double>> base_draws(defs.size()), cand_draws(defs.size()),
      change_draws(defs.size());
  for (size_t r = 0; r < out.resamples; ++r) {
    block_resample(base_windows.size(), out.block_windows, rng, picks);
    base_stat.compute(picks, b);
    block_resample(cand_windows.size(), out.block_windows, rng, picks);
    cand_stat.compute(picks, c);
    for (size_t m = 0; m < defs.size(); ++m) {
      base_draws[m].push_back(b[m]);
      cand_draws[m].push_back(c[m]);
      change_draws[m].push_back(change_of(defs[m], b[m], c[m]));
    }
  }
  for (size_t m = 0; m < defs.size(); ++m) {
    MetricComparison mc = start_metric(defs[m], options);
    mc.tag = tag;
    mc.base = base_point[m];
    mc.candidate = cand_point[m];
    mc.change = change_of(defs[m], mc.base, mc.candidate);
    mc.base_interval = percentile_interval(base_draws[m], options.confidence);
    mc.candidate_interval = percentile_interval(cand_draws[m], options.confidence);
    mc.change_interval = percentile_interval(change_draws[m], options.confidence);
    mc.verdict = interval_verdict(mc.change_interval, mc.tolerance, mc.lower_is_better);
    // The bootstrap cannot judge extremes: a resample's maximum never exceeds the run's, so the
    // interval of a statistic that only a few requests stand behind is too narrow on one side.
    if (fewest_tail[m] < kMinTailRequests) {
      mc.verdict = Verdict::kInconclusive;
      const std::string name = tag.empty() ? mc.name : tag + " " + mc.name;
      extremes += (extremes.empty() ? "" : ", ") + name;
    }
    out.metrics.push_back(std::move(mc));
  }
}

}  // namespace

Result<Comparison> compare_single(const RunResult& base, const RunResult& candidate,
                                  const CompareOptions& options) {
  auto base_windows = prepare_windows(base, "base", options.min_windows);
  if (!base_windows) return base_windows.error();
  auto cand_windows = prepare_windows(candidate, "candidate", options.min_windows);
  if (!cand_windows) return cand_windows.error();
  const std::vector<MetricDef> defs =
      compare_metric_defs(has_open_loop(base) && has_open_loop(candidate));

  Comparison out;
  out.method = "block-bootstrap";
  out.base_runs = out.candidate_runs = 1;
  out.base_windows = base_windows->size();
  out.candidate_windows = cand_windows->size();
  out.block_windows =
      options.block_windows != 0
          ? options.block_windows
          : default_block_windows(std::min(out.base_windows, out.candidate_windows));
  out.resamples = std::max<size_t>(options.resamples, 1);
  out.seed = options.seed;
  out.confidence = options.confidence;
  out.alpha = options.alpha;

  std::string extremes;
  bootstrap_metrics(base_windows.value(), cand_windows.value(), defs, options, "", out, extremes);

  // Tags (--urls lines, hail.tag) of both runs, from their shares of the same windows: latency,
  // rate and errors of each (service time and lag are the run's).
  std::vector<MetricDef> tag_defs;
  for (const MetricDef& d : defs) {
    if (d.source != MetricSource::kService && d.source != MetricSource::kLag) tag_defs.push_back(d);
  }
  std::string unwindowed;
  for (const TagResult& t : base.tags) {
    if (find_tag(candidate, t.name) == nullptr) continue;
    if (!windows_have_tag(base, t.name) || !windows_have_tag(candidate, t.name)) {
      unwindowed += (unwindowed.empty() ? "" : ", ") + t.name;
      continue;
    }
    auto bt = prepare_windows(base, "base", 0, t.name);
    auto ct = prepare_windows(candidate, "candidate", 0, t.name);
    if (!bt || !ct) continue;  // the layouts were checked with the run's windows
    bootstrap_metrics(bt.value(), ct.value(), tag_defs, options, t.name, out, extremes);
  }
  if (!extremes.empty()) {
    out.notes.push_back(
        extremes + ": fewer than " + std::to_string(kMinTailRequests) +
        " requests at or beyond the statistic in a run; a bootstrap cannot judge "
        "extremes, so they are inconclusive (compare repeated runs, or longer ones)");
  }
  if (!unwindowed.empty()) {
    out.notes.push_back("no per-tag lines for " + unwindowed +
                        ": a run's windows keep no share of them (a result saved by an older "
                        "hail); compare repeated runs (--base/--candidate) for them");
  }
  return out;
}

namespace {

// One metric over repeated runs: the medians, their order-statistic intervals, Mann-Whitney U.
MetricComparison rank_metric(const MetricDef& def, const CompareOptions& options,
                             const std::vector<double>& base, const std::vector<double>& cand) {
  MetricComparison mc = start_metric(def, options);
  mc.base = median(base);
  mc.candidate = median(cand);
  mc.change = change_of(def, mc.base, mc.candidate);
  mc.base_interval = median_interval(base, options.confidence).interval;
  mc.candidate_interval = median_interval(cand, options.confidence).interval;
  // The change's interval from the medians' intervals, at their far ends: conservative (its
  // coverage is at least that of both intervals together), shown for context; the verdict is the
  // rank test's.
  const Interval bi = mc.base_interval, ci = mc.candidate_interval;
  mc.change_interval = {change_of(def, bi.high, ci.low), change_of(def, bi.low, ci.high)};
  mc.p_value = mann_whitney(cand, base).p_value;
  mc.verdict = rank_verdict(mc.p_value, options.alpha, mc.change, mc.tolerance, mc.lower_is_better);
  return mc;
}

}  // namespace

Result<Comparison> compare_repeated(std::span<const RunResult> base,
                                    std::span<const RunResult> candidate,
                                    const CompareOptions& options) {
  if (base.empty() || candidate.empty()) return make_error("each side needs at least one run");
  bool open_loop = true;
  for (const auto* side : {&base, &candidate}) {
    for (const RunResult& r : *side) open_loop = open_loop && has_open_loop(r);
  }
  const std::vector<MetricDef> defs = compare_metric_defs(open_loop);
  Comparison out;
  out.method = "mann-whitney";
  out.base_runs = base.size();
  out.candidate_runs = candidate.size();
  out.confidence = options.confidence;
  out.alpha = options.alpha;
  const auto values = [](std::span<const RunResult> runs, const MetricDef& def,
                         const std::string& tag) {
    std::vector<double> v;
    for (const RunResult& r : runs) {
      v.push_back(
          metric_value(def, tag.empty() ? run_sample(r) : tag_sample(r, *find_tag(r, tag))));
    }
    return v;
  };
  for (const MetricDef& def : defs) {
    out.metrics.push_back(
        rank_metric(def, options, values(base, def, ""), values(candidate, def, "")));
  }
  // Tags (--urls lines) every run has: latency, rate and errors of each.
  for (const TagResult& t : base.front().tags) {
    const auto everywhere = [&](std::span<const RunResult> runs) {
      return std::all_of(runs.begin(), runs.end(),
                         [&](const RunResult& r) { return find_tag(r, t.name) != nullptr; });
    };
    if (!everywhere(base) || !everywhere(candidate)) continue;
    for (const MetricDef& def : defs) {
      if (def.source == MetricSource::kService || def.source == MetricSource::kLag) continue;
      MetricComparison mc =
          rank_metric(def, options, values(base, def, t.name), values(candidate, def, t.name));
      mc.tag = t.name;
      out.metrics.push_back(std::move(mc));
    }
  }
  const size_t smallest = std::min(base.size(), candidate.size());
  if (smallest < 3) {
    out.notes.push_back("fewer than 3 runs on a side: medians of so few runs are fragile");
  }
  // The smallest two-sided p-value n against m runs can reach is 2 / C(n + m, n).
  std::vector<double> low(base.size(), 0), high(candidate.size(), 1);
  if (mann_whitney(high, low).p_value >= options.alpha) {
    out.notes.push_back(
        std::to_string(base.size()) + " against " + std::to_string(candidate.size()) +
        " runs cannot reach significance at alpha " + std::to_string(options.alpha).substr(0, 4) +
        " whatever the data (4 against 4 can): no metric can be called "
        "improved or regressed");
  }
  return out;
}

}  // namespace hail
