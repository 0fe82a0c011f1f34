// RowRequests: reads, changes and inserts of rows through the handler API, in
// typed row operations (see row_requests.h; HandlerSocket's adapters are in
// row_requests_hs.cc). Runs on a worker thread inside a batch.
#include "engine/rows/row_requests.h"

#include <string_view>
#include <unordered_set>

#include "engine/rows/row_io.h"
#include "engine/rows/row_rules.h"
#include "engine/core/server_thread.h"
#include "protocol/engine_status.h"
#include "util/log.h"

namespace rowsocket {
namespace {

// Where a scan starts. `<=` starts at the last row equal to the key, as the
// server's own descending range reads do.
ha_rkey_function ReadFlag(ScanOp op) {
  switch (op) {
    case ScanOp::kEq: return HA_READ_KEY_EXACT;
    case ScanOp::kGe: return HA_READ_KEY_OR_NEXT;
    case ScanOp::kGt: return HA_READ_AFTER_KEY;
    case ScanOp::kLe: return HA_READ_PREFIX_LAST_OR_PREV;
    case ScanOp::kLt: return HA_READ_BEFORE_KEY;
  }
  return HA_READ_KEY_EXACT;
}

bool FilterHolds(ScanCompare op, int cmp) {
  switch (op) {
    case ScanCompare::kEq: return cmp == 0;
    case ScanCompare::kNe: return cmp != 0;
    case ScanCompare::kLt: return cmp < 0;
    case ScanCompare::kLe: return cmp <= 0;
    case ScanCompare::kGt: return cmp > 0;
    case ScanCompare::kGe: return cmp >= 0;
  }
  return false;
}

enum class RowVerdict { kTake, kSkip, kStop };

// Whether a row whose key, compared part by part with the request's key, gives
// `cmp` lies where `op` looks.
bool KeyHolds(ScanOp op, int cmp) {
  switch (op) {
    case ScanOp::kEq: return cmp == 0;
    case ScanOp::kGe: return cmp >= 0;
    case ScanOp::kGt: return cmp > 0;
    case ScanOp::kLe: return cmp <= 0;
    case ScanOp::kLt: return cmp < 0;
  }
  return false;
}

// The row's whole values of the first `nparts` key parts against the request's key
// stored `offset` bytes away, in index order (a DESC part compares reversed).
int CompareKeyToStored(const KEY* key, size_t nparts, my_ptrdiff_t offset) {
  for (size_t i = 0; i < nparts; ++i) {
    const KEY_PART_INFO& part = key->key_part[i];
    int cmp = CompareFieldToStored(WholeColumn(part), offset);
    if (cmp != 0) return (part.key_part_flag & HA_REVERSE_SORT) ? -cmp : cmp;
  }
  return 0;
}

}  // namespace

// How a find scans its index: computed once per operation.
struct RowRequests::ScanPlan {
  ScanPlan(const ScanSpec& r, OpenIndex* oi) {
    TABLE* table = oi->table();
    KEY* key = oi->key();
    nparts = r.key.size();
    keypart_map = (key_part_map{1} << nparts) - 1;
    key_len = KeyLength(key, nparts);
    bool key_nullable = false;
    for (size_t i = 0; i < nparts; ++i) key_nullable |= key->key_part[i].null_bit != 0;
    single_row = r.op == ScanOp::kEq && nparts == key->user_defined_key_parts &&
                 (key->flags & HA_NOSAME) && !key_nullable;
    one_row = single_row && !r.has_in;
    flag = ReadFlag(r.op);
    recheck_key = oi->HasPrefixPart(nparts);
    key_offset = oi->key_record() - table->record[0];
    filter_offset = oi->filter_record() - table->record[0];
  }

