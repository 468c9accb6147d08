// ASCII helpers for protocol text and command lines: character classes as the "C" locale has them,
// case-insensitive comparison and trimming, never touching the process locale. Owner: core. Pure
// inline functions: any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace hail::ascii {

constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

constexpr bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// C's isspace(): SP, HTAB, LF, VT, FF, CR.
constexpr bool is_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}

constexpr char to_lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

inline void to_lower_in_place(std::string& text) {
  for (char& c : text) c = to_lower(c);
}

constexpr bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (to_lower(a[i]) != to_lower(b[i])) return false;
  }
  return true;
}

constexpr bool istarts_with(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && iequals(text.substr(0, prefix.size()), prefix);
}

constexpr bool iends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && iequals(text.substr(text.size() - suffix.size()), suffix);
}

// Without the optional whitespace (SP, HTAB) HTTP allows around a field value.
constexpr std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Without the leading white space C's number parsers skip (is_space).
constexpr std::string_view skip_space(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  return s;
}

}  // namespace hail::ascii
