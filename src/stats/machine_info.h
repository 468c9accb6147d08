// MachineInfo: the machine a run's load came from (CPU model, CPUs, kernel, host name), recorded
// by the front-end when the run ends and kept with the result so that a saved or merged result
// still says where it was measured. Owner: stats. Plain values: any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hail {

struct MachineInfo {
  std::string cpu_model;  // "AMD EPYC 7B13"; empty when unknown
  uint32_t cpus = 0;      // online CPUs; 0 when unknown
  std::string kernel;     // "Linux 6.1.0-26-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.112-1"
  std::string hostname;

  bool operator==(const MachineInfo&) const = default;
};

// Adds each machine of `from` that `into` does not list yet (a merge of shards lists every host
// once, in first-seen order).
inline void merge_machines(std::vector<MachineInfo>& into, const std::vector<MachineInfo>& from) {
  for (const MachineInfo& m : from) {
    bool known = false;
    for (const MachineInfo& k : into) known = known || k == m;
    if (!known) into.push_back(m);
  }
}

}  // namespace hail
