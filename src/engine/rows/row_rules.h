// Row rules: what SQL does around each row it writes, done with the server's own
// code, so that rowsocket never stores a row SQL would refuse and never leaves an
// index out of step with its table:
//   - values are stored under the server's sql_mode: in strict mode a value SQL
//     refuses (out of range, not a number, too long) fails the request with SQL's
//     error, as the same INSERT or UPDATE would;
//   - `+` and `-` compute as SQL does: exactly for integers and DECIMAL, with SQL's
//     out-of-range errors instead of wrapping;
//   - column defaults (DEFAULT expressions, CURRENT_TIMESTAMP) on insert, a column
//     with no default and no value refused in strict mode, and ON UPDATE values
//     when an update changes the row;
//   - generated columns, virtual and stored, computed for every written row (the
//     hidden hash of a UNIQUE over long values too, which the handler then checks);
//   - CHECK constraints;
//   - system versioning: a new or changed row starts a period, an update keeps the
//     old version as history, a delete ends the row's period.
// Errors are SQL error numbers (ER_*), answered as `1 1 <number>`.
// Runs on a worker thread with the table locked for writing.
#pragma once

#include "engine/server_headers.h"
#include "engine/rows/row_undo.h"
#include "engine/rows/row_spec.h"

namespace rowsocket {

// While one lives, stores into fields count as SQL's writes: warnings a strict
// sql_mode turns into errors do so. Lookup keys and filter values are stored
// outside it, leniently, as a WHERE clause compares them.
class WriteScope {
 public:
  explicit WriteScope(THD* thd);
  ~WriteScope();
  WriteScope(const WriteScope&) = delete;
  WriteScope& operator=(const WriteScope&) = delete;

 private:
  THD* thd_;
  enum_check_fields saved_count_cuted_fields_;
  bool saved_abort_on_warning_;
};

// Takes the error the server raised on `thd` (clearing it): its SQL error number,
// or `fallback` if none was raised.
int TakeServerError(THD* thd, int fallback);

// Stores a written value into `field` of record[0] and marks it given explicitly.
// Returns 0 or an SQL error (ER_BAD_NULL_ERROR, out of range, truncated, ...).
int StoreWrittenValue(THD* thd, Field* field, const RowValue& value);

// What `+` / `-` did to one column.
enum class Arithmetic { kDone, kLeftAlone };
// Adds (or subtracts) `delta` to the numeric `field` of record[0] (or to the
// integer value of a text column). A `-` that would take a value across zero
// leaves the row alone (the protocol's rule); a NULL stays NULL. Returns 0 with
// *outcome set, or an SQL error.
int ApplyArithmetic(THD* thd, Field* field, const RowValue& delta, bool subtract,
                    Arithmetic* outcome);

// After the given values are in record[0] of a new row: defaults, period, generated
// columns, CHECK constraints. Returns 0 or an SQL error.
int CompleteInsertedRow(THD* thd, TABLE* table);

// After the new values are in record[0] (the row as read in record[1]): whether the
// row changes at all (SQL writes nothing, not even an ON UPDATE value, when it does
// not); if it does, ON UPDATE values, period, generated columns, CHECK constraints.
// Returns 0 or an SQL error; *unchanged says the row needs no write.
int CompleteUpdatedRow(THD* thd, TABLE* table, bool* unchanged);

// After ha_update_row of a row of a table versioned by timestamps: writes the row
// as it was (record[1]) as history, ending now, and records that in `undo`.
// Returns 0 or a handler error.
int WriteHistoryRow(TABLE* table, RowUndo* undo);

// Deletes the row in record[0] the way SQL's DELETE does: a table versioned by
// timestamps ends the row's period instead (an update; record[1] then holds the row
// as it was). Returns 0 or a handler error; *updated says it was an update.
int DeleteRow(TABLE* table, bool* updated);

// Whether the row in record[0] is a current row (not a history row of a
// system-versioned table).
inline bool IsCurrentRow(TABLE* table) {
  return !table->versioned() || table->vers_end_field()->is_max();
}

}  // namespace rowsocket
