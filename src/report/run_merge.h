// Merging saved runs (hail merge): shards run at the same time, or runs made one after another,
// combined exactly: counts and histograms add up (RunResult::merge), time series aligned on one
// wall-clock grid, rates over the union of the measured intervals. Owner: report. Pure: any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"
#include "report/result_document.h"
#include "stats/run_result.h"

namespace hail {

struct MergeInput {
  std::string name;  // the file as named on the command line: messages and the merge summary
  ResultDocument document;
};

struct MergeOutcome {
  ResultDocument merged;
  // One line each, naming the input: what it targeted or how it loaded differs from the first
  // input's (URL, method, HTTP version, keep-alive, timeout, warm-up, duration, load model,
  // pipeline, streams, stages). The merge is exact all the same.
  std::vector<std::string> warnings;
};

// Merges the inputs in order (the first one's settings describe the result, as in
// RunResult::merge). Refuses, with one line naming the inputs, what cannot be merged exactly: time
// series of different interval lengths, a time series in some inputs only, and counts whose sum
// would overflow (a histogram total past 2^63 - 1, a counter past 2^64 - 1).
// Also sets the merged result's notes: how far apart the inputs started and ended, then each
// input's own notes prefixed with its name. `version` is the merging hail's.
// Shards of one test (report/shard_merge.h): two inputs of the same shard index are refused; the
// merged document's `shards` says which shards are present and missing, the share of the load the
// missing ones would have offered (also a warning and a note), the shards' start skew (a note that
// replaces the inputs' start skew) and which were interrupted or cut short.
Result<MergeOutcome> merge_runs(std::vector<MergeInput> inputs, std::string_view version);

// The time-series rule. Every window of every run is moved onto one grid of interval_ns starting
// at origin_unix_ns (the earliest run's load start): a window starting at wall-clock time t (its
// run's start_unix_ns + its start_ns) goes to the grid cell k nearest to it, k = round((t -
// origin) / interval_ns) with halves rounding up, and keeps its length, so it moves by at most half
// an interval. Windows in one cell merge exactly (merge_window); warm-up windows never merge with
// measured ones (a cell may hold one of each, the warm-up row first), so the measured rows still
// add up to the totals. Windows of one run keep their cells apart (they start an interval apart).
struct SeriesInput {
  uint64_t start_unix_ns = 0;
  const std::vector<WindowStats>* windows = nullptr;
};
// Refuses windows whose counts would overflow when merged (see merge_runs).
Result<std::vector<WindowStats>> align_intervals(const std::vector<SeriesInput>& series,
                                                 uint64_t interval_ns, uint64_t origin_unix_ns);

// The length of the union of half-open intervals [first, second).
uint64_t union_length_ns(std::vector<std::pair<uint64_t, uint64_t>> intervals);

// The largest sum of the values of intervals [start, end) that overlap at one instant: the load
// (connections, threads, rate) of runs that ran at the same time adds up, that of runs made one
// after another does not. An empty interval counts as lasting 1 ns.
struct TimedValue {
  uint64_t start = 0;
  uint64_t end = 0;
  double value = 0;
};
double peak_concurrent_sum(std::vector<TimedValue> values);

}  // namespace hail
