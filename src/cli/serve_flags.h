// `hail serve` flags: the command line after "serve" turned into ServerOptions, and its help text.
// Owner: server. Pure functions: any thread (in practice the main thread, before the server
// starts).
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "server/server.h"

namespace hail {

// `args` are the words after "serve". Accepts "--flag value" and "--flag=value". Errors name the
// flag and the value: "unknown option --x for hail serve", "--port \"99999\": must be 0..65535".
// -h/--help is the caller's to handle (it is not an option here).
Result<ServerOptions> parse_serve_flags(const std::vector<std::string>& args);

std::string serve_usage();

}  // namespace hail
