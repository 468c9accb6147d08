#include <gtest/gtest.h>

#include <string>

#include "core/strings.h"

namespace hail {
namespace {

TEST(StringPrintf, Formats) {
  EXPECT_EQ(string_printf("%d-%s-%.2f", 7, "x", 1.5), "7-x-1.50");
  EXPECT_EQ(string_printf("%s", ""), "");
  EXPECT_EQ(string_printf("100%%"), "100%");
}

TEST(StringPrintf, NeverCutsLongText) {
  const std::string url = "http://127.0.0.1:8080/" + std::string(5000, 'a');
  const std::string line = string_printf("  %-12s %s", "URL", url.c_str());
  EXPECT_EQ(line, "  URL          " + url);
  EXPECT_EQ(string_printf("%.3f", 1e300).size(), 305u);  // 301 digits, the point, 3 decimals
}

}  // namespace
}  // namespace hail
