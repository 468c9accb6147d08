#include "core/units.h"

#include <charconv>
#include <limits>

#include "core/ascii.h"

namespace hail {
namespace {

using ascii::iequals;
using ascii::is_alpha;
using ascii::is_digit;
using ascii::is_space;
using ascii::to_lower;

using u128 = unsigned __int128;

// Fraction digits kept exactly; further digits are worth < 1e-5 ns even in hours, so durations drop
// them, and counts/sizes (which must come out whole) reject them.
constexpr int kMaxFractionDigits = 18;

struct Decimal {
  uint64_t whole = 0;
  uint64_t fraction = 0;        // the kept fraction digits as an integer
  uint64_t fraction_scale = 1;  // 10^(kept fraction digits)
  bool fraction_truncated = false;
  std::string_view suffix;
};

struct Kind {
  const char* name;       // "duration"
  const char* example;    // shown when no number is found
  const char* too_large;  // why the largest values are refused
};

constexpr Kind kDuration{"duration", "10s, 500ms or 1.5m", "too large (maximum is 100 years)"};
constexpr Kind kCount{"count", "100, 10k or 1.5M", "too large (maximum is 18446744073709551615)"};
constexpr Kind kSize{"size", "512, 4k or 1.5MiB", "too large (maximum is 18446744073709551615)"};

Error fail(const Kind& kind, std::string_view text, std::string_view reason) {
  return make_error("invalid " + std::string(kind.name) + " " + quote(text) + ": " +
                    std::string(reason));
}

// digits ["." digits] followed by an arbitrary suffix, which the caller interprets.
Result<Decimal> parse_decimal(const Kind& kind, std::string_view text) {
  for (char c : text) {
    if (is_space(c)) return fail(kind, text, "must not contain spaces");
  }
  if (!text.empty() && text[0] == '-') return fail(kind, text, "must not be negative");
  if (text.empty() || !is_digit(text[0])) {
    return fail(kind, text, std::string("expected a number such as ") + kind.example);
  }
  Decimal d;
  size_t i = 0;
  for (; i < text.size() && is_digit(text[i]); ++i) {
    const uint64_t digit = static_cast<uint64_t>(text[i] - '0');
    if (d.whole > (std::numeric_limits<uint64_t>::max() - digit) / 10) {
      return fail(kind, text, kind.too_large);
    }
    d.whole = d.whole * 10 + digit;
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    if (i == text.size() || !is_digit(text[i])) {
      return fail(kind, text, "expected digits after the decimal point");
    }
    for (int kept = 0; i < text.size() && is_digit(text[i]); ++i) {
      if (kept < kMaxFractionDigits) {
        d.fraction = d.fraction * 10 + static_cast<uint64_t>(text[i] - '0');
        d.fraction_scale *= 10;
        ++kept;
      } else if (text[i] != '0') {
        d.fraction_truncated = true;
      }
    }
  }
  d.suffix = text.substr(i);
  return d;
}

// Reports a suffix that matched no unit: a word is an unknown unit, anything else is stray text.
Error bad_suffix(const Kind& kind, std::string_view text, std::string_view suffix,
                 std::string_view word, std::string_view choices) {
  for (char c : suffix) {
    if (!is_alpha(c)) return fail(kind, text, "unexpected " + quote(suffix) + " after the number");
  }
  return fail(
      kind, text,
      "unknown " + std::string(word) + " " + quote(suffix) + " (use " + std::string(choices) + ")");
}

// whole * multiplier + fraction * multiplier, exactly; `remainder` is what falls below one unit.
u128 scale(const Decimal& d, uint64_t multiplier, u128* remainder) {
  const u128 fraction_part = u128{d.fraction} * multiplier;
  *remainder = fraction_part % d.fraction_scale;
  return u128{d.whole} * multiplier + fraction_part / d.fraction_scale;
}

// Shared tail of parse_count and parse_size_bytes: the value must be a whole number within uint64.
Result<uint64_t> whole_value(const Kind& kind, std::string_view text, const Decimal& d,
                             uint64_t multiplier) {
  if (d.fraction_truncated) return fail(kind, text, "too many digits after the decimal point");
  u128 remainder = 0;
  const u128 value = scale(d, multiplier, &remainder);
  if (remainder != 0) return fail(kind, text, "not a whole number");
  if (value > std::numeric_limits<uint64_t>::max()) return fail(kind, text, kind.too_large);
  return static_cast<uint64_t>(value);
}

struct UnitLabel {
  const char* label;
  double factor;  // size of this unit in the previous (smaller) unit
};

template <size_t N>
std::string format_scaled(double value, const UnitLabel (&units)[N]) {
  // Move up a unit while the value, as it will be printed, reaches the next unit, so that 999.999
  // ns prints as "1.00us" rather than "1000.00ns".
  char buf[400];  // "%.2f" of the largest double is ~315 characters
  size_t unit = 0;
  for (;;) {
    const auto end = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed, 2).ptr;
    if (unit + 1 < N) {
      double shown = 0;
      std::from_chars(buf, end, shown);
      if (shown >= units[unit + 1].factor) {
        value /= units[unit + 1].factor;
        ++unit;
        continue;
      }
    }
    return std::string(buf, end) + units[unit].label;
  }
}

constexpr UnitLabel kDurationLabels[] = {{"ns", 1},   {"us", 1000}, {"ms", 1000},
                                         {"s", 1000}, {"m", 60},    {"h", 60}};
constexpr UnitLabel kByteLabels[] = {
    {"B", 1}, {"KB", 1024}, {"MB", 1024}, {"GB", 1024}, {"TB", 1024}};
constexpr UnitLabel kCountLabels[] = {{"", 1}, {"k", 1000}, {"M", 1000}, {"G", 1000}, {"T", 1000}};

}  // namespace

