// Parsing and formatting of user-facing quantities: durations, counts and byte sizes.
// Used by the CLI (flags) and the reports (wrk-style numbers). Pure functions: any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace hail {

// Durations above 100 years (of 365.25 days) are rejected: far beyond any run, far below 2^64 ns.
inline constexpr uint64_t kMaxDurationNs = uint64_t{3'155'760'000} * 1'000'000'000;

// "10s", "500ms", "1.5s", "2m", "1h", "250us", "100ns"; a bare number means seconds (wrk's rule).
// Units are case-insensitive (wrk-compat). Digits below 1 ns are truncated. Zero is accepted.
Result<uint64_t> parse_duration_ns(std::string_view text);

// A non-negative integer with an optional metric suffix k, M, G (x1000, case-insensitive as in
// wrk's scan_metric). A fraction is allowed when the result is a whole number: "1.5k" = 1500.
Result<uint64_t> parse_count(std::string_view text);

// Bytes with an optional binary suffix k/K, m/M, g/G (x1024 powers), optionally followed by "B" or
// "iB": "512", "512B", "4k", "4KiB", "1.5MB". A fraction is allowed when the result is whole.
Result<uint64_t> parse_size_bytes(std::string_view text);

// wrk-style report numbers: two decimals in the largest unit whose value is >= 1.
// "812.00ns", "45.32us", "1.23ms", "2.50s", "1.50m", "1.10h".
std::string format_duration_ns(double ns);
// 1024 base: "512.00B", "1.23KB", "4.50MB", "1.00GB", "2.00TB".
std::string format_bytes(double bytes);
// 1000 base: "999.00", "12.34k", "1.20M", "3.00G", "1.00T".
std::string format_count(double count);

}  // namespace hail
