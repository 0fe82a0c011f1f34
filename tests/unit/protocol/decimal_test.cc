// ParseDecimal: the one reader of the wire's decimal numbers.
#include "protocol/decimal.h"

#include <gtest/gtest.h>

#include <string>

namespace rowsocket {
namespace {

TEST(ParseDecimal, reads_digits_only) {
  uint64_t v = 7;
  EXPECT_TRUE(ParseDecimal("0", &v));
  EXPECT_EQ(v, 0u);
  EXPECT_TRUE(ParseDecimal("18446744073709551615", &v));
  EXPECT_EQ(v, UINT64_MAX);
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "1x", "0x1", "18446744073709551616"})
    EXPECT_FALSE(ParseDecimal(bad, &v)) << bad;
  EXPECT_EQ(v, UINT64_MAX);  // untouched by the failures
}

TEST(ParseDecimal, a_32_bit_value_refuses_what_does_not_fit) {
  uint32_t v = 0;
  EXPECT_TRUE(ParseDecimal("4294967295", &v));
  EXPECT_EQ(v, UINT32_MAX);
  EXPECT_FALSE(ParseDecimal("4294967296", &v));
}

TEST(ParseColumnInteger, reads_each_width_to_its_bounds_and_no_further) {
  struct Width {
    int bits;
    bool is_unsigned;
    const char* min;
    const char* below;
    const char* max;
    const char* above;
  };
  const Width widths[] = {
      {8, false, "-128", "-129", "127", "128"},
      {8, true, "0", "-1", "255", "256"},
      {16, false, "-32768", "-32769", "32767", "32768"},
      {24, true, "0", "-1", "16777215", "16777216"},
      {32, false, "-2147483648", "-2147483649", "2147483647", "2147483648"},
      {64, false, "-9223372036854775808", "-9223372036854775809", "9223372036854775807",
       "9223372036854775808"},
      {64, true, "0", "-1", "18446744073709551615", "18446744073709551616"},
  };
  for (const Width& w : widths) {
    int64_t v = 0;
    auto text = [&w](int64_t n) {
      return w.is_unsigned ? std::to_string(static_cast<uint64_t>(n)) : std::to_string(n);
    };
    EXPECT_TRUE(ParseColumnInteger(w.min, w.bits, w.is_unsigned, &v)) << w.min;
    EXPECT_EQ(text(v), w.min);
    EXPECT_TRUE(ParseColumnInteger(w.max, w.bits, w.is_unsigned, &v)) << w.max;
    EXPECT_EQ(text(v), w.max);
    EXPECT_FALSE(ParseColumnInteger(w.below, w.bits, w.is_unsigned, &v)) << w.below;
    EXPECT_FALSE(ParseColumnInteger(w.above, w.bits, w.is_unsigned, &v)) << w.above;
  }
}

TEST(ParseColumnInteger, refuses_any_text_the_column_would_not_write) {
  int64_t v = 42;
  for (const char* bad : {"", "-", "-0", "01", "-01", "00", "+1", " 1", "1 ", "1x", "1.0",
                          "1e0", "0x1", "--1", "99999999999999999999999"})
    EXPECT_FALSE(ParseColumnInteger(bad, 32, false, &v)) << bad;
  EXPECT_EQ(v, 42);  // untouched by the failures
  EXPECT_TRUE(ParseColumnInteger("0", 32, false, &v));
  EXPECT_EQ(v, 0);
  EXPECT_TRUE(ParseColumnInteger("-5", 32, false, &v));
  EXPECT_EQ(v, -5);
}

}  // namespace
}  // namespace rowsocket
