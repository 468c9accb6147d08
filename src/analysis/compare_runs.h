// `hail compare`'s engine: which metrics two sets of saved runs are compared on, whether they
// offered the same load, and the comparison itself (moving-block bootstrap over the windows of
// single runs; medians and Mann-Whitney U over repeated runs). Owner: analysis. Pure (no I/O, no
// clock; the bootstrap is seeded): any thread.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/compare_stats.h"
#include "core/result.h"
#include "stats/run_result.h"

namespace hail {

enum class MetricSource { kLatency, kService, kLag, kRps, kErrorRate };

// One compared quantity: a statistic of a histogram (percentile, mean, max), the achieved rate or
// the error rate. Its change is relative (candidate / base - 1) except for the error rate, whose
// change is absolute (candidate - base, a fraction: the base is often 0).
struct MetricDef {
  std::string name;  // "p99", "service.p99", "rps", "error_rate"; also the --tolerance key
  MetricSource source = MetricSource::kLatency;
  double percentile = 50;  // for histogram sources; kStatMean and kStatMax select the others
  bool lower_is_better = true;
  bool absolute = false;
  double default_tolerance = 0.05;
};
inline constexpr double kStatMean = -1;
inline constexpr double kStatMax = 101;

// The metrics compared, in report order: latency p50 p90 p99 p99.9 mean max; service time and
// lag (open-loop runs only, `with_open_loop`); rps; error_rate.
std::vector<MetricDef> compare_metric_defs(bool with_open_loop);

// "--tolerance p99=5%,rps=3%,error_rate=0.1%": each key a metric name, each value a percentage
// (relative, or percentage points for error_rate) or a plain fraction. Error names the bad part.
Result<std::map<std::string, double>> parse_tolerances(std::string_view text);

struct CompareOptions {
  size_t resamples = 2000;
  size_t block_windows = 0;  // 0: default_block_windows(windows)
  uint64_t seed = 1;
  double confidence = 0.95;
  double alpha = 0.05;
  size_t min_windows = 10;
  std::map<std::string, double> tolerances;  // overrides of MetricDef::default_tolerance
};

struct MetricComparison {
  std::string name;
  std::string tag;  // empty: the whole run; else a tag (--urls line) of both runs
  bool absolute = false;
  bool lower_is_better = true;
  bool is_time = true;  // nanoseconds (histograms); else requests/s or a fraction
  double base = 0;
  double candidate = 0;
  double change = 0;  // relative (candidate / base - 1), or absolute for error rates
  Interval base_interval;
  Interval candidate_interval;
  Interval change_interval;
  double tolerance = 0;
  double p_value = -1;  // repeated runs: Mann-Whitney's; -1 otherwise
  Verdict verdict = Verdict::kInconclusive;
};

struct Comparison {
  std::string method;  // "block-bootstrap" or "mann-whitney"
  size_t base_runs = 0, candidate_runs = 0;
  size_t base_windows = 0, candidate_windows = 0;  // single runs: measured windows compared
  size_t block_windows = 0;
  size_t resamples = 0;
  uint64_t seed = 0;
  double confidence = 0.95;
  double alpha = 0.05;
  std::vector<MetricComparison> metrics;
  std::vector<std::string> notes;
  bool any_regressed() const;
};

// Empty when `candidate` offered the load `base` did: same URL, method, connections, rate,
// pipeline, streams, HTTP version, keep-alive, mix (tag names), stages, and durations within a
// factor of 2. Otherwise one line naming the first difference ("rate 1000 req/s vs 2000 req/s").
std::string load_difference(const RunResult& base, const RunResult& candidate);

// A single-run statistic needs at least this many requests at or beyond it in each run (p99 of
// 1,000 requests: 10; a maximum: never) to get a verdict other than inconclusive.
inline constexpr int kMinTailRequests = 10;

// Notes about runs whose numbers are not the server's alone: hail itself was the limit (generator
// health, analysis/generator_health.h), or an open-loop run missed its target rate. `name` names
// the run ("base.json"). Empty when the run is clean.
std::vector<std::string> run_health_notes(const RunResult& run, const std::string& name);

// One run against one: a moving-block bootstrap over each run's measured --interval windows.
// Refused (one line) when a side has fewer than options.min_windows measured windows.
Result<Comparison> compare_single(const RunResult& base, const RunResult& candidate,
                                  const CompareOptions& options);

// Repeated runs (each side at least 1; verdicts need enough runs for Mann-Whitney to reach
// alpha): one value per run and metric, the medians with their order-statistic intervals.
Result<Comparison> compare_repeated(std::span<const RunResult> base,
                                    std::span<const RunResult> candidate,
                                    const CompareOptions& options);

}  // namespace hail
