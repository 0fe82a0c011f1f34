// Row I/O: Field <-> wire value conversions. Runs on a worker thread.
#include "engine/rows/row_io.h"

#include <charconv>
#include <limits>
#include <type_traits>

#include "protocol/decimal.h"

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

namespace {

// The bits of a plain integer column's values: an integer column without ZEROFILL,
// whose text is its decimal value. 0 for any other column.
int PlainIntegerBits(const Field* field) {
  if (field->flags & ZEROFILL_FLAG) return 0;
  switch (field->real_type()) {
    case MYSQL_TYPE_TINY: return 8;
    case MYSQL_TYPE_SHORT: return 16;
    case MYSQL_TYPE_INT24: return 24;
    case MYSQL_TYPE_LONG: return 32;
    case MYSQL_TYPE_LONGLONG: return 64;
    default: return 0;
  }
}

bool IsPlainInteger(const Field* field) { return PlainIntegerBits(field) != 0; }

// A plain integer column's text of its value in record[0].
void AppendIntegerText(Field* field, std::string* out) {
  char text[24];
  const longlong v = field->val_int();
  const std::to_chars_result r =
      field->is_unsigned() ? std::to_chars(text, text + sizeof text, static_cast<ulonglong>(v))
                           : std::to_chars(text, text + sizeof text, v);
  out->append(text, static_cast<size_t>(r.ptr - text));
}

// A plain integer column's value of which `value` is the column's text (decimal.h).
bool IntegerOfText(const Field* field, std::string_view value, longlong* number) {
  int64_t v = 0;
  if (!ParseColumnInteger(value, PlainIntegerBits(field), field->is_unsigned(), &v)) return false;
  *number = static_cast<longlong>(v);
  return true;
}

}  // namespace

void WriteField(Field* field, ResponseWriter* writer) {
  if (field->is_null()) {
    writer->NullValue();
    return;
  }
  // Plain integer columns print as their decimal value; skip String machinery.
  if (IsPlainInteger(field)) {
    const longlong v = field->val_int();
    if (field->is_unsigned())
      writer->UnsignedValue(static_cast<uint64_t>(v));
    else
      writer->IntegerValue(v);
    return;
  }
  StringBuffer<MAX_FIELD_WIDTH> text;  // (see AppendFieldText)
  const String* s = field->val_str(&text, &text);
  writer->WireValue(std::string_view(s->ptr(), s->length()));
}

void AppendFieldText(Field* field, std::string* out) {
  if (field->is_null()) return;
  if (IsPlainInteger(field)) return AppendIntegerText(field, out);
  // A buffer of its own: a text column's val_str points the String at the record,
  // which would make the next temporal or numeric column's text allocate again.
  StringBuffer<MAX_FIELD_WIDTH> text;
  const String* s = field->val_str(&text, &text);
  out->append(s->ptr(), s->length());
}

std::string_view FieldText(Field* field, String* scratch) {
  if (field->is_null()) return {};
  const String* s = field->val_str(scratch, scratch);
  return std::string_view(s->ptr(), s->length());
}

template <typename T>
T FieldNumber(Field* field, String* scratch) {
  if (field->is_null()) return 0;
  if (IsPlainInteger(field)) {
    const longlong v = field->val_int();
    if (v < 0 && !field->is_unsigned()) return std::is_signed_v<T> ? static_cast<T>(v) : 0;
    const auto u = static_cast<ulonglong>(v);
    return u <= static_cast<ulonglong>(std::numeric_limits<T>::max()) ? static_cast<T>(u) : 0;
  }
  const String* s = field->val_str(scratch, scratch);
  T n = 0;
  const char* end = s->ptr() + s->length();
  return std::from_chars(s->ptr(), end, n).ptr == end ? n : 0;
}
template uint64_t FieldNumber<uint64_t>(Field*, String*);
template uint32_t FieldNumber<uint32_t>(Field*, String*);
template int64_t FieldNumber<int64_t>(Field*, String*);

bool StoreField(Field* field, const RowValue& value, my_ptrdiff_t offset) {
  if (value.is_null()) {
    if (!field->real_maybe_null()) return false;
    field->set_null(offset);
    return true;
  }
  field->set_notnull(offset);
  if (offset != 0) field->move_field_offset(offset);
  longlong number = 0;
  if (value.is_integer())
    field->store(static_cast<longlong>(value.number), value.kind == RowValue::Kind::kUnsigned);
  else if (IsPlainInteger(field) && IntegerOfText(field, std::string_view(value.data, value.size),
                                                  &number))
    field->store(number, field->is_unsigned());  // what the text's conversion stores
  else
    field->store(value.data, value.size, field->charset());
  if (offset != 0) field->move_field_offset(-offset);
  return true;
}

