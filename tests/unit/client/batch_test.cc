// Tests for Batch: the exact bytes of every request kind after its index id.
//
// The server's parser (src/protocol/request.cc) reads these bytes, so each shape is
// pinned here byte for byte, along with the requests the batch refuses to send.
#include <gtest/gtest.h>

#include <string>

#include "rowsocket/batch.h"

namespace rowsocket {
namespace client {
namespace {

// The encoded tail of request `i`.
std::string Tail(const Batch& b, size_t i) {
  const Batch::Item& item = b.items()[i];
  return b.wire().substr(item.begin, item.end - item.begin);
}

TEST(Batch, find_writes_op_keys_limit_and_offset) {
  Batch b;
  b.Find(0, Query("=", {101}));
  b.Find(0, Query(">=", {100, "x"}).Limit(10).Offset(3));
  EXPECT_EQ(Tail(b, 0), "=\t1\t101\t1\t0");
  EXPECT_EQ(Tail(b, 1), ">=\t2\t100\tx\t10\t3");
  EXPECT_EQ(b.items()[0].kind, RequestKind::kFind);
  EXPECT_FALSE(b.has_writes());
}

TEST(Batch, in_list_follows_limit) {
  Batch b;
  b.Find(0, Query("=", {0}).Limit(5).In(0, {101, 102, 103}));
  EXPECT_EQ(Tail(b, 0), "=\t1\t0\t5\t0\t@\t0\t3\t101\t102\t103");
}

TEST(Batch, filters_write_type_op_column_and_value) {
  Batch b;
  b.Find(0, Query(">", {0}).Limit(10).Where(1u, "!=", "a").While(0u, "<", 5));
  EXPECT_EQ(Tail(b, 0), ">\t1\t0\t10\t0\tF\t!=\t1\ta\tW\t<\t0\t5");
}

TEST(Batch, filter_names_resolve_against_the_index) {
  Index idx("test", "user", "PRIMARY", {"user_name"}, {"user_id", "created"});
  Batch b;
  b.Find(idx, Query(">=", {0}).Where("created", ">", "2010-01-01"));
  EXPECT_EQ(Tail(b, 0), ">=\t1\t0\t1\t0\tF\t>\t1\t2010-01-01");
  EXPECT_TRUE(b.items()[0].refused.empty());
}

TEST(Batch, unknown_filter_name_is_refused) {
  Index idx("test", "user", "PRIMARY", {"user_name"}, {"user_id"});
  Batch b;
  b.Find(idx, Query(">=", {0}).Where("created", ">", 1));
  b.Find(7, Query(">=", {0}).Where("created", ">", 1));  // a raw id has no names
  EXPECT_NE(b.items()[0].refused.find("created"), std::string::npos);
  EXPECT_FALSE(b.items()[1].refused.empty());
  EXPECT_EQ(b.wire(), "");  // nothing half-encoded is left behind
}

TEST(Batch, bad_operators_and_empty_keys_are_refused) {
  Batch b;
  b.Find(0, Query("==", {1}));
  b.Find(0, Query("=", {1}).Where(0u, "<>", 1));
  b.Find(0, Query("=", Row{}));
  b.Insert(0, {});
  for (const Batch::Item& item : b.items()) EXPECT_FALSE(item.refused.empty());
}

TEST(Batch, null_and_empty_and_control_bytes_are_encoded) {
  Batch b;
  b.Insert(0, {nullptr, "", std::string("a\tb\n\0", 5)});
  EXPECT_EQ(Tail(b, 0), std::string("+\t3\t\0\t\ta\x01\x49" "b\x01\x4a\x01\x40", 15));
  EXPECT_TRUE(b.has_writes());
}

TEST(Batch, modify_ops_follow_the_find_part) {
  Batch b;
  b.Update(0, Query("=", {104}), {104, "Anne"});
  b.Increment(0, Query("=", {1}), {5});
  b.Decrement(0, Query("=", {1}), {2});
  b.Remove(0, Query(">=", {100}).Limit(1000));
  EXPECT_EQ(Tail(b, 0), "=\t1\t104\t1\t0\tU\t104\tAnne");
  EXPECT_EQ(Tail(b, 1), "=\t1\t1\t1\t0\t+\t5");
  EXPECT_EQ(Tail(b, 2), "=\t1\t1\t1\t0\t-\t2");
  EXPECT_EQ(Tail(b, 3), ">=\t1\t100\t1000\t0\tD");
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(b.items()[i].kind, RequestKind::kModify);
}

TEST(Batch, find_and_modify_uses_the_question_mark_forms) {
  Batch b;
  b.FindAndModify(0, Query("=", {1}), Modify::Update({"x"}));
  b.FindAndModify(0, Query("=", {1}), Modify::Increment({1}));
  b.FindAndModify(0, Query("=", {1}), Modify::Decrement({1}));
  b.FindAndModify(0, Query("=", {1}), Modify::Delete());
  EXPECT_EQ(Tail(b, 0), "=\t1\t1\t1\t0\tU?\tx");
  EXPECT_EQ(Tail(b, 1), "=\t1\t1\t1\t0\t+?\t1");
  EXPECT_EQ(Tail(b, 2), "=\t1\t1\t1\t0\t-?\t1");
  EXPECT_EQ(Tail(b, 3), "=\t1\t1\t1\t0\tD?");
  EXPECT_EQ(b.items()[3].kind, RequestKind::kModifyReturning);
}

TEST(Batch, open_index_and_auth_are_whole_lines) {
  Batch b;
  b.OpenIndex(3, Index("test", "user", "PRIMARY", {"a", "b"}, {"c"}));
  b.Auth("s\x01" "cret");
  EXPECT_EQ(Tail(b, 0), "P\t3\ttest\tuser\tPRIMARY\ta,b\tc");
  EXPECT_EQ(Tail(b, 1), "A\t1\ts\x01\x41" "cret");
}

TEST(Batch, clear_empties_it_for_reuse) {
  Batch b;
  b.Insert(0, {1});
  b.Clear();
  EXPECT_TRUE(b.empty());
  EXPECT_FALSE(b.has_writes());
  EXPECT_EQ(b.wire(), "");
  EXPECT_EQ(b.Find(0, Query("=", {1})), 0u);
}

}  // namespace
}  // namespace client
}  // namespace rowsocket
