#include "cli/monitor_sampler.h"

#include <algorithm>
#include <utility>

#include "core/clock.h"
#include "monitor/host_monitor.h"
#include "monitor/monitor_spec.h"
#include "monitor/process_monitor.h"
#include "monitor/prom_monitor.h"

namespace hail {

namespace {
class MonitorSampler : public WindowSampler {
 public:
  explicit MonitorSampler(std::vector<std::unique_ptr<Monitor>> monitors)
      : monitors_(std::move(monitors)) {}
  void begin() override {
    for (auto& m : monitors_) m->begin(0);
  }
  void sample(uint64_t at_ns, bool warmup) override {
    for (auto& m : monitors_) m->sample(at_ns, warmup);
  }
  std::vector<MonitorSeries> snapshot() const override {
    std::vector<MonitorSeries> out;
    for (const auto& m : monitors_) out.push_back(m->series());
    return out;
  }
  std::vector<MonitorSeries> finish(uint64_t at_ns, bool warmup, bool sample_last) override {
    std::vector<MonitorSeries> out;
    for (auto& m : monitors_) {
      if (sample_last) m->sample(at_ns, warmup);
      out.push_back(m->series());
    }
    return out;
  }

 private:
  std::vector<std::unique_ptr<Monitor>> monitors_;
};
}  // namespace

Result<std::shared_ptr<WindowSampler>> make_monitor_sampler(const std::vector<std::string>& specs,
                                                            const std::vector<std::string>& metrics,
                                                            uint64_t interval_ns) {
  const uint64_t timeout_ns = std::clamp<uint64_t>(interval_ns / 2, 50 * kNsPerMs, kNsPerSec);
  std::vector<std::unique_ptr<Monitor>> monitors;
  for (const std::string& text : specs) {
    auto spec = parse_monitor_spec(text);
    if (!spec) return spec.error();
    std::unique_ptr<Monitor> m;
    switch (spec->kind) {
      case MonitorKind::kPid:
      case MonitorKind::kName:
        m = std::make_unique<ProcessMonitor>(spec.value(), real_proc_fs());
        break;
      case MonitorKind::kHost:
        m = std::make_unique<HostMonitor>(real_proc_fs());
        break;
      case MonitorKind::kProm:
        m = std::make_unique<PromMonitor>(spec->text, metrics, [url = spec->name, timeout_ns] {
          return http_get_text(url, timeout_ns);
        });
        break;
    }
    if (Status st = m->check(); !st) return st.error();
    monitors.push_back(std::move(m));
  }
  return std::shared_ptr<WindowSampler>(std::make_shared<MonitorSampler>(std::move(monitors)));
}

}  // namespace hail
