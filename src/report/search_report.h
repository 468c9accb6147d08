// `hail search`'s reports: one text row per probe as it is decided, the verdict (the highest
// level that met every threshold, the bracket around it, what limited it), and the JSON document.
// Owner: report. Pure functions: any thread.
#pragma once

#include <string>
#include <vector>

#include "analysis/search_controller.h"
#include "stats/machine_info.h"

namespace hail {

struct SearchContext {
  std::string version;  // hail's
  std::string url;
  bool by_connections = false;   // the levels are connections (closed loop), else req/s
  std::vector<std::string> slo;  // the thresholds, as written
  uint32_t threads = 0;
  uint32_t connections = 0;      // rate searches: the pool (-c)
  uint32_t max_connections = 0;  // rate searches: what the pool may grow to
  bool interrupted = false;
  std::vector<MachineInfo> machines;  // where the load came from (cli/machine_probe.h)
};

// The lines printed before the first probe: what is searched, and the rows' column heads.
std::string render_search_header(const SearchContext& context);
// One probe's row (index from 1).
std::string render_search_row(const SearchContext& context, const ProbeRecord& record,
                              size_t index);
// The verdict after the rows.
std::string render_search_verdict(const SearchContext& context, const SearchVerdict& verdict);
// The whole search as a JSON document (schema "hail-search/1").
std::string render_search_json(const SearchContext& context, const SearchVerdict& verdict);

}  // namespace hail
