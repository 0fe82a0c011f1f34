// Tests for rowsocket-cli's half of ?describe: the request line it sends, how it
// reads the answer (rows of name, key part, privileges; errors; lines of another
// shape), and which columns a command then opens.
#include "server_columns.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rowsocket {
namespace cli {
namespace {

std::vector<DescribedColumn> Columns(const std::string& line) {
  client::Result<std::vector<DescribedColumn>> r = ParseDescribeAnswer(line);
  EXPECT_TRUE(r.ok()) << line << ": " << (r.ok() ? "" : r.error().ToString());
  return r.ok() ? r.value() : std::vector<DescribedColumn>();
}

TEST(DescribeRequest, names_the_table_and_index_with_tabs_and_encodes_names) {
  EXPECT_EQ(DescribeRequest("test", "user", "PRIMARY"), "?describe\ttest\tuser\tPRIMARY\n");
  EXPECT_EQ(DescribeRequest("d\tb", "t", ""), "?describe\td\x01\x49" "b\tt\t\n");
}

TEST(ParseDescribeAnswer, reads_one_column_per_row_in_order) {
  const std::vector<DescribedColumn> c = Columns(
      "0\t3\tuser_id\t1\tselect,insert,update,references\tuser_name\t0\tselect");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].name, "user_id");
  EXPECT_EQ(c[0].key_part, 1u);
  EXPECT_EQ(c[0].privileges, "select,insert,update,references");
  EXPECT_EQ(c[1].name, "user_name");
  EXPECT_EQ(c[1].key_part, 0u);
  EXPECT_EQ(c[1].privileges, "select");
}

TEST(ParseDescribeAnswer, decodes_names) {
  const std::vector<DescribedColumn> c = Columns("0\t3\ta\x01\x49" "b\t0\tselect");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].name, "a\tb");
}

TEST(ParseDescribeAnswer, skips_fields_a_later_version_adds) {
  const std::vector<DescribedColumn> c = Columns("0\t4\tid\t1\tselect\tint(11)\tv\t0\tinsert\ttext");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[1].name, "v");
  EXPECT_EQ(c[1].privileges, "insert");
}

TEST(ParseDescribeAnswer, reads_a_table_without_columns_shown) {
  EXPECT_TRUE(Columns("0\t3").empty());
}

TEST(ParseDescribeAnswer, an_error_answer_is_the_servers_error) {
  client::Result<std::vector<DescribedColumn>> r = ParseDescribeAnswer("3\t1\tdenied");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().is_server());
  EXPECT_EQ(r.error().code(), 3);
  EXPECT_EQ(r.error().message(), "denied");
  EXPECT_FALSE(IsUnknownRequest(r.error()));
}

TEST(ParseDescribeAnswer, the_originals_cmd_is_an_unknown_request) {
  client::Result<std::vector<DescribedColumn>> r = ParseDescribeAnswer("2\t1\tcmd");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsUnknownRequest(r.error()));
  EXPECT_FALSE(IsUnknownRequest(client::Error::Server(2, "syntax")));
  EXPECT_FALSE(IsUnknownRequest(client::Error::Usage("cmd")));
}

TEST(ParseDescribeAnswer, other_shapes_are_not_an_answer_to_it) {
  for (const char* line : {"", "x", "0", "0\t1", "0\t2\ta\t1", "0\t3\ta\t1",
                           "0\t3\ta\tx\tselect", "0\t3\ta\t-1\tselect"}) {
    client::Result<std::vector<DescribedColumn>> r = ParseDescribeAnswer(line);
    ASSERT_FALSE(r.ok()) << line;
    EXPECT_TRUE(r.error().is_usage()) << line;
  }
  static const char kNullName[] = "0\t3\t\0\t1\tselect";  // a NULL token for the name
  client::Result<std::vector<DescribedColumn>> null_name =
      ParseDescribeAnswer(std::string(kNullName, sizeof(kNullName) - 1));
  ASSERT_FALSE(null_name.ok());
  EXPECT_TRUE(null_name.error().is_usage());
}

TEST(ColumnsToOpen, are_the_columns_the_account_may_read) {
  const std::vector<DescribedColumn> c =
      Columns("0\t3\tid\t1\tselect,insert\tv\t0\tinsert,update\tw\t0\treferences,select");
  EXPECT_EQ(ColumnsToOpen(c), (std::vector<std::string>{"id", "w"}));
}

TEST(ColumnsToOpen, are_all_shown_when_the_account_may_read_none) {
  const std::vector<DescribedColumn> c = Columns("0\t3\tid\t1\tinsert\tv\t0\tupdate");
  EXPECT_EQ(ColumnsToOpen(c), (std::vector<std::string>{"id", "v"}));
}

TEST(DescribedColumn, selectable_means_select_among_the_privileges) {
  DescribedColumn c;
  for (const char* p : {"select", "insert,select", "select,update"}) {
    c.privileges = p;
    EXPECT_TRUE(c.selectable()) << p;
  }
  for (const char* p : {"", "insert", "selects", "xselect,update"}) {
    c.privileges = p;
    EXPECT_FALSE(c.selectable()) << p;
  }
}

}  // namespace
}  // namespace cli
}  // namespace rowsocket
