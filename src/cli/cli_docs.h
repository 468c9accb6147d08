// hail's command line as documentation: every command with its usage text and its flags, taken
// from the flag tables themselves, rendered as the manual page's scdoc source and as bash and zsh
// completion scripts. Nothing here is written by hand per flag, so the manual and the completions
// cannot drift from --help. Owner: cli. Pure: any thread.
#pragma once

#include <string>
#include <vector>

#include "cli/flag_table.h"

namespace hail {

struct CommandDoc {
  std::string name;      // "" for the native run; "serve", "wrk", ...
  std::string synopsis;  // "hail [options] URL"
  std::string summary;   // one paragraph, plain text
  std::string usage;     // its --help text, as printed
  std::vector<FlagName> flags;
  bool takes_url = false;    // a URL argument follows the flags
  bool takes_files = false;  // file arguments follow the flags (completed as file names)
};

// Every command of hail's command line, the native run first.
std::vector<CommandDoc> command_docs();

// hail(1) in scdoc's syntax (scdoc(5)): NAME, SYNOPSIS, DESCRIPTION, one section per command with
// its usage text, EXIT STATUS, FILES (the JSON schema), EXAMPLES, SEE ALSO.
std::string render_man_scdoc(const std::vector<CommandDoc>& commands);

// Completion scripts: subcommands, each command's flags, closed sets of values (FlagName::choices)
// and file names after flags whose value is a file.
std::string render_bash_completion(const std::vector<CommandDoc>& commands);
std::string render_zsh_completion(const std::vector<CommandDoc>& commands);

}  // namespace hail
