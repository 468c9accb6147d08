// GNU getopt_long's reading of a command line (glibc 2.36), for front-ends that must take another
// tool's options exactly as that tool does: permutation, clustered short options, long names
// shortened to any unambiguous prefix, and glibc's error messages. Owner: cli. Pure; any thread.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hail {

struct GetoptLongOption {
  const char* name;
  bool has_arg;
  // What next() reports for it. Options that getopt_long would store through a flag pointer
  // (returning 0) get a value of their own here: the caller applies the flag.
  int val;
};

struct GetoptOption {
  int val = 0;
  std::string arg;
};

class GnuGetopt {
 public:
  // short_options: getopt's syntax ("t:c:v?": a letter followed by ':' takes an argument). The
  // tool's argv[0] is not part of `args`; messages leave it out and the caller prefixes it.
  GnuGetopt(const std::vector<std::string>& args, std::string_view short_options,
            std::span<const GetoptLongOption> long_options);

  // The next option, in command-line order. false at the end of the options, or on an error
  // (then error() holds glibc's message without the "prog: " prefix; the tool would have seen
  // '?').
  bool next(GetoptOption* out);

  const std::string& error() const { return error_; }
  // Words that are not options, in order, wherever they stood; everything after "--" too. Only
  // complete once next() has returned false.
  const std::vector<std::string>& non_options() const { return non_options_; }

 private:
  bool read_long(const std::string& text, GetoptOption* out);

  const std::vector<std::string>& args_;
  std::string_view short_options_;
  std::span<const GetoptLongOption> long_options_;
  size_t index_ = 0;
  std::string pending_short_;  // the rest of a cluster of short options ("-fc10")
  std::vector<std::string> non_options_;
  std::string error_;
};

}  // namespace hail
