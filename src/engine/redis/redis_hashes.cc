// RedisHashes: Redis's hash commands as row operations on a container's table
// (redis_hashes.h). Each command's words are Redis 7.0's (t_hash.c): the order in
// which it checks its arguments, its errors and its replies. Runs on a worker
// thread inside a batch.
#include "engine/redis/redis_hashes.h"

#include <cmath>
#include <limits>

#include "engine/memcached/container_map.h"
#include "engine/rows/row_io.h"
#include "protocol/redis.h"
#include "protocol/redis_args.h"
#include "protocol/redis_request.h"

namespace rowsocket {
namespace {

using I = RedisCommandId;

// The fields of a hash container's table: its visible columns but the key column
// (SELECT * prints them), in the table's order; a column whose name holds a comma
// cannot be named in an IndexBinding's column list: it is no field.
template <typename Each>
void ForEachField(const TABLE* table, std::string_view key_column, Each each) {
  for (uint i = 0; i < table->s->fields; ++i) {
    const Field* f = table->field[i];
    const std::string_view name(f->field_name.str, f->field_name.length);
    if (f->invisible == VISIBLE && !SameName(name, key_column) &&
        name.find(',') == std::string_view::npos)
      each(name);
  }
}

// The fields, comma-separated as IndexBinding names columns.
std::string FieldNames(const TABLE* table, std::string_view key_column) {
  std::string names;
  ForEachField(table, key_column, [&](std::string_view name) {
    if (!names.empty()) names += ',';
    names += name;
  });
  return names;
}

// A write's columns (a bit by position, see OpenIndex::WriteRefusal); a position
// past the 64th asks about every column.
uint64_t ColumnBits(const std::vector<uint32_t>& at) {
  uint64_t bits = 0;
  for (uint32_t a : at) bits |= a < 64 ? uint64_t{1} << a : ~uint64_t{0};
  return bits;
}

}  // namespace

std::string_view RedisHashPrefix(std::string_view key) {
  const size_t colon = key.find(':');
  if (colon == std::string_view::npos || colon == 0) return {};
  const std::string_view name = key.substr(0, colon);
  return SameName(name, "default") ? std::string_view() : name;
}

EngineStatus BindHashIndexes(WorkerEngine* engine, ContainerBinding* binding,
                             const KvContainer& container) {
  EngineStatus s = BindContainerIndexes(engine, binding, container);
  if (!s.ok()) return s;
  const Opened<TableEntry> table = engine->tables().Get(container.db, container.table);
  if (!table.ok()) return table.error;
  const std::string fields = FieldNames(table.value->table, container.key_column);
  binding->lookup->columns = fields;
  binding->insert->columns = container.key_column + (fields.empty() ? "" : "," + fields);
  return EngineStatus::OK();
}

bool HashFieldsCurrent(const OpenIndex* lookup) {
  const Field* key = WholeColumn(lookup->key()->key_part[0]);
  size_t fields = 0;
  ForEachField(lookup->table(), std::string_view(key->field_name.str, key->field_name.length),
               [&](std::string_view) { ++fields; });
  return fields == lookup->columns().size();
}

const RedisHashTarget* RedisHashes::TargetOf(std::string_view key) const {
  if (targets_ == nullptr || targets_->empty()) return nullptr;
  const std::string_view prefix = RedisHashPrefix(key);
  if (prefix.empty()) return nullptr;
  for (const RedisHashTarget& t : *targets_)
    if (t.prefix == prefix) return &t;
  return nullptr;
}

void RedisHashes::Begin(const RedisHashTarget& target, RedisReplyWriter* w) {
  w_ = w;
  target_ = &target;
  lookup_ = target.lookup;
  insert_ = target.insert;
  key_column_ = WholeColumn(lookup_->key()->key_part[0]);
}

bool RedisHashes::Error(std::string_view text) {
  w_->Error(text);
  return false;
}

bool RedisHashes::Fail(const EngineStatus& status) { return Error(RedisStatusError(status)); }

// A change (or its find) that failed: answered, and recorded as failed (EndAll).
bool RedisHashes::Failed(const RowResult& row) {
  if (row.status.ok()) return false;
  undo_.Fail(RedisStatusError(row.status));
  Fail(row.status);
  return true;
}

int RedisHashes::FieldAt(std::string_view name) const {
  if (lookup_ == nullptr) return -1;
  const std::vector<Field*>& columns = lookup_->columns();
  for (size_t i = 0; i < columns.size(); ++i)
    if (SameName(std::string_view(columns[i]->field_name.str, columns[i]->field_name.length),
                 name))
      return static_cast<int>(i);
  return -1;
}

bool RedisHashes::KnownField(std::string_view name, int* at) {
  *at = FieldAt(name);
  if (*at >= 0) return true;
  const KvContainer& c = target_->binding->container;
  return Error("ERR rowsocket: '" + std::string(name) + "' is no column of " + c.db + "." +
               c.table + " (a hash's fields are its row's columns but the key column)");
}

bool RedisHashes::ReadRow(std::string_view row_key, Row* row, bool quiet) {
  row->exists = false;
  if (!HoldsExactly(key_column_, row_key, &scratch_)) return true;
  const std::vector<Field*>& columns = lookup_->columns();
  spec_.FindOne(RowValue::Bytes(row_key));
  const RowResult found = rows_->Read(spec_, lookup_, [&](size_t) {
    row->exists = true;
    row->values.resize(columns.size());
    row->null.resize(columns.size());
    for (size_t i = 0; i < columns.size(); ++i) {
      row->null[i] = columns[i]->is_null();
      row->values[i].clear();
      if (!row->null[i]) AppendFieldText(columns[i], &row->values[i]);
    }
    return EngineStatus::OK();
  });
  return quiet ? found.status.ok() : !Failed(found);
}

bool RedisHashes::Read(Row* row) {
  row->exists = false;
  if (target_ == nullptr) return string_ ? Error(kRedisErrWrongType) : true;
  return ReadRow(row_key_, row);
}

size_t RedisHashes::Length(const Row& row) const {
  size_t n = 0;
  if (row.exists)
    for (bool null : row.null) n += !null;
  return n;
}

// An update of the fields at `fields` of the row that exists, or the insert of a new
// row of the key and those fields.
bool RedisHashes::Write(const Row& row, const std::vector<uint32_t>& fields,
                        const std::vector<RowValue>& values) {
  if (target_ == nullptr) {
    return Error("ERR rowsocket: '" + std::string(row_key_) +
                 "' is a key of no hash container (a hash is <container>:<key>, the "
                 "container named in rowsocket.containers)");
  }
  if (!HoldsExactly(key_column_, row_key_, &scratch_)) return Fail(EngineStatus::NotAKey());
  if (undo_.active() && !Record(row_key_)) return false;
  if (!row.exists) {
    at_.assign(1, 0);
    values_.assign(1, RowValue::Bytes(row_key_));
    for (size_t i = 0; i < fields.size(); ++i) {
      at_.push_back(fields[i] + 1);
      values_.push_back(values[i]);
    }
    const EngineStatus refusal = insert_->WriteRefusal(ColumnBits(at_));
    if (!refusal.ok()) return Fail(refusal);
    const RowResult inserted = rows_->Insert(values_, insert_, &at_);
    if (inserted.engine_error == HA_ERR_FOUND_DUPP_KEY) {  // another made the row meanwhile
      undo_.Fail(RedisStatusError(EngineStatus::Conflict(HA_ERR_FOUND_DUPP_KEY)));
      return Fail(EngineStatus::Conflict(HA_ERR_FOUND_DUPP_KEY));
    }
    return !Failed(inserted);
  }
  const EngineStatus refusal = lookup_->WriteRefusal(ColumnBits(fields));
  if (!refusal.ok()) return Fail(refusal);
  change_.Clear();
  change_.kind = RowWrite::kUpdate;
  change_.columns = fields;
  change_.values = values;
  spec_.FindOne(RowValue::Bytes(row_key_));
  return !Failed(rows_->Modify(spec_, change_, lookup_));
}

void RedisHashes::Run(const RedisCommandInfo& info, const std::vector<std::string_view>& argv,
                      const RedisHashTarget* target, bool string, RedisReplyWriter* w) {
  w_ = w;
  target_ = nullptr;
  lookup_ = insert_ = nullptr;
  if (target != nullptr) Begin(*target, w);
  string_ = string;
  row_key_ = target != nullptr ? RedisHashRowKey(argv[1]) : argv[1];
  switch (info.id) {
    case I::kHget: return Get(argv, false);
    case I::kHmget: return Get(argv, true);
    case I::kHgetall:
    case I::kHkeys:
    case I::kHvals:
    case I::kHlen: return GetAll(info.id);
    case I::kHexists: return Exists(argv[2]);
    case I::kHstrlen: return StrLen(argv[2]);
    case I::kHset: return Set(argv, false);
    case I::kHsetnx: return Set(argv, true);
    case I::kHincrby: return IncrBy(argv[2], argv[3]);
    case I::kHincrbyfloat: return IncrByFloat(argv[2], argv[3]);
    case I::kHdel: return Del(argv);
    default: Fail(EngineStatus::UnknownCommand());
  }
}

bool RedisHashes::WithinAnswerSize(uint64_t bytes) {
  const uint64_t max_answer = rows_->tunables()->max_answer_size.load(std::memory_order_relaxed);
  return max_answer == 0 || bytes <= max_answer || Fail(EngineStatus::TooBig());
}

// HGET key field, HMGET key field...: an unknown column is an absent field.
void RedisHashes::Get(const std::vector<std::string_view>& argv, bool many) {
  Row row;
  if (!Read(&row)) return;
  uint64_t answer = 0;
  for (size_t i = 2; i < (many ? argv.size() : 3); ++i) {
    const int at = FieldAt(argv[i]);
    answer += (row.Has(at) ? row.values[at].size() : 0) + kRedisBulkHeader;
  }
  if (!WithinAnswerSize(answer)) return;
  if (!many) {
    const int at = FieldAt(argv[2]);
    return row.Has(at) ? w_->Bulk(row.values[at]) : w_->Null();
  }
  w_->ArrayHeader(argv.size() - 2);
  for (size_t i = 2; i < argv.size(); ++i) {
    const int at = FieldAt(argv[i]);
    if (row.Has(at)) w_->Bulk(row.values[at]); else w_->Null();
  }
}

// HGETALL, HKEYS, HVALS, HLEN: the fields in the table's column order.
void RedisHashes::GetAll(RedisCommandId id) {
  Row row;
  if (!Read(&row)) return;
  const size_t n = Length(row);
  if (id == I::kHlen) return w_->Integer(static_cast<int64_t>(n));
  if (n == 0) return id == I::kHgetall ? w_->MapHeader(0) : w_->ArrayHeader(0);
  const std::vector<Field*>& columns = lookup_->columns();
  uint64_t answer = 0;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (row.null[i]) continue;
    if (id != I::kHvals) answer += columns[i]->field_name.length + kRedisBulkHeader;
    if (id != I::kHkeys) answer += row.values[i].size() + kRedisBulkHeader;
  }
  if (!WithinAnswerSize(answer)) return;
  if (id == I::kHgetall) w_->MapHeader(n); else w_->ArrayHeader(n);
  for (size_t i = 0; i < columns.size(); ++i) {
    if (row.null[i]) continue;
    if (id != I::kHvals)
      w_->Bulk(std::string_view(columns[i]->field_name.str, columns[i]->field_name.length));
    if (id != I::kHkeys) w_->Bulk(row.values[i]);
  }
}

