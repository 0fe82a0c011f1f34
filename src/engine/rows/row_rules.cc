// Row rules: the server's per-row work around rowsocket's writes (see row_rules.h).
// Runs on a worker thread inside a write batch.
#include "engine/rows/row_rules.h"

#include <charconv>
#include <cstdlib>
#include <string>

#include "engine/rows/row_io.h"
#include "sql_insert.h"  // check_that_all_fields_are_given_values
#include "sql_update.h"  // compare_record, records_are_comparable

namespace rowsocket {

WriteScope::WriteScope(THD* thd)
    : thd_(thd),
      saved_count_cuted_fields_(thd->count_cuted_fields),
      saved_abort_on_warning_(thd->abort_on_warning) {
  // The server's sql_mode as it is now: SET GLOBAL sql_mode reaches rowsocket's
  // threads with their next write, as it reaches new SQL sessions.
  thd->variables.sql_mode = global_system_variables.sql_mode;
  thd->count_cuted_fields = CHECK_FIELD_WARN;
  thd->abort_on_warning = thd->is_strict_mode();
}

WriteScope::~WriteScope() {
  thd_->count_cuted_fields = saved_count_cuted_fields_;
  thd_->abort_on_warning = saved_abort_on_warning_;
}

int TakeServerError(THD* thd, int fallback) {
  int error = fallback;
  if (thd->is_error()) error = static_cast<int>(thd->get_stmt_da()->sql_errno());
  thd->clear_error();
  return error;
}

int StoreWrittenValue(THD* thd, Field* field, const RowValue& value) {
  if (!StoreField(field, value)) return ER_BAD_NULL_ERROR;
  field->set_has_explicit_value();
  return thd->is_error() ? TakeServerError(thd, ER_UNKNOWN_ERROR) : 0;
}

namespace {

// The delta as the protocol reads it: leading digits, like the original's parser.
// (An integer delta is that integer.)
__int128 IntegerDelta(const RowValue& v) {
  if (v.kind == RowValue::Kind::kUnsigned) return static_cast<__int128>(v.number);
  if (v.kind == RowValue::Kind::kSigned) return static_cast<int64_t>(v.number);
  std::string text(v.bytes());
  return std::strtoll(text.c_str(), nullptr, 10);
}

// The delta as text, for a DECIMAL or floating-point column.
std::string_view DeltaText(const RowValue& v, char (&digits)[24]) {
  if (!v.is_integer()) return v.bytes();
  const auto r = v.kind == RowValue::Kind::kUnsigned
                     ? std::to_chars(digits, digits + sizeof digits, v.number)
                     : std::to_chars(digits, digits + sizeof digits, static_cast<int64_t>(v.number));
  return std::string_view(digits, static_cast<size_t>(r.ptr - digits));
}

int StoreInteger(THD* thd, Field* f, __int128 value) {
  const bool fits = f->is_unsigned() ? value >= 0 && value <= static_cast<__int128>(UINT64_MAX)
                                     : value >= INT64_MIN && value <= INT64_MAX;
  if (!fits) return ER_DATA_OUT_OF_RANGE;
  f->store(static_cast<longlong>(value), f->is_unsigned());
  return thd->is_error() ? TakeServerError(thd, ER_WARN_DATA_OUT_OF_RANGE) : 0;
}

// The protocol's rule for `-`: a value that would change sign is left alone.
template <typename Number>
bool CrossesZero(bool subtract, Number old, Number updated) {
  return subtract && (old >= 0) != (updated >= 0);
}

// The integer value `+`/`-` start from. Text holding a number counts by its
// integer value, as in the original plugin ('1.5' + 3 is 4); text that is no number
// at all is refused in strict mode, as SQL's `v + 3` refuses it. Returns 0 or an
// SQL error.
int IntegerValue(THD* thd, Field* f, __int128* value) {
  if (f->result_type() == INT_RESULT) {
    *value = f->is_unsigned() ? static_cast<__int128>(static_cast<ulonglong>(f->val_int()))
                              : static_cast<__int128>(f->val_int());
    return 0;
  }
  f->val_real();
  if (thd->is_error()) return TakeServerError(thd, ER_TRUNCATED_WRONG_VALUE);
  const bool strict = thd->abort_on_warning;
  thd->abort_on_warning = false;  // '1.5' is a number: its integer part counts
  *value = f->val_int();
  thd->abort_on_warning = strict;
  return 0;
}

}  // namespace

int ApplyArithmetic(THD* thd, Field* f, const RowValue& delta, bool subtract,
                    Arithmetic* outcome) {
  *outcome = Arithmetic::kDone;
  f->set_has_explicit_value();
  if (f->is_null()) return 0;  // NULL + n is NULL, as in SQL
  switch (f->result_type()) {
    case INT_RESULT:
    case STRING_RESULT: {
      __int128 old = 0;
      if (int error = IntegerValue(thd, f, &old)) return error;
      const __int128 d = IntegerDelta(delta);
      const __int128 updated = subtract ? old - d : old + d;
      if (CrossesZero(subtract, old, updated)) {
        *outcome = Arithmetic::kLeftAlone;
        return 0;
      }
      return StoreInteger(thd, f, updated);
    }
    case DECIMAL_RESULT: {
      my_decimal old_buf, d, updated;
      const my_decimal* old = f->val_decimal(&old_buf);
      // Leniently, like the integer delta: what parses of it counts.
      char digits[24];
      const std::string_view text = DeltaText(delta, digits);
      str2my_decimal(0, text.data(), text.size(), &my_charset_bin, &d);
      const int result = subtract ? my_decimal_sub(0, &updated, old, &d)
                                  : my_decimal_add(0, &updated, old, &d);
      if (result & E_DEC_OVERFLOW) return ER_DATA_OUT_OF_RANGE;
      if (subtract && old->sign() != updated.sign() && !my_decimal_is_zero(&updated)) {
        *outcome = Arithmetic::kLeftAlone;
        return 0;
      }
      f->store_decimal(&updated);
      return thd->is_error() ? TakeServerError(thd, ER_WARN_DATA_OUT_OF_RANGE) : 0;
    }
    default: {
      char digits[24];
      std::string text(DeltaText(delta, digits));
      const double d = std::strtod(text.c_str(), nullptr);
      const double old = f->val_real();
      const double updated = subtract ? old - d : old + d;
      if (CrossesZero(subtract, old, updated)) {
        *outcome = Arithmetic::kLeftAlone;
        return 0;
      }
      f->store(updated);
      return thd->is_error() ? TakeServerError(thd, ER_WARN_DATA_OUT_OF_RANGE) : 0;
    }
  }
}

namespace {

// Generated columns, then CHECK constraints: the last steps of every written row.
int ComputeAndCheck(THD* thd, TABLE* table) {
  if (table->vfield && table->update_virtual_fields(table->file, VCOL_UPDATE_FOR_WRITE))
    return TakeServerError(thd, ER_UNKNOWN_ERROR);
  if (table->verify_constraints(false) == VIEW_CHECK_ERROR)
    return TakeServerError(thd, ER_CONSTRAINT_FAILED);
  return thd->is_error() ? TakeServerError(thd, ER_UNKNOWN_ERROR) : 0;
}

}  // namespace

int CompleteInsertedRow(THD* thd, TABLE* table) {
  // A column the request gives no value and that has no default: strict SQL
  // refuses the row (1364); otherwise it takes its type's implicit default. The
  // server's check reads the columns an INSERT names from write_set; here they
  // are the ones given explicitly.
  MY_BITMAP* write_set = table->write_set;
  table->write_set = &table->has_value_set;
  const int missing = check_that_all_fields_are_given_values(thd, table, nullptr);
  table->write_set = write_set;
  if (missing) return TakeServerError(thd, ER_NO_DEFAULT_FOR_FIELD);
  if (table->default_field && table->update_default_fields(false))
    return TakeServerError(thd, ER_UNKNOWN_ERROR);
  if (table->versioned()) table->vers_update_fields();
  return ComputeAndCheck(thd, table);
}

int CompleteUpdatedRow(THD* thd, TABLE* table, bool* unchanged) {
  *unchanged = false;
  if (table->s->has_update_default_function) table->evaluate_update_default_function();
  if (table->versioned()) table->vers_update_fields();
  if (table->vfield && table->update_virtual_fields(table->file, VCOL_UPDATE_FOR_WRITE))
    return TakeServerError(thd, ER_UNKNOWN_ERROR);
  if (thd->is_error()) return TakeServerError(thd, ER_UNKNOWN_ERROR);
  if (records_are_comparable(table) && !compare_record(table)) {
    *unchanged = true;
    return 0;
  }
  return ComputeAndCheck(thd, table);
}

int WriteHistoryRow(TABLE* table, RowUndo* undo) {
  if (!table->versioned(VERS_TIMESTAMP)) return 0;
  store_record(table, record[2]);
  restore_record(table, record[1]);
  table->vers_update_end();
  int rc = 0;
  Field* start = table->vers_start_field();
  Field* end = table->vers_end_field();
  // A row that lived no time at all (changed twice at one instant) leaves no history.
  if (start->cmp(start->ptr, end->ptr) < 0) {
    rc = table->file->ha_write_row(table->record[0]);
    if (rc == 0) undo->RecordInsert();
  }
  restore_record(table, record[2]);
  return rc;
}

int DeleteRow(TABLE* table, bool* updated) {
  if (table->vfield) table->update_virtual_fields(table->file, VCOL_UPDATE_FOR_DELETE);
  *updated = table->versioned(VERS_TIMESTAMP);
  return table->delete_row();
}

}  // namespace rowsocket
