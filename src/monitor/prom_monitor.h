// PromMonitor: --monitor prom:URL, one scrape of a Prometheus text endpoint per window (a
// node_exporter or process-exporter on the server's machine, or the server's own metrics), the
// series named with --monitor-metric (or node_exporter's default set: monitor/prom_text.h) kept as
// columns. Scrapes are a blocking HTTP/1.0 GET with a timeout, on the supervising thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "monitor/monitor.h"
#include "monitor/prom_text.h"

namespace hail {

// GET url (http:// only) within timeout_ns: the body of a 200 response, or a one-line reason.
Result<std::string> http_get_text(const std::string& url, uint64_t timeout_ns);

class PromMonitor : public Monitor {
 public:
  using Fetch = std::function<Result<std::string>()>;
  // source: "prom:URL"; names: --monitor-metric values (empty: the default set).
  PromMonitor(std::string source, std::vector<std::string> names, Fetch fetch);
  // Scrapes once: unreachable, not Prometheus text, or none of the series asked for: an error.
  Status check() override;
  void begin(uint64_t at_ns) override;
  void sample(uint64_t at_ns, bool warmup) override;

 private:
  Result<std::vector<PromColumn>> scrape() const;

  std::vector<std::string> names_;
  Fetch fetch_;
  std::vector<PromColumn> previous_;  // the last good scrape, in series_.metrics order
  bool have_previous_ = false;
  uint64_t previous_ns_ = 0;
  bool failing_ = false;
};

}  // namespace hail