void RedisHashes::Exists(std::string_view field) {
  Row row;
  if (!Read(&row)) return;
  w_->Integer(row.Has(FieldAt(field)) ? 1 : 0);
}

void RedisHashes::StrLen(std::string_view field) {
  Row row;
  if (!Read(&row)) return;
  const int at = FieldAt(field);
  w_->Integer(row.Has(at) ? static_cast<int64_t>(row.values[at].size()) : 0);
}

// HSET key field value [field value ...] (the number of fields that were absent),
// HSETNX key field value (1 if it set the absent field, else 0). A field named twice
// takes its last value.
void RedisHashes::Set(const std::vector<std::string_view>& argv, bool nx) {
  if (!nx && argv.size() % 2 == 1) return w_->Error(RedisErrWrongArity("hset"));
  Row row;
  if (!Read(&row)) return;
  std::vector<uint32_t> fields;
  std::vector<RowValue> values;
  int64_t added = 0;
  for (size_t i = 2; i + 1 < argv.size(); i += 2) {
    int at = -1;
    if (target_ != nullptr && !KnownField(argv[i], &at)) return;
    if (at < 0) break;  // (a key of no hash container: Write answers)
    size_t k = 0;
    while (k < fields.size() && fields[k] != static_cast<uint32_t>(at)) ++k;
    if (k == fields.size()) {
      fields.push_back(static_cast<uint32_t>(at));
      values.push_back(RowValue::Bytes(argv[i + 1]));
      added += !row.Has(at);
    } else {
      values[k] = RowValue::Bytes(argv[i + 1]);
    }
  }
  if (nx && !fields.empty() && row.Has(static_cast<int>(fields[0]))) return w_->Integer(0);
  if (!Write(row, fields, values)) return;
  w_->Integer(nx ? 1 : added);
}

