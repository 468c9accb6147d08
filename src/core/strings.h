// printf into a std::string of whatever length the text needs (vsnprintf sizes it first), for
// reports and messages that must never be cut short. Owner: core. Pure: any thread.
#pragma once

#include <cstdarg>
#include <string>

namespace hail {

std::string string_printf(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string string_vprintf(const char* format, va_list args);

}  // namespace hail
