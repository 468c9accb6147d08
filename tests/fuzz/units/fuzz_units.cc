// Fuzzes the duration, count and size parsers and the report formatters: no crash, errors are one
// printable line, results stay in range, and the plain integer forms of results parse back equal.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "core/units.h"

namespace {

void check(bool ok, const char* what, std::string_view input) {
  if (ok) return;
  std::fprintf(stderr, "fuzz_units: %s for input %s\n", what, hail::quote(input).c_str());
  std::abort();
}

bool is_one_printable_line(const std::string& s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) return false;
  }
  return !s.empty();
}

template <class T>
void check_error(const hail::Result<T>& r, std::string_view input) {
  if (!r) check(is_one_printable_line(r.error().message), "error not one printable line", input);
}

bool same(const hail::Result<uint64_t>& r, uint64_t value) {
  return r.ok() && r.value() == value;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::string text(input);

  auto duration = hail::parse_duration_ns(input);
  check_error(duration, input);
  if (duration) {
    const uint64_t ns = duration.value();
    check(ns <= hail::kMaxDurationNs, "duration above the maximum", input);
    check(same(hail::parse_duration_ns(std::to_string(ns) + "ns"), ns), "ns form differs", input);
    // A bare number is seconds (wrk's rule).
    const char last = input.back();
    if (last >= '0' && last <= '9') {
      check(same(hail::parse_duration_ns(text + "s"), ns), "bare number is not seconds", input);
    }
    check(is_one_printable_line(hail::format_duration_ns(static_cast<double>(ns))),
          "bad duration format", input);
  }

  auto count = hail::parse_count(input);
  check_error(count, input);
  if (count) {
    check(same(hail::parse_count(std::to_string(count.value())), count.value()), "count differs",
          input);
    check(is_one_printable_line(hail::format_count(static_cast<double>(count.value()))),
          "bad count format", input);
  }

  auto bytes = hail::parse_size_bytes(input);
  check_error(bytes, input);
  if (bytes) {
    check(same(hail::parse_size_bytes(std::to_string(bytes.value()) + "B"), bytes.value()),
          "size differs", input);
    check(is_one_printable_line(hail::format_bytes(static_cast<double>(bytes.value()))),
          "bad size format", input);
  }

  // Any count is a size too when its suffix is absent; the plain integer forms must agree.
  if (count && bytes) {
    const bool has_suffix = !input.empty() && !(input.back() >= '0' && input.back() <= '9');
    if (!has_suffix) check(count.value() == bytes.value(), "count and size disagree", input);
  }

  // The formatters take any double, including NaN and infinities, without crashing.
  if (size >= sizeof(double)) {
    double value;
    std::memcpy(&value, data, sizeof value);
    check(!hail::format_duration_ns(value).empty(), "empty duration format", input);
    check(!hail::format_bytes(value).empty(), "empty bytes format", input);
    check(!hail::format_count(value).empty(), "empty count format", input);
  }
  return 0;
}