void RedisHashes::IncrBy(std::string_view field, std::string_view delta) {
  int64_t incr = 0;
  if (!RedisStringToInt64(delta, &incr)) return w_->Error(kRedisErrNotInteger);
  Row row;
  if (!Read(&row)) return;
  int at = -1;
  if (target_ != nullptr && !KnownField(field, &at)) return;
  int64_t value = 0;
  if (row.Has(at) && !RedisStringToInt64(row.values[at], &value))
    return w_->Error(kRedisErrHashNotInteger);
  if ((incr < 0 && value < 0 && incr < std::numeric_limits<int64_t>::min() - value) ||
      (incr > 0 && value > 0 && incr > std::numeric_limits<int64_t>::max() - value))
    return w_->Error(kRedisErrOverflow);
  value += incr;
  if (Write(row, {static_cast<uint32_t>(at)}, {RowValue::Signed(value)})) w_->Integer(value);
}

// The reply is the value as the column then holds it (SQL's text of it: a DOUBLE
// column prints its double, a DECIMAL its scale).
void RedisHashes::IncrByFloat(std::string_view field, std::string_view delta) {
  long double incr = 0;
  if (!RedisStringToLongDouble(delta, &incr)) return w_->Error(kRedisErrNotFloat);
  if (std::isnan(incr) || std::isinf(incr)) return w_->Error("ERR value is NaN or Infinity");
  Row row;
  if (!Read(&row)) return;
  int at = -1;
  if (target_ != nullptr && !KnownField(field, &at)) return;
  long double value = 0;
  if (row.Has(at) && !RedisStringToLongDouble(row.values[at], &value))
    return w_->Error(kRedisErrHashNotFloat);
  value += incr;
  if (std::isnan(value) || std::isinf(value)) return w_->Error(kRedisErrNanOrInfinity);
  std::string text;
  RedisFormatLongDouble(value, &text);
  if (!Write(row, {static_cast<uint32_t>(at)}, {RowValue::Bytes(text)})) return;
  Row after;
  if (!ReadRow(row_key_, &after)) return;
  if (after.Has(at)) w_->Bulk(after.values[at]); else w_->Null();
}

