// Row operations in no protocol's terms: a scan of an index (operator, key parts,
// an IN list, filters, offset, limit), the change a write makes to the rows it
// selects, and the typed values both carry (bytes, an integer, NULL). RowRequests
// runs them; each protocol builds them from its own requests (HandlerSocket's find
// and insert convert their text, a key-value protocol states its integers as
// integers).
//
// Plain values, no MariaDB: a spec refers to bytes its builder keeps alive for the
// call. ScanSpec::Check is the shape check every spec passes before it runs.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace rowsocket {

// A value for a column: NULL, bytes (stored as text of the column's character set,
// as a non-strict SQL INSERT stores a string), or an integer (stored as SQL stores a
// number: exactly, into a numeric column; as its decimal text, into a text column).
struct RowValue {
  enum class Kind : uint8_t { kNull, kBytes, kSigned, kUnsigned };
  Kind kind = Kind::kBytes;
  uint32_t size = 0;            // kBytes
  const char* data = nullptr;   // kBytes
  uint64_t number = 0;          // kSigned (as two's complement), kUnsigned

  static RowValue Null() {
    RowValue v;
    v.kind = Kind::kNull;
    return v;
  }
  static RowValue Bytes(std::string_view s) {
    RowValue v;
    v.data = s.data();
    v.size = static_cast<uint32_t>(s.size());
    return v;
  }
  static RowValue Signed(int64_t n) {
    RowValue v;
    v.kind = Kind::kSigned;
    v.number = static_cast<uint64_t>(n);
    return v;
  }
  static RowValue Unsigned(uint64_t n) {
    RowValue v;
    v.kind = Kind::kUnsigned;
    v.number = n;
    return v;
  }
  bool is_null() const { return kind == Kind::kNull; }
  bool is_integer() const { return kind == Kind::kSigned || kind == Kind::kUnsigned; }
  std::string_view bytes() const { return std::string_view(data, size); }
};

// Where a scan starts and which way it goes, as SQL's comparison of the key.
enum class ScanOp : uint8_t { kEq, kGt, kGe, kLt, kLe };
enum class ScanCompare : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };

struct ScanFilter {
  bool stop = false;  // a failing row ends the scan (else it is skipped)
  ScanCompare op = ScanCompare::kEq;
  uint32_t column = 0;  // position in the open index's filter columns
  RowValue value;
};

struct ScanSpec {
  ScanOp op = ScanOp::kEq;
  std::vector<RowValue> key;  // the first key.size() key parts (none: the index's start)
  bool has_in = false;        // one scan per IN value, in key part in_key_part
  uint32_t in_key_part = 0;
  std::vector<RowValue> in_values;
  std::vector<ScanFilter> filters;
  uint32_t offset = 0;  // selected rows skipped first
  uint32_t limit = 1;   // selected rows at most

  // Empties the spec, keeping its vectors' memory.
  void Clear() {
    op = ScanOp::kEq;
    key.clear();
    has_in = false;
    in_key_part = 0;
    in_values.clear();
    filters.clear();
    offset = 0;
    limit = 1;
  }
  // An exact find of one key part's value.
  void FindOne(RowValue value) {
    Clear();
    key.push_back(value);
  }

  enum class Shape : uint8_t {
    kOk,
    kTooManyKeyParts,  // more key values than the index has parts
    kInPartNotGiven,   // IN on a key part without a value
    kNoSuchFilter,     // a filter on a column the index was not opened with
  };
  // Whether the spec fits an index of `key_parts` parts opened with
  // `filter_columns` filter columns: nothing later reads past either.
  Shape Check(size_t key_parts, size_t filter_columns) const {
    if (key.size() > key_parts) return Shape::kTooManyKeyParts;
    if (has_in && in_key_part >= key.size()) return Shape::kInPartNotGiven;
    for (const ScanFilter& f : filters)
      if (f.column >= filter_columns) return Shape::kNoSuchFilter;
    return Shape::kOk;
  }
  // The value of key part `part` in the scan of IN value `in_value` (0 without IN).
  const RowValue& KeyPart(size_t in_value, size_t part) const {
    return (has_in && part == in_key_part) ? in_values[in_value] : key[part];
  }
};

// What a write does to each row a scan selects.
enum class RowWrite : uint8_t { kNone, kUpdate, kIncrement, kDecrement, kDelete };

struct RowChange {
  RowWrite kind = RowWrite::kNone;
  // The values (kUpdate), or the deltas (kIncrement, kDecrement), for the open
  // index's columns at `columns`, or its first values.size() columns when `columns`
  // is empty; as many as the index has columns at most.
  std::vector<RowValue> values;
  std::vector<uint32_t> columns;

  void Clear() {
    kind = RowWrite::kNone;
    values.clear();
    columns.clear();
  }
  bool changes_values() const {
    return kind == RowWrite::kUpdate || kind == RowWrite::kIncrement ||
           kind == RowWrite::kDecrement;
  }
  // The open index's column that value `i` is for.
  uint32_t Column(size_t i) const {
    return columns.empty() ? static_cast<uint32_t>(i) : columns[i];
  }
};

}  // namespace rowsocket
