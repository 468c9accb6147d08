#include "cli/apr_getopt.h"

#include <utility>

namespace hail {

AprGetopt::AprGetopt(const std::vector<std::string>& args, std::string options, std::string program)
    : args_(args), options_(std::move(options)), program_(std::move(program)) {}

AprGetopt::Step AprGetopt::next(char* option, std::string* value) {
  if (place_.empty()) {
    if (index_ >= args_.size() || args_[index_].empty() || args_[index_][0] != '-') {
      return Step::kEnd;
    }
    const std::string& word = args_[index_];
    if (word.size() > 1 && word[1] == '-') {  // "--" (and "--x", as apr reads it)
      ++index_;
      return Step::kEnd;
    }
    place_ = std::string_view(word).substr(1);
    if (place_.empty()) return Step::kEnd;  // "-" alone: apr treats '-' as the end
  }
  const char c = place_[0];
  place_.remove_prefix(1);
  const size_t at = c == ':' ? std::string::npos : options_.find(c);
  if (at == std::string::npos) {
    if (c == '-') return Step::kEnd;
    if (place_.empty()) ++index_;
    error_ += program_ + ": illegal option -- " + c + "\n";
    return Step::kError;
  }
  *option = c;
  value->clear();
  const bool takes_value = at + 1 < options_.size() && options_[at + 1] == ':';
  if (!takes_value) {
    if (place_.empty()) ++index_;
    return Step::kOption;
  }
  if (!place_.empty()) {
    value->assign(place_);
  } else if (++index_ >= args_.size()) {
    error_ += program_ + ": option requires an argument -- " + c + "\n";
    return Step::kError;
  } else {
    *value = args_[index_];
  }
  place_ = {};
  ++index_;
  return Step::kOption;
}

}  // namespace hail
