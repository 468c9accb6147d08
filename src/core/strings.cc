#include "core/strings.h"

#include <cstdio>

namespace hail {

std::string string_vprintf(const char* format, va_list args) {
  va_list sizing;
  va_copy(sizing, args);
  const int length = std::vsnprintf(nullptr, 0, format, sizing);
  va_end(sizing);
  if (length <= 0) return {};
  std::string out(static_cast<size_t>(length), '\0');
  // The string's buffer has room for the terminating NUL after size() characters.
  std::vsnprintf(out.data(), out.size() + 1, format, args);
  return out;
}

std::string string_printf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::string out = string_vprintf(format, args);
  va_end(args);
  return out;
}

std::string markup_escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out +=
            (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') ? '?' : c;
    }
  }
  return out;
}

}  // namespace hail
