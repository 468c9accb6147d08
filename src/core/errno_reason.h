// errno values as error reasons: a static description ("Connection refused") that counters can
// keep by pointer without copying. Pure; any thread.
#pragma once

#include <cstring>

namespace hail {

inline const char* errno_reason(int errno_value) {
  // strerrordesc_np returns static strings (unlike strerror, which may format into a buffer).
  const char* text = strerrordesc_np(errno_value);
  return text != nullptr ? text : "unknown error";
}

}  // namespace hail
