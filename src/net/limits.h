// What the operating system allows this process: the CPUs it may run on and the descriptors it may
// open. Called on the main thread before threads start; never prints.
#pragma once

#include <cstdint>

#include "core/result.h"

namespace hail {

// The CPUs this process may run on (taskset, cgroups' cpusets), not every CPU of the machine.
uint32_t usable_cpus();

// Raises RLIMIT_NOFILE toward the hard limit so that `needed` descriptors fit; an error says which
// limit is too low and how to raise it.
Status ensure_fd_limit(uint64_t needed);

}  // namespace hail
