// The machines a result was measured on, in the JSON report: "machine" (the run's, or a merge's
// first) and, when a merge came from several, "machines" listing each once. Written and read back
// here so that both sides agree. Owner: report. Pure: any thread.
#pragma once

#include <vector>

#include "report/json_node.h"
#include "report/json_writer.h"
#include "stats/machine_info.h"

namespace hail {

void write_machines_json(JsonWriter& j, const std::vector<MachineInfo>& machines);
// Both keys are optional (results from hail versions before them have neither).
std::vector<MachineInfo> read_machines_json(const JsonNode& doc);

}  // namespace hail
