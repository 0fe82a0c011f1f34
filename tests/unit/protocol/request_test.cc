// Tests for ParseRequest: every request form of PROTOCOL.md Part 1 and every error
// the parser can answer.
//
// Lines are built from token lists joined with TAB, so a test reads like the
// protocol description. The fixture owns the line buffer, because a parsed Request
// points into it.
#include "protocol/request.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace rowsocket {
namespace {

const std::string kNull(1, '\0');

std::string Join(std::initializer_list<std::string_view> tokens) {
  std::string line;
  bool first = true;
  for (std::string_view t : tokens) {
    if (!first) line.push_back('\t');
    line.append(t);
    first = false;
  }
  return line;
}

class RequestTest : public ::testing::Test {
 protected:
  const Request& Parse(std::string line) {
    line_ = std::move(line);
    ParseRequest(line_.data(), line_.size(), &request_);
    return request_;
  }
  const Request& Parse(std::initializer_list<std::string_view> tokens) {
    return Parse(Join(tokens));
  }
  // The parse error of `tokens`, or "" when the line parsed.
  std::string ErrorOf(std::initializer_list<std::string_view> tokens) {
    Parse(tokens);
    if (request_.type != RequestType::kInvalid) return "";
    EXPECT_EQ(request_.error.code(), WireStatus::kBadRequest);
    return std::string(request_.error.message());
  }
  static std::vector<std::string> Strings(const std::vector<WireValue>& values) {
    std::vector<std::string> out;
    for (const WireValue& v : values) out.push_back(v.is_null ? "<null>" : std::string(v.view()));
    return out;
  }
  using Strs = std::vector<std::string>;

