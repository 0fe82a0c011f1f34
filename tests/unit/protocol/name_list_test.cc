// SplitNameList: `P`'s column lists and list-valued options.
#include "protocol/name_list.h"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace rowsocket {
namespace {

using Names = std::vector<std::string_view>;

TEST(SplitNameList, splits_on_commas_keeping_empty_items_between_them) {
  EXPECT_EQ(SplitNameList("a,b"), (Names{"a", "b"}));
  EXPECT_EQ(SplitNameList("a,,b"), (Names{"a", "", "b"}));
  EXPECT_EQ(SplitNameList("a"), (Names{"a"}));
}

TEST(SplitNameList, a_comma_at_the_end_and_an_empty_list_add_nothing) {
  EXPECT_EQ(SplitNameList("a,b,"), (Names{"a", "b"}));
  EXPECT_TRUE(SplitNameList("").empty());
  EXPECT_EQ(SplitNameList(","), (Names{""}));
}

}  // namespace
}  // namespace rowsocket
