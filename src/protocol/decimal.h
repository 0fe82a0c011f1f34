// Decimal numbers as the wire writes them (index ids, counts, limits, answer
// counts, ids): digits only, no sign, no spaces. One parser for the server's
// request reader, the answer reader of the client library and the benchmark.
// Pure functions; any thread.
#pragma once

#include <cstdint>
#include <string_view>

namespace rowsocket {

// Reads `text` as a decimal number. False (and *value untouched) if it is empty,
// holds anything but the digits 0-9, or does not fit.
bool ParseDecimal(std::string_view text, uint64_t* value);
bool ParseDecimal(std::string_view text, uint32_t* value);

// Reads `text` as the text an integer column writes of one of its values: `bits`
// wide (8, 16, 24, 32 or 64), signed unless `is_unsigned`; digits, a '-' before a
// negative value, no leading zero, no "-0". False (and *value untouched) for any
// other text or a value outside the column's range. A value of an unsigned 64-bit
// column comes back as its bits.
bool ParseColumnInteger(std::string_view text, int bits, bool is_unsigned, int64_t* value);

}  // namespace rowsocket
