#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/numbers.h"

namespace hail {
namespace {

TEST(ScaledDecimal, Accepted) {
  EXPECT_EQ(parse_scaled_decimal("1000"), 1000.0);
  EXPECT_EQ(parse_scaled_decimal("0.5"), 0.5);
  EXPECT_EQ(parse_scaled_decimal("2.5k"), 2500.0);
  EXPECT_EQ(parse_scaled_decimal("2.5K"), 2500.0);
  EXPECT_EQ(parse_scaled_decimal("1M"), 1e6);
  EXPECT_EQ(parse_scaled_decimal("0"), 0.0);
  EXPECT_EQ(parse_scaled_decimal("007"), 7.0);
}

TEST(ScaledDecimal, Refused) {
  for (const char* text : {"", "k", "M", ".5", "5.", "1.2.3", "1e3", "-1", "+1", " 1", "1 ", "inf",
                           "nan", "1m", "1G", "1kk", "0x10"}) {
    EXPECT_FALSE(parse_scaled_decimal(text).has_value()) << text;
  }
}

// glibc itself is the reference for strtol and atoi.
TEST(CNumbers, StrtolAndAtoiAsGlibc) {
  for (const char* text : {"",
                           "0",
                           "42",
                           "  -7x",
                           "\t\n+12",
                           "- 4",
                           "+",
                           "-",
                           "abc",
                           "10s",
                           "9999999999",
                           "-9999999999",
                           "9223372036854775807",
                           "9223372036854775808",
                           "-9223372036854775808",
                           "-9223372036854775809",
                           "99999999999999999999",
                           "-99999999999999999999",
                           "2147483648",
                           "4294967297",
                           " \v\f\r 5"}) {
    SCOPED_TRACE(text);
    EXPECT_EQ(c_strtol(text), std::strtol(text, nullptr, 10));
    EXPECT_EQ(c_atoi(text), std::atoi(text));
  }
}

TEST(CNumbers, StopsAtTheViewsEnd) {
  const std::string text = "123456";
  EXPECT_EQ(c_strtol(std::string_view(text).substr(0, 3)), 123);
}

}  // namespace
}  // namespace hail
