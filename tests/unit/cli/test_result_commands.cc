// `hail report` and `hail merge` command lines: their flags, their words, and one-line errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/result_commands.h"

namespace hail {
namespace {

TEST(ResultCommands, ReportTakesOneFileAndJson) {
  auto cmd = parse_report_flags({"run.json", "--json", "out.json"});
  ASSERT_TRUE(cmd.ok()) << cmd.error().message;
  EXPECT_EQ(cmd->inputs, std::vector<std::string>{"run.json"});
  EXPECT_EQ(cmd->json_path, "out.json");
  auto dashes = parse_report_flags({"--json=-", "--", "-odd.json"});
  ASSERT_TRUE(dashes.ok()) << dashes.error().message;
  EXPECT_EQ(dashes->inputs, std::vector<std::string>{"-odd.json"});
  EXPECT_EQ(dashes->json_path, "-");
}

TEST(ResultCommands, MergeTakesFilesInOrder) {
  auto cmd = parse_merge_flags({"a.json", "b.json", "--json", "m.json", "c.json"});
  ASSERT_TRUE(cmd.ok()) << cmd.error().message;
  EXPECT_EQ(cmd->inputs, (std::vector<std::string>{"a.json", "b.json", "c.json"}));
  EXPECT_EQ(cmd->json_path, "m.json");
}

TEST(ResultCommands, UsageErrorsAreOneLine) {
  struct {
    bool merge;
    std::vector<std::string> args;
    const char* message;
  } const kCases[] = {
      {false, {}, "missing RESULT.json (try hail report --help)"},
      {false,
       {"a.json", "b.json"},
       "unexpected argument \"b.json\" (hail report reads one file; hail merge combines several)"},
      {false, {"a.json", "--json", ""}, "--json needs a file name or \"-\""},
      {false, {"a.json", "--svg", "x"}, "unknown option --svg for hail report"},
      {false, {"a.json", "--html", "-"}, "--html writes a file, not stdout: name one"},
      {true, {}, "missing result files (try hail merge --help)"},
      {true, {"a.json", "--json"}, "option --json needs a value for hail merge"},
  };
  for (const auto& c : kCases) {
    auto cmd = c.merge ? parse_merge_flags(c.args) : parse_report_flags(c.args);
    ASSERT_FALSE(cmd.ok()) << c.message;
    EXPECT_EQ(cmd.error().message, c.message);
  }
}

TEST(ResultCommands, UsageTextsListEveryFlag) {
  for (const FlagName& f : report_flag_names()) {
    EXPECT_NE(report_usage().find(f.name), std::string::npos) << f.name;
  }
  for (const FlagName& f : merge_flag_names()) {
    EXPECT_NE(merge_usage().find(f.name), std::string::npos) << f.name;
  }
}

}  // namespace
}  // namespace hail