  std::string line_;
  Request request_;
};

// --- P: open index ---------------------------------------------------------------

TEST_F(RequestTest, open_index_reads_id_names_and_columns) {
  const Request& r = Parse({"P", "7", "test", "users", "PRIMARY", "id,name"});
  ASSERT_EQ(r.type, RequestType::kOpenIndex);
  EXPECT_TRUE(r.error.ok());
  EXPECT_EQ(r.index_id, 7u);
  EXPECT_EQ(r.db, "test");
  EXPECT_EQ(r.table, "users");
  EXPECT_EQ(r.index, "PRIMARY");
  EXPECT_EQ(r.columns, "id,name");
  EXPECT_EQ(r.filter_columns, "");
}

TEST_F(RequestTest, open_index_reads_optional_filter_columns) {
  const Request& r = Parse({"P", "0", "db", "t", "idx", "a,b", "c,d"});
  ASSERT_EQ(r.type, RequestType::kOpenIndex);
  EXPECT_EQ(r.filter_columns, "c,d");
}

TEST_F(RequestTest, open_index_with_trailing_tab_has_empty_filter_columns) {
  const Request& r = Parse("P\t1\tdb\tt\tidx\ta\t");
  ASSERT_EQ(r.type, RequestType::kOpenIndex);
  EXPECT_EQ(r.columns, "a");
  EXPECT_EQ(r.filter_columns, "");
}

TEST_F(RequestTest, open_index_decodes_names) {
  const Request& r = Parse({"P", "1", "d\x01\x49" "b", "t", "i", "c"});
  ASSERT_EQ(r.type, RequestType::kOpenIndex);
  EXPECT_EQ(r.db, "d\tb");
}

TEST_F(RequestTest, open_index_without_an_id_is_syntax) {
  EXPECT_EQ(ErrorOf({"P"}), "syntax");
}

TEST_F(RequestTest, open_index_reads_names_left_out_as_empty) {
  const Request& r = Parse({"P", "1", "db", "t"});
  ASSERT_EQ(r.type, RequestType::kOpenIndex);
  EXPECT_EQ(r.db, "db");
  EXPECT_EQ(r.table, "t");
  EXPECT_EQ(r.index, "");
  EXPECT_EQ(r.columns, "");
  EXPECT_EQ(r.filter_columns, "");
  const Request& r2 = Parse({"P", "1"});
  ASSERT_EQ(r2.type, RequestType::kOpenIndex);
  EXPECT_EQ(r2.db, "");
  EXPECT_EQ(r2.table, "");
}

TEST_F(RequestTest, open_index_reads_an_empty_index_name) {
  // The Perl client's open_index(1, $db, $table, '', 'k,v'): the primary key.
  const Request& r = Parse({"P", "1", "db", "t", "", "k,v"});
  ASSERT_EQ(r.type, RequestType::kOpenIndex);
  EXPECT_EQ(r.index, "");
  EXPECT_EQ(r.columns, "k,v");
}

TEST_F(RequestTest, open_index_ignores_tokens_after_the_filter_columns) {
  const Request& r = Parse({"P", "1", "db", "t", "idx", "a", "b", "extra"});
  ASSERT_EQ(r.type, RequestType::kOpenIndex);
  EXPECT_EQ(r.columns, "a");
  EXPECT_EQ(r.filter_columns, "b");
}

TEST_F(RequestTest, open_index_with_bad_id_is_stmtnum) {
  EXPECT_EQ(ErrorOf({"P", "x", "db", "t", "idx", "a"}), "stmtnum");
  EXPECT_EQ(ErrorOf({"P", "", "db", "t", "idx", "a"}), "stmtnum");
  EXPECT_EQ(ErrorOf({"P", "-1", "db", "t", "idx", "a"}), "stmtnum");
  EXPECT_EQ(ErrorOf({"P", "2147483648", "db", "t", "idx", "a"}), "stmtnum");
  EXPECT_EQ(ErrorOf({"P", "4294967296", "db", "t", "idx", "a"}), "stmtnum");
  EXPECT_EQ(ErrorOf({"P", "99999999999999999999", "db", "t", "idx", "a"}), "stmtnum");
}

TEST_F(RequestTest, open_index_accepts_largest_id) {
  const Request& r = Parse({"P", "2147483647", "db", "t", "idx", "a"});
  ASSERT_EQ(r.type, RequestType::kOpenIndex);
  EXPECT_EQ(r.index_id, kMaxIndexIdValue);
}

// --- A: auth -------------------------------------------------------------------

TEST_F(RequestTest, auth_reads_type_and_decoded_key) {
  const Request& r = Parse({"A", "1", "se\x01\x40" "cret"});
  ASSERT_EQ(r.type, RequestType::kAuth);
  EXPECT_EQ(r.auth_type, "1");
  EXPECT_EQ(r.auth_key, std::string("se") + '\0' + "cret");
}

TEST_F(RequestTest, auth_without_type_is_unauthorized_authtype) {
  const Request& r = Parse({"A"});
  EXPECT_EQ(r.type, RequestType::kInvalid);
  EXPECT_EQ(r.error.code(), WireStatus::kUnauthorized);
  EXPECT_EQ(r.error.message(), "authtype");
}

TEST_F(RequestTest, auth_without_key_parses_with_empty_key) {
  const Request& r = Parse({"A", "1"});
  ASSERT_EQ(r.type, RequestType::kAuth);
  EXPECT_TRUE(r.error.ok());
  EXPECT_EQ(r.auth_type, "1");
  EXPECT_EQ(r.auth_key, "");
}

TEST_F(RequestTest, auth_with_trailing_tab_parses_with_empty_key) {
  const Request& r = Parse("A\t1\t");
  ASSERT_EQ(r.type, RequestType::kAuth);
  EXPECT_EQ(r.auth_type, "1");
  EXPECT_EQ(r.auth_key, "");
}

TEST_F(RequestTest, auth_with_empty_type_parses_and_leaves_the_type_check_to_the_server) {
  const Request& r = Parse({"A", "", "key"});
  ASSERT_EQ(r.type, RequestType::kAuth);
  EXPECT_EQ(r.auth_type, "");
  EXPECT_EQ(r.auth_key, "key");
}

TEST_F(RequestTest, auth_ignores_tokens_after_the_key) {
  const Request& r = Parse({"A", "1", "key", "extra", "more"});
  ASSERT_EQ(r.type, RequestType::kAuth);
  EXPECT_TRUE(r.error.ok());
  EXPECT_EQ(r.auth_type, "1");
  EXPECT_EQ(r.auth_key, "key");
}

// --- ?describe: rowsocket's own ----------------------------------------------------

TEST_F(RequestTest, describe_reads_db_table_and_index) {
  const Request& r = Parse({"?describe", "test", "user", "PRIMARY"});
  ASSERT_EQ(r.type, RequestType::kDescribe);
  EXPECT_TRUE(r.error.ok());
  EXPECT_EQ(r.db, "test");
  EXPECT_EQ(r.table, "user");
  EXPECT_EQ(r.index, "PRIMARY");
  EXPECT_FALSE(r.IsWrite());
  EXPECT_FALSE(r.asks_to_write);
}

TEST_F(RequestTest, describe_without_an_index_reads_it_as_empty) {
  const Request& r = Parse({"?describe", "test", "user"});
  ASSERT_EQ(r.type, RequestType::kDescribe);
  EXPECT_EQ(r.table, "user");
  EXPECT_EQ(r.index, "");
  EXPECT_EQ(Parse({"?describe", "test", "user", ""}).type, RequestType::kDescribe);
}

TEST_F(RequestTest, describe_decodes_names) {
  const Request& r = Parse({"?describe", "d\x01\x49" "b", "t\x01\x40"});
  ASSERT_EQ(r.type, RequestType::kDescribe);
  EXPECT_EQ(r.db, "d\tb");
  EXPECT_EQ(r.table, std::string("t\0", 2));
}

TEST_F(RequestTest, describe_without_a_table_or_with_extra_tokens_is_syntax) {
  EXPECT_EQ(ErrorOf({"?describe"}), "syntax");
  EXPECT_EQ(ErrorOf({"?describe", "test"}), "syntax");
  EXPECT_EQ(ErrorOf({"?describe", "test", "user", "PRIMARY", "extra"}), "syntax");
  EXPECT_EQ(ErrorOf({"?describe", "test", "user", "PRIMARY", ""}), "syntax");
}

TEST_F(RequestTest, other_question_mark_words_and_other_spellings_are_cmd) {
  EXPECT_EQ(ErrorOf({"?", "test", "user"}), "cmd");
  EXPECT_EQ(ErrorOf({"?DESCRIBE", "test", "user"}), "cmd");
  EXPECT_EQ(ErrorOf({"describe", "test", "user"}), "cmd");
  EXPECT_EQ(ErrorOf({"?describe2", "test", "user"}), "cmd");
}

// --- first token ------------------------------------------------------------------

TEST_F(RequestTest, unknown_first_token_is_cmd) {
  EXPECT_EQ(ErrorOf({"X", "1"}), "cmd");
  EXPECT_EQ(ErrorOf({"p", "1", "db", "t", "idx", "a"}), "cmd");
  EXPECT_EQ(ErrorOf({"PP", "1", "db", "t", "idx", "a"}), "cmd");
  EXPECT_EQ(ErrorOf({"-1", "=", "1", "a"}), "cmd");
  EXPECT_EQ(ErrorOf({"1a", "=", "1", "a"}), "cmd");
  EXPECT_EQ(ErrorOf({kNull, "=", "1", "a"}), "cmd");
}

TEST_F(RequestTest, empty_line_is_cmd) {
  EXPECT_EQ(ErrorOf({""}), "cmd");
  EXPECT_EQ(ErrorOf({"", "=", "1", "a"}), "cmd");
}

TEST_F(RequestTest, index_id_beyond_max_is_stmtnum) {
  EXPECT_EQ(ErrorOf({"2147483648", "=", "1", "a"}), "stmtnum");
  EXPECT_EQ(ErrorOf({"4294967295", "=", "1", "a"}), "stmtnum");
  EXPECT_EQ(ErrorOf({"4294967296", "=", "1", "a"}), "stmtnum");
  EXPECT_EQ(ErrorOf({"99999999999999999999", "=", "1", "a"}), "stmtnum");
  EXPECT_EQ(ErrorOf({"2147483648", "+", "1", "a"}), "stmtnum");
  EXPECT_EQ(ErrorOf({"2147483648"}), "stmtnum");  // checked before the op
}

TEST_F(RequestTest, find_accepts_largest_index_id) {
  const Request& r = Parse({"2147483647", "=", "1", "a"});
  ASSERT_EQ(r.type, RequestType::kFind);
  EXPECT_EQ(r.index_id, kMaxIndexIdValue);
}

// --- insert -----------------------------------------------------------------------

TEST_F(RequestTest, insert_puts_its_values_in_insert_values) {
  const Request& r = Parse({"3", "+", "3", "1", "", kNull});
  ASSERT_EQ(r.type, RequestType::kInsert);
  EXPECT_EQ(r.index_id, 3u);
  EXPECT_EQ(Strings(r.insert_values), (Strs{"1", "", "<null>"}));
}

TEST_F(RequestTest, insert_with_zero_values_is_klen) {
  EXPECT_EQ(ErrorOf({"3", "+", "0"}), "klen");
  EXPECT_EQ(ErrorOf({"1", "+", "0", "a"}), "klen");
  EXPECT_EQ(ErrorOf({"1", "+", "000"}), "klen");
}

TEST_F(RequestTest, insert_with_trailing_tab_has_empty_last_value) {
  const Request& r = Parse("1\t+\t2\tx\t");
  ASSERT_EQ(r.type, RequestType::kInsert);
  EXPECT_EQ(Strings(r.insert_values), (Strs{"x", ""}));
}

TEST_F(RequestTest, insert_ignores_a_trailing_tab_after_its_values) {
  const Request& r = Parse("1\t+\t1\tx\t");
  ASSERT_EQ(r.type, RequestType::kInsert);
  EXPECT_EQ(Strings(r.insert_values), (Strs{"x"}));
}

TEST_F(RequestTest, insert_with_value_count_mismatch_is_klen) {
  EXPECT_EQ(ErrorOf({"1", "+", "2", "a"}), "klen");
  EXPECT_EQ(ErrorOf({"1", "+", "1"}), "klen");
  EXPECT_EQ(ErrorOf({"1", "+", "1", "a", "b"}), "klen");
  EXPECT_EQ(ErrorOf({"1", "+", "1", "a", "", ""}), "klen");
  EXPECT_EQ(ErrorOf({"1", "+", "4294967295", "a"}), "klen");
}

TEST_F(RequestTest, insert_with_missing_or_non_numeric_count_is_klen) {
  EXPECT_EQ(ErrorOf({"1", "+"}), "klen");
  EXPECT_EQ(ErrorOf({"1", "+", "x", "a"}), "klen");
  EXPECT_EQ(ErrorOf({"1", "+", "", "a"}), "klen");
  EXPECT_EQ(ErrorOf({"1", "+", "+1", "a"}), "klen");
  EXPECT_EQ(ErrorOf({"1", "+", "-1", "a"}), "klen");
  EXPECT_EQ(ErrorOf({"1", "+", "1x", "a"}), "klen");
  EXPECT_EQ(ErrorOf({"1", "+", "4294967296", "a"}), "klen");
}

// --- find: operators, key, limit, offset -------------------------------------------

TEST_F(RequestTest, find_reads_each_operator) {
  const std::pair<std::string_view, FindOp> cases[] = {
      {"=", FindOp::kEq}, {">", FindOp::kGt}, {">=", FindOp::kGe},
      {"<", FindOp::kLt}, {"<=", FindOp::kLe}};
  for (const auto& [token, op] : cases) {
    const Request& r = Parse({"1", token, "1", "5"});
    ASSERT_EQ(r.type, RequestType::kFind) << token;
    EXPECT_EQ(r.op, op) << token;
  }
}

TEST_F(RequestTest, find_with_unknown_operator_is_op) {
  const std::string_view ops[] = {"!", "==", "=>", "!=", "", "D", "+?", kNull};
  for (std::string_view op : ops) {
    EXPECT_EQ(ErrorOf({"1", op, "1", "5"}), "op") << op;
  }
  EXPECT_EQ(ErrorOf({"1", "~"}), "op");
}

TEST_F(RequestTest, find_without_operator_is_op) {
  EXPECT_EQ(ErrorOf({"1"}), "op");
  EXPECT_EQ(ErrorOf({"1", ""}), "op");  // trailing TAB: an empty op
}

TEST_F(RequestTest, find_without_limit_uses_limit_one_offset_zero) {
  const Request& r = Parse({"1", "=", "2", "a", "b"});
  ASSERT_EQ(r.type, RequestType::kFind);
  EXPECT_EQ(r.index_id, 1u);
  EXPECT_EQ(Strings(r.key), (Strs{"a", "b"}));
  EXPECT_EQ(r.limit, 1u);
  EXPECT_EQ(r.offset, 0u);
  EXPECT_FALSE(r.has_in);
  EXPECT_TRUE(r.filters.empty());
  EXPECT_EQ(r.modify, ModifyOp::kNone);
}

TEST_F(RequestTest, find_reads_limit_and_offset) {
  const Request& r = Parse({"1", ">=", "1", "10", "100", "20"});
  ASSERT_EQ(r.type, RequestType::kFind);
  EXPECT_EQ(Strings(r.key), (Strs{"10"}));
  EXPECT_EQ(r.limit, 100u);
  EXPECT_EQ(r.offset, 20u);
}

TEST_F(RequestTest, find_accepts_largest_limit_and_leading_zeros) {
  const Request& r = Parse({"007", "=", "01", "a", "4294967295", "0009"});
  ASSERT_EQ(r.type, RequestType::kFind);
  EXPECT_EQ(r.index_id, 7u);
  EXPECT_EQ(r.limit, 4294967295u);
  EXPECT_EQ(r.offset, 9u);
}

TEST_F(RequestTest, find_with_a_limit_and_no_offset_uses_offset_zero) {
  // What libhsclient (and so Perl's Net::HandlerSocket) sends when the offset is 0.
  const Request& r = Parse({"0", "=", "1", "101", "10"});
  ASSERT_EQ(r.type, RequestType::kFind);
  EXPECT_EQ(r.limit, 10u);
  EXPECT_EQ(r.offset, 0u);
}

TEST_F(RequestTest, find_with_a_limit_followed_by_anything_but_an_offset_is_syntax) {
  // The original reads the token after a limit as the offset: `10 D` is a find
  // there, so it must not be a delete here.
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "10", "D"}), "syntax");
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "10", "-", "5"}), "syntax");
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "10", "@", "0", "1", "b"}), "syntax");
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "10", "x"}), "syntax");
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "1", "-1"}), "syntax");
}

