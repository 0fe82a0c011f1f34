// The requests that touch rows: find (with filters, IN, limit/offset), find and
// modify (U, +, -, D and their `?` forms), and insert. Each runs inside a batch whose
// tables are locked (executor.cc). Runs on a worker thread.
#include "engine/executor.h"
#include "engine/row_io.h"
#include "engine/row_rules.h"
#include "server/log.h"

namespace rowsocket {
namespace {

ha_rkey_function ReadFlag(FindOp op, bool prefix) {
  switch (op) {
    case FindOp::kEq: return HA_READ_KEY_EXACT;
    case FindOp::kGe: return HA_READ_KEY_OR_NEXT;
    case FindOp::kGt: return HA_READ_AFTER_KEY;
    case FindOp::kLe: return prefix ? HA_READ_PREFIX_LAST_OR_PREV : HA_READ_KEY_OR_PREV;
    case FindOp::kLt: return HA_READ_BEFORE_KEY;
  }
  return HA_READ_KEY_EXACT;
}

bool FilterHolds(CompareOp op, int cmp) {
  switch (op) {
    case CompareOp::kEq: return cmp == 0;
    case CompareOp::kNe: return cmp != 0;
    case CompareOp::kLt: return cmp < 0;
    case CompareOp::kLe: return cmp <= 0;
    case CompareOp::kGt: return cmp > 0;
    case CompareOp::kGe: return cmp >= 0;
  }
  return false;
}

enum class RowVerdict { kTake, kSkip, kStop };

// Whether a row whose key, compared part by part with the request's key, gives
// `cmp` lies where `op` looks.
bool KeyHolds(FindOp op, int cmp) {
  switch (op) {
    case FindOp::kEq: return cmp == 0;
    case FindOp::kGe: return cmp >= 0;
    case FindOp::kGt: return cmp > 0;
    case FindOp::kLe: return cmp <= 0;
    case FindOp::kLt: return cmp < 0;
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

void EngineExecutor::Find(const Request& r, OpenIndex* oi, ResponseWriter* w) {
  TABLE* table = oi->table();
  handler* h = table->file;
  KEY* key = oi->key();
  const std::vector<Field*>& columns = oi->columns();
  const std::vector<Field*>& fcolumns = oi->filter_columns();
  const bool modifying = r.modify != ModifyOp::kNone;

  // Filter values live in a scratch record, compared field by field.
  const my_ptrdiff_t filter_offset = oi->filter_record() - table->record[0];
  for (const Filter& f : r.filters) StoreField(fcolumns[f.column], f.value, filter_offset);

  const size_t nparts = r.key.size();
  const key_part_map keypart_map = (key_part_map{1} << nparts) - 1;
  const uint key_len = KeyLength(key, nparts);
  bool key_nullable = false;
  for (size_t i = 0; i < nparts; ++i) key_nullable |= key->key_part[i].null_bit != 0;
  // An exact lookup on a whole unique key finds at most one row.
  const bool single_row = r.op == FindOp::kEq && nparts == key->user_defined_key_parts &&
                          (key->flags & HA_NOSAME) && !key_nullable;
  const ha_rkey_function flag = ReadFlag(r.op, nparts < key->user_defined_key_parts);
  // Changing a column of the scanned index (or of the primary key, which every
  // secondary index carries) moves the row within the scan, which could then meet it
  // again. Such changes are made after the scan, on the rows it found.
  const bool defer_changes = !single_row && ChangesScannedKey(r, oi);
  deferred_rows_.clear();
  // A request that may change several rows keeps their before-images, so that an
  // error half-way can undo the rows it had already changed.
  undo_.End();
  if (modifying && !single_row) undo_.Begin(table);

  int rc = BeginScan(oi, modifying);
  if (rc != 0) return w->Error(Status::StorageCode(rc));

  const size_t mark = w->Mark();
  const bool rows_answer = !modifying || r.return_rows;
  if (rows_answer) w->BeginRows(static_cast<uint32_t>(columns.size()));
  uint64_t skipped = 0, taken = 0, changed = 0;
  const size_t variants = r.has_in ? r.in_values.size() : 1;
  uchar* key_buf = oi->key_buffer();
  // The request's budget: rows read (each key looked up counts as one), and the
  // bytes of its answer. Past either it answers an error and changes nothing.
  const uint64_t max_examined = options_.tunables->max_rows_examined.load(std::memory_order_relaxed);
  const uint64_t max_answer = options_.tunables->max_answer_size.load(std::memory_order_relaxed);
  uint64_t examined = 0;
  Status over_budget;

  // An index that keeps only a prefix of a column finds every row that shares the
  // prefix; the whole values decide, as SQL's WHERE does. The request's key is kept
  // in a scratch record to compare them.
  const bool recheck_key = oi->HasPrefixPart(nparts);
  const my_ptrdiff_t key_offset = oi->key_record() - table->record[0];

  for (size_t k = 0; k < variants && taken < r.limit; ++k) {
    if (max_examined != 0 && ++examined > max_examined) {
      over_budget = Status::BadRequest("rowsexamined");
      break;
    }
    if (!CopyKey(r, k, key, key_buf)) continue;  // NULL for a NOT NULL part: no match
    if (recheck_key) StoreKey(r, k, key, key_offset);

    rc = h->ha_index_read_map(table->record[0], key_buf, keypart_map, flag);
    while (rc == 0) {
      if (max_examined != 0 && ++examined > max_examined) {
        over_budget = Status::BadRequest("rowsexamined");
        break;
      }
      if (thread_.thd()->killed != NOT_KILLED) {
        over_budget = Status::Storage("killed");
        break;
      }
      RowVerdict verdict = RowVerdict::kTake;
      // History rows of a system-versioned table are not there for a find, as for
      // SQL's SELECT.
      if (!IsCurrentRow(table) ||
          (recheck_key && !KeyHolds(r.op, CompareKeyToStored(key, nparts, key_offset))))
        verdict = RowVerdict::kSkip;
      for (const Filter& f : r.filters) {
        if (verdict != RowVerdict::kTake) break;
        if (!FilterHolds(f.op, CompareFieldToStored(fcolumns[f.column], filter_offset))) {
          verdict = f.kind == FilterKind::kStop ? RowVerdict::kStop : RowVerdict::kSkip;
          break;
        }
      }
      if (verdict == RowVerdict::kStop) break;
      if (verdict == RowVerdict::kTake) {
        if (skipped < r.offset) {
          ++skipped;
        } else {
          if (rows_answer) {
            for (Field* f : columns) WriteField(f, w, &scratch_);
            if (max_answer != 0 && w->Mark() - mark > max_answer) {
              over_budget = Status::BadRequest("answersize");
              break;
            }
          }
          if (defer_changes) {
            h->position(table->record[0]);
            deferred_rows_.append(reinterpret_cast<const char*>(h->ref), h->ref_length);
          } else if (modifying) {
            bool change = false;
            rc = ModifyRow(r, oi, &change);
            if (rc != 0) break;
            changed += change;
          }
          if (++taken >= r.limit) break;
        }
      }
      if (single_row) {
        rc = HA_ERR_END_OF_FILE;
        break;
      }
      switch (r.op) {
        case FindOp::kEq: rc = h->ha_index_next_same(table->record[0], key_buf, key_len); break;
        case FindOp::kGe:
        case FindOp::kGt: rc = h->ha_index_next(table->record[0]); break;
        case FindOp::kLe:
        case FindOp::kLt: rc = h->ha_index_prev(table->record[0]); break;
      }
    }
    if (!over_budget.ok() ||
        (rc != 0 && rc != HA_ERR_END_OF_FILE && rc != HA_ERR_KEY_NOT_FOUND))
      break;
    rc = 0;
  }

  if (rc == 0 && over_budget.ok() && defer_changes) rc = ModifyDeferredRows(r, oi, &changed);

  if (rc != 0 || !over_budget.ok()) {
    w->Truncate(mark);
    thread_.thd()->clear_error();
    if (undo_.active()) {
      EndScan(oi->entry());
      if (int undo_rc = undo_.Revert()) {
        Log(LogLevel::kError, "could not undo a failed request on %s.%s (error %d)",
            oi->entry()->db.c_str(), oi->entry()->name.c_str(), undo_rc);
      }
      thread_.thd()->clear_error();
    }
    if (!over_budget.ok()) return w->Error(over_budget);
    CountEngineError(rc);
    return w->Error(Status::StorageCode(rc));
  }
  undo_.End();
  stats_->rows_read.Add(taken);
  if (r.modify == ModifyOp::kDelete)
    stats_->rows_deleted.Add(changed);
  else if (modifying)
    stats_->rows_updated.Add(changed);
  if (rows_answer)
    w->EndRows();
  else
    w->OkWithNumber(changed);
}

// Applies the modify part of `r` to the row in record[0], with the server's rules
// for each written row (row_rules.h). Sets *changed unless a `-` would cross zero
// (the row is left alone). Returns a handler error, an SQL error, or 0.
int EngineExecutor::ModifyRow(const Request& r, OpenIndex* oi, bool* changed) {
  TABLE* table = oi->table();
  handler* h = table->file;
  THD* thd = thread_.thd();
  *changed = false;
  int rc = 0;
  if (r.modify == ModifyOp::kDelete) {
    bool updated = false;
    rc = DeleteRow(table, &updated);
    if (rc == 0) updated ? undo_.RecordUpdate() : undo_.RecordDelete();
  } else {
    store_record(table, record[1]);
    table->reset_default_fields();
    WriteScope scope(thd);
    Arithmetic outcome = Arithmetic::kDone;
    for (size_t i = 0; i < r.modify_values.size() && rc == 0; ++i) {
      Field* f = oi->columns()[i];
      if (r.modify == ModifyOp::kUpdate) {
        rc = StoreWrittenValue(thd, f, r.modify_values[i]);
      } else {
        rc = ApplyArithmetic(thd, f, r.modify_values[i], r.modify == ModifyOp::kDecrement,
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
int EngineExecutor::ModifyDeferredRows(const Request& r, OpenIndex* oi, uint64_t* changed) {
  TABLE* table = oi->table();
  handler* h = table->file;
  EndScan(oi->entry());
  int rc = h->ha_rnd_init(false);
  if (rc != 0) return rc;
  const size_t n = h->ref_length;
  for (size_t at = 0; at + n <= deferred_rows_.size() && rc == 0; at += n) {
    rc = h->ha_rnd_pos(table->record[0], reinterpret_cast<uchar*>(&deferred_rows_[at]));
    if (rc != 0) break;
    bool change = false;
    rc = ModifyRow(r, oi, &change);
    *changed += change;
  }
  h->ha_rnd_end();
  return rc;
}

void EngineExecutor::Insert(const Request& r, OpenIndex* oi, ResponseWriter* w) {
  TABLE* table = oi->table();
  handler* h = table->file;
  const std::vector<Field*>& columns = oi->columns();

  EndScan(oi->entry());
  table->use_all_columns();
  table->mark_columns_per_binlog_row_image();
  restore_record(table, s->default_values);
  table->reset_default_fields();
  THD* thd = thread_.thd();
  WriteScope scope(thd);
  bool autoinc_given = false;
  int rc = 0;
  for (size_t i = 0; i < r.key.size() && rc == 0; ++i) {
    Field* f = columns[i];
    // As in SQL, NULL for the AUTO_INCREMENT column asks for the next value.
    if (r.key[i].is_null && f == table->found_next_number_field) continue;
    rc = StoreWrittenValue(thd, f, r.key[i]);
    if (f == table->found_next_number_field && !r.key[i].is_null) autoinc_given = true;
  }
  if (rc == 0) rc = CompleteInsertedRow(thd, table);
  if (rc != 0) return w->Error(Status::StorageCode(rc));
  table->next_number_field = table->found_next_number_field;
  table->auto_increment_field_not_null = autoinc_given;
  rc = h->ha_write_row(table->record[0]);
  longlong id = 0;
  if (rc == 0 && table->next_number_field) id = table->next_number_field->val_int();
  const bool has_autoinc = table->next_number_field != nullptr;
  table->next_number_field = nullptr;
  table->auto_increment_field_not_null = false;
  h->ha_release_auto_increment();
  if (rc != 0) {
    thread_.thd()->clear_error();
    CountEngineError(rc);
    return w->Error(Status::StorageCode(rc));
  }
  oi->entry()->written = true;
  stats_->rows_inserted.Add();
  if (has_autoinc)
    w->OkWithNumber(static_cast<uint64_t>(id));
  else
    w->Ok();
}

// Requests of a batch that read the same index with the same columns share one
// index scan: the engine builds its row template once, not per request. Modifying
// requests read every column (and mark the binlog row image).
int EngineExecutor::BeginScan(OpenIndex* oi, bool all_columns) {
  TableEntry* e = oi->entry();
  if (e->scan_index == oi && e->scan_all_columns == all_columns) return 0;
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
    e->scan_all_columns = all_columns;
  }
  return rc;
}

void EngineExecutor::EndScan(TableEntry* e) {
  if (e->scan_index == nullptr) return;
  e->table->file->ha_index_end();
  e->scan_index = nullptr;
}

void EngineExecutor::CountEngineError(int error) {
  if (error == HA_ERR_LOCK_WAIT_TIMEOUT) stats_->lock_wait_timeouts.Add();
  if (error == HA_ERR_LOCK_DEADLOCK) stats_->deadlocks.Add();
}

}  // namespace rowsocket
