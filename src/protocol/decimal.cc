// ParseDecimal and ParseColumnInteger (decimal.h).
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

bool ParseColumnInteger(std::string_view text, int bits, bool is_unsigned, int64_t* value) {
  const bool negative = !text.empty() && text[0] == '-';
  const std::string_view digits = text.substr(negative ? 1 : 0);
  uint64_t magnitude = 0;
  if (digits.empty() || (digits[0] == '0' && (digits.size() > 1 || negative)) ||
      !ParseDecimal(digits, &magnitude))
    return false;
  if (is_unsigned) {
    if (negative || (bits < 64 && magnitude >> bits != 0)) return false;
    *value = static_cast<int64_t>(magnitude);
    return true;
  }
  const uint64_t limit = uint64_t{1} << (bits - 1);  // |min|; max is limit - 1
  if (negative ? magnitude > limit : magnitude >= limit) return false;
  *value = negative ? static_cast<int64_t>(~magnitude + 1) : static_cast<int64_t>(magnitude);
  return true;
}

}  // namespace rowsocket