TEST_F(RequestTest, find_with_limit_zero_uses_the_default_limit_one) {
  // Clients send `0 0` when their caller gave no limit (and `0 0 U ...` to modify).
  const Request& r = Parse({"1", ">=", "1", "a", "0", "0"});
  ASSERT_EQ(r.type, RequestType::kFind);
  EXPECT_EQ(r.limit, 1u);
  EXPECT_EQ(r.offset, 0u);
  const Request& r2 = Parse({"1", ">=", "1", "a", "0", "3", "U", "x"});
  ASSERT_EQ(r2.type, RequestType::kFind);
  EXPECT_EQ(r2.limit, 1u);
  EXPECT_EQ(r2.offset, 3u);
  EXPECT_EQ(Parse({"1", ">=", "1", "a", "000"}).limit, 1u);
}

TEST_F(RequestTest, find_reads_empty_limit_and_offset_as_left_out) {
  const Request& r = Parse({"1", "=", "1", "a", "", ""});
  ASSERT_EQ(r.type, RequestType::kFind);
  EXPECT_EQ(r.limit, 1u);
  EXPECT_EQ(r.offset, 0u);
  const Request& r2 = Parse({"1", "=", "1", "a", "10", ""});
  ASSERT_EQ(r2.type, RequestType::kFind);
  EXPECT_EQ(r2.limit, 10u);
  EXPECT_EQ(r2.offset, 0u);
  const Request& r3 = Parse({"1", "=", "1", "a", "", "4"});
  ASSERT_EQ(r3.type, RequestType::kFind);
  EXPECT_EQ(r3.limit, 1u);
  EXPECT_EQ(r3.offset, 4u);
}

