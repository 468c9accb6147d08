// Number parsers shared by the command lines: one scaled decimal (-R, and stage targets) and C's
// strtol/atoi as glibc computes them (the ab and webbench front-ends read numbers the way those
// tools do). Owner: core. Pure functions: any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace hail {

// digits ["." digits], then an optional k or K (x1000) or M (x1,000,000): "1000", "0.5", "2.5k".
// No sign, exponent, inf, nan, spaces or bare point ("5.", ".5"); nullopt for anything else.
std::optional<double> parse_scaled_decimal(std::string_view text);

// glibc's strtol(text, nullptr, 10): leading white space, an optional sign, decimal digits up to
// the first other character; 0 when there are none; clamped to [INT64_MIN, INT64_MAX] (long).
int64_t c_strtol(std::string_view text);

// glibc's atoi: strtol's value truncated to int (its low 32 bits), as C converts it.
int c_atoi(std::string_view text);

}  // namespace hail
