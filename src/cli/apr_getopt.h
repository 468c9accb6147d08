// apr_getopt's reading of a command line (APR 1.7), for the ab front-end: short options only,
// clustered ("-kq") or with their value attached ("-n5"); it stops at the first word that is not
// an option (no permutation), at "--", or at an error, which it reports as APR does with the
// program's base name and which ends the option loop. Owner: cli. Pure; any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hail {

class AprGetopt {
 public:
  // options: getopt's syntax ("n:c:k": a letter followed by ':' takes a value). program: the base
  // name APR puts before its messages.
  AprGetopt(const std::vector<std::string>& args, std::string options, std::string program);

  enum class Step { kOption, kEnd, kError };

  // The next option and its value; kEnd after the last option; kError after a message.
  Step next(char* option, std::string* value);

  // Where the words that are not options start.
  size_t index() const { return index_; }
  // APR's messages so far ("ab: illegal option -- Q\n").
  const std::string& error() const { return error_; }

 private:
  const std::vector<std::string>& args_;
  std::string options_;
  std::string program_;
  size_t index_ = 0;
  std::string_view place_;  // the rest of the current cluster
  std::string error_;
};

}  // namespace hail
