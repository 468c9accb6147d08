#include "cli/machine_probe.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "monitor/cpu_info.h"

namespace hail {

MachineInfo probe_machine() {
  MachineInfo m;
  std::ifstream cpuinfo("/proc/cpuinfo");
  if (cpuinfo) {
    std::stringstream text;
    text << cpuinfo.rdbuf();
    m.cpu_model = parse_cpu_model(text.str());
  }
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (cpus > 0) m.cpus = static_cast<uint32_t>(cpus);
  utsname u{};
  if (uname(&u) == 0) {
    m.kernel = std::string(u.sysname) + " " + u.release + " " + u.version;
    // Architectures whose cpuinfo names no model (RISC-V, s390x): at least what the CPU is.
    if (m.cpu_model.empty()) m.cpu_model = u.machine;
  }
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) m.hostname = host;
  return m;
}

}  // namespace hail
