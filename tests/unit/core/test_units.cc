#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "core/units.h"

namespace hail {
namespace {

struct Good {
  const char* text;
  uint64_t value;
};

struct Bad {
  const char* text;
  const char* message;  // exact text, or "" to only require an error
};

constexpr uint64_t kS = 1'000'000'000;

TEST(ParseDuration, AcceptsValidInputs) {
  const Good cases[] = {
      {"10s", 10 * kS},
      {"500ms", 500'000'000},
      {"1.5s", 1'500'000'000},
      {"2m", 120 * kS},
      {"1h", 3600 * kS},
      {"250us", 250'000},
      {"100ns", 100},
      {"0.5", kS / 2},  // wrk-compat: bare number is seconds
      {"30", 30 * kS},
      {"0", 0},
      {"0s", 0},
      {"0.000000001", 1},
      {"1.9ns", 1},  // below one nanosecond: truncated
      {"0.0000000001s", 0},
      {"1.25m", 75 * kS},
      {"10S", 10 * kS},  // wrk-compat: case-insensitive units
      {"5MS", 5'000'000},
      {"2H", 7200 * kS},
      {"007s", 7 * kS},
      {"1.000000000000000000000000001s", kS},     // digits beyond 18 are ignored
      {"876600h", uint64_t{876600} * 3600 * kS},  // exactly 100 years
      {"3155760000s", kMaxDurationNs},
  };
  for (const Good& c : cases) {
    auto r = parse_duration_ns(c.text);
    ASSERT_TRUE(r.ok()) << c.text << ": " << r.error().message;
    EXPECT_EQ(r.value(), c.value) << c.text;
  }
}

TEST(ParseDuration, RejectsInvalidInputs) {
  const Bad cases[] = {
      {"", "invalid duration \"\": expected a number such as 10s, 500ms or 1.5m"},
      {"10x", "invalid duration \"10x\": unknown unit \"x\" (use ns, us, ms, s, m, h)"},
      {"s", "invalid duration \"s\": expected a number such as 10s, 500ms or 1.5m"},
      {"-1s", "invalid duration \"-1s\": must not be negative"},
      {"1.2.3", "invalid duration \"1.2.3\": unexpected \".3\" after the number"},
      {" 10s", "invalid duration \" 10s\": must not contain spaces"},
      {"10 s", "invalid duration \"10 s\": must not contain spaces"},
      {"10s\n", "invalid duration \"10s\\x0a\": must not contain spaces"},
      {"1.", "invalid duration \"1.\": expected digits after the decimal point"},
      {"876600.000001h", "invalid duration \"876600.000001h\": too large (maximum is 100 years)"},
      {"99999999999999999999999s",
       "invalid duration \"99999999999999999999999s\": too large "
       "(maximum is 100 years)"},
      {"3155760000.000000001s", ""},
      {".5s", ""},
      {"+1s", ""},
      {"nan", ""},
      {"inf", ""},
      {"1e3", ""},
      {"1ss", ""},
      {"1sec", ""},
      {"1d", ""},
      {"0x10", ""},
      {"1,5s", ""},
      {"1s5", ""},
  };
  for (const Bad& c : cases) {
    auto r = parse_duration_ns(c.text);
    ASSERT_FALSE(r.ok()) << c.text << " parsed as " << r.value();
    if (*c.message != '\0') {
      EXPECT_EQ(r.error().message, c.message);
    }
    EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
  }
}

TEST(ParseCount, AcceptsValidInputs) {
  const Good cases[] = {
      {"0", 0},
      {"1", 1},
      {"1000", 1000},
      {"1k", 1000},
      {"1K", 1000},  // wrk-compat: case-insensitive
      {"1.5k", 1500},
      {"2M", 2'000'000},
      {"2m", 2'000'000},
      {"3G", 3'000'000'000},
      {"0.001k", 1},
      {"1.0", 1},
      {"1.500000000000000000000k", 1500},  // trailing zeros are not "too many digits"
      {"18446744073709551615", UINT64_MAX},
      {"18446744073.709551615G", UINT64_MAX},
  };
  for (const Good& c : cases) {
    auto r = parse_count(c.text);
    ASSERT_TRUE(r.ok()) << c.text << ": " << r.error().message;
    EXPECT_EQ(r.value(), c.value) << c.text;
  }
}

TEST(ParseCount, RejectsInvalidInputs) {
  const Bad cases[] = {
      {"", "invalid count \"\": expected a number such as 100, 10k or 1.5M"},
      {"-5", "invalid count \"-5\": must not be negative"},
      {"1.5", "invalid count \"1.5\": not a whole number"},
      {"1.0001k", "invalid count \"1.0001k\": not a whole number"},
      {"5x", "invalid count \"5x\": unknown suffix \"x\" (use k, M or G)"},
      {"18446744073709551616",
       "invalid count \"18446744073709551616\": too large (maximum is 18446744073709551615)"},
      {"18446744074G",
       "invalid count \"18446744074G\": too large (maximum is 18446744073709551615)"},
      {"1.0000000000000000001k",
       "invalid count \"1.0000000000000000001k\": too many digits after the decimal point"},
      {"k", ""},
      {"1kk", ""},
      {"1 k", ""},
      {"1ki", ""},
      {"1e3", ""},
      {"1.k", ""},
      {"abc", ""},
      {"10%", ""},
  };
  for (const Bad& c : cases) {
    auto r = parse_count(c.text);
    ASSERT_FALSE(r.ok()) << c.text << " parsed as " << r.value();
    if (*c.message != '\0') {
      EXPECT_EQ(r.error().message, c.message);
    }
  }
}

TEST(ParseSize, AcceptsValidInputs) {
  const Good cases[] = {
      {"0", 0},
      {"512", 512},
      {"512B", 512},
      {"1k", 1024},
      {"1K", 1024},
      {"4KB", 4096},
      {"4KiB", 4096},
      {"4kiB", 4096},
      {"1.5M", 1'572'864},
      {"1m", 1 << 20},
      {"2MiB", 2 << 20},
      {"1G", uint64_t{1} << 30},
      {"1gB", uint64_t{1} << 30},
      {"0.5k", 512},
      {"16777216G", uint64_t{1} << 54},
  };
  for (const Good& c : cases) {
    auto r = parse_size_bytes(c.text);
    ASSERT_TRUE(r.ok()) << c.text << ": " << r.error().message;
    EXPECT_EQ(r.value(), c.value) << c.text;
  }
}

TEST(ParseSize, RejectsInvalidInputs) {
  const Bad cases[] = {
      {"", "invalid size \"\": expected a number such as 512, 4k or 1.5MiB"},
      {"-1k", "invalid size \"-1k\": must not be negative"},
      {"1.3k", "invalid size \"1.3k\": not a whole number"},
      {"1kb",
       "invalid size \"1kb\": unknown unit \"kb\" (use B, k, M, G, optionally followed by B or "
       "iB)"},
      {"17179869184G",
       "invalid size \"17179869184G\": too large (maximum is 18446744073709551615)"},
      {"1iB", ""},
      {"1T", ""},
      {"1BB", ""},
      {"1KiBB", ""},
      {"1 KB", ""},
      {"1.5", ""},
      {"K", ""},
      {"1K/s", ""},
  };
  for (const Bad& c : cases) {
    auto r = parse_size_bytes(c.text);
    ASSERT_FALSE(r.ok()) << c.text << " parsed as " << r.value();
    if (*c.message != '\0') {
      EXPECT_EQ(r.error().message, c.message);
    }
  }
}

TEST(Parsers, ErrorMessagesEscapeUnprintableBytes) {
  const std::string text("1\x01\xff", 3);
  auto r = parse_duration_ns(text);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "invalid duration \"1\\x01\\xff\": unexpected \"\\x01\\xff\" after "
            "the number");
}

struct Formatted {
  double value;
  const char* text;
};

TEST(FormatDuration, PicksLargestUnitAtLeastOne) {
  const Formatted cases[] = {
      {0, "0.00ns"},       {812, "812.00ns"},   {999.99, "999.99ns"},
      {999.996, "1.00us"},  // would print as 1000.00ns
      {1000, "1.00us"},    {45'320, "45.32us"}, {1'230'000, "1.23ms"},
      {2.5e9, "2.50s"},    {59.999e9, "1.00m"}, {90e9, "1.50m"},
      {3.96e12, "1.10h"},  {360e12, "100.00h"},  // no unit above hours
  };
  for (const Formatted& c : cases) EXPECT_EQ(format_duration_ns(c.value), c.text) << c.value;
}

TEST(FormatBytes, Uses1024Base) {
  const Formatted cases[] = {
      {0, "0.00B"},
      {512, "512.00B"},
      {1023, "1023.00B"},
      {1024, "1.00KB"},
      {1260, "1.23KB"},
      {4.5 * 1024 * 1024, "4.50MB"},
      {1024.0 * 1024 * 1024, "1.00GB"},
      {2.0 * 1024 * 1024 * 1024 * 1024, "2.00TB"},
      {2048.0 * 1024 * 1024 * 1024 * 1024, "2048.00TB"},
  };
  for (const Formatted& c : cases) EXPECT_EQ(format_bytes(c.value), c.text) << c.value;
}

TEST(FormatCount, Uses1000Base) {
  const Formatted cases[] = {
      {0, "0.00"},    {999, "999.00"}, {12'340, "12.34k"}, {1'200'000, "1.20M"},
      {3e9, "3.00G"}, {1e12, "1.00T"}, {999'999, "1.00M"}, {1.5, "1.50"},
  };
  for (const Formatted& c : cases) EXPECT_EQ(format_count(c.value), c.text) << c.value;
}

}  // namespace
}  // namespace hail
