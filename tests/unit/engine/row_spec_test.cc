// Unit tests for the engine's typed row operations (engine/row_spec.h): the shape
// check every scan spec passes before it runs, and the values a spec carries.
#include "engine/rows/row_spec.h"

#include <gtest/gtest.h>

namespace rowsocket {
namespace {

ScanSpec SpecWithKeys(size_t n) {
  ScanSpec spec;
  for (size_t i = 0; i < n; ++i) spec.key.push_back(RowValue::Bytes("k"));
  return spec;
}

TEST(ScanSpec, key_values_up_to_the_index_parts_fit) {
  EXPECT_EQ(SpecWithKeys(0).Check(2, 0), ScanSpec::Shape::kOk);
  EXPECT_EQ(SpecWithKeys(2).Check(2, 0), ScanSpec::Shape::kOk);
}

TEST(ScanSpec, more_key_values_than_index_parts_are_refused) {
  EXPECT_EQ(SpecWithKeys(3).Check(2, 0), ScanSpec::Shape::kTooManyKeyParts);
}

TEST(ScanSpec, in_list_needs_a_value_for_its_key_part) {
  ScanSpec spec = SpecWithKeys(1);
  spec.has_in = true;
  spec.in_key_part = 1;
  EXPECT_EQ(spec.Check(2, 0), ScanSpec::Shape::kInPartNotGiven);
  spec.in_key_part = 0;
  EXPECT_EQ(spec.Check(2, 0), ScanSpec::Shape::kOk);
}

TEST(ScanSpec, filter_on_a_column_the_index_lacks_is_refused) {
  ScanSpec spec = SpecWithKeys(1);
  ScanFilter f;
  f.column = 1;
  spec.filters.push_back(f);
  EXPECT_EQ(spec.Check(1, 1), ScanSpec::Shape::kNoSuchFilter);
  EXPECT_EQ(spec.Check(1, 2), ScanSpec::Shape::kOk);
}

TEST(ScanSpec, key_part_of_an_in_scan_takes_the_in_value) {
  ScanSpec spec;
  spec.key = {RowValue::Bytes("a"), RowValue::Bytes("placeholder")};
  spec.has_in = true;
  spec.in_key_part = 1;
  spec.in_values = {RowValue::Bytes("x"), RowValue::Unsigned(7)};
  EXPECT_EQ(spec.KeyPart(1, 0).bytes(), "a");
  EXPECT_EQ(spec.KeyPart(0, 1).bytes(), "x");
  EXPECT_EQ(spec.KeyPart(1, 1).number, 7u);
}

TEST(ScanSpec, clear_resets_everything_and_find_one_is_an_exact_single_row_find) {
  ScanSpec spec = SpecWithKeys(2);
  spec.op = ScanOp::kGt;
  spec.has_in = true;
  spec.in_values.push_back(RowValue::Null());
  spec.filters.emplace_back();
  spec.offset = 3;
  spec.limit = 9;
  spec.FindOne(RowValue::Bytes("k1"));
  EXPECT_EQ(spec.op, ScanOp::kEq);
  ASSERT_EQ(spec.key.size(), 1u);
  EXPECT_EQ(spec.key[0].bytes(), "k1");
  EXPECT_FALSE(spec.has_in);
  EXPECT_TRUE(spec.in_values.empty());
  EXPECT_TRUE(spec.filters.empty());
  EXPECT_EQ(spec.offset, 0u);
  EXPECT_EQ(spec.limit, 1u);
}

TEST(RowValue, kinds_say_what_the_value_is) {
  EXPECT_TRUE(RowValue::Null().is_null());
  EXPECT_FALSE(RowValue::Bytes("").is_null());
  EXPECT_EQ(RowValue::Bytes("").bytes(), "");
  EXPECT_TRUE(RowValue::Unsigned(UINT64_MAX).is_integer());
  EXPECT_EQ(RowValue::Unsigned(UINT64_MAX).number, UINT64_MAX);
  EXPECT_EQ(static_cast<int64_t>(RowValue::Signed(-5).number), -5);
  EXPECT_EQ(RowValue::Signed(-5).kind, RowValue::Kind::kSigned);
}

TEST(RowChange, values_go_to_their_columns_or_the_first_ones) {
  RowChange change;
  change.kind = RowWrite::kUpdate;
  change.values = {RowValue::Bytes("a"), RowValue::Unsigned(1)};
  EXPECT_EQ(change.Column(1), 1u);
  change.columns = {4, 2};
  EXPECT_EQ(change.Column(0), 4u);
  EXPECT_EQ(change.Column(1), 2u);
  EXPECT_TRUE(change.changes_values());
  change.kind = RowWrite::kDelete;
  EXPECT_FALSE(change.changes_values());
}

}  // namespace
}  // namespace rowsocket
