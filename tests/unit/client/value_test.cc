// Tests for the plain values of the client API: Value, Index, Query and Error.
//
// These pin what users rely on without a server: NULL is not '', numbers become the
// decimal text the server reads, an Index's key is the `P` request's tail, and every
// error prints its wire code with the words that explain it.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "rowsocket/client.h"

namespace rowsocket {
namespace client {
namespace {

TEST(Value, default_and_nullptr_and_null_pointer_are_null) {
  EXPECT_TRUE(Value().is_null());
  EXPECT_TRUE(Value(nullptr).is_null());
  EXPECT_TRUE(Value(static_cast<const char*>(nullptr)).is_null());
  EXPECT_TRUE(Value::Null().is_null());
}

TEST(Value, empty_string_is_not_null) {
  Value empty("");
  EXPECT_FALSE(empty.is_null());
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_NE(empty, Value::Null());
  EXPECT_EQ(Value::Null().str(), "");
}

TEST(Value, integers_become_decimal_text) {
  EXPECT_EQ(Value(0).str(), "0");
  EXPECT_EQ(Value(-42).str(), "-42");
  EXPECT_EQ(Value(std::numeric_limits<uint64_t>::max()).str(), "18446744073709551615");
  EXPECT_EQ(Value(std::numeric_limits<int64_t>::min()).str(), "-9223372036854775808");
}

TEST(Value, strings_keep_every_byte) {
  const std::string bytes("a\tb\nc\0d\x01", 8);
  EXPECT_EQ(Value(bytes).str(), bytes);
  EXPECT_EQ(Value(std::string_view(bytes)).size(), 8u);
}

TEST(Value, rows_can_mix_numbers_text_and_null) {
  Row row{101, "Yukari", nullptr, ""};
  ASSERT_EQ(row.size(), 4u);
  EXPECT_EQ(row[0].str(), "101");
  EXPECT_TRUE(row[2].is_null());
  EXPECT_FALSE(row[3].is_null());
}

TEST(Index, key_is_the_open_request_after_the_id) {
  Index users("test", "user", "PRIMARY", {"user_name", "user_email"});
  EXPECT_EQ(users.key(), "test\tuser\tPRIMARY\tuser_name,user_email");
  Index filtered("test", "user", "PRIMARY", {"user_name"}, {"created", "user_id"});
  EXPECT_EQ(filtered.key(), "test\tuser\tPRIMARY\tuser_name\tcreated,user_id");
  EXPECT_EQ(filtered.FilterPosition("user_id"), 1);
  EXPECT_EQ(filtered.FilterPosition("nope"), -1);
}

TEST(Index, names_are_escaped_like_values) {
  Index odd("t\x01", "u", "PRIMARY", {"a"});
  EXPECT_EQ(odd.key(), std::string("t\x01\x41\tu\tPRIMARY\ta"));
}

TEST(Index, copies_share_the_same_key) {
  Index a("db", "t", "PRIMARY", {"x"});
  Index b = a;
  EXPECT_EQ(&a.key(), &b.key());
  EXPECT_TRUE(Index().empty());
}

TEST(Query, defaults_are_the_protocol_defaults) {
  Query q("=", {101});
  EXPECT_TRUE(q.valid_op());
  EXPECT_EQ(q.op(), Op::kEq);
  EXPECT_EQ(q.limit(), 1u);
  EXPECT_EQ(q.offset(), 0u);
  EXPECT_FALSE(q.has_in());
}

TEST(Query, text_operators_map_onto_ops_and_others_are_invalid) {
  EXPECT_EQ(Query(">", {1}).op(), Op::kGt);
  EXPECT_EQ(Query(">=", {1}).op(), Op::kGe);
  EXPECT_EQ(Query("<", {1}).op(), Op::kLt);
  EXPECT_EQ(Query("<=", {1}).op(), Op::kLe);
  EXPECT_FALSE(Query("!=", {1}).valid_op());
  EXPECT_FALSE(Query("==", {1}).valid_op());
}

TEST(Query, builders_chain) {
  Query q = Query(Op::kGe, {100}).Limit(10).Offset(5).In(0, {1, 2}).Where("c", ">", 3).While(
      1, "!=", nullptr);
  EXPECT_EQ(q.limit(), 10u);
  EXPECT_EQ(q.offset(), 5u);
  EXPECT_TRUE(q.has_in());
  ASSERT_EQ(q.filters().size(), 2u);
  EXPECT_FALSE(q.filters()[0].stop);
  EXPECT_EQ(q.filters()[0].name, "c");
  EXPECT_TRUE(q.filters()[1].stop);
  EXPECT_EQ(q.filters()[1].column, 1u);
  EXPECT_TRUE(q.filters()[1].value.is_null());
}

TEST(Error, server_error_prints_code_message_and_explanation) {
  Error e = Error::Server(2, "kpnum");
  EXPECT_TRUE(e.is_server());
  EXPECT_EQ(e.code(), 2);
  EXPECT_EQ(e.ToString(), "2 1 kpnum (more key values than the index has key parts)");
}

TEST(Error, every_documented_wire_message_is_explained) {
  for (const char* m : {"cmd", "syntax", "notimpl", "readonly", "stmtnum", "idxnum", "tblnum",
                        "kpnum", "klen", "fld", "op", "modop", "filtertype", "filterfld",
                        "filterblob", "invalueslen", "linelen", "forbidden", "idxtype",
                        "idxop", "answersize", "rowsexamined"}) {
    EXPECT_FALSE(ExplainServerError(2, m).empty()) << m;
  }
  for (const char* m : {"open_table", "lock_tables", "triggers", "killed", "121", "1048",
                        "4025"}) {
    EXPECT_FALSE(ExplainServerError(1, m).empty()) << m;
  }
  EXPECT_FALSE(ExplainServerError(1, "9999").empty());  // any engine error number
  EXPECT_FALSE(ExplainServerError(3, "unauth").empty());
  EXPECT_FALSE(ExplainServerError(3, "authtype").empty());
  EXPECT_TRUE(ExplainServerError(2, "no-such-message").empty());
}

TEST(Error, unknown_message_prints_without_parentheses) {
  EXPECT_EQ(Error::Server(2, "mystery").ToString(), "2 1 mystery");
  EXPECT_EQ(Error::Server(1, "").ToString(), "1 1");
}

TEST(Error, io_and_usage_errors_have_negative_codes) {
  Error io = Error::Io("connection closed by the server");
  EXPECT_TRUE(io.is_io());
  EXPECT_EQ(io.code(), -1);
  EXPECT_EQ(io.ToString(), "I/O error: connection closed by the server");
  Error usage = Error::Usage("bad");
  EXPECT_TRUE(usage.is_usage());
  EXPECT_EQ(usage.code(), -2);
}

TEST(Result, holds_a_value_or_an_error) {
  Result<int> good = 5;
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 5);
  Result<int> bad = Error::Io("x");
  EXPECT_FALSE(bad);
  EXPECT_TRUE(bad.error().is_io());
  Status fine;
  EXPECT_TRUE(fine.ok());
  Status failed = Error::Server(1, "121");
  EXPECT_EQ(failed.error().code(), 1);
}

}  // namespace
}  // namespace client
}  // namespace rowsocket
