// apr_getopt's reading of a command line (APR 1.7), for the ab front-end: short options only,
// clustered ("-kq") or with their value attached ("-n5"); it stops at the first word that is not
// an option (no permutation), at "--", or at an error, which it reports as APR does with the
// program's base name and which ends the option loop. hail's own long options (--slo EXPR,
// --slo=EXPR), which APR does not have, are read too where APR would end at "--x". Owner: cli.
// Pure; any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/gnu_getopt.h"

namespace hail {

class AprGetopt {
 public:
  // options: getopt's syntax ("n:c:k": a letter followed by ':' takes a value). program: the base
  // name APR puts before its messages.
  // program: the base name APR puts before its messages. long_options: hail's additions.
  AprGetopt(const std::vector<std::string>& args, std::string options, std::string program,
            std::vector<GetoptLongOption> long_options = {});

  enum class Step { kOption, kEnd, kError };

  // The next option (a short option's character, or a long option's val) and its value; kEnd
  // after the last option; kError after a message.
  Step next(int* option, std::string* value);

  // Where the words that are not options start.
  size_t index() const { return index_; }
  // APR's messages so far ("ab: illegal option -- Q\n").
  const std::string& error() const { return error_; }
  // The error was in one of hail's long options (its message is hail's: "hail: --x ...").
  bool long_option_error() const { return long_error_; }

 private:
  const std::vector<std::string>& args_;
  std::string options_;
  std::string program_;
  std::vector<GetoptLongOption> long_options_;
  size_t index_ = 0;
  std::string_view place_;  // the rest of the current cluster
  std::string error_;
  bool long_error_ = false;

  // A word "--name[=value]" naming one of long_options_: read it (kOption or kError); else
  // nullopt, and APR's reading applies.
  std::optional<Step> long_option(int* option, std::string* value);
};

}  // namespace hail
