// Flags as data: each front-end (native, wrk, ab, webbench, serve) declares its flags in one
// table — names, whether a value follows, what the flag does, its usage line — and both its
// parsing loop and its usage text are driven from that table. The tools' getopt quirks live in the
// parsing drivers (arg_parser, GnuGetopt, AprGetopt), not here. Owner: cli. Pure: any thread.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/arg_parser.h"
#include "cli/gnu_getopt.h"

namespace hail {

// One flag. Outcome is what its handler tells the parsing loop: a Status for hail's own command
// lines (an error ends the parse with that message), a bool "go on" for another tool's, whose
// handlers record the tool's own outcome in State before stopping the loop.
template <typename State, typename Outcome>
struct FlagDef {
  const char* shorts;     // its short names ("c"; webbench's help has two: "?h"); "" for none
  const char* long_name;  // nullptr: none
  const char* value;      // nullptr: takes no value; else the value's name in the usage text ("N")
  Outcome (*apply)(State&, const ParsedFlag&);
  // Its usage text after the flag column, lines separated by '\n'; nullptr: not in the usage text
  // (an alias documented elsewhere, or a flag the tool accepts without listing it).
  const char* help;
  const char* section = nullptr;  // a heading line printed above this flag's usage line
  const char* syntax = nullptr;   // the flag column when it is not derived from the names
  // The values the flag accepts when they are a closed set, space-separated ("fixed poisson"):
  // the shell completions offer them. nullptr: any value.
  const char* choices = nullptr;
};

// How a tool writes a flag in its usage text's flag column.
enum class SyntaxStyle {
  kNative,    // "-c, --connections N", "    --timeout T"
  kServe,     // "--port P"
  kWrk,       // "-c, --connections <N>", "-d, --duration    <T>", "    --latency"
  kAb,        // "-n requests", "-k"
  kWebbench,  // "-t|--time <sec>", "-?|-h|--help", "--get"
};

struct UsageLayout {
  SyntaxStyle style;
  size_t indent;        // spaces before the flag column
  size_t column;        // where the help text starts, continuation lines included
  size_t overflow_gap;  // spaces after a flag column that reaches `column`
  size_t pad_to = 0;    // every line padded with spaces to this width (wrk's); 0: none
};

struct UsageRow {
  std::string syntax;
  const char* help;
  const char* section;
};

std::string flag_syntax(SyntaxStyle style, std::string_view shorts, const char* long_name,
                        const char* value);
std::string render_usage_rows(const std::vector<UsageRow>& rows, const UsageLayout& layout);

template <typename Flag>
std::string render_usage(std::span<const Flag> table, const UsageLayout& layout) {
  std::vector<UsageRow> rows;
  for (const Flag& f : table) {
    if (f.help == nullptr) continue;
    rows.push_back({f.syntax != nullptr ? std::string(f.syntax)
                                        : flag_syntax(layout.style, f.shorts, f.long_name, f.value),
                    f.help, f.section});
  }
  return render_usage_rows(rows, layout);
}

// The table as arg_parser's specs: each flag's id is its index in the table (one short name).
template <typename Flag>
std::vector<FlagSpec> flag_specs(std::span<const Flag> table) {
  std::vector<FlagSpec> specs;
  for (size_t i = 0; i < table.size(); ++i) {
    specs.push_back(
        {static_cast<int>(i), table[i].shorts[0], table[i].long_name, table[i].value != nullptr});
  }
  return specs;
}

// The table as getopt_long's option string and long options. A long option's val is its flag's
// first short name, or kLongOnly + its index: flag_index maps either back to the table.
inline constexpr int kLongOnly = 256;

template <typename Flag>
std::string getopt_short_options(std::span<const Flag> table) {
  std::string out;
  for (const Flag& f : table) {
    for (const char* c = f.shorts; *c != '\0'; ++c) {
      out += *c;
      if (f.value != nullptr) out += ':';
    }
  }
  return out;
}

template <typename Flag>
std::vector<GetoptLongOption> getopt_long_options(std::span<const Flag> table) {
  std::vector<GetoptLongOption> out;
  for (size_t i = 0; i < table.size(); ++i) {
    const Flag& f = table[i];
    if (f.long_name == nullptr) continue;
    const int val = f.shorts[0] != '\0' ? static_cast<unsigned char>(f.shorts[0])
                                        : kLongOnly + static_cast<int>(i);
    out.push_back({f.long_name, f.value != nullptr, val});
  }
  return out;
}

// The flag a getopt val (a short name, or kLongOnly + index) stands for; nullptr for none.
template <typename Flag>
const Flag* flag_for(std::span<const Flag> table, int val) {
  if (val >= kLongOnly) {
    const auto index = static_cast<size_t>(val - kLongOnly);
    return index < table.size() ? &table[index] : nullptr;
  }
  for (const Flag& f : table) {
    for (const char* c = f.shorts; *c != '\0'; ++c) {
      if (static_cast<unsigned char>(*c) == val) return &f;
    }
  }
  return nullptr;
}

// A table's flags as the documentation names them (README's test, the manual, the shell
// completions): each name ("-c", "--connections") with its flag's index in the table, whether it
// takes a value, whether the flag has a line of its own in the usage text, and its value's name
// ("FILE") and closed set of values, if any.
struct FlagName {
  std::string name;
  size_t flag;
  bool takes_value;
  bool documented;
  const char* value = nullptr;
  const char* choices = nullptr;
};

template <typename Flag>
std::vector<FlagName> flag_names(std::span<const Flag> table) {
  std::vector<FlagName> out;
  for (size_t i = 0; i < table.size(); ++i) {
    const Flag& f = table[i];
    const bool documented = f.help != nullptr;
    for (const char* c = f.shorts; *c != '\0'; ++c) {
      out.push_back({std::string("-") + *c, i, f.value != nullptr, documented, f.value, f.choices});
    }
    if (f.long_name != nullptr) {
      out.push_back(
          {std::string("--") + f.long_name, i, f.value != nullptr, documented, f.value, f.choices});
    }
  }
  return out;
}

}  // namespace hail
