// Tests for ParseAnswer and FindLineEnd: every answer ResponseWriter can write reads
// back as it was meant, and lines that are not answers are refused.
//
// The client library trusts this parser to tell a NULL from an empty string and a
// server error from a malformed stream, so those cases are pinned one by one.
#include "protocol/answer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocol/response.h"
#include "protocol/wire_status.h"

namespace rowsocket {
namespace {

// Parses `line` (without LF) in a buffer the test owns.
struct Parsed {
  explicit Parsed(std::string line) : buffer(std::move(line)) {
    ok = ParseAnswer(buffer.data(), buffer.size(), &answer);
  }
  std::string buffer;
  Answer answer;
  bool ok = false;
};

TEST(ParseAnswer, plain_ok_has_code_zero_count_one_and_no_values) {
  Parsed p("0\t1");
  ASSERT_TRUE(p.ok);
  EXPECT_TRUE(p.answer.ok());
  EXPECT_EQ(p.answer.count, 1u);
  EXPECT_TRUE(p.answer.values.empty());
}

TEST(ParseAnswer, row_answer_keeps_values_in_order) {
  Parsed p("0\t3\tYukari Takeba\tyukari.takeba@dena.jp\t2010-02-03 11:22:33");
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.answer.count, 3u);
  ASSERT_EQ(p.answer.values.size(), 3u);
  EXPECT_EQ(p.answer.values[0].view(), "Yukari Takeba");
  EXPECT_EQ(p.answer.values[2].view(), "2010-02-03 11:22:33");
}

TEST(ParseAnswer, null_token_and_empty_token_stay_different) {
  Parsed p(std::string("0\t2\t\0\t", 6));
  ASSERT_TRUE(p.ok);
  ASSERT_EQ(p.answer.values.size(), 2u);
  EXPECT_TRUE(p.answer.values[0].is_null);
  EXPECT_FALSE(p.answer.values[1].is_null);
  EXPECT_EQ(p.answer.values[1].size, 0u);
}

TEST(ParseAnswer, escaped_bytes_are_decoded) {
  Parsed p("0\t1\ta\x01\x49" "b\x01\x4a" "c\x01\x40");
  ASSERT_TRUE(p.ok);
  ASSERT_EQ(p.answer.values.size(), 1u);
  EXPECT_EQ(p.answer.values[0].view(), std::string_view("a\tb\nc\0", 6));
}

TEST(ParseAnswer, error_exposes_code_and_message) {
  Parsed p("2\t1\tkpnum");
  ASSERT_TRUE(p.ok);
  EXPECT_FALSE(p.answer.ok());
  EXPECT_EQ(p.answer.code, 2u);
  EXPECT_EQ(p.answer.message(), "kpnum");
}

TEST(ParseAnswer, error_without_message_has_empty_message) {
  Parsed p("1\t1");
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.answer.code, 1u);
  EXPECT_EQ(p.answer.message(), "");
}

TEST(ParseAnswer, trailing_carriage_return_is_ignored) {
  Parsed p("0\t1\t42\r");
  ASSERT_TRUE(p.ok);
  ASSERT_EQ(p.answer.values.size(), 1u);
  EXPECT_EQ(p.answer.values[0].view(), "42");
}

TEST(ParseAnswer, trailing_tab_is_a_trailing_empty_value) {
  Parsed p("0\t2\tx\t");
  ASSERT_TRUE(p.ok);
  ASSERT_EQ(p.answer.values.size(), 2u);
  EXPECT_EQ(p.answer.values[1].view(), "");
}

TEST(ParseAnswer, lines_that_are_not_answers_are_refused) {
  for (const char* line : {"", "0", "x\t1", "0\tx", "-1\t1", "0\t", "\t1", "99999999999\t1",
                           "0 1"}) {
    EXPECT_FALSE(Parsed(line).ok) << line;
  }
}

TEST(ParseAnswer, reads_back_everything_response_writer_writes) {
  std::string out;
  ResponseWriter w(&out);
  w.OkWithNumber(18446744073709551615ull);
  w.Error(WireStatus::StorageCode(121));
  w.BeginRows(2);
  w.WireValue(std::string_view("\x00\x0f\x10", 3));
  w.NullValue();
  w.IntegerValue(-5);
  w.WireValue("");
  w.EndRows();

  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < out.size()) {
    size_t end = pos + FindLineEnd(out.data() + pos, out.size() - pos);
    lines.push_back(out.substr(pos, end - pos));
    pos = end + 1;
  }
  ASSERT_EQ(lines.size(), 3u);

  Parsed number(lines[0]);
  ASSERT_TRUE(number.ok);
  EXPECT_EQ(number.answer.values[0].view(), "18446744073709551615");

  Parsed error(lines[1]);
  ASSERT_TRUE(error.ok);
  EXPECT_EQ(error.answer.code, 1u);
  EXPECT_EQ(error.answer.message(), "121");

  Parsed rows(lines[2]);
  ASSERT_TRUE(rows.ok);
  EXPECT_EQ(rows.answer.count, 2u);
  ASSERT_EQ(rows.answer.values.size(), 4u);
  EXPECT_EQ(rows.answer.values[0].view(), std::string_view("\x00\x0f\x10", 3));
  EXPECT_TRUE(rows.answer.values[1].is_null);
  EXPECT_EQ(rows.answer.values[2].view(), "-5");
  EXPECT_FALSE(rows.answer.values[3].is_null);
  EXPECT_EQ(rows.answer.values[3].view(), "");
}

TEST(FindLineEnd, returns_offset_of_first_lf_or_size) {
  EXPECT_EQ(FindLineEnd("0\t1\n0\t1\n", 8), 3u);
  EXPECT_EQ(FindLineEnd("0\t1", 3), 3u);
  EXPECT_EQ(FindLineEnd("", 0), 0u);
}

}  // namespace
}  // namespace rowsocket
