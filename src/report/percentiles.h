// The percentiles every report prints, with their labels. Shared by the text and JSON reports so
// both always show the same set. Constants: any thread.
#pragma once

#include <array>

namespace hail {

struct ReportPercentile {
  double percentile;
  const char* json_key;
  const char* text_label;
};

inline constexpr std::array<ReportPercentile, 6> kReportPercentiles{{
    {50.0, "p50", "50%"},
    {75.0, "p75", "75%"},
    {90.0, "p90", "90%"},
    {99.0, "p99", "99%"},
    {99.9, "p99.9", "99.9%"},
    {99.99, "p99.99", "99.99%"},
}};

}  // namespace hail