bool StoreField(Field* field, const WireValue& value, my_ptrdiff_t offset) {
  return StoreField(field, RowValueOf(value), offset);
}

namespace {

// A VARBINARY column: it keeps any bytes up to its length as they are.
bool IsVarbinary(const Field* field) {
  return field->real_type() == MYSQL_TYPE_VARCHAR && field->charset() == &my_charset_bin;
}

}  // namespace

bool ExactKey(Field* field, std::string_view value, String* scratch, RowValue* key) {
  longlong number = 0;
  if (IsPlainInteger(field)) {
    if (!IntegerOfText(field, value, &number)) return false;
    *key = field->is_unsigned() ? RowValue::Unsigned(static_cast<uint64_t>(number))
                                : RowValue::Signed(number);
    return true;
  }
  if (!HoldsExactly(field, value, scratch)) return false;
  *key = RowValue::Bytes(value);
  return true;
}

bool HoldsExactly(Field* field, std::string_view value, String* scratch) {
  if (IsVarbinary(field)) return value.size() <= field->field_length;
  longlong number = 0;
  if (IsPlainInteger(field)) return IntegerOfText(field, value, &number);
  THD* thd = field->table->in_use;
  const enum_check_fields saved = thd->count_cuted_fields;
  thd->count_cuted_fields = CHECK_FIELD_IGNORE;
  field->set_notnull();
  field->store(value.data(), value.size(), field->charset());
  thd->count_cuted_fields = saved;
  const String* s = field->val_str(scratch, scratch);
  const std::string_view held(s->ptr(), s->length());
  if (held == value) return true;
  // Under a PAD SPACE collation trailing spaces do not count in SQL's comparisons: a
  // text value that lost only trailing spaces (CHAR keeps none, VARCHAR(n) those
  // within n) is still the value SQL's WHERE matches.
  const CHARSET_INFO* cs = field->charset();
  if (field->result_type() != STRING_RESULT || cs == &my_charset_bin ||
      (cs->state & MY_CS_NOPAD) || cs->mbminlen != 1 || value.size() < held.size())
    return false;
  return value.compare(0, held.size(), held) == 0 &&
         value.find_first_not_of(' ', held.size()) == std::string_view::npos;
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

// The image key_copy makes of a VARBINARY key part that holds `value` whole: a
// nullable part's NULL flag (0), the length in two bytes, the bytes, zeros to the
// part's length. False, writing nothing, for any other part or value.
bool CopyVarbinaryKeyPart(const KEY_PART_INFO& part, const RowValue& value, uchar* out) {
  if (value.kind != RowValue::Kind::kBytes || value.size > part.length ||
      !IsVarbinary(part.field))
    return false;
  if (part.null_bit) *out++ = 0;
  int2store(out, value.size);
  if (value.size != 0) memcpy(out + HA_KEY_BLOB_LENGTH, value.data, value.size);
  memset(out + HA_KEY_BLOB_LENGTH + value.size, 0, part.length - value.size);
  return true;
}

}  // namespace

bool CopyKey(const ScanSpec& spec, size_t in_value, KEY* key, uchar* out) {
  const size_t nparts = spec.key.size();
  if (nparts == 1 && CopyVarbinaryKeyPart(key->key_part[0], spec.KeyPart(in_value, 0), out))
    return true;
  bool storable = true;
  for (size_t i = 0; i < nparts; ++i)
    storable &= StoreField(key->key_part[i].field, spec.KeyPart(in_value, i));
  if (storable) key_copy(out, key->table->record[0], key, KeyLength(key, nparts));
  return storable;
}

bool CopyKey(const Request& r, KEY* key, uchar* out) {
  const size_t nparts = r.key.size();
  bool storable = true;
  for (size_t i = 0; i < nparts; ++i) storable &= StoreField(key->key_part[i].field, r.key[i]);
  if (storable) key_copy(out, key->table->record[0], key, KeyLength(key, nparts));
  return storable;
}

void StoreKey(const ScanSpec& spec, size_t in_value, KEY* key, my_ptrdiff_t offset) {
  for (size_t i = 0; i < spec.key.size(); ++i)
    StoreField(WholeColumn(key->key_part[i]), spec.KeyPart(in_value, i), offset);
}

}  // namespace rowsocket
