// hail compare's command line: two positional files, or --base/--candidate lists; the options
// reach CompareOptions; usage errors are one line naming the flag or value.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/compare_command.h"

namespace hail {
namespace {

TEST(CompareCommand, TwoFiles) {
  auto c = parse_compare_flags({"a.json", "b.json", "--json", "-", "--seed", "9"});
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->base, std::vector<std::string>{"a.json"});
  EXPECT_EQ(c->candidate, std::vector<std::string>{"b.json"});
  EXPECT_EQ(c->json_path, "-");
  EXPECT_EQ(c->options.seed, 9u);
  EXPECT_FALSE(c->force);
}

TEST(CompareCommand, RepeatedRuns) {
  auto c =
      parse_compare_flags({"--base", "a1", "a2", "a3", "--force", "--candidate", "b1", "b2",
                           "--tolerance", "p99=5%,rps=3%", "--block", "4", "--resamples", "500"});
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->base, (std::vector<std::string>{"a1", "a2", "a3"}));
  EXPECT_EQ(c->candidate, (std::vector<std::string>{"b1", "b2"}));
  EXPECT_TRUE(c->force);
  EXPECT_DOUBLE_EQ(c->options.tolerances.at("p99"), 0.05);
  EXPECT_DOUBLE_EQ(c->options.tolerances.at("rps"), 0.03);
  EXPECT_EQ(c->options.block_windows, 4u);
  EXPECT_EQ(c->options.resamples, 500u);
  auto eq = parse_compare_flags({"--base=a1", "a2", "--candidate=b1"});
  ASSERT_TRUE(eq) << eq.error().message;
  EXPECT_EQ(eq->base, (std::vector<std::string>{"a1", "a2"}));
  EXPECT_EQ(eq->candidate, std::vector<std::string>{"b1"});
}

TEST(CompareCommand, UsageErrorsNameTheProblem) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"a.json"}, "missing BASE.json"},
      {{"a", "b", "c"}, "unexpected argument \"c\""},
      {{"--base", "a"}, "--base without --candidate"},
      {{"--candidate", "a"}, "--candidate without --base"},
      {{"x", "--base", "a", "--candidate", "b"}, "unexpected argument \"x\""},
      {{"--tolerance", "p98=1%", "a", "b"}, "unknown metric \"p98\""},
      {{"--seed", "x", "a", "b"}, "--seed"},
      {{"--resamples", "99", "a", "b"}, "--resamples"},
      {{"--block", "0", "a", "b"}, "--block"},
      {{"--frobnicate", "a", "b"}, "--frobnicate"},
  };
  for (const auto& [args, expected] : cases) {
    auto c = parse_compare_flags(args);
    ASSERT_FALSE(c) << expected;
    EXPECT_NE(c.error().message.find(expected), std::string::npos) << c.error().message;
    EXPECT_EQ(c.error().message.find('\n'), std::string::npos);
  }
}

TEST(CompareCommand, UsageNamesEveryFlagAndTheExitStatus) {
  const std::string usage = compare_usage();
  for (const FlagName& f : compare_flag_names()) {
    EXPECT_NE(usage.find(f.name), std::string::npos) << f.name;
  }
  EXPECT_NE(usage.find("3 at least one metric regressed"), std::string::npos);
  EXPECT_EQ(kExitRegressed, 3);
}

}  // namespace
}  // namespace hail
