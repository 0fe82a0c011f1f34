// ParseDecimal: the one reader of the wire's decimal numbers.
#include "protocol/decimal.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace rowsocket
