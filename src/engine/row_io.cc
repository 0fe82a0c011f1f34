// Row I/O: Field <-> wire value conversions. Runs on a worker thread.
#include "engine/row_io.h"

#include <charconv>

namespace rowsocket {

bool IsNumericField(const Field* field) {
  switch (field->result_type()) {
    case INT_RESULT:
    case REAL_RESULT:
    case DECIMAL_RESULT:
      return field->type() != MYSQL_TYPE_BIT && field->cmp_type() != TIME_RESULT;
    default:
      return false;
  }
}

void WriteField(Field* field, ResponseWriter* writer, String* scratch) {
  if (field->is_null()) {
    writer->NullValue();
    return;
  }
  // Plain integer columns print as their decimal value; skip String machinery.
  switch (field->real_type()) {
    case MYSQL_TYPE_TINY:
    case MYSQL_TYPE_SHORT:
    case MYSQL_TYPE_INT24:
    case MYSQL_TYPE_LONG:
    case MYSQL_TYPE_LONGLONG:
      if (!(field->flags & ZEROFILL_FLAG)) {
        longlong v = field->val_int();
        if (field->is_unsigned())
          writer->UnsignedValue(static_cast<uint64_t>(v));
        else
          writer->IntegerValue(v);
        return;
      }
      break;
    default:
      break;
  }
  String* s = field->val_str(scratch, scratch);
  writer->WireValue(std::string_view(s->ptr(), s->length()));
}

bool StoreField(Field* field, const WireValue& value, my_ptrdiff_t offset) {
  if (value.is_null) {
    if (!field->real_maybe_null()) return false;
    field->set_null(offset);
    return true;
  }
  field->set_notnull(offset);
  if (offset != 0) field->move_field_offset(offset);
  field->store(value.data, value.size, field->charset());
  if (offset != 0) field->move_field_offset(-offset);
  return true;
}

int CompareFieldToStored(Field* field, my_ptrdiff_t offset) {
  bool a_null = field->is_null();
  bool b_null = field->is_null(offset);
  if (a_null || b_null) return a_null == b_null ? 0 : (a_null ? -1 : 1);
  return field->cmp(field->ptr, field->ptr + offset);
}

uint KeyLength(const KEY* key, size_t nparts) {
  uint length = 0;
  for (size_t i = 0; i < nparts; ++i) length += key->key_part[i].store_length;
  return length;
}

namespace {

// Key part `i`'s value in `r`: its key value, or IN value number `in_value`.
const WireValue& KeyValue(const Request& r, size_t in_value, size_t i) {
  return (r.has_in && i == r.in_key_part) ? r.in_values[in_value] : r.key[i];
}

}  // namespace

bool CopyKey(const Request& r, size_t in_value, KEY* key, uchar* out) {
  const size_t nparts = r.key.size();
  bool storable = true;
  for (size_t i = 0; i < nparts; ++i)
    storable &= StoreField(key->key_part[i].field, KeyValue(r, in_value, i));
  if (storable) key_copy(out, key->table->record[0], key, KeyLength(key, nparts));
  return storable;
}

void StoreKey(const Request& r, size_t in_value, KEY* key, my_ptrdiff_t offset) {
  for (size_t i = 0; i < r.key.size(); ++i)
    StoreField(WholeColumn(key->key_part[i]), KeyValue(r, in_value, i), offset);
}

}  // namespace rowsocket
