// CheckRequest: request shape against its open index. Runs on a worker thread.
#include "engine/handlersocket/request_check.h"

#include "engine/rows/row_io.h"
#include "protocol/engine_status.h"

namespace rowsocket {
namespace {

// Columns SQL computes itself: a value for one is refused, as SQL refuses it.
bool Computed(const Field* f) { return f->vcol_info != nullptr || f->vers_sys_field(); }

EngineStatus WritesComputed(const std::vector<Field*>& columns, size_t count) {
  for (size_t i = 0; i < count; ++i)
    if (Computed(columns[i]))
      return EngineStatus::GeneratedColumn(ER_WARNING_NON_DEFAULT_VALUE_FOR_GENERATED_COLUMN);
  return EngineStatus::OK();
}

// The same for the columns a find-and-modify's values write.
EngineStatus ModifiesComputed(const Request& r, const std::vector<Field*>& columns) {
  for (size_t i = 0; i < r.modify_values.size(); ++i)
    if (Computed(ModifiedColumn(r, columns, i)))
      return EngineStatus::GeneratedColumn(ER_WARNING_NON_DEFAULT_VALUE_FOR_GENERATED_COLUMN);
  return EngineStatus::OK();
}

// What the index can do, as the storage engine says (HASH indexes find whole keys
// only, and keep no order to scan a range in).
EngineStatus CheckIndexCanDo(const Request& r, OpenIndex* oi) {
  const ulong flags = oi->table()->file->index_flags(oi->key_number(), 0, true);
  if ((flags & HA_ONLY_WHOLE_INDEX) && r.key.size() < oi->key_parts())
    return EngineStatus::BadRequest("idxop");
  switch (r.op) {
    case FindOp::kEq:
      return EngineStatus::OK();
    case FindOp::kGe:
    case FindOp::kGt:
      return (flags & HA_READ_RANGE) && (flags & HA_READ_NEXT) ? EngineStatus::OK()
                                                                 : EngineStatus::BadRequest("idxop");
    case FindOp::kLe:
      // A partitioned table merges its partitions' rows out of order when a
      // backward scan starts at a key it holds (the server's own HANDLER ... READ
      // idx <= (...) shows it too); `<` is read right.
      if (oi->table()->part_info != nullptr) return EngineStatus::BadRequest("idxop");
      [[fallthrough]];
    case FindOp::kLt:
      return (flags & HA_READ_RANGE) && (flags & HA_READ_PREV) ? EngineStatus::OK()
                                                                 : EngineStatus::BadRequest("idxop");
  }
  return EngineStatus::OK();
}

// + and - work on numbers, and on text that holds one (as its integer value, the
// original plugin's rule); not on dates, times or bits.
bool Countable(const Field* f) {
  return IsNumericField(f) || (f->cmp_type() == STRING_RESULT && f->type() != MYSQL_TYPE_BIT);
}

EngineStatus CheckFind(const Request& r, OpenIndex* oi) {
  const std::vector<Field*>& columns = oi->columns();
  const std::vector<Field*>& fcolumns = oi->filter_columns();
  if (r.key.size() > oi->key_parts()) return EngineStatus::BadRequest("kpnum");
  if (r.has_in && r.in_key_part >= r.key.size()) return EngineStatus::BadRequest("kpnum");
  for (const RequestFilter& f : r.filters) {
    if (f.column >= fcolumns.size()) return EngineStatus::BadRequest("filterfld");
    if ((fcolumns[f.column]->flags & BLOB_FLAG) && !f.value.is_null)
      return EngineStatus::BadRequest("filterblob");
  }
  if (r.modify == ModifyOp::kIncrement || r.modify == ModifyOp::kDecrement) {
    for (size_t i = 0; i < r.modify_values.size(); ++i)
      if (!Countable(ModifiedColumn(r, columns, i))) return EngineStatus::BadRequest("modop");
  }
  EngineStatus s = CheckIndexCanDo(r, oi);
  if (!s.ok()) return s;
  if (r.modify == ModifyOp::kUpdate || r.modify == ModifyOp::kIncrement ||
      r.modify == ModifyOp::kDecrement)
    return ModifiesComputed(r, columns);
  return EngineStatus::OK();
}

}  // namespace

EngineStatus CheckRequest(Request* r, OpenIndex* oi) {
  if (r->IsWrite() && oi->table()->triggers != nullptr) return EngineStatus::Triggers();
  const size_t ncolumns = oi->columns().size();
  switch (r->type) {
    case RequestType::kFind:
      if (!r->modify_columns.empty()) {
        // The engine's own requests name the columns they write.
        if (r->modify_columns.size() != r->modify_values.size())
          return EngineStatus::BadRequest("modop");
        for (uint32_t column : r->modify_columns)
          if (column >= ncolumns) return EngineStatus::BadRequest("modop");
      } else if (r->modify_values.size() > ncolumns) {
        r->modify_values.resize(ncolumns);
      }
      return CheckFind(*r, oi);
    case RequestType::kInsert:
      if (r->insert_values.size() > ncolumns) r->insert_values.resize(ncolumns);
      return WritesComputed(oi->columns(), r->insert_values.size());
    default:
      return EngineStatus::OK();
  }
}

bool ChangesUniqueKey(const Request& r, OpenIndex* oi) {
  const bool changes_values = r.modify == ModifyOp::kUpdate ||
                              r.modify == ModifyOp::kIncrement ||
                              r.modify == ModifyOp::kDecrement;
  if (!changes_values) return false;
  const TABLE* table = oi->table();
  const key_map changed = oi->KeysWrittenBy(r.modify_values.size(), r.modify_columns);
  for (uint k = 0; k < table->s->keys; ++k)
    if (changed.is_set(k) && (table->key_info[k].flags & HA_NOSAME)) return true;
  return false;
}

}  // namespace rowsocket
