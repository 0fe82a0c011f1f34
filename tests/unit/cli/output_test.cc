// Tests for rowsocket-cli's output: the three row formats and raw-line display.
#include "output.h"

#include <gtest/gtest.h>

#include <string>

namespace rowsocket {
namespace cli {
namespace {

using client::Rows;
using client::Value;

const std::vector<std::string> kNames = {"id", "name"};
const Rows kRows = {{1, "Ann"}, {22, nullptr}};

TEST(RenderRows, tab_format_is_one_line_per_row_with_null_spelled_out) {
  EXPECT_EQ(RenderRows(kNames, kRows, Format::kTab, false), "1\tAnn\n22\tNULL\n");
  EXPECT_EQ(RenderRows(kNames, kRows, Format::kTab, true), "id\tname\n1\tAnn\n22\tNULL\n");
}

TEST(RenderRows, tab_format_escapes_tabs_and_newlines_inside_values) {
  Rows rows = {{std::string("a\tb\nc\\", 6)}};
  EXPECT_EQ(RenderRows({"x"}, rows, Format::kTab, false), "a\\tb\\nc\\\\\n");
}

TEST(RenderRows, table_format_aligns_columns) {
  EXPECT_EQ(RenderRows(kNames, kRows, Format::kTable, true),
            "+----+------+\n"
            "| id | name |\n"
            "+----+------+\n"
            "| 1  | Ann  |\n"
            "| 22 | NULL |\n"
            "+----+------+\n");
}

TEST(RenderRows, table_widths_count_utf8_characters) {
  Rows rows = {{"\xc3\xa9t\xc3\xa9"}};  // "été": 3 characters, 5 bytes
  EXPECT_EQ(RenderRows({"word"}, rows, Format::kTable, true),
            "+------+\n| word |\n+------+\n| \xc3\xa9t\xc3\xa9  |\n+------+\n");
}

TEST(RenderRows, vertical_format_labels_each_value) {
  EXPECT_EQ(RenderRows(kNames, {kRows[0]}, Format::kVertical, true),
            "*************************** 1. row ***************************\n"
            "  id: 1\n"
            "name: Ann\n");
}

TEST(RenderRows, extra_columns_are_labelled_by_position) {
  EXPECT_EQ(RenderRows({"a"}, {{1, 2}}, Format::kTab, true), "a\t#2\n1\t2\n");
}

TEST(ShowRawLine, keeps_tabs_and_shows_control_bytes) {
  EXPECT_EQ(ShowRawLine(std::string("0\t2\ta\x01I\t\0", 9)), "0\t2\ta\\x01I\t\\0");
  EXPECT_EQ(ShowRawLine("x\\y"), "x\\\\y");
}

TEST(ShowValue, null_and_bytes) {
  EXPECT_EQ(ShowValue(Value::Null()), "NULL");
  EXPECT_EQ(ShowValue(Value(std::string("\x7f\x02", 2))), "\\x7f\\x02");
}

}  // namespace
}  // namespace cli
}  // namespace rowsocket