  size_t nparts;                 // key parts given
  key_part_map keypart_map;
  uint key_len;                  // bytes of their key image
  // An exact lookup on a whole unique key finds at most one row per key; without
  // an IN list, at most one row in all.
  bool single_row;
  bool one_row;
  ha_rkey_function flag;
  // An index that keeps only a prefix of a column finds every row that shares the
  // prefix; the whole values decide, as SQL's WHERE does. The request's key is kept
  // in a scratch record (key_offset from record[0]) to compare them.
  bool recheck_key;
  my_ptrdiff_t key_offset;
  my_ptrdiff_t filter_offset;    // where filter values are kept
};

// Visits the rows `r` selects: for each key (each IN value), the index rows from
// it in the direction of the operator, that are current rows, whose whole key
// values match where the index holds a prefix, that pass the filters, past the
// offset, up to the limit. `take_row` (returning a EngineStatus) sees each one in
// record[0], with the number of the key (of the IN list, else 0) that found it.
// Stops at the request's budget of examined rows, and at a KILL.
template <typename TakeRow>
EngineStatus RowRequests::Scan(const ScanSpec& r, OpenIndex* oi, const ScanPlan& plan,
                             TakeRow take_row) {
  TABLE* table = oi->table();
  handler* h = table->file;
  KEY* key = oi->key();
  const std::vector<Field*>& fcolumns = oi->filter_columns();
  const uint64_t max_examined = tunables_->max_rows_examined.load(std::memory_order_relaxed);
  uint64_t examined = 0, skipped = 0, taken = 0;
  const size_t variants = r.has_in ? r.in_values.size() : 1;
  uchar* key_buf = oi->key_buffer();

  for (size_t k = 0; k < variants && taken < r.limit; ++k) {
    if (max_examined != 0 && ++examined > max_examined)
      return EngineStatus::TooManyRows();
    if (!CopyKey(r, k, key, key_buf)) continue;  // NULL for a NOT NULL part: no match
    if (plan.recheck_key) StoreKey(r, k, key, plan.key_offset);

    // No key (the engine's own scans, never a request from the wire): the index from
    // its first row.
    int rc = plan.nparts == 0
                 ? h->ha_index_first(table->record[0])
                 : h->ha_index_read_map(table->record[0], key_buf, plan.keypart_map, plan.flag);
    while (rc == 0) {
      if (max_examined != 0 && ++examined > max_examined)
        return EngineStatus::TooManyRows();
      if (thd_->killed != NOT_KILLED) return KilledStatus(thd_);
      RowVerdict verdict = RowVerdict::kTake;
      // History rows of a system-versioned table are not there for a find, as for
      // SQL's SELECT.
      if (!IsCurrentRow(table) ||
          (plan.recheck_key &&
           !KeyHolds(r.op, CompareKeyToStored(key, plan.nparts, plan.key_offset))))
        verdict = RowVerdict::kSkip;
      for (size_t i = 0; i < r.filters.size() && verdict == RowVerdict::kTake; ++i) {
        const ScanFilter& f = r.filters[i];
        Field* column = fcolumns[f.column];
        if (shared_filter_[i] && !f.value.is_null())
          StoreField(column, f.value, plan.filter_offset);
        // NULL equals NULL and lies below every value (SQL's <=> and ORDER BY).
        const int cmp = f.value.is_null() ? !column->is_null()
                                          : CompareFieldToStored(column, plan.filter_offset);
        if (!FilterHolds(f.op, cmp)) verdict = f.stop ? RowVerdict::kStop : RowVerdict::kSkip;
      }
      if (verdict == RowVerdict::kStop) break;
      if (verdict == RowVerdict::kTake) {
        if (skipped < r.offset) {
          ++skipped;
        } else {
          EngineStatus s = take_row(k);
          if (!s.ok()) return s;
          if (++taken >= r.limit) break;
        }
      }
      if (plan.single_row) break;
      switch (r.op) {
        case ScanOp::kEq: rc = h->ha_index_next_same(table->record[0], key_buf, plan.key_len); break;
        case ScanOp::kGe:
        case ScanOp::kGt: rc = h->ha_index_next(table->record[0]); break;
        case ScanOp::kLe:
        case ScanOp::kLt: rc = h->ha_index_prev(table->record[0]); break;
      }
    }
    if (rc != 0 && rc != HA_ERR_END_OF_FILE && rc != HA_ERR_KEY_NOT_FOUND) return EngineError(rc);
  }
  return EngineStatus::OK();
}

RowResult RowRequests::Modify(const ScanSpec& spec, const RowChange& change, OpenIndex* oi,
                              const RowTaker* take) {
  engine_error_ = 0;
  TABLE* table = oi->table();
  handler* h = table->file;
  const bool modifying = change.kind != RowWrite::kNone;
  const ScanPlan plan(spec, oi);
  PrepareFilters(spec, oi, plan);

  // A change to the scanned index's value moves the row within the scan, which
  // could then meet it again: such changes are made after the scan, on the rows it
  // found, each once. So are the changes of an IN list (two of its keys, or two of
  // its ranges, may meet one row: SQL's IN changes it once) and of a MEMORY table
  // (whose index scan does not survive a change to the table).
  const bool defer_changes =
      !plan.one_row && modifying &&
      (spec.has_in || ChangesScannedKey(change, oi) || table->file->ht->db_type == DB_TYPE_HEAP);
  deferred_rows_.clear();
  // An operation that may change several rows keeps their before-images, so that
  // an error half-way can undo the rows it had already changed.
  undo_.End();
  if (modifying && !plan.one_row) undo_.Begin(table);

  if (int rc = BeginScan(oi, modifying)) return Fail(rc);

  RowResult result;
  result.status = Scan(spec, oi, plan, [&](size_t k) -> EngineStatus {
    if (take != nullptr) {
      EngineStatus s = (*take)(k);
      if (!s.ok()) return s;
    }
    ++result.rows_read;
    if (defer_changes) {
      h->position(table->record[0]);
      deferred_rows_.append(reinterpret_cast<const char*>(h->ref), h->ref_length);
    } else if (modifying) {
      bool changed = false;
      if (int rc = ModifyRow(change, oi, &changed)) return EngineError(rc);
      result.rows_changed += changed;
    }
    return EngineStatus::OK();
  });
  if (result.status.ok() && defer_changes) {
    if (int rc = ModifyDeferredRows(change, oi, &result.rows_changed))
      result.status = EngineError(rc);
  }

  if (!result.status.ok()) {
    Undo(oi);
    RowResult failed;
    failed.status = result.status;
    failed.engine_error = engine_error_;
    return failed;
  }
  undo_.End();
  return result;
}

RowResult RowRequests::Read(const ScanSpec& r, OpenIndex* oi, RowTaker take) {
  engine_error_ = 0;
  const ScanPlan plan(r, oi);
  PrepareFilters(r, oi, plan);
  undo_.End();
  if (int rc = BeginScan(oi, false)) return Fail(rc);
  RowResult result;
  result.status = Scan(r, oi, plan, [&](size_t variant) -> EngineStatus {
    ++result.rows_read;
    return take(variant);
  });
  if (!result.status.ok()) {
    thd_->clear_error();
    result.engine_error = engine_error_;
  }
  return result;
}

// Filter values live in a scratch record, compared field by field (NULL is not
// stored: a NOT NULL column has no place for it). A column that several filters
// compare holds each one's value in turn, stored again before each comparison.
void RowRequests::PrepareFilters(const ScanSpec& r, OpenIndex* oi, const ScanPlan& plan) {
  const std::vector<Field*>& fcolumns = oi->filter_columns();
  shared_filter_.assign(r.filters.size(), false);
  filter_uses_.assign(fcolumns.size(), 0);
  for (const ScanFilter& f : r.filters) ++filter_uses_[f.column];
  for (size_t i = 0; i < r.filters.size(); ++i) {
    const ScanFilter& f = r.filters[i];
    shared_filter_[i] = filter_uses_[f.column] > 1;
    if (!f.value.is_null()) StoreField(fcolumns[f.column], f.value, plan.filter_offset);
  }
}

// Puts back what a failed change had changed; its error then tells the truth: it
// had no effect.
void RowRequests::Undo(OpenIndex* oi) {
  thd_->clear_error();
  if (!undo_.active()) return;
  EndScan(oi->entry());
  if (int undo_rc = undo_.Revert()) {
    static LogLimit undo_failed;
    LogLimited(&undo_failed, LogLevel::kError,
               "could not undo a failed request on %s.%s (error %d)", oi->entry()->db.c_str(),
               oi->entry()->name.c_str(), undo_rc);
  }
  thd_->clear_error();
}

// The answer to a handler or SQL error (`error` > 0), remembered for the result.
EngineStatus RowRequests::EngineError(int error) {
  engine_error_ = error;
  if (error == HA_ERR_LOCK_WAIT_TIMEOUT) ++locks_met_;
  return StatusOfError(error);
}

// What a handler or SQL error number says happened.
EngineStatus RowRequests::StatusOfError(int error) {
  switch (error) {
    case HA_ERR_LOCK_WAIT_TIMEOUT:
    case ER_LOCK_WAIT_TIMEOUT:
      return EngineStatus::LockWaitTimeout(error);
    case HA_ERR_LOCK_DEADLOCK:
    case ER_LOCK_DEADLOCK:
      return EngineStatus::Deadlock(error);
    default:
      return EngineStatus::StorageError(error);
  }
}

RowResult RowRequests::Fail(int error) {
  thd_->clear_error();
  if (error == HA_ERR_LOCK_WAIT_TIMEOUT) ++locks_met_;
  RowResult result;
  result.status = StatusOfError(error);
  result.engine_error = error;
  return result;
}

// Applies `change` to the row in record[0], with the server's rules
// for each written row (row_rules.h). Sets *changed unless a `-` would cross zero
// (the row is left alone). Returns a handler error, an SQL error, or 0.
int RowRequests::ModifyRow(const RowChange& change, OpenIndex* oi, bool* changed) {
  TABLE* table = oi->table();
  handler* h = table->file;
  THD* thd = thd_;
  *changed = false;
  if (change.kind == RowWrite::kDelete ? oi->entry()->delete_cascades_into_virtual
                                       : oi->entry()->update_cascades_into_virtual) {
    static LogLimit refused;
    LogLimited(&refused, LogLevel::kWarning,
               "a change of %s.%s is refused: a FOREIGN KEY would cascade it into a table "
               "with virtual columns, which only SQL can compute (error %d)",
               oi->entry()->db.c_str(), oi->entry()->name.c_str(), ER_NOT_SUPPORTED_YET);
    return ER_NOT_SUPPORTED_YET;
  }
  int rc = 0;
  if (change.kind == RowWrite::kDelete) {
    bool updated = false;
    rc = DeleteRow(table, &updated);
    if (rc == 0) updated ? undo_.RecordUpdate() : undo_.RecordDelete();
  } else {
    store_record(table, record[1]);
    table->reset_default_fields();
    WriteScope scope(thd);
    Arithmetic outcome = Arithmetic::kDone;
    for (size_t i = 0; i < change.values.size() && rc == 0; ++i) {
      Field* f = oi->columns()[change.Column(i)];
      if (change.kind == RowWrite::kUpdate) {
        rc = StoreWrittenValue(thd, f, change.values[i]);
      } else {
        rc = ApplyArithmetic(thd, f, change.values[i], change.kind == RowWrite::kDecrement,
                             &outcome);
        if (outcome == Arithmetic::kLeftAlone) break;
      }
    }
    bool unchanged = false;
    if (rc == 0 && outcome == Arithmetic::kDone) rc = CompleteUpdatedRow(thd, table, &unchanged);
    if (rc != 0 || outcome == Arithmetic::kLeftAlone) {
      restore_record(table, record[1]);
      return rc;
    }
    if (!unchanged) {
      rc = h->ha_update_row(table->record[1], table->record[0]);
      if (rc == HA_ERR_RECORD_IS_THE_SAME) {
        rc = 0;
      } else if (rc == 0) {
        undo_.RecordUpdate();
        rc = WriteHistoryRow(table, &undo_);
      }
    }
  }
  if (rc == 0) {
    *changed = true;
    oi->entry()->written = true;
  }
  return rc;
}

// Second phase of a find-and-modify whose changes move rows within its scan: visits
// the rows the scan found, by position, and changes each once.
int RowRequests::ModifyDeferredRows(const RowChange& change, OpenIndex* oi,
                                    uint64_t* changed) {
  TABLE* table = oi->table();
  handler* h = table->file;
  EndScan(oi->entry());
  int rc = h->ha_rnd_init(false);
  if (rc != 0) return rc;
  const size_t n = h->ref_length;
  std::unordered_set<std::string_view> seen;
  for (size_t at = 0; at + n <= deferred_rows_.size() && rc == 0; at += n) {
    if (!seen.insert(std::string_view(&deferred_rows_[at], n)).second) continue;
    rc = h->ha_rnd_pos(table->record[0], reinterpret_cast<uchar*>(&deferred_rows_[at]));
    if (rc != 0) break;
    bool row_changed = false;
    rc = ModifyRow(change, oi, &row_changed);
    *changed += row_changed;
  }
  h->ha_rnd_end();
  return rc;
}

RowResult RowRequests::Insert(const std::vector<RowValue>& values, OpenIndex* oi,
                              const std::vector<uint32_t>* at) {
  TABLE* table = oi->table();
  handler* h = table->file;
  const std::vector<Field*>& columns = oi->columns();

  EndScan(oi->entry());
  table->use_all_columns();
  table->mark_columns_per_binlog_row_image();
  restore_record(table, s->default_values);
  table->reset_default_fields();
  THD* thd = thd_;
  WriteScope scope(thd);
  bool autoinc_given = false;
  int rc = 0;
  for (size_t i = 0; i < values.size() && rc == 0; ++i) {
    Field* f = columns[at != nullptr ? (*at)[i] : i];
    // As in SQL, NULL for the AUTO_INCREMENT column asks for the next value.
    if (values[i].is_null() && f == table->found_next_number_field) continue;
    rc = StoreWrittenValue(thd, f, values[i]);
    if (f == table->found_next_number_field && !values[i].is_null()) autoinc_given = true;
  }
  if (rc == 0) rc = CompleteInsertedRow(thd, table);
  if (rc != 0) return Fail(rc);
  table->next_number_field = table->found_next_number_field;
  table->auto_increment_field_not_null = autoinc_given;
  rc = h->ha_write_row(table->record[0]);
  longlong id = 0;
  if (rc == 0 && table->next_number_field) id = table->next_number_field->val_int();
  const bool has_autoinc = table->next_number_field != nullptr;
  table->next_number_field = nullptr;
  table->auto_increment_field_not_null = false;
  h->ha_release_auto_increment();
  if (rc != 0) return Fail(rc);
  oi->entry()->written = true;
  RowResult result;
  result.rows_changed = 1;
  result.has_insert_id = has_autoinc;
  result.insert_id = static_cast<uint64_t>(id);
  return result;
}

// Requests of a group that read the same index with the same columns share one
// index scan: the engine builds its row template once, not per request. Modifying
// requests read every column (and mark the binlog row image), so theirs is shared by
// every open index on the same index of the table, whichever connection opened it;
// a read's, by every open index on that index whose read set is the same (the
// table's read set is then the first one's bitmap, which outlives the group: an
// open index replaced during a batch is freed only after it).
int RowRequests::BeginScan(OpenIndex* oi, bool all_columns) {
  TableEntry* e = oi->entry();
  if (e->scan_index != nullptr && e->scan_all_columns == all_columns &&
      (e->scan_index == oi ||
       (e->scan_key == oi->key_number() &&
        (all_columns || bitmap_cmp(e->table->read_set, oi->read_set())))))
    return 0;
  EndScan(e);
  TABLE* table = e->table;
  if (all_columns) {
    table->use_all_columns();
    table->mark_columns_per_binlog_row_image();
  } else {
    table->column_bitmaps_set(oi->read_set());
  }
  int rc = table->file->ha_index_init(oi->key_number(), true);
  if (rc == 0) {
    e->scan_index = oi;
    e->scan_key = oi->key_number();
    e->scan_all_columns = all_columns;
  }
  return rc;
}

void RowRequests::EndScan(TableEntry* e) {
  if (e->scan_index == nullptr) return;
  e->table->file->ha_index_end();
  e->scan_index = nullptr;
}

}  // namespace rowsocket
