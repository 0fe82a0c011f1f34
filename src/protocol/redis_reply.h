// Writes Redis's replies, in RESP2 or RESP3 (the connection's protocol, which HELLO
// chooses), and Redis 7.0's error words, collected in one place.
//
// Like the other writers of the protocol layer, RedisReplyWriter appends to a
// caller-owned buffer (a connection's output buffer), so all replies of a batch leave
// in one write. A reply type RESP2 lacks is written as Redis 7.0 writes it there: a
// null as `$-1` (a null array as `*-1`), a map as a flat array of 2n elements, a set
// as an array, a double as a bulk string, a boolean as an integer, a verbatim string
// as a bulk string. Thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rowsocket {

enum class RespVersion : uint8_t { kResp2 = 2, kResp3 = 3 };

class RedisReplyWriter {
 public:
  RedisReplyWriter(std::string* out, RespVersion version) : out_(out), version_(version) {}

  RespVersion version() const { return version_; }
  // How much has been written so far, and a way to drop what was written since (an
  // answer that turned out to be an error after it had begun).
  size_t written() const { return out_->size(); }
  void DropSince(size_t written) { out_->resize(written); }

  void Ok() { out_->append("+OK\r\n", 5); }
  // `+<text>`: CR and LF in `text` become spaces, as Redis's status replies.
  void SimpleString(std::string_view text);
  // `-<text>`: `text` begins with its code word (`ERR ...`, `WRONGTYPE ...`; see the
  // kRedis* constants below); CR and LF become spaces, as in addReplyErrorFormat.
  void Error(std::string_view text);
  void Integer(int64_t value);
  void Bulk(std::string_view bytes);
  // A missing value (GET of no key): RESP2 `$-1`, RESP3 `_`.
  void Null();
  // A missing array (EXEC after a WATCH failed): RESP2 `*-1`, RESP3 `_`.
  void NullArray();
  void ArrayHeader(size_t elements);
  // `pairs` key-value pairs follow: RESP3 `%<pairs>`, RESP2 `*<2 * pairs>`.
  void MapHeader(size_t pairs);
  // RESP3 `~<n>`, RESP2 `*<n>`.
  void SetHeader(size_t elements);
  // A double (ZSCORE's kind): RESP3 `,<repr>`, RESP2 a bulk string; inf and -inf
  // spelled so; other values with %.17g, as Redis 7.0's addReplyDouble.
  void Double(double value);
  // RESP3 `#t`/`#f`, RESP2 `:1`/`:0`.
  void Boolean(bool value);
  // A text for people (INFO in RESP3, `=<len>\r\ntxt:...`); RESP2 a bulk string.
  void Verbatim(std::string_view text);

 private:
  void Header(char type, int64_t n);

  std::string* out_;
  RespVersion version_;
};

// Redis's human form of a long double (ld2string's LD_STR_HUMAN): %.17Lf without
// trailing zeros (and without a trailing '.'), "-0" as "0", inf and -inf. What
// INCRBYFLOAT and HINCRBYFLOAT store and answer. Appends to `*out`.
void RedisFormatLongDouble(long double value, std::string* out);

// Redis 7.0's error replies, without `-` and CRLF (RedisReplyWriter::Error adds them).
constexpr std::string_view kRedisErrSyntax = "ERR syntax error";
constexpr std::string_view kRedisErrNotInteger = "ERR value is not an integer or out of range";
constexpr std::string_view kRedisErrNotFloat = "ERR value is not a valid float";
constexpr std::string_view kRedisErrOverflow = "ERR increment or decrement would overflow";
constexpr std::string_view kRedisErrNanOrInfinity = "ERR increment would produce NaN or Infinity";
constexpr std::string_view kRedisErrHashNotInteger = "ERR hash value is not an integer";
constexpr std::string_view kRedisErrHashNotFloat = "ERR hash value is not a float";
constexpr std::string_view kRedisErrInvalidCursor = "ERR invalid cursor";
constexpr std::string_view kRedisErrWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
constexpr std::string_view kRedisErrNoAuth = "NOAUTH Authentication required.";
constexpr std::string_view kRedisErrWrongPass =
    "WRONGPASS invalid username-password pair or user is disabled.";
constexpr std::string_view kRedisErrExecAbort =
    "EXECABORT Transaction discarded because of previous errors.";
constexpr std::string_view kRedisErrExecWithoutMulti = "ERR EXEC without MULTI";
constexpr std::string_view kRedisErrDiscardWithoutMulti = "ERR DISCARD without MULTI";
constexpr std::string_view kRedisErrNestedMulti = "ERR MULTI calls can not be nested";
constexpr std::string_view kRedisErrWatchInMulti = "ERR WATCH inside MULTI is not allowed";
constexpr std::string_view kRedisErrDbIndex = "ERR DB index is out of range";
constexpr std::string_view kRedisErrProtocolVersion = "NOPROTO unsupported protocol version";
constexpr std::string_view kRedisErrOffsetRange = "ERR offset is out of range";
constexpr std::string_view kRedisErrStringTooLong = "ERR string exceeds maximum allowed size (proto-max-bulk-len)";

// `ERR wrong number of arguments for '<name>' command`; `name` is the command's
// name in lower case, `container|sub` for a subcommand (`client|setname`).
std::string RedisErrWrongArity(std::string_view name);
// `ERR unknown command '<argv[0]>', with args beginning with: '<a>' '<b>' `, with
// Redis's bounds: the name to 128 bytes, the arguments quoted until 128 bytes of them
// were written, each cut at a NUL as Redis's printf cuts it.
std::string RedisErrUnknownCommand(const std::string_view* argv, size_t argc);
// `ERR unknown subcommand '<sub>'. Try <COMMAND> HELP.` (`command` in upper case).
std::string RedisErrUnknownSubcommand(std::string_view command, std::string_view sub);
// `ERR invalid expire time in '<name>' command`.
std::string RedisErrInvalidExpire(std::string_view name);
// `NOPERM this user has no permissions to run the '<name>' command` (for an ACL-like
// refusal of a whole command) and the key form for the account's grants on a table.
std::string RedisErrNoPermCommand(std::string_view name);
constexpr std::string_view kRedisErrNoPermKey =
    "NOPERM this user has no permissions to access one of the keys used as arguments";

}  // namespace rowsocket
