#include "report/json_machine.h"

#include <optional>

namespace hail {

namespace {

void write_machine(JsonWriter& j, const MachineInfo& m) {
  j.value("cpu_model", m.cpu_model);
  j.value("cpus", m.cpus);
  j.value("kernel", m.kernel);
  j.value("hostname", m.hostname);
}

MachineInfo read_machine(const JsonNode& node) {
  node.expect_object();
  return MachineInfo{node.string("cpu_model"), node.u32("cpus"), node.string("kernel"),
                     node.string("hostname")};
}

}  // namespace

void write_machines_json(JsonWriter& j, const std::vector<MachineInfo>& machines) {
  if (machines.empty()) return;
  j.begin_object("machine");
  write_machine(j, machines.front());
  j.end_object();
  if (machines.size() < 2) return;
  j.begin_array("machines");
  for (const MachineInfo& m : machines) {
    j.begin_object();
    write_machine(j, m);
    j.end_object();
  }
  j.end_array();
}

std::vector<MachineInfo> read_machines_json(const JsonNode& doc) {
  std::vector<MachineInfo> machines;
  if (std::optional<JsonNode> all = doc.find("machines")) {
    for (size_t i = 0, n = all->array_size(); i < n; ++i) {
      machines.push_back(read_machine(all->element(i)));
    }
  } else if (std::optional<JsonNode> one = doc.find("machine")) {
    machines.push_back(read_machine(*one));
  }
  return machines;
}

}  // namespace hail
