// Value parsers shared by hail's flag tables (native, ab): counts and durations with
// one-line errors naming the flag, whole-file reads, HOST:PORT. Owner: cli. Pure apart from
// reading files; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "cli/arg_parser.h"
#include "core/result.h"

namespace hail {

// "invalid value for -c: <why>".
Error bad_value(const ParsedFlag& f, const Error& why);
// A count that must be at least 1 and at most `max`.
Result<uint64_t> positive_count(const ParsedFlag& f, uint64_t max);
// A duration greater than zero ("10s", "500ms").
Result<uint64_t> positive_duration(const ParsedFlag& f);
// The whole file; the error is strerror's text (the caller names the flag and the path).
Result<std::string> read_whole_file(const std::string& path);
// HOST:PORT for --connect-to: a name, an IPv4 literal or a bracketed IPv6 literal, port 1-65535.
Result<std::pair<std::string, uint16_t>> parse_host_port(const std::string& text);

}  // namespace hail