// HDEL key field...: the fields that had a value become NULL; a NOT NULL column is
// refused (its field cannot be absent), an unknown one counts as absent.
void RedisHashes::Del(const std::vector<std::string_view>& argv) {
  Row row;
  if (!Read(&row)) return;
  if (!row.exists) return w_->Integer(0);
  std::vector<uint32_t> fields;
  for (size_t i = 2; i < argv.size(); ++i) {
    const int at = FieldAt(argv[i]);
    if (at < 0) continue;
    Field* column = lookup_->columns()[static_cast<size_t>(at)];
    if (!column->real_maybe_null()) {
      return w_->Error("ERR rowsocket: column '" + std::string(argv[i]) +
                       "' is NOT NULL: HDEL cannot remove its field");
    }
    bool named = false;
    for (uint32_t f : fields) named |= f == static_cast<uint32_t>(at);
    if (!named && row.Has(at)) fields.push_back(static_cast<uint32_t>(at));
  }
  if (fields.empty()) return w_->Integer(0);
  const std::vector<RowValue> nulls(fields.size(), RowValue::Null());
  if (Write(row, fields, nulls)) w_->Integer(static_cast<int64_t>(fields.size()));
}

bool RedisHashes::Exists(const RedisHashTarget& target, std::string_view key, bool* exists,
                         RedisReplyWriter* w) {
  Begin(target, w);
  Row row;
  if (!ReadRow(RedisHashRowKey(key), &row)) return false;
  *exists = row.exists;
  return true;
}

