// Tests for ResponseWriter and WireStatus: the exact bytes of every answer shape.
//
// Answers are compared byte for byte, because a client library splits them on TAB
// and LF and reads the first token as the error code.
#include "protocol/response.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "protocol/wire_status.h"

namespace rowsocket {
namespace {

TEST(ResponseWriter, ok_writes_code_zero_and_one) {
  std::string out;
  ResponseWriter(&out).Ok();
  EXPECT_EQ(out, "0\t1\n");
}

TEST(ResponseWriter, ok_with_number_writes_the_number_as_third_token) {
  std::string out;
  ResponseWriter w(&out);
  w.OkWithNumber(0);
  w.OkWithNumber(42);
  w.OkWithNumber(std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(out, "0\t1\t0\n0\t1\t42\n0\t1\t18446744073709551615\n");
}

TEST(ResponseWriter, error_writes_code_one_and_message) {
  std::string out;
  ResponseWriter w(&out);
  w.Error(WireStatus::BadRequest("syntax"));
  w.Error(WireStatus::Storage("open_table"));
  w.Error(WireStatus::Unauthorized("unauth"));
  w.Error(WireStatus::StorageCode(121));
  EXPECT_EQ(out, "2\t1\tsyntax\n1\t1\topen_table\n3\t1\tunauth\n1\t1\t121\n");
}

TEST(ResponseWriter, error_with_empty_message_has_two_tokens) {
  std::string out;
  ResponseWriter(&out).Error(WireStatus::BadRequest(""));
  EXPECT_EQ(out, "2\t1\n");
}

TEST(ResponseWriter, result_writes_ok_or_error) {
  std::string out;
  ResponseWriter w(&out);
  w.Result(WireStatus::OK());
  w.Result(WireStatus::BadRequest("readonly"));
  EXPECT_EQ(out, "0\t1\n2\t1\treadonly\n");
}

TEST(ResponseWriter, rows_are_flattened_after_column_count) {
  std::string out;
  ResponseWriter w(&out);
  w.BeginRows(2);
  w.WireValue("1");
  w.WireValue("alice");
  w.WireValue("2");
  w.WireValue("bob");
  w.EndRows();
  EXPECT_EQ(out, "0\t2\t1\talice\t2\tbob\n");
}

TEST(ResponseWriter, rows_answer_without_rows_is_just_the_column_count) {
  std::string out;
  ResponseWriter w(&out);
  w.BeginRows(3);
  w.EndRows();
  EXPECT_EQ(out, "0\t3\n");
}

TEST(ResponseWriter, null_value_is_one_zero_byte_and_empty_value_is_empty_token) {
  std::string out;
  ResponseWriter w(&out);
  w.BeginRows(3);
  w.NullValue();
  w.WireValue("");
  w.WireValue(std::string_view("\0", 1));
  w.EndRows();
  EXPECT_EQ(out, std::string("0\t3\t") + '\0' + "\t\t\x01\x40\n");
}

TEST(ResponseWriter, values_are_encoded) {
  std::string out;
  ResponseWriter w(&out);
  w.BeginRows(1);
  w.WireValue("a\tb\nc");
  w.EndRows();
  EXPECT_EQ(out, "0\t1\ta\x01\x49" "b\x01\x4a" "c\n");
}

TEST(ResponseWriter, integer_values_cover_the_full_range) {
  std::string out;
  ResponseWriter w(&out);
  w.BeginRows(5);
  w.IntegerValue(0);
  w.IntegerValue(-7);
  w.IntegerValue(std::numeric_limits<int64_t>::min());
  w.IntegerValue(std::numeric_limits<int64_t>::max());
  w.UnsignedValue(std::numeric_limits<uint64_t>::max());
  w.EndRows();
  EXPECT_EQ(out,
            "0\t5\t0\t-7\t-9223372036854775808\t9223372036854775807"
            "\t18446744073709551615\n");
}

TEST(ResponseWriter, answers_of_a_batch_append_to_one_buffer) {
  std::string out = "earlier";
  ResponseWriter w(&out);
  w.Ok();
  w.BeginRows(1);
  w.WireValue("x");
  w.EndRows();
  w.OkWithNumber(3);
  EXPECT_EQ(out, "earlier0\t1\n0\t1\tx\n0\t1\t3\n");
}

TEST(ResponseWriter, truncate_to_mark_drops_a_started_answer) {
  std::string out;
  ResponseWriter w(&out);
  w.Ok();
  const size_t mark = w.Mark();
  w.BeginRows(2);
  w.WireValue("half");
  w.Truncate(mark);
  w.Error(WireStatus::StorageCode(1213));
  EXPECT_EQ(out, "0\t1\n1\t1\t1213\n");
}

TEST(WireStatus, ok_is_code_zero_without_message) {
  const WireStatus s = WireStatus::OK();
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), WireStatus::kOk);
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(s, WireStatus());
}

TEST(WireStatus, storage_code_is_code_one_with_the_decimal_number) {
  EXPECT_EQ(WireStatus::StorageCode(121), WireStatus::Storage("121"));
  EXPECT_EQ(WireStatus::StorageCode(0).message(), "0");
  EXPECT_EQ(WireStatus::StorageCode(-1).message(), "-1");
  EXPECT_EQ(WireStatus::StorageCode(std::numeric_limits<int>::min()).message(), "-2147483648");
  EXPECT_EQ(WireStatus::StorageCode(121).code(), WireStatus::kStorage);
}

TEST(WireStatus, constructors_set_the_wire_code) {
  EXPECT_EQ(WireStatus::Storage("open_table").code(), WireStatus::kStorage);
  EXPECT_EQ(WireStatus::BadRequest("kpnum").code(), WireStatus::kBadRequest);
  EXPECT_EQ(WireStatus::Unauthorized("authtype").code(), WireStatus::kUnauthorized);
  EXPECT_FALSE(WireStatus::BadRequest("kpnum").ok());
}

TEST(WireStatus, equality_compares_code_and_message) {
  EXPECT_EQ(WireStatus::BadRequest("op"), WireStatus::BadRequest("op"));
  EXPECT_NE(WireStatus::BadRequest("op"), WireStatus::BadRequest("modop"));
  EXPECT_NE(WireStatus::BadRequest("op"), WireStatus::Storage("op"));
}

TEST(WireStatus, long_message_is_cut_to_fit_without_allocation) {
  const std::string long_message(100, 'x');
  EXPECT_EQ(WireStatus::Storage(long_message).message(), std::string(31, 'x'));
}

}  // namespace
}  // namespace rowsocket
