// The exact part of the JSON report (hail/2): integer times, every counter, error reasons as rows,
// whole histograms ("HISTF..." plus exact extremes), every window; the key names and histogram
// layout the writer and the reader (json_reader.h) share. Owner: report. Pure: any thread.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "report/result_document.h"
#include "stats/histogram.h"
#include "stats/histogram_codec.h"
#include "stats/run_result.h"

namespace hail {

class JsonWriter;

// The layout every histogram of a hail/2 document has ("histograms"."layout").
inline constexpr std::string_view kHistogramFormat = "HdrHistogram V2 compressed, base64";
inline constexpr std::string_view kHistogramUnit = "ns";
inline constexpr uint64_t kHistogramLowestDiscernible = 1;
inline constexpr uint64_t kHistogramSignificantDigits = 3;
inline constexpr uint64_t kHistogramHighestTrackable = Histogram::kDefaultHighestTrackableNs;

// The run's histograms by their key in "histograms".
struct RunHistogramKey {
  std::string_view key;
  Histogram RunResult::*member;
};
inline constexpr std::array<RunHistogramKey, 6> kRunHistogramKeys{{
    {"latency", &RunResult::latency},
    {"service_time", &RunResult::service_time},
    {"lag", &RunResult::lag},
    {"connect", &RunResult::connect_time},
    {"ttfb", &RunResult::ttfb},
    {"tls_handshake", &RunResult::tls_handshake},
}};

// A window's histograms by their key in its "histograms".
struct WindowHistogramKey {
  std::string_view key;
  EncodedHistogram WindowStats::*member;
};
inline constexpr std::array<WindowHistogramKey, 3> kWindowHistogramKeys{{
    {"latency", &WindowStats::latency},
    {"service_time", &WindowStats::service},
    {"lag", &WindowStats::lag},
}};

// Counters' fields other than `errors` (an object of every class), by key in "counters".
struct CounterKey {
  std::string_view key;
  uint64_t Counters::*member;
};
inline constexpr std::array<CounterKey, 13> kCounterKeys{{
    {"attempted", &Counters::attempted},
    {"completed", &Counters::completed},
    {"status_errors", &Counters::status_errors},
    {"in_flight", &Counters::in_flight},
    {"bytes_read", &Counters::bytes_read},
    {"bytes_written", &Counters::bytes_written},
    {"connections_opened", &Counters::connections_opened},
    {"interim_responses", &Counters::interim_responses},
    {"tls_handshakes", &Counters::tls_handshakes},
    {"tls_resumed", &Counters::tls_resumed},
    {"connections_h2", &Counters::connections_h2},
    {"retried", &Counters::retried},
    {"unsolicited", &Counters::unsolicited},
}};

// Every field of Counters is written: a field added to it fails here until the JSON carries it.
static_assert(sizeof(Counters) == (kCounterKeys.size() + kErrorClassCount) * sizeof(uint64_t));

// The top-level keys hail/2 adds, in order (after hail/1's "client"; see docs/json-schema.md).
void write_exact_block(JsonWriter& j, const ResultDocument& doc);

// A tag's "histograms": {"latency": {...}} (omitted values: see write_histogram).
void write_tag_histograms(JsonWriter& j, const TagResult& tag);

}  // namespace hail
