// Index, Query: building the description of a request.
//
// An Index computes its `P` key once, when it is built, so that every request on it
// costs one hash lookup in the connection's table of open indexes. Called by users
// of the library on any thread; an Index is immutable once built.
#include <utility>

#include "protocol/codec.h"
#include "rowsocket/query.h"

namespace rowsocket {
namespace client {

struct Index::Spec {
  std::string db, table, name;
  std::vector<std::string> columns, filter_columns;
  std::string key;
};

namespace {

void AppendList(std::string* out, const std::vector<std::string>& names) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out->push_back(',');
    ::rowsocket::AppendEncoded(out, names[i]);
  }
}

const std::string& EmptyString() {
  static const std::string empty;
  return empty;
}

const std::vector<std::string>& EmptyList() {
  static const std::vector<std::string> empty;
  return empty;
}

bool ParseOp(std::string_view text, Op* op) {
  if (text == "=") *op = Op::kEq;
  else if (text == ">") *op = Op::kGt;
  else if (text == ">=") *op = Op::kGe;
  else if (text == "<") *op = Op::kLt;
  else if (text == "<=") *op = Op::kLe;
  else return false;
  return true;
}

Filter MakeFilter(bool stop, std::string_view op, uint32_t column, std::string_view name,
                  Value value) {
  Filter f;
  f.stop = stop;
  f.op = std::string(op);
  f.column = column;
  f.name = std::string(name);
  f.value = std::move(value);
  return f;
}

}  // namespace

Index::Index(std::string db, std::string table, std::string index,
             std::vector<std::string> columns, std::vector<std::string> filter_columns) {
  auto spec = std::make_shared<Spec>();
  spec->db = std::move(db);
  spec->table = std::move(table);
  spec->name = std::move(index);
  spec->columns = std::move(columns);
  spec->filter_columns = std::move(filter_columns);
  // Guide: the tokens of `P <id> <db> <table> <index> <columns> [<fcolumns>]` after <id>.
  std::string& key = spec->key;
  ::rowsocket::AppendEncoded(&key, spec->db);
  key.push_back('\t');
  ::rowsocket::AppendEncoded(&key, spec->table);
  key.push_back('\t');
  ::rowsocket::AppendEncoded(&key, spec->name);
  key.push_back('\t');
  AppendList(&key, spec->columns);
  if (!spec->filter_columns.empty()) {
    key.push_back('\t');
    AppendList(&key, spec->filter_columns);
  }
  spec_ = std::move(spec);
}

const std::string& Index::db() const { return spec_ ? spec_->db : EmptyString(); }
const std::string& Index::table() const { return spec_ ? spec_->table : EmptyString(); }
const std::string& Index::name() const { return spec_ ? spec_->name : EmptyString(); }
const std::string& Index::key() const { return spec_ ? spec_->key : EmptyString(); }

const std::vector<std::string>& Index::columns() const {
  return spec_ ? spec_->columns : EmptyList();
}

const std::vector<std::string>& Index::filter_columns() const {
  return spec_ ? spec_->filter_columns : EmptyList();
}

int Index::FilterPosition(std::string_view column) const {
  const std::vector<std::string>& names = filter_columns();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == column) return static_cast<int>(i);
  }
  return -1;
}

Query::Query(std::string_view op, Row key) : key_(std::move(key)) {
  valid_op_ = ParseOp(op, &op_);
}

Query& Query::In(uint32_t key_part, Row values) {
  has_in_ = true;
  in_key_part_ = key_part;
  in_values_ = std::move(values);
  return *this;
}

Query& Query::Where(uint32_t column, std::string_view op, Value value) {
  filters_.push_back(MakeFilter(false, op, column, {}, std::move(value)));
  return *this;
}

Query& Query::Where(std::string_view column, std::string_view op, Value value) {
  filters_.push_back(MakeFilter(false, op, 0, column, std::move(value)));
  return *this;
}

Query& Query::While(uint32_t column, std::string_view op, Value value) {
  filters_.push_back(MakeFilter(true, op, column, {}, std::move(value)));
  return *this;
}

Query& Query::While(std::string_view column, std::string_view op, Value value) {
  filters_.push_back(MakeFilter(true, op, 0, column, std::move(value)));
  return *this;
}

}  // namespace client
}  // namespace rowsocket
