// Argument readers that Redis's commands share, with Redis 7.0's exact acceptance and
// errors: integers (string2ll, redis.h), long doubles (string2ld, INCRBYFLOAT),
// SET's and GETEX's options, SCAN's cursor and options. Each returns an error text
// for RedisReplyWriter::Error, empty when the arguments are fine. Redis reads option
// words as C strings, so a word is compared only up to its first NUL, as there.
// Pure; any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rowsocket {

// Redis's string2ld: strtold, which must read every byte (a NUL ends it early);
// not empty, at most 5119 bytes, no leading blank, not NaN, and not out of range
// (strtold's ERANGE with an infinite or zero result). inf, 0x1p3, +1 and 1e400 are
// accepted, as strtold reads them.
bool RedisStringToLongDouble(std::string_view text, long double* value);

// SCAN's cursor (Redis's parseScanCursorOrReply, strtoul): an optional sign and
// decimal digits (a '-' wraps, as strtoul does; "" is 0), within 64 bits, no leading
// blank, nothing after.
bool RedisParseScanCursor(std::string_view text, uint64_t* cursor);

// SET's options (SET key value [NX|XX] [GET] [EX s|PX ms|EXAT s|PXAT ms|KEEPTTL]) and
// GETEX's (GETEX key [EX s|PX ms|EXAT s|PXAT ms|PERSIST]).
enum class RedisExpireKind : uint8_t { kNone, kEx, kPx, kExat, kPxat };
struct RedisSetOptions {
  bool nx = false;
  bool xx = false;
  bool get = false;
  bool keepttl = false;
  bool persist = false;            // GETEX only
  RedisExpireKind expire = RedisExpireKind::kNone;
  std::string_view expire_arg;     // the last EX/PX/EXAT/PXAT's argument
};
enum class RedisSetCommand : uint8_t { kSet, kGetex };

// Reads argv[first..argc) as the options of `command` (first: 3 for SET, 2 for
// GETEX). A repeated option is accepted (the last expiry wins), as Redis does; a
// conflict (NX with XX, two kinds of expiry, KEEPTTL or PERSIST with an expiry) or an
// unknown word is `ERR syntax error`.
std::string RedisParseSetOptions(const std::string_view* argv, size_t argc, size_t first,
                                 RedisSetCommand command, RedisSetOptions* options);

// The absolute expiry, in Unix milliseconds, of parsed options with an expiry, given
// the time now: `ERR value is not an integer or out of range` for a non-integer,
// `ERR invalid expire time in '<name>' command` for a value <= 0 or one that
// overflows (name: "set", "getex", "setex").
std::string RedisExpireAt(const RedisSetOptions& options, int64_t now_ms,
                          std::string_view name, int64_t* at_ms);

// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type].
struct RedisScanOptions {
  uint64_t cursor = 0;
  int64_t count = 10;              // Redis's default
  bool has_match = false;
  std::string_view match;          // "*" alone reads as no pattern (has_match false)
  bool has_type = false;
  std::string_view type;
};
// argv[0] is SCAN. `ERR invalid cursor`, `ERR value is not an integer or out of
// range` (COUNT), `ERR syntax error` (COUNT < 1, an unknown word, a word without its
// argument).
std::string RedisParseScan(const std::string_view* argv, size_t argc, RedisScanOptions* options);

}  // namespace rowsocket
