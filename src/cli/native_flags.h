// The native front-end: `hail [options] URL` flags translated into one RunOptions plus output
// choices. It only translates and validates; errors are one line naming the flag and value (the
// caller prints them and exits 2). Pure apart from reading --body-file and building a throw-away
// TLS context to check --ciphers; any thread.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "load/run_options.h"

namespace hail {

struct NativeCommand {
  RunOptions run;
  std::string json_path;        // empty: no JSON; "-": JSON on stdout instead of the text report
  std::string timeseries_path;  // empty: none; CSV or JSON Lines by extension
  bool quiet = false;
  bool show_help = false;
  bool show_version = false;
};

Result<NativeCommand> parse_native_flags(const std::vector<std::string>& args);
std::string native_usage();

}  // namespace hail
