#include "cli/arg_parser.h"

namespace hail {

namespace {
const FlagSpec* find_short(std::span<const FlagSpec> specs, char c) {
  for (const auto& s : specs) {
    if (s.short_name == c) return &s;
  }
  return nullptr;
}

const FlagSpec* find_long(std::span<const FlagSpec> specs, std::string_view name) {
  for (const auto& s : specs) {
    if (s.long_name != nullptr && name == s.long_name) return &s;
  }
  return nullptr;
}
}  // namespace

Result<ParsedArgs> parse_args(std::span<const FlagSpec> specs,
                              const std::vector<std::string>& args) {
  ParsedArgs out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      out.after_dashes.assign(args.begin() + static_cast<long>(i) + 1, args.end());
      break;
    }
    if (a.size() > 2 && a[0] == '-' && a[1] == '-') {
      std::string name = a.substr(2);
      std::string value;
      bool has_value = false;
      if (auto eq = name.find('='); eq != std::string::npos) {
        value = name.substr(eq + 1);
        name.resize(eq);
        has_value = true;
      }
      const FlagSpec* spec = find_long(specs, name);
      if (spec == nullptr) return make_error("unknown option --" + name);
      if (spec->takes_value && !has_value) {
        if (i + 1 >= args.size()) return make_error("option --" + name + " needs a value");
        value = args[++i];
      } else if (!spec->takes_value && has_value) {
        return make_error("option --" + name + " takes no value");
      }
      out.flags.push_back({spec->id, "--" + name, value});
      continue;
    }
    if (a.size() > 1 && a[0] == '-') {
      // A cluster of short flags ("-qk"), the last of which may take a value ("-c10", "-qc 10").
      for (size_t k = 1; k < a.size(); ++k) {
        const FlagSpec* spec = find_short(specs, a[k]);
        std::string spelled = std::string("-") + a[k];
        if (spec == nullptr) return make_error("unknown option " + spelled);
        if (!spec->takes_value) {
          out.flags.push_back({spec->id, spelled, ""});
          continue;
        }
        std::string value;
        if (k + 1 < a.size()) {
          value = a.substr(k + 1);
        } else {
          if (i + 1 >= args.size()) return make_error("option " + spelled + " needs a value");
          value = args[++i];
        }
        out.flags.push_back({spec->id, spelled, value});
        break;
      }
      continue;
    }
    out.positionals.push_back(a);
  }
  return out;
}

}  // namespace hail
