// Reads the machine a run is made on (/proc/cpuinfo, sysconf, uname, gethostname) for the result's
// record (stats/machine_info.h). Owner: cli. I/O at the end of a run: the main thread.
#pragma once

#include "stats/machine_info.h"

namespace hail {

// What can be read; a field that cannot is left empty (or 0), never an error.
MachineInfo probe_machine();

}  // namespace hail