TEST_F(RequestTest, find_with_a_limit_that_is_not_a_number_is_modop) {
  // Not digits, so not a limit: the token stands where a filter or modify goes.
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "x", "y"}), "modop");
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "1x", "0"}), "modop");
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "-1", "0"}), "modop");
}

TEST_F(RequestTest, find_with_huge_key_count_is_klen) {
  EXPECT_EQ(ErrorOf({"1", "=", "4294967296", "a"}), "klen");
  EXPECT_EQ(ErrorOf({"1", "=", "99999999999999999999", "a"}), "klen");
  EXPECT_EQ(ErrorOf({"1", "=", "4294967295", "a"}), "klen");  // too few values
}

TEST_F(RequestTest, find_with_huge_limit_offset_or_filter_column_is_syntax) {
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "4294967296", "0"}), "syntax");
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "1", "4294967296"}), "syntax");
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "1", "0", "F", "=", "4294967296", "x"}), "syntax");
}

TEST_F(RequestTest, find_with_missing_zero_or_non_numeric_key_count_is_klen) {
  EXPECT_EQ(ErrorOf({"1", "="}), "klen");
  EXPECT_EQ(ErrorOf({"1", "=", "0"}), "klen");
  EXPECT_EQ(ErrorOf({"1", "=", "0", "a"}), "klen");
  EXPECT_EQ(ErrorOf({"1", "=", "x", "a"}), "klen");
  EXPECT_EQ(ErrorOf({"1", "=", "", "a"}), "klen");
  EXPECT_EQ(ErrorOf({"1", "=", "-1", "a"}), "klen");
  EXPECT_EQ(ErrorOf({"1", "=", "1x", "a"}), "klen");
}

