#include "monitor/cpu_info.h"

#include <array>

#include "core/ascii.h"

namespace hail {

namespace {

// The value of the first line "key<tabs or spaces>: value" whose key is `key`.
std::string_view find_value(std::string_view text, std::string_view key) {
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    if (!ascii::iequals(ascii::trim_ows(line.substr(0, colon)), key)) continue;
    const std::string_view value = ascii::trim_ows(line.substr(colon + 1));
    if (!value.empty()) return value;
  }
  return {};
}

}  // namespace

std::string parse_cpu_model(std::string_view cpuinfo) {
  // Several CPUs repeat the same lines; the first is the machine's model (mixed big.LITTLE cores
  // would differ, and the first still names the part).
  constexpr std::array<std::string_view, 3> kKeys = {"model name", "Hardware", "cpu model"};
  for (std::string_view key : kKeys) {
    const std::string_view value = find_value(cpuinfo, key);
    if (value.empty()) continue;
    // Some Intel parts pad the name ("Intel(R) Xeon(R) CPU           E5-2680"): one space is
    // enough.
    std::string model;
    for (char c : value) {
      if (ascii::is_space(c) && (model.empty() || model.back() == ' ')) continue;
      model += ascii::is_space(c) ? ' ' : c;
    }
    return model;
  }
  return {};
}

}  // namespace hail
