// What a request is about: which index (Index, IndexRef), which rows (Query), and
// what to do to them (Modify).
//
// An Index names an index and the columns to read and write, the way the protocol's
// `P` request does; a Connection or Pool opens it on demand and remembers the id it
// got, so callers never manage index ids. An IndexRef is either such an Index or a
// raw id the caller opened itself with Connection::OpenIndex.
// A Query is a find: an operator, key values, LIMIT/OFFSET, an IN list and filters,
// built fluently: Query(">=", {100}).Limit(10).Where("created", ">", "2010-01-01").
// All of these are plain values (an Index shares its immutable contents between
// copies); thread-compatible, and an Index may be shared by threads once built.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rowsocket/value.h"

namespace rowsocket {
namespace client {

class Index {
 public:
  // `index` is an index name of the table; "PRIMARY" is the primary key. `columns`
  // are read by find and written by insert/update, in this order; `filter_columns`
  // are the columns filters may compare.
  Index(std::string db, std::string table, std::string index, std::vector<std::string> columns,
        std::vector<std::string> filter_columns = {});
  Index() = default;  // an empty Index: names no index; only assign to it

  bool empty() const { return spec_ == nullptr; }
  const std::string& db() const;
  const std::string& table() const;
  const std::string& name() const;
  const std::vector<std::string>& columns() const;
  const std::vector<std::string>& filter_columns() const;
  // The `P` request's tokens after the index id, encoded: equal keys, equal index.
  const std::string& key() const;
  // Position of `column` in filter_columns(), or -1.
  int FilterPosition(std::string_view column) const;

 private:
  struct Spec;
  std::shared_ptr<const Spec> spec_;
};

// An index to run a request on: an Index (opened on demand) or an id already opened.
class IndexRef {
 public:
  IndexRef(uint32_t id) : id_(id) {}                  // NOLINT: conn.Find(0, ...)
  IndexRef(const Index& index) : index_(index) {}     // NOLINT: conn.Find(users, ...)

  bool is_id() const { return index_.empty(); }
  uint32_t id() const { return id_; }
  const Index& index() const { return index_; }

 private:
  uint32_t id_ = 0;
  Index index_;
};

// Find operators: where the scan starts and which way it goes.
enum class Op { kEq, kGt, kGe, kLt, kLe };

// One filter: compare filter column `column` (a position, or a name resolved against
// the Index's filter columns) with `value` using `op` (=, !=, <, <=, >, >=).
struct Filter {
  bool stop = false;     // false: F, skip a failing row; true: W, end the scan there
  std::string op;
  uint32_t column = 0;   // used when `name` is empty
  std::string name;
  Value value;
};

class Query {
 public:
  // `key` holds values for the first key.size() key parts of the index.
  Query(Op op, Row key) : op_(op), key_(std::move(key)) {}
  // The same with the wire operator: "=", ">", ">=", "<", "<=". Any other text
  // makes every request built from this Query fail with a usage error.
  Query(std::string_view op, Row key);

  // LIMIT and OFFSET as in SQL; the protocol's defaults are limit 1, offset 0.
  Query& Limit(uint32_t limit) { limit_ = limit; return *this; }
  Query& Offset(uint32_t offset) { offset_ = offset; return *this; }
  // IN: run the lookup once per value with key part `key_part` (0-based) replaced.
  Query& In(uint32_t key_part, Row values);
  // F filter: rows that fail are skipped.
  Query& Where(uint32_t column, std::string_view op, Value value);
  Query& Where(std::string_view column, std::string_view op, Value value);
  // W filter: the scan ends at the first row that fails.
  Query& While(uint32_t column, std::string_view op, Value value);
  Query& While(std::string_view column, std::string_view op, Value value);

  Op op() const { return op_; }
  bool valid_op() const { return valid_op_; }
  const Row& key() const { return key_; }
  uint32_t limit() const { return limit_; }
  uint32_t offset() const { return offset_; }
  bool has_in() const { return has_in_; }
  uint32_t in_key_part() const { return in_key_part_; }
  const Row& in_values() const { return in_values_; }
  const std::vector<Filter>& filters() const { return filters_; }

 private:
  Op op_ = Op::kEq;
  bool valid_op_ = true;
  Row key_;
  uint32_t limit_ = 1;
  uint32_t offset_ = 0;
  bool has_in_ = false;
  uint32_t in_key_part_ = 0;
  Row in_values_;
  std::vector<Filter> filters_;
};

// The modify part of a find-and-modify: what to do to each row found.
class Modify {
 public:
  enum class Kind { kUpdate, kIncrement, kDecrement, kDelete };

  // Sets the first values.size() columns of the Index.
  static Modify Update(Row values) { return Modify(Kind::kUpdate, std::move(values)); }
  // Adds to / subtracts from the first values.size() (numeric) columns. A decrement
  // that would cross zero leaves that row alone.
  static Modify Increment(Row values) { return Modify(Kind::kIncrement, std::move(values)); }
  static Modify Decrement(Row values) { return Modify(Kind::kDecrement, std::move(values)); }
  static Modify Delete() { return Modify(Kind::kDelete, {}); }

  Kind kind() const { return kind_; }
  const Row& values() const { return values_; }

 private:
  Modify(Kind kind, Row values) : kind_(kind), values_(std::move(values)) {}
  Kind kind_;
  Row values_;
};

}  // namespace client
}  // namespace rowsocket
