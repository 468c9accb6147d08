// Flag-value helpers shared by hail's front-ends (native, wrk, ab, webbench): counts and durations
// with one-line errors naming the flag, whole-file reads, HOST:PORT, and the protocol/TLS checks
// that need the whole RunOptions. Pure apart from reading files and probing OpenSSL; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "cli/arg_parser.h"
#include "core/result.h"
#include "load/run_options.h"

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
// Protocol choices that cannot work together, or need an https:// URL. tls_flag: the last TLS
// option given ("" for none).
Status check_protocol_flags(const RunOptions& run, const std::string& tls_flag, bool streams_given,
                            bool window_given);
// Version range and cipher lists that OpenSSL would refuse.
Status check_tls_values(const TlsClientConfig& tls, const std::string& min_text,
                        const std::string& max_text);

}  // namespace hail
