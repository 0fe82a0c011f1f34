// CheckRequest: request shape against its open index. Runs on a worker thread.
#include "engine/handlersocket/request_check.h"

#include "engine/rows/row_io.h"
#include "protocol/wire_errors.h"

namespace rowsocket {
namespace {

// Columns SQL computes itself: a value for one is refused, as SQL refuses it.
bool Computed(const Field* f) { return f->vcol_info != nullptr || f->vers_sys_field(); }

WireStatus WritesComputed(const std::vector<Field*>& columns, size_t count) {
  for (size_t i = 0; i < count; ++i)
    if (Computed(columns[i]))
      return WireStatus::StorageCode(ER_WARNING_NON_DEFAULT_VALUE_FOR_GENERATED_COLUMN);
  return WireStatus::OK();
}

// The same for the columns a find-and-modify's values write.
WireStatus ModifiesComputed(const Request& r, const std::vector<Field*>& columns) {
  for (size_t i = 0; i < r.modify_values.size(); ++i)
    if (Computed(ModifiedColumn(r, columns, i)))
      return WireStatus::StorageCode(ER_WARNING_NON_DEFAULT_VALUE_FOR_GENERATED_COLUMN);
  return WireStatus::OK();
}

// What the index can do, as the storage engine says (HASH indexes find whole keys
// only, and keep no order to scan a range in).
WireStatus CheckIndexCanDo(const Request& r, OpenIndex* oi) {
  const ulong flags = oi->table()->file->index_flags(oi->key_number(), 0, true);
  if ((flags & HA_ONLY_WHOLE_INDEX) && r.key.size() < oi->key_parts())
    return ErrorStatus(WireError::kIdxOp);
  switch (r.op) {
    case FindOp::kEq:
      return WireStatus::OK();
    case FindOp::kGe:
    case FindOp::kGt:
      return (flags & HA_READ_RANGE) && (flags & HA_READ_NEXT) ? WireStatus::OK()
                                                                 : ErrorStatus(WireError::kIdxOp);
    case FindOp::kLe:
      // A partitioned table merges its partitions' rows out of order when a
      // backward scan starts at a key it holds (the server's own HANDLER ... READ
      // idx <= (...) shows it too); `<` is read right.
      if (oi->table()->part_info != nullptr) return ErrorStatus(WireError::kIdxOp);
      [[fallthrough]];
    case FindOp::kLt:
      return (flags & HA_READ_RANGE) && (flags & HA_READ_PREV) ? WireStatus::OK()
                                                                 : ErrorStatus(WireError::kIdxOp);
  }
  return WireStatus::OK();
}

// + and - work on numbers, and on text that holds one (as its integer value, the
// original plugin's rule); not on dates, times or bits.
bool Countable(const Field* f) {
  return IsNumericField(f) || (f->cmp_type() == STRING_RESULT && f->type() != MYSQL_TYPE_BIT);
}

WireStatus CheckFind(const Request& r, OpenIndex* oi) {
  const std::vector<Field*>& columns = oi->columns();
  const std::vector<Field*>& fcolumns = oi->filter_columns();
  if (r.key.size() > oi->key_parts()) return ErrorStatus(WireError::kKpNum);
  if (r.has_in && r.in_key_part >= r.key.size()) return ErrorStatus(WireError::kKpNum);
  for (const RequestFilter& f : r.filters) {
    if (f.column >= fcolumns.size()) return ErrorStatus(WireError::kFilterFld);
    if ((fcolumns[f.column]->flags & BLOB_FLAG) && !f.value.is_null)
      return ErrorStatus(WireError::kFilterBlob);
  }
  if (r.modify == ModifyOp::kIncrement || r.modify == ModifyOp::kDecrement) {
    for (size_t i = 0; i < r.modify_values.size(); ++i)
      if (!Countable(ModifiedColumn(r, columns, i))) return ErrorStatus(WireError::kModOp);
  }
  WireStatus s = CheckIndexCanDo(r, oi);
  if (!s.ok()) return s;
  if (r.modify == ModifyOp::kUpdate || r.modify == ModifyOp::kIncrement ||
      r.modify == ModifyOp::kDecrement)
    return ModifiesComputed(r, columns);
  return WireStatus::OK();
}

}  // namespace

WireStatus CheckRequest(Request* r, OpenIndex* oi) {
  if (r->IsWrite() && oi->table()->triggers != nullptr) return ErrorStatus(WireError::kTriggers);
  const size_t ncolumns = oi->columns().size();
  switch (r->type) {
    case RequestType::kFind:
      if (!r->modify_columns.empty()) {
        // The engine's own requests name the columns they write.
        if (r->modify_columns.size() != r->modify_values.size())
          return ErrorStatus(WireError::kModOp);
        for (uint32_t column : r->modify_columns)
          if (column >= ncolumns) return ErrorStatus(WireError::kModOp);
      } else if (r->modify_values.size() > ncolumns) {
        r->modify_values.resize(ncolumns);
      }
      return CheckFind(*r, oi);
    case RequestType::kInsert:
      if (r->insert_values.size() > ncolumns) r->insert_values.resize(ncolumns);
      return WritesComputed(oi->columns(), r->insert_values.size());
    default:
      return WireStatus::OK();
  }
}

}  // namespace rowsocket