TEST_F(RequestTest, find_with_fewer_key_values_than_count_is_klen) {
  EXPECT_EQ(ErrorOf({"1", "=", "1"}), "klen");
  EXPECT_EQ(ErrorOf({"1", "=", "3", "a", "b"}), "klen");
}

TEST_F(RequestTest, find_keeps_empty_and_null_key_values_apart) {
  const Request& r = Parse({"1", "=", "3", "", kNull, "x"});
  ASSERT_EQ(r.type, RequestType::kFind);
  EXPECT_EQ(Strings(r.key), (Strs{"", "<null>", "x"}));
  EXPECT_FALSE(r.key[0].is_null);
  EXPECT_TRUE(r.key[1].is_null);
}

TEST_F(RequestTest, find_with_trailing_tab_reads_empty_last_key_value) {
  const Request& r = Parse("1\t=\t2\ta\t");
  ASSERT_EQ(r.type, RequestType::kFind);
  EXPECT_EQ(Strings(r.key), (Strs{"a", ""}));
}

TEST_F(RequestTest, find_ignores_a_trailing_tab_after_all_its_parts) {
  const Request& r = Parse("1\t=\t1\ta\t");
  ASSERT_EQ(r.type, RequestType::kFind);
  EXPECT_EQ(Strings(r.key), (Strs{"a"}));
  const Request& r2 = Parse("1\t=\t1\ta\t5\t1\t");
  ASSERT_EQ(r2.type, RequestType::kFind);
  EXPECT_EQ(r2.limit, 5u);
  EXPECT_EQ(r2.offset, 1u);
  const Request& r3 = Parse("1\t=\t1\ta\t5\t1\t@\t0\t1\tb\t");
  ASSERT_EQ(r3.type, RequestType::kFind);
  EXPECT_EQ(Strings(r3.in_values), (Strs{"b"}));
  const Request& r4 = Parse("1\t=\t1\ta\t5\t1\tF\t=\t0\tv\t");
  ASSERT_EQ(r4.type, RequestType::kFind);
  EXPECT_EQ(r4.filters.size(), 1u);
}

TEST_F(RequestTest, find_with_an_empty_token_before_its_end_is_modop) {
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "1", "0", "", ""}), "modop");
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "1", "0", "", "U"}), "modop");
}

TEST_F(RequestTest, find_decodes_values_in_place_in_the_line) {
  const Request& r = Parse({"1", "=", "1", "a\x01\x49" "b\x01\x4a"});
  ASSERT_EQ(r.type, RequestType::kFind);
  EXPECT_EQ(r.key[0].view(), "a\tb\n");
  EXPECT_GE(r.key[0].data, line_.data());
  EXPECT_LT(r.key[0].data, line_.data() + line_.size());
}

// --- find: IN ---------------------------------------------------------------------

TEST_F(RequestTest, find_with_in_reads_key_part_and_values_in_order) {
  const Request& r = Parse({"1", "=", "1", "", "10", "0", "@", "0", "3", "c", "a", "b"});
  ASSERT_EQ(r.type, RequestType::kFind);
  EXPECT_EQ(r.limit, 10u);
  EXPECT_TRUE(r.has_in);
  EXPECT_EQ(r.in_key_part, 0u);
  EXPECT_EQ(Strings(r.in_values), (Strs{"c", "a", "b"}));
}

TEST_F(RequestTest, find_with_in_but_no_limit_keeps_defaults) {
  const Request& r = Parse({"1", "=", "2", "x", "", "@", "1", "2", kNull, ""});
  ASSERT_EQ(r.type, RequestType::kFind);
  EXPECT_EQ(r.limit, 1u);
  EXPECT_EQ(r.offset, 0u);
  EXPECT_EQ(r.in_key_part, 1u);
  EXPECT_EQ(Strings(r.in_values), (Strs{"<null>", ""}));
}

TEST_F(RequestTest, find_with_fewer_in_values_than_count_is_invalueslen) {
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "@", "0", "3", "x", "y"}), "invalueslen");
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "@", "0", "4294967295"}), "invalueslen");
}

TEST_F(RequestTest, find_with_more_in_values_than_count_is_modop) {
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "@", "0", "1", "x", "y"}), "modop");
}

TEST_F(RequestTest, find_with_second_in_clause_is_modop) {
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "@", "0", "1", "x", "@", "0", "1", "y"}), "modop");
}

TEST_F(RequestTest, find_with_bad_in_header_is_invalueslen) {
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "@"}), "invalueslen");
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "@", "0"}), "invalueslen");
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "@", "x", "1", "v"}), "invalueslen");
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "@", "", "1", "v"}), "invalueslen");
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "@", "0", "x", "v"}), "invalueslen");
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "@", "0", "-1", "v"}), "invalueslen");
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "@", "0", "4294967296", "v"}), "invalueslen");
}

TEST_F(RequestTest, find_with_in_count_zero_is_invalueslen) {
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "@", "0", "0"}), "invalueslen");
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "@", "0", "0", "v"}), "invalueslen");
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "1", "0", "@", "0", "0", "F", "=", "0", "v"}),
            "invalueslen");
}

// --- find: filters ------------------------------------------------------------------

