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

}  // namespace rowsocket
