// `hail serve` flags: the command line after "serve" turned into ServerOptions through its flag
// table, and its help text. Owner: cli. Pure functions: any thread (in practice the main thread,
// before the server starts).
#pragma once

#include <string>
#include <vector>

#include "cli/flag_table.h"
#include "core/result.h"
#include "server/server.h"

namespace hail {

// `args` are the words after "serve". Accepts "--flag value" and "--flag=value". Errors name the
// flag and the value: "unknown option --x for hail serve", "--port \"99999\": must be 0..65535".
// -h/--help is the caller's to handle (it is not an option here).
Result<ServerOptions> parse_serve_flags(const std::vector<std::string>& args);

// The usage text, rendered from the flag table.
std::string serve_usage();
// Every flag of the table, for the test that checks README against it.
std::vector<FlagName> serve_flag_names();

}  // namespace hail
