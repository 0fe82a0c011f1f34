// ParseDecimal (decimal.h).
#include "protocol/decimal.h"

namespace rowsocket {

bool ParseDecimal(std::string_view text, uint64_t* value) {
  if (text.empty()) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - digit) / 10) return false;
    v = v * 10 + digit;
  }
  *value = v;
  return true;
}

bool ParseDecimal(std::string_view text, uint32_t* value) {
  uint64_t v;
  if (!ParseDecimal(text, &v) || v > UINT32_MAX) return false;
  *value = static_cast<uint32_t>(v);
  return true;
}

}  // namespace rowsocket