TEST_F(RequestTest, find_with_multiple_filters_keeps_them_in_order) {
  const Request& r = Parse({"1", ">", "1", "0", "50", "0", "F", ">=", "0", "10",
                            "W", "!=", "2", kNull, "F", "=", "1", ""});
  ASSERT_EQ(r.type, RequestType::kFind);
  EXPECT_EQ(r.limit, 50u);
  ASSERT_EQ(r.filters.size(), 3u);
  EXPECT_EQ(r.filters[0].kind, FilterKind::kSkip);
  EXPECT_EQ(r.filters[0].op, CompareOp::kGe);
  EXPECT_EQ(r.filters[0].column, 0u);
  EXPECT_EQ(r.filters[0].value.view(), "10");
  EXPECT_EQ(r.filters[1].kind, FilterKind::kStop);
  EXPECT_EQ(r.filters[1].op, CompareOp::kNe);
  EXPECT_EQ(r.filters[1].column, 2u);
  EXPECT_TRUE(r.filters[1].value.is_null);
  EXPECT_EQ(r.filters[2].column, 1u);
  EXPECT_FALSE(r.filters[2].value.is_null);
  EXPECT_EQ(r.filters[2].value.view(), "");
}

TEST_F(RequestTest, find_reads_each_filter_operator) {
  const std::pair<std::string_view, CompareOp> cases[] = {
      {"=", CompareOp::kEq}, {"!=", CompareOp::kNe}, {"<", CompareOp::kLt},
      {"<=", CompareOp::kLe}, {">", CompareOp::kGt}, {">=", CompareOp::kGe}};
  for (const auto& [token, op] : cases) {
    const Request& r = Parse({"1", "=", "1", "a", "F", token, "0", "v"});
    ASSERT_EQ(r.type, RequestType::kFind) << token;
    ASSERT_EQ(r.filters.size(), 1u);
    EXPECT_EQ(r.filters[0].op, op) << token;
  }
}

TEST_F(RequestTest, find_with_filter_after_in_reads_both) {
  const Request& r = Parse({"1", "=", "1", "a", "@", "0", "1", "x", "W", "<", "0", "9"});
  ASSERT_EQ(r.type, RequestType::kFind);
  EXPECT_TRUE(r.has_in);
  ASSERT_EQ(r.filters.size(), 1u);
  EXPECT_EQ(r.filters[0].kind, FilterKind::kStop);
}

TEST_F(RequestTest, unknown_token_starting_with_f_or_w_in_filter_position_is_filtertype) {
  for (std::string_view type : {"FW", "FX", "FF", "WW", "WF", "F?", "W1", "Filter"}) {
    EXPECT_EQ(ErrorOf({"1", "=", "1", "a", type, "=", "0", "v"}), "filtertype") << type;
    EXPECT_EQ(ErrorOf({"1", "=", "1", "a", type}), "filtertype") << type;
  }
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "F", "=", "0", "v", "FX"}), "filtertype");
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "10", "0", "FX", "=", "0", "v"}), "filtertype");
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "@", "0", "1", "x", "WW", "=", "0", "v"}),
            "filtertype");
}

TEST_F(RequestTest, other_unknown_token_in_filter_position_is_modop) {
  for (std::string_view token : {"X", "Z", "f", "w", "u", "d", "?", "extra", "=", "\x01"}) {
    EXPECT_EQ(ErrorOf({"1", "=", "1", "a", token, "=", "0", "v"}), "modop") << token;
  }
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", kNull}), "modop");
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "F", "=", "0", "v", "Z"}), "modop");
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "1", "0", "extra"}), "modop");
}

TEST_F(RequestTest, find_with_unknown_filter_operator_is_op) {
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "F", "==", "0", "v"}), "op");
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "W", "<>", "0", "v"}), "op");
}

TEST_F(RequestTest, find_with_short_or_non_numeric_filter_is_syntax) {
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "F"}), "syntax");
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "F", "=", "0"}), "syntax");
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "F", "=", "x", "v"}), "syntax");
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "F", "=", "", "v"}), "syntax");
}

// --- find and modify ----------------------------------------------------------------

TEST_F(RequestTest, find_reads_every_modify_op_and_its_question_form) {
  const struct { std::string_view token; ModifyOp op; bool return_rows; } cases[] = {
      {"U", ModifyOp::kUpdate, false},    {"U?", ModifyOp::kUpdate, true},
      {"+", ModifyOp::kIncrement, false}, {"+?", ModifyOp::kIncrement, true},
      {"-", ModifyOp::kDecrement, false}, {"-?", ModifyOp::kDecrement, true}};
  for (const auto& c : cases) {
    const Request& r = Parse({"1", "=", "1", "a", c.token, "5", "", kNull});
    ASSERT_EQ(r.type, RequestType::kFind) << c.token;
    EXPECT_EQ(r.modify, c.op) << c.token;
    EXPECT_EQ(r.return_rows, c.return_rows) << c.token;
    EXPECT_EQ(Strings(r.modify_values), (Strs{"5", "", "<null>"})) << c.token;
  }
}

TEST_F(RequestTest, find_reads_delete_and_delete_returning_rows) {
  const Request& d = Parse({"1", "=", "1", "a", "D"});
  ASSERT_EQ(d.type, RequestType::kFind);
  EXPECT_EQ(d.modify, ModifyOp::kDelete);
  EXPECT_FALSE(d.return_rows);
  EXPECT_TRUE(d.modify_values.empty());

  const Request& dq = Parse({"1", "=", "1", "a", "D?"});
  ASSERT_EQ(dq.type, RequestType::kFind);
  EXPECT_EQ(dq.modify, ModifyOp::kDelete);
  EXPECT_TRUE(dq.return_rows);
}

