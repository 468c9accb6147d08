// Prometheus text exposition format (version 0.0.4): the samples of one scrape, and the choice of
// series a prom: monitor keeps (the names given with --monitor-metric, or the default set for
// node_exporter). Pure; any thread.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"

namespace hail {

struct PromSample {
  std::string name;
  std::vector<std::pair<std::string, std::string>> labels;  // in the order written
  double value = 0;

  // The value of label `key`, or "".
  std::string_view label(std::string_view key) const;
};

// Every sample; comments (# HELP, # TYPE) and blank lines skipped. A line that is not a sample is
// an error naming its number ("line 3: ..."), so an HTML page or a truncated body is refused, not
// read as no data. Timestamps after the value are allowed and ignored.
Result<std::vector<PromSample>> parse_prom_text(std::string_view text);

// The columns of a prom: monitor, computed from one scrape's samples.
// - names empty: node_exporter's default set: cpu_<mode>_pct (node_cpu_seconds_total summed over
//   the CPUs, as % of the machine), mem_total_bytes and mem_available_bytes
//   (node_memory_MemTotal_bytes, node_memory_MemAvailable_bytes), net_rx_bytes_per_s and
//   net_tx_bytes_per_s (node_network_{receive,transmit}_bytes_total over every device but lo).
// - otherwise every series with one of the names: "NAME" or "NAME{k=v;k=v}" (label values with
//   any byte outside [A-Za-z0-9_.:-] as '_'); a counter (a name ending in _total) becomes
//   "NAME_per_s..." and is reported per second.
// Each column is either a gauge (the value as scraped) or a counter (per second between scrapes;
// cpu_<mode>_pct: per second x 100 / CPUs).
struct PromColumn {
  std::string name;
  bool counter = false;
  double value = 0;  // the gauge, or the counter's running total (summed)
  double scale = 1;  // applied to the per-second rate of a counter
};
std::vector<PromColumn> prom_columns(const std::vector<PromSample>& samples,
                                     const std::vector<std::string>& names);

}  // namespace hail
