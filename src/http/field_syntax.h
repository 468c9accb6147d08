// HTTP field syntax helpers (RFC 9110 §5) shared by request rendering (request.cc) and raw request
// parsing (raw_request.cc), so that both accept exactly the same names and values.
// Owned by the http layer. Pure inline functions: any thread.
#pragma once

#include <cstddef>
#include <cstring>
#include <string_view>

#include "core/ascii.h"

namespace hail::http_syntax {

// tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~"
//         / DIGIT / ALPHA
inline bool is_tchar(unsigned char c) {
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return c != 0 && std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

inline bool is_token(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!is_tchar(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// field-value: VCHAR, SP, HTAB and obs-text; no other control characters.
inline bool is_field_value(std::string_view s) {
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
  }
  return true;
}

// Field names and tokens are ASCII: core's case-insensitive comparison and OWS trimming.
using ascii::iequals;
using ascii::trim_ows;

}  // namespace hail::http_syntax
