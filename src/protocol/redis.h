// Commands of Redis's protocol (RESP2 and RESP3 clients send the same requests), and
// the parser that frames them.
//
// A client sends either a multibulk request (`*<n>\r\n` then n bulk strings
// `$<len>\r\n<bytes>\r\n`: what every client library sends) or an inline command (a
// line of words, what redis-cli's interactive prompt and a telnet session send, split
// with Redis's quoting rules). RedisParser::Parse takes a connection's unread bytes and
// says one of three things: it needs more bytes, it framed one command of `consumed`
// bytes (whose argv may be empty: Redis runs nothing for `*0`, `*-1` or a blank line),
// or the stream broke Redis's grammar: answer `error` and close, as Redis does after a
// protocol error (the commands before it in the input are run and answered first).
//
// The framing is Redis 7.0's (networking.c, processMultibulkBuffer and
// processInlineBuffer) byte for byte, including its leniencies: the two bytes after a
// bulk string and the byte after a count line's CR are skipped unread, and a NUL
// before a line's end hides the end (the line waits until it is too long). The one
// difference is deliberate: a line longer than its limit is refused whether or not its
// end has arrived, where Redis refuses it only when that many bytes wait unended, which
// depends on how TCP cut the stream (docs/REDIS.md).
//
// A multibulk argument is a string_view into the caller's input (no copy); an inline
// argument points into the command's own storage when it had quotes, else into the
// input. Keep the input unchanged while the command is in use. The parser keeps its
// place inside a command across calls (a large command is not re-read from its
// start): the caller passes the same unread bytes again, moved or not, with more
// appended, until a command or an error comes out. Pure code; a parser and a command
// belong to one connection's thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rowsocket {

// Redis 7.0's own bounds, the defaults of RedisLimits.
constexpr size_t kRedisInlineMax = 64 * 1024;                    // PROTO_INLINE_MAX_SIZE
constexpr int64_t kRedisMaxBulk = 512LL * 1024 * 1024;           // proto-max-bulk-len
constexpr int64_t kRedisMaxMultibulk = 2147483647;               // INT_MAX
constexpr int64_t kRedisUnauthenticatedMultibulk = 10;           // before AUTH
constexpr int64_t kRedisUnauthenticatedBulk = 16384;             // before AUTH

// Limits the caller chooses (the listener's options); each answers Redis's error.
struct RedisLimits {
  // Longest inline line, and longest count line of a multibulk request, before its
  // end; longer ones answer `too big inline request` (`too big mbulk count string`,
  // `too big bulk count string`).
  size_t max_inline = kRedisInlineMax;
  // Most arguments of one multibulk request; more answer `invalid multibulk length`.
  int64_t max_arguments = kRedisMaxMultibulk;
  // Longest bulk string; longer ones answer `invalid bulk length`.
  int64_t max_bulk = kRedisMaxBulk;
  // The same for a connection that must still log in (`unauthenticated multibulk
  // length`, `unauthenticated bulk length`): what it may send before AUTH is small.
  int64_t max_arguments_unauthenticated = kRedisUnauthenticatedMultibulk;
  int64_t max_bulk_unauthenticated = kRedisUnauthenticatedBulk;
};

// One command: its words, as sent. argv[0] is the command's name in any case.
struct RedisCommand {
  std::vector<std::string_view> argv;
  bool inline_form = false;  // came as an inline line (not multibulk)
  // The unquoted bytes of an inline command's quoted words; argv points into it.
  std::string storage;

  void Clear() {
    argv.clear();
    storage.clear();
    inline_form = false;
  }
};

enum class RedisParseStatus : uint8_t {
  kNeedMore,  // no complete command yet; call again with the same bytes and more
  kCommand,   // one command (argv may be empty: nothing to run) of `consumed` bytes
  kError,     // a protocol error: answer `error`, then close the connection
};

struct RedisParseResult {
  RedisParseStatus status = RedisParseStatus::kNeedMore;
  size_t consumed = 0;     // kCommand: bytes of input the command took
  // kNeedMore: the input must grow to at least this many bytes before the command
  // can complete (a bulk string's known length), 0 when unknown. A hint: calling
  // earlier is harmless.
  size_t need_at_least = 0;
  // kError: the whole error answer without `-` and CRLF, as Redis words it
  // (`ERR Protocol error: invalid bulk length`).
  std::string error;
};

class RedisParser {
 public:
  explicit RedisParser(const RedisLimits& limits = RedisLimits()) : limits_(limits) {}

  // Frames the first command of `input` (a connection's unread bytes) into `*out`.
  // `authenticated`: whether the connection may send large requests (see
  // RedisLimits); it may change only between commands.
  RedisParseResult Parse(std::string_view input, bool authenticated, RedisCommand* out);

  // Forgets a command in progress (a connection reused, or its input dropped).
  void Reset();
  // Gives back what a large command left reserved (its arguments' offsets), for
  // a connection gone quiet; a command in progress keeps it.
  void Trim();
  // Bytes the parser holds for a command in progress (its arguments' offsets).
  size_t held_bytes() const { return spans_.capacity() * sizeof(spans_[0]); }

  const RedisLimits& limits() const { return limits_; }

 private:
  RedisParseResult ParseInline(std::string_view input, RedisCommand* out);
  RedisParseResult ParseMultibulk(std::string_view input, bool authenticated, RedisCommand* out);

  RedisLimits limits_;
  // A multibulk command in progress: where its next header starts, how many
  // arguments are still to come, and the (offset, length) of those read so far.
  bool in_multibulk_ = false;
  size_t pos_ = 0;
  int64_t remaining_ = 0;
  int64_t bulk_len_ = -1;  // the pending argument's length, once its header was read
  std::vector<std::pair<size_t, size_t>> spans_;
};

// Redis's sdssplitargs: splits an inline line into words. Blanks (isspace) separate
// words; "..." takes \n \r \t \b \a \\ \" \xHH (two hex digits) and any other \c as c;
// '...' takes \' only; a closing quote must be followed by a blank or the end; a quote
// may open in the middle of a word (a"b c" is `ab c`). False on unbalanced quotes.
// Words without quotes point into `line`; quoted ones into `*storage`.
bool RedisSplitArgs(std::string_view line, std::vector<std::string_view>* words,
                    std::string* storage);

// Redis's string2ll: an optional '-', then 0 alone or a digit 1-9 and more digits,
// within a signed 64-bit integer and shorter than 21 bytes; nothing else (no '+', no
// spaces, no leading zeros, no "-0").
bool RedisStringToInt64(std::string_view text, int64_t* value);

}  // namespace rowsocket
