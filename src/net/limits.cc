#include "net/limits.h"

#include <sched.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <thread>

namespace hail {

uint32_t usable_cpus() {
  // A worker per CPU it cannot use would only take turns with the others.
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return static_cast<uint32_t>(n);
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

Status ensure_fd_limit(uint64_t needed) {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) {
    return make_error(std::string("getrlimit(RLIMIT_NOFILE): ") + std::strerror(errno));
  }
  if (lim.rlim_cur >= needed) return ok_status();
  rlim_t target = lim.rlim_max == RLIM_INFINITY ? needed : std::min<rlim_t>(lim.rlim_max, needed);
  if (target > lim.rlim_cur) {
    rlimit raised = lim;
    raised.rlim_cur = target;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) lim.rlim_cur = target;
  }
  if (lim.rlim_cur >= needed) return ok_status();
  return make_error("too many connections for the open-file limit: need " + std::to_string(needed) +
                    " descriptors, RLIMIT_NOFILE allows " + std::to_string(lim.rlim_cur) +
                    " (hard limit " + std::to_string(lim.rlim_max) +
                    "); raise it with `ulimit -n " + std::to_string(needed) +
                    "` (as root, or via /etc/security/limits.conf) or lower -c");
}

}  // namespace hail
