// libFuzzer target for ParseDecimal (protocol/decimal.h), the one reader of the
// numbers of requests and answers: index ids, counts, limits, offsets, filter
// columns, IN key parts, answer codes, counts and ids. One input is one token.
//
// It checks what decimal.h promises, against a plain reference: a number is digits
// only, at least one, that fit the type; anything else is refused and leaves the
// output untouched; an accepted number written back in decimal is the token less
// its leading zeros.
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "protocol/decimal.h"

namespace {

template <typename Int>
void Check(std::string_view text) {
  constexpr Int kUntouched = static_cast<Int>(0x5a5a5a5a5a5a5a5aULL);
  Int value = kUntouched;
  const bool accepted = rowsocket::ParseDecimal(text, &value);
  uint64_t expected = 0;
  FUZZ_CHECK(accepted == rowsocket::fuzz::ReferenceDecimal(text, Int(~Int(0)), &expected));
  if (!accepted) {
    FUZZ_CHECK(value == kUntouched);
    return;
  }
  FUZZ_CHECK(value == expected);
  const size_t digit = text.find_first_not_of('0');
  const std::string_view canonical = digit == std::string_view::npos ? "0" : text.substr(digit);
  FUZZ_CHECK(std::to_string(value) == canonical);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Check<uint64_t>(text);
  Check<uint32_t>(text);
  return 0;
}
