// The two halves of ParseMcRequest (memcached.h), one per protocol, and the number
// readers they share. Internal to the protocol layer.
#pragma once

#include <cstdint>
#include <string_view>

#include "protocol/memcached.h"

namespace rowsocket {
namespace mc_internal {

// Text and meta commands (memcached_text.cc).
McParseResult ParseText(std::string_view input, const McLimits& limits, McRequest* out);
// Binary packets (memcached_binary.cc).
McParseResult ParseBinary(std::string_view input, const McLimits& limits, McRequest* out);

// Decimal digits only, at most `max`.
bool ParseUnsigned(std::string_view text, uint64_t max, uint64_t* value);
// An optional '-' and decimal digits, within a 32-bit signed integer (memcached
// reads exptimes and TTLs as int32).
bool ParseInt32(std::string_view text, int64_t* value);

}  // namespace mc_internal
}  // namespace rowsocket
