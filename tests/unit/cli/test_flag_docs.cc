// README's flag documentation against the flag tables: the native flag table (`| flag | meaning
// |`) names exactly the native flags, each front-end's section names every flag of its table,
// and `hail serve`'s synopsis names exactly the serve flags. A flag added to a table and not to
// README (or the other way round) fails here.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/ab_flags.h"
#include "cli/compare_command.h"
#include "cli/native_flags.h"
#include "cli/result_commands.h"
#include "cli/search_command.h"
#include "cli/serve_flags.h"
#include "cli/webbench_flags.h"
#include "cli/wrk_flags.h"

#ifndef HAIL_README_PATH
#error "HAIL_README_PATH must name README.md"
#endif

namespace hail {
namespace {

std::string readme() {
  std::ifstream in(HAIL_README_PATH);
  EXPECT_TRUE(in) << "cannot read " << HAIL_README_PATH;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The text from the heading line `heading` to the next heading of the same or a higher level.
std::string section(const std::string& text, const std::string& heading) {
  const size_t start = text.find("\n" + heading + "\n");
  EXPECT_NE(start, std::string::npos) << "README has no heading " << heading;
  if (start == std::string::npos) return "";
  const std::string level = heading.substr(0, heading.find(' ') + 1);
  size_t end = start + 1;
  for (;;) {
    end = text.find("\n#", end + 1);
    if (end == std::string::npos) break;
    // A '#' line inside a fenced example (wrk2's "#[Mean ..." footer) is output, not a heading.
    size_t fences = 0;
    for (size_t f = text.find("\n```", start); f < end; f = text.find("\n```", f + 1)) ++fences;
    if (fences % 2 == 1) continue;
    const size_t hashes = text.find_first_not_of('#', end + 1) - (end + 1);
    if (hashes <= level.size() - 1) break;
  }
  return text.substr(start + 1, end == std::string::npos ? std::string::npos : end - start - 1);
}

// The text without its ``` fenced blocks, whose backticks would pair with the code spans'.
std::string without_fences(const std::string& text) {
  std::string out;
  bool fenced = false;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.starts_with("```")) {
      fenced = !fenced;
    } else if (!fenced) {
      out += line + "\n";
    }
  }
  return out;
}

// Every word of every `code span` that starts with '-' (what follows a flag in the span is its
// value: "`-c, --connections N`").
std::vector<std::string> flag_words(const std::string& markdown) {
  const std::string text = without_fences(markdown);
  std::vector<std::string> out;
  static const std::regex kSpan("`([^`]+)`");
  static const std::regex kFlag(
      "(^|[\\s,/(])(--?[A-Za-z0-9?][A-Za-z0-9.?_-]*)");  // wrk2: --u_latency
  for (auto s = std::sregex_iterator(text.begin(), text.end(), kSpan); s != std::sregex_iterator();
       ++s) {
    const std::string span = (*s)[1];
    for (auto f = std::sregex_iterator(span.begin(), span.end(), kFlag);
         f != std::sregex_iterator(); ++f) {
      out.push_back((*f)[2]);
    }
  }
  return out;
}

std::string joined(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += " " + n;
  return out;
}

// README's native flag table: each row's first cell, as name -> takes a value.
std::map<std::string, bool> readme_native_flags(const std::string& text) {
  std::map<std::string, bool> out;
  const size_t table = text.find("\n| flag | meaning |\n");
  EXPECT_NE(table, std::string::npos) << "README has no native flag table";
  if (table == std::string::npos) return out;
  std::istringstream rows(text.substr(table + 1));
  std::string row;
  std::getline(rows, row);  // the header
  std::getline(rows, row);  // |---|---|
  static const std::regex kSpan("`([^`]+)`");
  while (std::getline(rows, row) && row.starts_with("| ")) {
    const std::string cell = row.substr(2, row.find(" | ") - 2);
    for (auto s = std::sregex_iterator(cell.begin(), cell.end(), kSpan);
         s != std::sregex_iterator(); ++s) {
      // "-c, --connections N": names separated by ", ", the last one followed by the value's
      // name when the flag takes one.
      const std::string span = (*s)[1];
      std::vector<std::string> parts;
      for (size_t start = 0;;) {
        const size_t comma = span.find(", ", start);
        parts.push_back(span.substr(start, comma - start));
        if (comma == std::string::npos) break;
        start = comma + 2;
      }
      const bool takes_value = parts.back().find(' ') != std::string::npos;
      for (const std::string& part : parts) {
        const std::string name = part.substr(0, part.find(' '));
        if (name.starts_with("-")) out[name] = takes_value;
      }
    }
  }
  return out;
}

TEST(FlagDocs, ReadmeNativeTableIsTheFlagTable) {
  const std::map<std::string, bool> documented = readme_native_flags(readme());
  std::map<std::string, bool> table;
  for (const FlagName& f : native_flag_names()) table[f.name] = f.takes_value;
  std::set<std::string> missing, extra, value_differs;
  for (const auto& [name, takes_value] : table) {
    if (!documented.contains(name)) {
      missing.insert(name);
    } else if (documented.at(name) != takes_value) {
      value_differs.insert(name);
    }
  }
  for (const auto& [name, takes_value] : documented) {
    if (!table.contains(name)) extra.insert(name);
  }
  EXPECT_TRUE(missing.empty()) << "flags not in README's flag table:" << joined(missing);
  EXPECT_TRUE(extra.empty()) << "README's flag table names flags hail lacks:" << joined(extra);
  EXPECT_TRUE(value_differs.empty())
      << "README and the table disagree on a value:" << joined(value_differs);
}

TEST(FlagDocs, HelpNamesEveryFlag) {
  const std::string usage = native_usage();
  for (const FlagName& f : native_flag_names()) {
    const std::regex word("(^|[ ,])" + std::regex_replace(f.name, std::regex("[.?]"), "\\$&") +
                          "([ ,\n]|$)");
    EXPECT_TRUE(std::regex_search(usage, word)) << f.name << " is not in hail --help";
  }
}

// A front-end's README section names every flag of its table by one of its names (the usage text
// lists them all), and every flag in its "Every option of ... is there (...)" list is one.
void check_section(const std::string& heading, const std::vector<FlagName>& table) {
  const std::string text = section(readme(), heading);
  const std::vector<std::string> words = flag_words(text);
  const std::set<std::string> mentioned(words.begin(), words.end());
  std::map<size_t, std::vector<std::string>> flags;  // documented flag -> its names
  std::set<std::string> names;
  for (const FlagName& f : table) {
    names.insert(f.name);
    if (f.documented) flags[f.flag].push_back(f.name);
  }
  for (const auto& [index, flag_names] : flags) {
    bool found = false;
    for (const std::string& n : flag_names) found = found || mentioned.contains(n);
    EXPECT_TRUE(found) << heading << " does not mention " << flag_names.front();
  }
  const size_t list = text.find("is there (`");
  ASSERT_NE(list, std::string::npos) << heading << " has no \"Every option ... is there\" list";
  const std::string listed = text.substr(list + 11, text.find('`', list + 11) - list - 11);
  std::istringstream in(listed);
  std::string word;
  while (in >> word) {
    EXPECT_TRUE(names.contains(word))
        << heading << " lists " << word << ", not a flag of its table";
  }
}

TEST(FlagDocs, ReadmeFrontEndSectionsNameEveryFlag) {
  check_section("### `hail wrk`", wrk_flag_names());
  check_section("### `hail wrk2`", wrk2_flag_names());
  check_section("### `hail ab`", ab_flag_names());
  check_section("### `hail webbench`", webbench_flag_names());
}

// The --flags of the synopsis in `heading`'s section that starts with `command` (up to the blank
// line after it) against a table's flags.
void check_synopsis(const std::string& heading, const std::string& command,
                    const std::vector<FlagName>& flags) {
  const std::string text = section(readme(), heading);
  const size_t start = text.find("    " + command + " ");
  ASSERT_NE(start, std::string::npos) << heading << " has no synopsis of " << command;
  const std::string synopsis = text.substr(start, text.find("\n\n", start) - start);
  std::set<std::string> documented;
  static const std::regex kFlag("--[a-z0-9-]+");
  for (auto m = std::sregex_iterator(synopsis.begin(), synopsis.end(), kFlag);
       m != std::sregex_iterator(); ++m) {
    documented.insert(m->str());
  }
  std::set<std::string> table;
  for (const FlagName& f : flags) table.insert(f.name);
  EXPECT_EQ(documented, table) << command << " README:" << joined(documented)
                               << "\ntable:" << joined(table);
}

TEST(FlagDocs, ReadmeSearchSynopsisIsTheFlagTable) {
  std::vector<FlagName> flags = search_own_flag_names();
  flags.push_back({"--slo", 0, true, true});
  check_synopsis("## Verdicts: thresholds (`--slo`) and capacity search (`hail search`)",
                 "hail search", flags);
}

TEST(FlagDocs, ReadmeServeSynopsisIsTheFlagTable) {
  check_synopsis("## Built-in target server: `hail serve`", "hail serve", serve_flag_names());
}

TEST(FlagDocs, ReadmeReportAndMergeSynopsesAreTheFlagTables) {
  const std::string heading = "## Saved results: `hail report` and `hail merge`";
  check_synopsis(heading, "hail report", report_flag_names());
  check_synopsis(heading, "hail merge", merge_flag_names());
}

TEST(FlagDocs, ReadmeCompareSynopsisIsTheFlagTable) {
  check_synopsis("## Comparing runs: `hail compare`", "hail compare", compare_flag_names());
}

}  // namespace
}  // namespace hail
