#include "cli/gnu_getopt.h"

#include <utility>

namespace hail {

GnuGetopt::GnuGetopt(const std::vector<std::string>& args, std::string_view short_options,
                     std::span<const GetoptLongOption> long_options)
    : args_(args), short_options_(short_options), long_options_(long_options) {}

bool GnuGetopt::next(GetoptOption* out) {
  while (pending_short_.empty()) {
    if (index_ >= args_.size()) return false;
    const std::string& a = args_[index_++];
    if (a == "--") {
      for (; index_ < args_.size(); ++index_) non_options_.push_back(args_[index_]);
      return false;
    }
    if (a.size() > 2 && a[0] == '-' && a[1] == '-') return read_long(a.substr(2), out);
    if (a.size() > 1 && a[0] == '-') {
      pending_short_ = a.substr(1);
    } else {
      non_options_.push_back(a);  // "-" alone is a word too
    }
  }
  const char c = pending_short_[0];
  pending_short_.erase(0, 1);
  const size_t at = c == ':' ? std::string_view::npos : short_options_.find(c);
  if (at == std::string_view::npos) {
    error_ = std::string("invalid option -- '") + c + "'";
    pending_short_.clear();
    return false;
  }
  out->val = static_cast<unsigned char>(c);
  out->arg.clear();
  const bool takes_arg = at + 1 < short_options_.size() && short_options_[at + 1] == ':';
  if (takes_arg) {
    if (!pending_short_.empty()) {
      out->arg = std::move(pending_short_);
      pending_short_.clear();
    } else if (index_ < args_.size()) {
      out->arg = args_[index_++];
    } else {
      error_ = std::string("option requires an argument -- '") + c + "'";
      return false;
    }
  }
  return true;
}

bool GnuGetopt::read_long(const std::string& text, GetoptOption* out) {
  const size_t eq = text.find('=');
  const std::string name = text.substr(0, eq);
  const GetoptLongOption* found = nullptr;
  bool ambiguous = false;
  for (const GetoptLongOption& o : long_options_) {
    const std::string_view full = o.name;
    if (full == name) {
      found = &o;
      ambiguous = false;
      break;
    }
    if (!full.starts_with(name)) continue;
    if (found == nullptr) {
      found = &o;
    } else if (found->has_arg != o.has_arg || found->val != o.val) {
      // glibc accepts several prefix matches that would all do the same thing.
      ambiguous = true;
    }
  }
  if (found == nullptr) {
    error_ = "unrecognized option '--" + text + "'";
    return false;
  }
  if (ambiguous) {
    error_ = "option '--" + text + "' is ambiguous; possibilities:";
    // glibc lists the first match and every later one that differs from it.
    for (const GetoptLongOption& o : long_options_) {
      if (!std::string_view(o.name).starts_with(name)) continue;
      if (&o != found && o.has_arg == found->has_arg && o.val == found->val) continue;
      error_ += std::string(" '--") + o.name + "'";
    }
    return false;
  }
  out->val = found->val;
  out->arg.clear();
  if (eq != std::string::npos) {
    if (!found->has_arg) {
      error_ = std::string("option '--") + found->name + "' doesn't allow an argument";
      return false;
    }
    out->arg = text.substr(eq + 1);
  } else if (found->has_arg) {
    if (index_ >= args_.size()) {
      error_ = std::string("option '--") + found->name + "' requires an argument";
      return false;
    }
    out->arg = args_[index_++];
  }
  return true;
}

}  // namespace hail
