#include <gtest/gtest.h>

#include <cctype>
#include <string>

#include "core/ascii.h"

namespace hail {
namespace {

TEST(Ascii, ClassesMatchTheCLocale) {
  for (int c = 0; c < 256; ++c) {
    const char ch = static_cast<char>(c);
    SCOPED_TRACE(c);
    EXPECT_EQ(ascii::is_digit(ch), std::isdigit(c) != 0);
    EXPECT_EQ(ascii::is_alpha(ch), std::isalpha(c) != 0);
    EXPECT_EQ(ascii::is_space(ch), std::isspace(c) != 0);
    EXPECT_EQ(ascii::to_lower(ch), static_cast<char>(std::tolower(c)));
  }
}

TEST(Ascii, CaseInsensitiveComparisons) {
  EXPECT_TRUE(ascii::iequals("Content-Length", "content-length"));
  EXPECT_FALSE(ascii::iequals("Content-Length", "content-lengt"));
  EXPECT_FALSE(ascii::iequals("\xc4", "\xe4"));  // no Latin-1 folding
  EXPECT_TRUE(ascii::istarts_with("HOST: x", "Host:"));
  EXPECT_FALSE(ascii::istarts_with("Hos", "Host:"));
  EXPECT_TRUE(ascii::iends_with("run.CSV", ".csv"));
  EXPECT_FALSE(ascii::iends_with("csv", ".csv"));
  std::string text = "MiXeD-1";
  ascii::to_lower_in_place(text);
  EXPECT_EQ(text, "mixed-1");
}

TEST(Ascii, Trimming) {
  EXPECT_EQ(ascii::trim_ows(" \t a b \t"), "a b");
  EXPECT_EQ(ascii::trim_ows("\r a \n"), "\r a \n");  // only SP and HTAB
  EXPECT_EQ(ascii::trim_ows("   "), "");
  EXPECT_EQ(ascii::skip_space(" \t\n\v\f\rx "), "x ");
}

}  // namespace
}  // namespace hail
