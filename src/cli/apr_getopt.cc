#include "cli/apr_getopt.h"

#include <utility>

namespace hail {

AprGetopt::AprGetopt(const std::vector<std::string>& args, std::string options, std::string program,
                     std::vector<GetoptLongOption> long_options)
    : args_(args),
      options_(std::move(options)),
      program_(std::move(program)),
      long_options_(std::move(long_options)) {}

std::optional<AprGetopt::Step> AprGetopt::long_option(int* option, std::string* value) {
  const std::string_view word = std::string_view(args_[index_]).substr(2);
  const size_t equals = word.find('=');
  const std::string_view name = word.substr(0, equals);
  for (const GetoptLongOption& o : long_options_) {
    if (name != o.name) continue;
    ++index_;
    *option = o.val;
    value->clear();
    if (!o.has_arg) {
      if (equals == std::string_view::npos) return Step::kOption;
      error_ += "hail: --" + std::string(name) + " takes no value\n";
      long_error_ = true;
      return Step::kError;
    }
    if (equals != std::string_view::npos) {
      value->assign(word.substr(equals + 1));
    } else if (index_ >= args_.size()) {
      error_ += "hail: --" + std::string(name) + " needs a value\n";
      long_error_ = true;
      return Step::kError;
    } else {
      *value = args_[index_++];
    }
    return Step::kOption;
  }
  return std::nullopt;
}

AprGetopt::Step AprGetopt::next(int* option, std::string* value) {
  if (place_.empty()) {
    if (index_ >= args_.size() || args_[index_].empty() || args_[index_][0] != '-') {
      return Step::kEnd;
    }
    const std::string& word = args_[index_];
    if (word.size() > 2 && word[1] == '-') {
      if (auto step = long_option(option, value)) return *step;
    }
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
  *option = static_cast<unsigned char>(c);
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
