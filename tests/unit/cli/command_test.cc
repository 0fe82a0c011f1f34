// Tests for rowsocket-cli's command parser: each human command and the request
// fields it fills, the value syntax (quotes, escapes, NULL), and the errors it gives.
#include "command.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rowsocket {
namespace cli {
namespace {

Command Parse(const std::string& line) {
  Result<Command> c = ParseCommand(line);
  EXPECT_TRUE(c.ok()) << line << ": " << c.error().message();
  return c.ok() ? c.value() : Command();
}

std::string ErrorOf(const std::string& line) {
  Result<Command> c = ParseCommand(line);
  EXPECT_FALSE(c.ok()) << line;
  return c.ok() ? "" : c.error().message();
}

TEST(ParseCommand, open_takes_table_index_columns_and_filter_columns) {
  Command c = Parse("open test.user PRIMARY user_name,user_email,created filter created");
  EXPECT_EQ(c.verb, Verb::kOpen);
  EXPECT_EQ(c.db, "test");
  EXPECT_EQ(c.table, "user");
  EXPECT_EQ(c.index, "PRIMARY");
  EXPECT_EQ(c.columns, (std::vector<std::string>{"user_name", "user_email", "created"}));
  EXPECT_EQ(c.filter_columns, (std::vector<std::string>{"created"}));
  Command bare = Parse("open test.user");
  EXPECT_TRUE(bare.index.empty());
  EXPECT_TRUE(bare.columns.empty());
}

TEST(ParseCommand, find_with_every_clause) {
  Command c = Parse("find test.user using idx columns a,b >= 100 x limit 10 offset 5 "
                    "in 1 7 8 where a != 'z z' while b < 3");
  EXPECT_EQ(c.verb, Verb::kFind);
  EXPECT_EQ(c.index, "idx");
  EXPECT_EQ(c.columns, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(c.op, ">=");
  ASSERT_EQ(c.key.size(), 2u);
  EXPECT_EQ(c.key[1].str(), "x");
  EXPECT_EQ(*c.limit, 10u);
  EXPECT_EQ(*c.offset, 5u);
  EXPECT_TRUE(c.has_in);
  EXPECT_EQ(c.in_key_part, 1u);
  EXPECT_EQ(c.in_values.size(), 2u);
  ASSERT_EQ(c.filters.size(), 2u);
  EXPECT_FALSE(c.filters[0].stop);
  EXPECT_EQ(c.filters[0].op, "!=");
  EXPECT_EQ(c.filters[0].value.str(), "z z");
  EXPECT_TRUE(c.filters[1].stop);
}

TEST(ParseCommand, table_without_database_leaves_db_empty) {
  Command c = Parse("find user = 1");
  EXPECT_EQ(c.db, "");
  EXPECT_EQ(c.table, "user");
}

TEST(ParseCommand, bare_null_is_null_and_quoted_null_is_text) {
  Command c = Parse("insert t.u 1 NULL null 'NULL' ''");
  ASSERT_EQ(c.values.size(), 5u);
  EXPECT_TRUE(c.values[1].is_null());
  EXPECT_TRUE(c.values[2].is_null());
  EXPECT_EQ(c.values[3], client::Value("NULL"));
  EXPECT_EQ(c.values[4], client::Value(""));
}

TEST(ParseCommand, escapes_decode_in_quotes_and_bare_words) {
  Command c = Parse(R"(insert t.u 'a\tb' "q\"x" c\x41 'nul\0')");
  ASSERT_EQ(c.values.size(), 4u);
  EXPECT_EQ(c.values[0].str(), "a\tb");
  EXPECT_EQ(c.values[1].str(), "q\"x");
  EXPECT_EQ(c.values[2].str(), "cA");
  EXPECT_EQ(c.values[3].str(), std::string("nul\0", 4));
}

TEST(ParseCommand, quoted_keywords_are_values) {
  Command c = Parse("find t.u = 'limit' limit 2");
  ASSERT_EQ(c.key.size(), 1u);
  EXPECT_EQ(c.key[0].str(), "limit");
  EXPECT_EQ(*c.limit, 2u);
}

TEST(ParseCommand, modifies_take_their_values_and_returning) {
  Command u = Parse("update t.u = 1 set 1 x returning");
  EXPECT_EQ(u.verb, Verb::kUpdate);
  EXPECT_EQ(u.values.size(), 2u);
  EXPECT_TRUE(u.returning);
  Command i = Parse("increment t.u = 1 by 5");
  EXPECT_EQ(i.verb, Verb::kIncrement);
  EXPECT_EQ(i.values[0].str(), "5");
  Command d = Parse("delete t.u >= 1 limit 100");
  EXPECT_EQ(d.verb, Verb::kDelete);
  EXPECT_TRUE(d.values.empty());
}

TEST(ParseCommand, trailing_backslash_g_and_semicolon) {
  Command c = Parse("find t.u = 1\\G");
  EXPECT_TRUE(c.vertical);
  EXPECT_EQ(c.key[0].str(), "1");
  EXPECT_FALSE(Parse("find t.u = 1;").vertical);
}

TEST(ParseCommand, session_commands_take_one_argument) {
  EXPECT_EQ(Parse("use test").argument, "test");
  EXPECT_EQ(Parse("raw write").verb, Verb::kRaw);
  EXPECT_EQ(Parse("help find").argument, "find");
  EXPECT_EQ(Parse("\\q").verb, Verb::kQuit);
  EXPECT_EQ(Parse("").verb, Verb::kEmpty);
}

TEST(ParseCommand, errors_say_what_was_expected) {
  EXPECT_NE(ErrorOf("fnd t.u = 1").find("unknown command"), std::string::npos);
  EXPECT_NE(ErrorOf("find t.u").find("operator"), std::string::npos);
  EXPECT_NE(ErrorOf("find t.u = ").find("key values"), std::string::npos);
  EXPECT_NE(ErrorOf("find t.u = 1 limit x").find("limit needs a number"), std::string::npos);
  EXPECT_NE(ErrorOf("update t.u = 1").find("set"), std::string::npos);
  EXPECT_NE(ErrorOf("find t.u = 1 where a ~ 1").find("filter operator"), std::string::npos);
  EXPECT_NE(ErrorOf("insert t.u 'open").find("unterminated"), std::string::npos);
  EXPECT_NE(ErrorOf("insert t.u").find("values"), std::string::npos);
  EXPECT_NE(ErrorOf("find t.u = 1 returning").find("returning"), std::string::npos);
}

TEST(SplitCommands, splits_at_semicolons_and_newlines_outside_quotes) {
  EXPECT_EQ(SplitCommands("a; b\nc;; 'x;y' \"p\nq\""),
            (std::vector<std::string>{"a", " b", "c", " 'x;y' \"p\nq\""}));
}

TEST(Unescape, rejects_bad_escapes) {
  std::string out;
  EXPECT_FALSE(Unescape("\\q", &out));
  EXPECT_FALSE(Unescape("\\x4", &out));
  EXPECT_TRUE(Unescape("a\\\\b", &out));
  EXPECT_EQ(out, "a\\b");
}

}  // namespace
}  // namespace cli
}  // namespace rowsocket