TEST_F(RequestTest, delete_ignores_values_sent_with_it) {
  const Request& d = Parse({"1", "=", "1", "a", "D", "x"});
  ASSERT_EQ(d.type, RequestType::kFind);
  EXPECT_EQ(d.modify, ModifyOp::kDelete);
  EXPECT_TRUE(d.modify_values.empty());
  const Request& dq = Parse({"1", "=", "1", "a", "D?", ""});
  ASSERT_EQ(dq.type, RequestType::kFind);
  EXPECT_TRUE(dq.return_rows);
  EXPECT_TRUE(dq.modify_values.empty());
}

TEST_F(RequestTest, update_without_values_parses) {
  const Request& r = Parse({"1", "=", "1", "a", "U"});
  ASSERT_EQ(r.type, RequestType::kFind);
  EXPECT_EQ(r.modify, ModifyOp::kUpdate);
  EXPECT_TRUE(r.modify_values.empty());
}

TEST_F(RequestTest, modify_takes_the_rest_of_the_line_even_filter_like_tokens) {
  const Request& r = Parse({"1", "=", "1", "a", "U", "F", "=", "0", "v"});
  ASSERT_EQ(r.type, RequestType::kFind);
  EXPECT_TRUE(r.filters.empty());
  EXPECT_EQ(Strings(r.modify_values), (Strs{"F", "=", "0", "v"}));
}

TEST_F(RequestTest, modify_after_limit_in_and_filters_reads_every_part) {
  const Request& r = Parse({"1", "<=", "1", "9", "5", "1", "@", "0", "2", "8", "9",
                            "F", ">", "0", "3", "-?", "1"});
  ASSERT_EQ(r.type, RequestType::kFind);
  EXPECT_EQ(r.op, FindOp::kLe);
  EXPECT_EQ(r.limit, 5u);
  EXPECT_EQ(r.offset, 1u);
  EXPECT_EQ(Strings(r.in_values), (Strs{"8", "9"}));
  EXPECT_EQ(r.filters.size(), 1u);
  EXPECT_EQ(r.modify, ModifyOp::kDecrement);
  EXPECT_TRUE(r.return_rows);
  EXPECT_EQ(Strings(r.modify_values), (Strs{"1"}));
}

TEST_F(RequestTest, token_that_starts_like_a_modify_op_but_is_none_is_modop) {
  for (std::string_view mop : {"U!", "D??", "+x", "-1", "Ux", "UU", "D?x", "??"}) {
    EXPECT_EQ(ErrorOf({"1", "=", "1", "a", mop, "1"}), "modop") << mop;
  }
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "F", "=", "0", "v", "Dx"}), "modop");
}

// --- reuse and pipelining -------------------------------------------------------------

TEST_F(RequestTest, lines_of_a_pipelined_buffer_parse_independently) {
  std::string buffer =
      Join({"P", "1", "db", "t", "PRIMARY", "a,b"}) + "\n" +
      Join({"1", "=", "1", "x", "F", "=", "0", "y", "U?", "z"}) + "\n" +
      Join({"1", "bad"}) + "\n" +
      Join({"1", "+", "2", "p", "q"}) + "\n";
  std::vector<RequestType> types;
  std::vector<std::string> errors;
  Request r;
  size_t start = 0;
  for (size_t lf; (lf = buffer.find('\n', start)) != std::string::npos; start = lf + 1) {
    ParseRequest(buffer.data() + start, lf - start, &r);
    types.push_back(r.type);
    errors.push_back(std::string(r.error.message()));
    if (r.type == RequestType::kInsert) {
      EXPECT_TRUE(r.filters.empty());  // nothing left over from the find
      EXPECT_EQ(r.modify, ModifyOp::kNone);
      EXPECT_FALSE(r.return_rows);
      EXPECT_TRUE(r.modify_values.empty());
      EXPECT_TRUE(r.key.empty());
      EXPECT_EQ(Strings(r.insert_values), (Strs{"p", "q"}));
    }
  }
  EXPECT_EQ(types, (std::vector<RequestType>{RequestType::kOpenIndex, RequestType::kFind,
                                             RequestType::kInvalid, RequestType::kInsert}));
  EXPECT_EQ(errors, (Strs{"", "", "op", ""}));
}

TEST_F(RequestTest, parser_reads_nothing_past_the_given_size) {
  std::string buffer = "1\t=\t1\tabc\t10\t0\n1\t=";
  ParseRequest(buffer.data(), 9, &request_);  // "1\t=\t1\tabc"
  ASSERT_EQ(request_.type, RequestType::kFind);
  EXPECT_EQ(Strings(request_.key), (Strs{"abc"}));
  EXPECT_EQ(request_.limit, 1u);
}

TEST_F(RequestTest, reused_request_is_reset_and_keeps_capacity) {
  Parse({"1", "=", "4", "a", "b", "c", "d", "5", "2", "@", "1", "2", "x", "y",
         "F", "=", "0", "v", "U", "m"});
  ASSERT_EQ(request_.type, RequestType::kFind);
  const size_t key_capacity = request_.key.capacity();

  const Request& r = Parse({"1", "=", "1", "a"});
  ASSERT_EQ(r.type, RequestType::kFind);
  EXPECT_EQ(r.key.size(), 1u);
  EXPECT_EQ(r.key.capacity(), key_capacity);
  EXPECT_EQ(r.limit, 1u);
  EXPECT_EQ(r.offset, 0u);
  EXPECT_FALSE(r.has_in);
  EXPECT_TRUE(r.in_values.empty());
  EXPECT_TRUE(r.filters.empty());
  EXPECT_EQ(r.modify, ModifyOp::kNone);
  EXPECT_TRUE(r.modify_values.empty());
}

