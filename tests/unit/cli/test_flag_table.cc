#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

#include "cli/arg_parser.h"
#include "cli/flag_table.h"
#include "cli/gnu_getopt.h"

namespace hail {
namespace {

struct Counts {
  int a = 0;
  std::string b;
};

bool count_a(Counts& c, const ParsedFlag&) {
  ++c.a;
  return true;
}

bool set_b(Counts& c, const ParsedFlag& f) {
  c.b = f.value;
  return true;
}

using TestFlag = FlagDef<Counts, bool>;

constexpr TestFlag kFlags[] = {
    {"a", "alpha", nullptr, count_a, "count an a", "Section:"},
    {"", "beta", "B", set_b, "a long help line\nthat goes on"},
    {"?x", "help", nullptr, count_a, nullptr},
};
constexpr std::span<const TestFlag> kTable(kFlags);

TEST(FlagTable, SyntaxPerStyle) {
  EXPECT_EQ(flag_syntax(SyntaxStyle::kNative, "c", "connections", "N"), "-c, --connections N");
  EXPECT_EQ(flag_syntax(SyntaxStyle::kNative, "", "timeout", "T"), "    --timeout T");
  EXPECT_EQ(flag_syntax(SyntaxStyle::kServe, "", "port", "P"), "--port P");
  EXPECT_EQ(flag_syntax(SyntaxStyle::kWrk, "d", "duration", "T"), "-d, --duration    <T>");
  EXPECT_EQ(flag_syntax(SyntaxStyle::kWrk, "v", "version", nullptr), "-v, --version");
  EXPECT_EQ(flag_syntax(SyntaxStyle::kAb, "n", nullptr, "requests"), "-n requests");
  EXPECT_EQ(flag_syntax(SyntaxStyle::kAb, "k", nullptr, nullptr), "-k");
  EXPECT_EQ(flag_syntax(SyntaxStyle::kWebbench, "?h", "help", nullptr), "-?|-h|--help");
  EXPECT_EQ(flag_syntax(SyntaxStyle::kWebbench, "t", "time", "sec"), "-t|--time <sec>");
  EXPECT_EQ(flag_syntax(SyntaxStyle::kWebbench, "", "get", nullptr), "--get");
}

TEST(FlagTable, UsageRowsAlignWrapAndPad) {
  EXPECT_EQ(render_usage(kTable, UsageLayout{SyntaxStyle::kNative, 2, 16, 2}),
            "Section:\n"
            "  -a, --alpha   count an a\n"
            "      --beta B  a long help line\n"
            "                that goes on\n");
  // A flag column that reaches the help column gets the overflow gap; lines may be padded.
  EXPECT_EQ(render_usage(kTable, UsageLayout{SyntaxStyle::kNative, 2, 8, 3, 30}),
            "Section:                      \n"
            "  -a, --alpha   count an a    \n"
            "      --beta B   a long help line\n"
            "        that goes on          \n");
}

TEST(FlagTable, DriversSeeTheTable) {
  const std::vector<FlagSpec> specs = flag_specs(kTable);
  ASSERT_EQ(specs.size(), 3u);
  EXPECT_EQ(specs[1].id, 1);
  EXPECT_EQ(specs[1].short_name, '\0');
  EXPECT_TRUE(specs[1].takes_value);
  EXPECT_EQ(getopt_short_options(kTable), "a?x");
  const std::vector<GetoptLongOption> longs = getopt_long_options(kTable);
  ASSERT_EQ(longs.size(), 3u);
  EXPECT_EQ(longs[0].val, 'a');
  EXPECT_EQ(longs[1].val, kLongOnly + 1);
  EXPECT_EQ(longs[2].val, '?');
  EXPECT_EQ(flag_for(kTable, 'x'), &kFlags[2]);
  EXPECT_EQ(flag_for(kTable, kLongOnly + 1), &kFlags[1]);
  EXPECT_EQ(flag_for(kTable, 'z'), nullptr);

  const std::vector<std::string> args = {"-a", "--beta=1", "w", "-x", "--al"};
  const std::string shorts = getopt_short_options(kTable);
  GnuGetopt reader(args, shorts, longs);
  Counts counts;
  GetoptOption o;
  while (reader.next(&o)) {
    const TestFlag* f = flag_for(kTable, o.val);
    ASSERT_NE(f, nullptr);
    f->apply(counts, ParsedFlag{0, "", o.arg});
  }
  EXPECT_EQ(counts.a, 3);
  EXPECT_EQ(counts.b, "1");
}

TEST(FlagTable, NamesForTheDocumentation) {
  const std::vector<FlagName> names = flag_names(kTable);
  ASSERT_EQ(names.size(), 6u);
  EXPECT_EQ(names[0].name, "-a");
  EXPECT_EQ(names[1].name, "--alpha");
  EXPECT_EQ(names[2].name, "--beta");
  EXPECT_TRUE(names[2].takes_value);
  EXPECT_EQ(names[3].name, "-?");
  EXPECT_EQ(names[5].name, "--help");
  EXPECT_EQ(names[5].flag, 2u);
  EXPECT_FALSE(names[5].documented);
}

}  // namespace
}  // namespace hail
