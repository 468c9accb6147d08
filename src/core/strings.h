// printf into a std::string of whatever length the text needs (vsnprintf sizes it first), for
// reports and messages that must never be cut short; and text escaped for XML and HTML reports.
// Owner: core. Pure: any thread.
#pragma once

#include <cstdarg>
#include <string>
#include <string_view>

namespace hail {

std::string string_printf(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string string_vprintf(const char* format, va_list args);

// Text made safe inside XML 1.0 or HTML, as element text or a double-quoted attribute: < > & "
// escaped, control characters other than tab, CR and LF (which XML 1.0 forbids) replaced by '?'.
std::string markup_escaped(std::string_view text);

}  // namespace hail
