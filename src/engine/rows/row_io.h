// Row I/O: moving values between the wire and MariaDB's Field objects.
//
// Text out is what SQL prints for the column (Field::val_str), with fast paths for
// integers; text in is stored the way a non-strict SQL INSERT stores it
// (Field::store with the column's own character set, no conversion: bytes sent
// are bytes stored). NULL stays NULL, '' stays ''.
// Runs on a worker thread, with the field's table locked by that worker.
#pragma once

#include <string>

#include "engine/rows/row_spec.h"
#include "engine/server_headers.h"
#include "protocol/request.h"
#include "protocol/response.h"

namespace rowsocket {

// Appends the value of `field` in the current record[0] to the answer.
void WriteField(Field* field, ResponseWriter* writer);

// Appends the text of `field`'s value in the current record[0] to `out`, as
// WriteField answers it (NULL appends nothing).
void AppendFieldText(Field* field, std::string* out);

// The text of `field`'s value in the current record[0], as AppendFieldText appends
// it (NULL: empty), valid until the next use of `scratch` or the next read of the
// row (a BLOB's text is the record's own bytes: nothing is copied).
std::string_view FieldText(Field* field, String* scratch);

// The number `field` holds in the current record[0], as a T: 0 for NULL and for a
// value whose text is not a T (a negative number for an unsigned T, a word).
template <typename T>
T FieldNumber(Field* field, String* scratch);

// A HandlerSocket value as a row value: its bytes, or NULL.
inline RowValue RowValueOf(const WireValue& v) {
  return v.is_null ? RowValue::Null() : RowValue::Bytes(v.view());
}

// Stores `value` into `field` (of record[0] shifted by `offset` bytes): bytes as
// text of the column's character set, an integer as the number it is. Returns
// false if the value is NULL and the column is NOT NULL.
bool StoreField(Field* field, const RowValue& value, my_ptrdiff_t offset = 0);
bool StoreField(Field* field, const WireValue& value, my_ptrdiff_t offset = 0);

// Whether `value` is exactly a value of `field`'s column: stored into it (in
// record[0], as text of the column's character set) it reads back as the same
// bytes, the column's own text of that value. A value the column would truncate,
// round, convert or repair is none ("01", "1.4", "x" or "-1" for an INT UNSIGNED;
// 11 characters for a VARCHAR(10); bytes invalid in the column's character set),
// except trailing spaces that a PAD SPACE collation ignores, as SQL's WHERE does.
// May leave the value in the field (record[0]); raises no warning.
bool HoldsExactly(Field* field, std::string_view value, String* scratch);
// HoldsExactly, and the value a find of that row stores as its key: the number for
// an integer column (parsed once), else `value` itself (which must outlive *key).
bool ExactKey(Field* field, std::string_view value, String* scratch, RowValue* key);

// Bytes of the key image of the first `nparts` parts of `key`.
uint KeyLength(const KEY* key, size_t nparts);

// Stores the key values of `spec` (with IN value number `in_value` in the IN key
// part, if any) into record[0] and copies their key image (KeyLength bytes) to `out`;
// the value of a key of one VARBINARY part goes to `out` alone.
// Returns false, copying nothing, if a value is NULL for a NOT NULL part: such a key
// finds nothing. The Request form takes its key values (no IN value).
bool CopyKey(const ScanSpec& spec, size_t in_value, KEY* key, uchar* out);
bool CopyKey(const Request& r, KEY* key, uchar* out);

// The table's column behind a key part. (A part that indexes a prefix of its
// column has a field of its own, as long as the prefix.)
inline Field* WholeColumn(const KEY_PART_INFO& part) {
  return part.field->table->field[part.fieldnr - 1];
}

// Stores the whole key values of `spec` (as CopyKey picks them) into the key's
// columns of a record `offset` bytes from record[0], where CompareFieldToStored
// finds them.
void StoreKey(const ScanSpec& spec, size_t in_value, KEY* key, my_ptrdiff_t offset);

// Compares the field in record[0] with the same field in a record shifted by
// `offset` (where a filter value was stored). NULLs compare like SQL's `<=>`:
// equal to each other, below every value.
int CompareFieldToStored(Field* field, my_ptrdiff_t offset);

// True for columns the filter and arithmetic code treats as numbers.
bool IsNumericField(const Field* field);

}  // namespace rowsocket