Result<uint64_t> parse_duration_ns(std::string_view text) {
  auto parsed = parse_decimal(kDuration, text);
  if (!parsed) return parsed.error();
  const Decimal& d = parsed.value();

  struct Unit {
    const char* name;
    uint64_t ns;
  };
  static constexpr Unit kUnits[] = {{"ns", 1},
                                    {"us", 1'000},
                                    {"ms", 1'000'000},
                                    {"s", 1'000'000'000},
                                    {"m", 60'000'000'000},
                                    {"h", 3'600'000'000'000}};
  uint64_t multiplier = 1'000'000'000;  // wrk-compat: a bare number is seconds
  if (!d.suffix.empty()) {
    multiplier = 0;
    for (const Unit& unit : kUnits) {
      if (iequals(d.suffix, unit.name)) multiplier = unit.ns;
    }
    if (multiplier == 0) {
      return bad_suffix(kDuration, text, d.suffix, "unit", "ns, us, ms, s, m, h");
    }
  }
  u128 below_one_ns = 0;
  const u128 value_ns = scale(d, multiplier, &below_one_ns);
  if (value_ns > kMaxDurationNs) return fail(kDuration, text, kDuration.too_large);
  return static_cast<uint64_t>(value_ns);
}

Result<uint64_t> parse_count(std::string_view text) {
  auto parsed = parse_decimal(kCount, text);
  if (!parsed) return parsed.error();
  const Decimal& d = parsed.value();

  uint64_t multiplier = 1;
  if (!d.suffix.empty()) {
    // wrk-compat: scan_metric compares case-insensitively, so "1m" is a million here.
    const char c = d.suffix.size() == 1 ? to_lower(d.suffix[0]) : '\0';
    if (c == 'k') {
      multiplier = 1'000;
    } else if (c == 'm') {
      multiplier = 1'000'000;
    } else if (c == 'g') {
      multiplier = 1'000'000'000;
    } else {
      return bad_suffix(kCount, text, d.suffix, "suffix", "k, M or G");
    }
  }
  return whole_value(kCount, text, d, multiplier);
}

Result<uint64_t> parse_size_bytes(std::string_view text) {
  auto parsed = parse_decimal(kSize, text);
  if (!parsed) return parsed.error();
  const Decimal& d = parsed.value();

  uint64_t multiplier = 1;
  std::string_view rest = d.suffix;
  if (!rest.empty()) {
    const char c = to_lower(rest[0]);
    const int power = c == 'k' ? 1 : c == 'm' ? 2 : c == 'g' ? 3 : 0;
    if (power > 0) {
      multiplier = uint64_t{1} << (10 * power);
      rest.remove_prefix(1);
      if (rest == "iB") rest = {};
    }
    if (rest == "B") rest = {};
    if (!rest.empty()) {
      return bad_suffix(kSize, text, d.suffix, "unit",
                        "B, k, M, G, optionally followed by B or iB");
    }
  }
  return whole_value(kSize, text, d, multiplier);
}

std::string format_duration_ns(double ns) {
  return format_scaled(ns, kDurationLabels);
}
std::string format_bytes(double bytes) {
  return format_scaled(bytes, kByteLabels);
}
std::string format_count(double count) {
  return format_scaled(count, kCountLabels);
}

}  // namespace hail
