// CheckRequest: request shape against its open index. Runs on a worker thread.
#include "engine/request_check.h"

#include "engine/row_io.h"

namespace rowsocket {
namespace {

// Columns SQL computes itself: a value for one is refused, as SQL refuses it.
bool Computed(const Field* f) { return f->vcol_info != nullptr || f->vers_sys_field(); }

Status WritesComputed(const std::vector<Field*>& columns, size_t count) {
  for (size_t i = 0; i < count; ++i)
    if (Computed(columns[i]))
      return Status::StorageCode(ER_WARNING_NON_DEFAULT_VALUE_FOR_GENERATED_COLUMN);
  return Status::OK();
}

// What the index can do, as the storage engine says (HASH indexes find whole keys
// only, and keep no order to scan a range in).
Status CheckIndexCanDo(const Request& r, OpenIndex* oi) {
  const ulong flags = oi->table()->file->index_flags(oi->key_number(), 0, true);
  if ((flags & HA_ONLY_WHOLE_INDEX) && r.key.size() < oi->key_parts())
    return Status::BadRequest("idxop");
  switch (r.op) {
    case FindOp::kEq:
      return Status::OK();
    case FindOp::kGe:
    case FindOp::kGt:
      return (flags & HA_READ_RANGE) && (flags & HA_READ_NEXT) ? Status::OK()
                                                                 : Status::BadRequest("idxop");
    case FindOp::kLe:
    case FindOp::kLt:
      return (flags & HA_READ_RANGE) && (flags & HA_READ_PREV) ? Status::OK()
                                                                 : Status::BadRequest("idxop");
  }
  return Status::OK();
}

Status CheckFind(const Request& r, OpenIndex* oi) {
  const std::vector<Field*>& columns = oi->columns();
  const std::vector<Field*>& fcolumns = oi->filter_columns();
  if (r.key.size() > oi->key_parts()) return Status::BadRequest("kpnum");
  if (r.has_in && r.in_key_part >= r.key.size()) return Status::BadRequest("kpnum");
  for (const Filter& f : r.filters) {
    if (f.column >= fcolumns.size()) return Status::BadRequest("filterfld");
    if (fcolumns[f.column]->flags & BLOB_FLAG) return Status::BadRequest("filterblob");
  }
  if (r.modify_values.size() > columns.size()) return Status::BadRequest("modop");
  if (r.modify == ModifyOp::kIncrement || r.modify == ModifyOp::kDecrement) {
    for (size_t i = 0; i < r.modify_values.size(); ++i)
      if (!IsNumericField(columns[i])) return Status::BadRequest("modop");
  }
  Status s = CheckIndexCanDo(r, oi);
  if (!s.ok()) return s;
  if (r.modify == ModifyOp::kUpdate || r.modify == ModifyOp::kIncrement ||
      r.modify == ModifyOp::kDecrement)
    return WritesComputed(columns, r.modify_values.size());
  return Status::OK();
}

}  // namespace

Status CheckRequest(const Request& r, OpenIndex* oi) {
  if (r.IsWrite() && oi->table()->triggers != nullptr) return Status::Storage("triggers");
  switch (r.type) {
    case RequestType::kFind:
      return CheckFind(r, oi);
    case RequestType::kInsert:
      if (r.key.size() > oi->columns().size()) return Status::BadRequest("fld");
      return WritesComputed(oi->columns(), r.key.size());
    default:
      return Status::OK();
  }
}

}  // namespace rowsocket
