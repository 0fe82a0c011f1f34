// ToReply: the meaning of an answer, by the kind of request it answers.
//
// Called by Connection for every answer line, right after ParseAnswer decoded it in
// the input buffer; values are copied into the Reply here, because the buffer is
// reused for the next line. Pure; any thread.
#include "reply.h"

#include <limits>

#include "protocol/decimal.h"

namespace rowsocket {
namespace client {

namespace {

Value Copy(const ::rowsocket::WireValue& v) {
  return v.is_null ? Value::Null() : Value(v.view());
}

// A decimal uint64 token, as the server writes counts and ids.
bool ParseCount(const ::rowsocket::WireValue& v, uint64_t* n) {
  return !v.is_null && ParseDecimal(v.view(), n);
}

// Groups the values of `0 <ncols> ...` into rows of ncols.
bool ToRows(const ::rowsocket::Answer& a, Rows* rows) {
  const size_t ncols = a.count;
  if (ncols == 0) return a.values.empty();
  if (a.values.size() % ncols != 0) return false;
  rows->reserve(a.values.size() / ncols);
  for (size_t i = 0; i < a.values.size(); i += ncols) {
    Row row;
    row.reserve(ncols);
    for (size_t j = 0; j < ncols; ++j) row.push_back(Copy(a.values[i + j]));
    rows->push_back(std::move(row));
  }
  return true;
}

}  // namespace

bool ToReply(RequestKind kind, const ::rowsocket::Answer& a, Result<Reply>* out) {
  if (!a.ok()) {
    // A code past int's range would read as a negative one, which stands for the
    // client's own I/O errors: no server sends it.
    if (a.code > static_cast<uint32_t>(std::numeric_limits<int>::max())) return false;
    *out = Error::Server(static_cast<int>(a.code), std::string(a.message()));
    return true;
  }
  Rows rows;
  uint64_t number = 0;
  switch (kind) {
    case RequestKind::kAuth:
    case RequestKind::kOpenIndex:
      if (a.count != 1 || !a.values.empty()) return false;
      break;
    case RequestKind::kFind:
    case RequestKind::kModifyReturning:
      if (!ToRows(a, &rows)) return false;
      break;
    case RequestKind::kModify:
      if (a.count != 1 || a.values.size() != 1 || !ParseCount(a.values[0], &number)) return false;
      break;
    case RequestKind::kInsert:
      if (a.count != 1 || a.values.size() > 1) return false;
      if (a.values.size() == 1 && !ParseCount(a.values[0], &number)) return false;
      break;
  }
  *out = Reply(kind, std::move(rows), number);
  return true;
}

}  // namespace client
}  // namespace rowsocket
