#include "core/numbers.h"

#include <charconv>
#include <limits>

#include "core/ascii.h"

namespace hail {

std::optional<double> parse_scaled_decimal(std::string_view text) {
  double scale = 1;
  if (!text.empty() && (text.back() == 'k' || text.back() == 'K')) scale = 1e3;
  if (!text.empty() && text.back() == 'M') scale = 1e6;
  if (scale != 1) text.remove_suffix(1);
  const size_t point = text.find('.');
  const std::string_view whole = text.substr(0, point);
  const std::string_view fraction =
      point == std::string_view::npos ? std::string_view("0") : text.substr(point + 1);
  for (std::string_view digits : {whole, fraction}) {
    if (digits.empty()) return std::nullopt;
    for (char c : digits) {
      if (!ascii::is_digit(c)) return std::nullopt;
    }
  }
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value * scale;
}

int64_t c_strtol(std::string_view text) {
  text = ascii::skip_space(text);
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  // The magnitude saturates at |INT64_MIN|: strtol clamps, and nothing past it can come back.
  constexpr uint64_t kLimit = uint64_t{1} << 63;
  uint64_t magnitude = 0;
  for (size_t i = 0; i < text.size() && ascii::is_digit(text[i]); ++i) {
    const auto digit = static_cast<uint64_t>(text[i] - '0');
    magnitude = magnitude > (kLimit - digit) / 10 ? kLimit : magnitude * 10 + digit;
  }
  if (negative) {
    return magnitude == kLimit ? std::numeric_limits<int64_t>::min()
                               : -static_cast<int64_t>(magnitude);
  }
  return magnitude >= kLimit ? std::numeric_limits<int64_t>::max()
                             : static_cast<int64_t>(magnitude);
}

int c_atoi(std::string_view text) {
  const auto bits = static_cast<uint64_t>(c_strtol(text));
  return static_cast<int>(static_cast<int32_t>(static_cast<uint32_t>(bits)));
}

}  // namespace hail