TEST_F(RequestTest, error_is_cleared_by_the_next_good_line) {
  EXPECT_EQ(ErrorOf({"1", "=", "1", "a", "F", "=", "x", "v"}), "syntax");
  const Request& r = Parse({"A", "1", "k"});
  EXPECT_EQ(r.type, RequestType::kAuth);
  EXPECT_TRUE(r.error.ok());
}

TEST(RequestClear, clear_resets_every_field) {
  Request r;
  r.type = RequestType::kFind;
  r.error = WireStatus::BadRequest("op");
  r.index_id = 9;
  r.db = "db";
  r.auth_key = "k";
  r.op = FindOp::kGt;
  r.key.push_back(WireValue::Of("a"));
  r.limit = 7;
  r.offset = 3;
  r.has_in = true;
  r.in_key_part = 2;
  r.in_values.push_back(WireValue::Null());
  r.filters.push_back(RequestFilter());
  r.modify = ModifyOp::kDelete;
  r.return_rows = true;
  r.modify_values.push_back(WireValue::Of("m"));
  r.Clear();
  EXPECT_EQ(r.type, RequestType::kInvalid);
  EXPECT_TRUE(r.error.ok());
  EXPECT_EQ(r.index_id, 0u);
  EXPECT_EQ(r.db, "");
  EXPECT_EQ(r.auth_key, "");
  EXPECT_EQ(r.op, FindOp::kEq);
  EXPECT_TRUE(r.key.empty());
  EXPECT_EQ(r.limit, 1u);
  EXPECT_EQ(r.offset, 0u);
  EXPECT_FALSE(r.has_in);
  EXPECT_EQ(r.in_key_part, 0u);
  EXPECT_TRUE(r.in_values.empty());
  EXPECT_TRUE(r.filters.empty());
  EXPECT_EQ(r.modify, ModifyOp::kNone);
  EXPECT_FALSE(r.return_rows);
  EXPECT_TRUE(r.modify_values.empty());
  EXPECT_FALSE(r.asks_to_write);
}

// --- asking to write ----------------------------------------------------------------

TEST_F(RequestTest, malformed_lines_that_ask_to_write_say_so) {
  EXPECT_TRUE(Parse({"1", "+", "2", "x"}).asks_to_write);                // insert, short
  EXPECT_TRUE(Parse({"1", "=", "1", "a", "Z"}).asks_to_write);           // unknown mop
  EXPECT_TRUE(Parse({"1", "=", "1", "a", "D", "x"}).asks_to_write);      // D, values ignored
  EXPECT_TRUE(Parse({"1", "=", "1", "a", "U", "x"}).asks_to_write);      // well formed
  EXPECT_EQ(Parse({"1", "=", "1", "a", "Z"}).error, WireStatus::BadRequest("modop"));
}

TEST_F(RequestTest, reads_and_bad_filters_do_not_ask_to_write) {
  EXPECT_FALSE(Parse({"1", "=", "1", "a"}).asks_to_write);
  EXPECT_FALSE(Parse({"1", "=", "1", "a", "Fx", "=", "0", "v"}).asks_to_write);
  EXPECT_FALSE(Parse({"1", "=", "0"}).asks_to_write);
  EXPECT_FALSE(Parse({"1", "+", "0"}).asks_to_write);  // the count is checked first
  EXPECT_FALSE(Parse({"P", "1", "test", "t", "PRIMARY", "a"}).asks_to_write);
}

// --- what a request counts as (ParsedRequest::category) -----------------------

TEST_F(RequestTest, category_of_each_request) {
  EXPECT_EQ(CategoryOf(Parse({"P", "1", "db", "t", "PRIMARY", "k,v"})), RequestCategory::kOpen);
  EXPECT_EQ(CategoryOf(Parse({"?describe", "db", "t"})), RequestCategory::kOpen);
  EXPECT_EQ(CategoryOf(Parse({"A", "1", "secret"})), RequestCategory::kAuth);
  EXPECT_EQ(CategoryOf(Parse({"1", "=", "1", "5"})), RequestCategory::kFind);
  EXPECT_EQ(CategoryOf(Parse({"1", "+", "2", "5", "x"})), RequestCategory::kInsert);
  EXPECT_EQ(CategoryOf(Parse({"1", "=", "1", "5", "1", "0", "U", "x"})), RequestCategory::kUpdate);
  EXPECT_EQ(CategoryOf(Parse({"1", "=", "1", "5", "1", "0", "+", "1"})), RequestCategory::kUpdate);
  EXPECT_EQ(CategoryOf(Parse({"1", "=", "1", "5", "1", "0", "D"})), RequestCategory::kDelete);
  EXPECT_EQ(CategoryOf(Parse({"1", "?", "1", "5"})), RequestCategory::kInvalid);
}

TEST_F(RequestTest, clear_resets_the_category) {
  Request r;
  r.category = RequestCategory::kFind;
  r.Clear();
  EXPECT_EQ(r.category, RequestCategory::kInvalid);
}

}  // namespace
}  // namespace rowsocket