bool RedisHashes::Delete(const RedisHashTarget& target, std::string_view key, bool* existed,
                         RedisReplyWriter* w) {
  Begin(target, w);
  const std::string_view row_key = RedisHashRowKey(key);
  Row row;
  if (!ReadRow(row_key, &row)) return false;
  *existed = row.exists;
  if (!row.exists) return true;
  const EngineStatus refusal = lookup_->WriteRefusal(0);
  if (!refusal.ok()) return Fail(refusal);
  if (undo_.active() && !Record(row_key)) return false;
  change_.Clear();
  change_.kind = RowWrite::kDelete;
  spec_.FindOne(RowValue::Bytes(row_key));
  return !Failed(rows_->Modify(spec_, change_, lookup_));
}

void RedisHashes::BeginAll() { undo_.Begin(); }

bool RedisHashes::Record(std::string_view row_key) {
  Recorded r;
  r.lookup = lookup_;
  r.insert = insert_;
  r.row_key.assign(row_key);
  if (!ReadRow(row_key, &r.before)) return false;
  size_t bytes = sizeof(Recorded) + r.row_key.size();
  for (const std::string& v : r.before.values) bytes += v.size() + sizeof(v);
  return undo_.Add(std::move(r), bytes) || Error(undo_.failure());
}

bool RedisHashes::EndAll(bool undo) {
  return undo_.End(undo, [&](const Recorded& r) {
    lookup_ = r.lookup;
    insert_ = r.insert;
    key_column_ = WholeColumn(lookup_->key()->key_part[0]);
    Restore(r.row_key, r.before);
  });
}

// Quietly: the command's answer is its failure's. The columns SQL computes are left
// to it.
bool RedisHashes::Restore(const std::string& row_key, const Row& before) {
  Row now;
  if (!ReadRow(row_key, &now, true)) return false;
  if (!before.exists && !now.exists) return true;
  spec_.FindOne(RowValue::Bytes(row_key));
  change_.Clear();
  if (!before.exists) {
    change_.kind = RowWrite::kDelete;
    return rows_->Modify(spec_, change_, lookup_).status.ok();
  }
  values_.clear();
  at_.clear();
  const bool insert = !now.exists;
  if (insert) {
    if (insert_ == nullptr) return false;
    at_.push_back(0);
    values_.push_back(RowValue::Bytes(row_key));
  }
  for (size_t i = 0; i < before.values.size(); ++i) {
    const uint32_t column = static_cast<uint32_t>(i + (insert ? 1 : 0));
    if (column < 64 && !(insert ? insert_ : lookup_)->WriteRefusal(uint64_t{1} << column).ok())
      continue;
    at_.push_back(column);
    values_.push_back(before.null[i] ? RowValue::Null() : RowValue::Bytes(before.values[i]));
  }
  if (insert) return rows_->Insert(values_, insert_, &at_).status.ok();
  change_.kind = RowWrite::kUpdate;
  change_.columns = at_;
  change_.values = values_;
  return rows_->Modify(spec_, change_, lookup_).status.ok();
}

}  // namespace rowsocket
