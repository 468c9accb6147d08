// A small table-driven command-line tokenizer shared by hail's front-ends: short flags ("-c 10",
// "-c10"), long flags ("--connections 10", "--connections=10"), boolean flags, positionals and
// "--". It only splits; each front-end interprets the values. Pure; any thread.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/result.h"

namespace hail {

struct FlagSpec {
  int id;
  char short_name;        // 0: none
  const char* long_name;  // nullptr: none
  bool takes_value;
};

struct ParsedFlag {
  int id;
  std::string spelled;  // as the user wrote it ("-c" or "--connections"), for error messages
  std::string value;
};

struct ParsedArgs {
  std::vector<ParsedFlag> flags;  // in command-line order
  std::vector<std::string> positionals;
  std::vector<std::string> after_dashes;  // everything after "--"
};

Result<ParsedArgs> parse_args(std::span<const FlagSpec> specs,
                              const std::vector<std::string>& args);

}  // namespace hail
