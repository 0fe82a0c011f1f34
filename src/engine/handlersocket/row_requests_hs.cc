// RowRequests' HandlerSocket adapters: a find (with its modify part) or an insert
// as a typed row operation (row_spec.h), with HandlerSocket's text answer around
// the rows it selects: `0 <columns>` and the rows, `0 1 <n>` for a change, `0 1
// [<id>]` for an insert, or the error line with nothing else. Runs on a worker
// thread inside a batch (see row_requests.h).
#include "engine/rows/row_requests.h"

#include "engine/rows/row_io.h"
#include "protocol/engine_status.h"

namespace rowsocket {
namespace {

ScanOp ScanOpOf(FindOp op) {
  switch (op) {
    case FindOp::kEq: return ScanOp::kEq;
    case FindOp::kGt: return ScanOp::kGt;
    case FindOp::kGe: return ScanOp::kGe;
    case FindOp::kLt: return ScanOp::kLt;
    case FindOp::kLe: return ScanOp::kLe;
  }
  return ScanOp::kEq;
}

ScanCompare ScanCompareOf(CompareOp op) {
  switch (op) {
    case CompareOp::kEq: return ScanCompare::kEq;
    case CompareOp::kNe: return ScanCompare::kNe;
    case CompareOp::kLt: return ScanCompare::kLt;
    case CompareOp::kLe: return ScanCompare::kLe;
    case CompareOp::kGt: return ScanCompare::kGt;
    case CompareOp::kGe: return ScanCompare::kGe;
  }
  return ScanCompare::kEq;
}

RowWrite RowWriteOf(ModifyOp op) {
  switch (op) {
    case ModifyOp::kNone: return RowWrite::kNone;
    case ModifyOp::kUpdate: return RowWrite::kUpdate;
    case ModifyOp::kIncrement: return RowWrite::kIncrement;
    case ModifyOp::kDecrement: return RowWrite::kDecrement;
    case ModifyOp::kDelete: return RowWrite::kDelete;
  }
  return RowWrite::kNone;
}

void AppendValues(const std::vector<WireValue>& from, std::vector<RowValue>* to) {
  for (const WireValue& v : from) to->push_back(RowValueOf(v));
}

}  // namespace

// The vectors keep their memory from request to request: no allocation per find.
void RowRequests::SpecOf(const Request& r) {
  ScanSpec& spec = hs_spec_;
  spec.Clear();
  spec.op = ScanOpOf(r.op);
  AppendValues(r.key, &spec.key);
  spec.has_in = r.has_in;
  spec.in_key_part = r.in_key_part;
  AppendValues(r.in_values, &spec.in_values);
  for (const RequestFilter& f : r.filters) {
    ScanFilter filter;
    filter.stop = f.kind == FilterKind::kStop;
    filter.op = ScanCompareOf(f.op);
    filter.column = f.column;
    filter.value = RowValueOf(f.value);
    spec.filters.push_back(filter);
  }
  spec.offset = r.offset;
  spec.limit = r.limit;
  hs_change_.Clear();
  hs_change_.kind = RowWriteOf(r.modify);
  AppendValues(r.modify_values, &hs_change_.values);
  hs_change_.columns.assign(r.modify_columns.begin(), r.modify_columns.end());
}

RowResult RowRequests::Find(const Request& r, OpenIndex* oi, ResponseWriter* w) {
  SpecOf(r);
  const std::vector<Field*>& columns = oi->columns();
  const size_t mark = w->Mark();
  // A plain find and the `?` forms answer the rows (as they were before the change).
  const bool rows_answer = r.modify == ModifyOp::kNone || r.return_rows;
  if (rows_answer) w->BeginRows(static_cast<uint32_t>(columns.size()));
  const uint64_t max_answer = tunables_->max_answer_size.load(std::memory_order_relaxed);
  auto answer_row = [&](size_t) -> EngineStatus {
    for (Field* f : columns) WriteField(f, w);
    if (max_answer != 0 && w->Mark() - mark > max_answer) return EngineStatus::TooBig();
    return EngineStatus::OK();
  };
  const RowTaker take(answer_row);
  const RowResult result = Modify(hs_spec_, hs_change_, oi, rows_answer ? &take : nullptr);
  if (!result.status.ok()) {
    w->Truncate(mark);
    w->Error(result.status);
    return result;
  }
  if (rows_answer)
    w->EndRows();
  else
    w->OkWithNumber(result.rows_changed);
  return result;
}

RowResult RowRequests::Insert(const Request& r, OpenIndex* oi, ResponseWriter* w) {
  hs_values_.clear();
  AppendValues(r.insert_values, &hs_values_);
  const RowResult result = Insert(hs_values_, oi);
  if (!result.status.ok())
    w->Error(result.status);
  else if (result.has_insert_id)
    w->OkWithNumber(result.insert_id);
  else
    w->Ok();
  return result;
}

}  // namespace rowsocket
