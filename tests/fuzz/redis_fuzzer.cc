// libFuzzer target for RedisParser (protocol/redis.h), the framing every byte from a
// Redis client goes through, and for what is built on its commands: the reply writer,
// the command lookup and the argument readers. One input is a connection's bytes.
//
// Beyond "no crash, no memory error, no undefined behaviour", it checks what the
// parser promises:
//  - each command consumes at least one byte and no more than it was given; its
//    words lie inside those bytes, or (quoted inline words) in the command's storage;
//  - the input fed again in pieces (one byte at a time, or a few), into exactly sized
//    copies that are gone after each call, frames the same commands and the same
//    error: the parser resumes from offsets, never from old pointers;
//  - a command written back as a multibulk request, or as an inline line quoting
//    every word, parses to the same words and consumes exactly those bytes;
//  - the reply writer's bulk strings and arrays read back with a plain reader;
//  - RedisStringToInt64 agrees with a plain reference; the lookup answers a command
//    or an error, never both.
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "protocol/redis.h"
#include "protocol/redis_args.h"
#include "protocol/redis_commands.h"
#include "protocol/redis_reply.h"

namespace rowsocket {
namespace {

using Words = std::vector<std::string>;

// Small limits, so that the fuzzer reaches them.
RedisLimits Limits() {
  RedisLimits limits;
  limits.max_inline = 200;
  limits.max_bulk = 300;
  limits.max_arguments = 40;
  limits.max_arguments_unauthenticated = 4;
  limits.max_bulk_unauthenticated = 20;
  return limits;
}

struct Framing {
  std::vector<Words> commands;  // empty commands included
  std::string error;
  size_t consumed = 0;
};

// Frames `input` growing `step` bytes at a time (0: all at once), each call on an
// exactly sized copy of the unread bytes.
Framing Frame(std::string_view input, size_t step, bool authenticated) {
  RedisParser parser(Limits());
  RedisCommand command;
  Framing f;
  size_t have = step == 0 ? input.size() : std::min(step, input.size());
  for (;;) {
    fuzz::LineCopy copy(input.substr(f.consumed, have - f.consumed));
    const std::string_view unread(copy.data(), copy.size());
    const RedisParseResult r = parser.Parse(unread, authenticated, &command);
    if (r.status == RedisParseStatus::kError) {
      FUZZ_CHECK(!r.error.empty() && r.error.compare(0, 4, "ERR ") == 0);
      f.error = r.error;
      return f;
    }
    if (r.status == RedisParseStatus::kCommand) {
      FUZZ_CHECK(r.consumed >= 1 && r.consumed <= unread.size());
      Words words;
      for (std::string_view w : command.argv) {
        const bool in_storage = !command.storage.empty() && w.data() >= command.storage.data() &&
                                w.data() + w.size() <= command.storage.data() + command.storage.size();
        FUZZ_CHECK(in_storage || w.empty() ||
                   (copy.Holds(w.data(), w.size()) && copy.OffsetOf(w.data()) + w.size() <= r.consumed));
        words.emplace_back(w);
      }
      FUZZ_CHECK(command.inline_form || command.storage.empty());
      f.commands.push_back(words);
      f.consumed += r.consumed;
      continue;
    }
    FUZZ_CHECK(r.need_at_least == 0 || r.need_at_least > unread.size());
    if (have == input.size()) return f;
    have = step == 0 ? input.size() : std::min(have + step, input.size());
  }
}

bool Same(const Framing& a, const Framing& b) {
  return a.commands == b.commands && a.error == b.error && a.consumed == b.consumed;
}

std::string Multibulk(const Words& words) {
  std::string out = "*" + std::to_string(words.size()) + "\r\n";
  for (const std::string& w : words) out += "$" + std::to_string(w.size()) + "\r\n" + w + "\r\n";
  return out;
}

std::string InlineLine(const Words& words) {
  static const char kHex[] = "0123456789abcdef";
  std::string line;
  for (const std::string& w : words) {
    if (!line.empty()) line += ' ';
    line += '"';
    for (unsigned char c : w) {
      if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
        line += static_cast<char>(c);
      } else {
        line += "\\x";
        line += kHex[c >> 4];
        line += kHex[c & 15];
      }
    }
    line += '"';
  }
  return line + "\r\n";
}

// A plain reader of what the writer wrote for one command: *n then n bulk strings.
Words ReadBack(std::string_view out) {
  Words words;
  auto line = [&]() {
    const size_t end = out.find("\r\n");
    FUZZ_CHECK(end != std::string_view::npos);
    std::string_view l = out.substr(0, end);
    out.remove_prefix(end + 2);
    return l;
  };
  std::string_view head = line();
  FUZZ_CHECK(head[0] == '*');
  const size_t n = std::stoul(std::string(head.substr(1)));
  for (size_t i = 0; i < n; ++i) {
    head = line();
    FUZZ_CHECK(head[0] == '$');
    const size_t len = std::stoul(std::string(head.substr(1)));
    FUZZ_CHECK(out.size() >= len + 2 && out.substr(len, 2) == "\r\n");
    words.emplace_back(out.substr(0, len));
    out.remove_prefix(len + 2);
  }
  FUZZ_CHECK(out.empty());
  return words;
}

bool ReferenceInt64(std::string_view s, int64_t* v) {
  if (s.empty() || s.size() > 20) return false;
  const bool neg = s[0] == '-';
  std::string_view digits = neg ? s.substr(1) : s;
  if (digits.empty() || (digits[0] == '0' && (digits.size() > 1 || neg))) return false;
  uint64_t u = 0;
  if (!fuzz::ReferenceDecimal(digits, neg ? 9223372036854775808ull : 9223372036854775807ull, &u)) {
    return false;
  }
  *v = neg ? static_cast<int64_t>(0 - u) : static_cast<int64_t>(u);
  return true;
}

void CheckCommand(const Words& words) {
  if (words.empty()) return;
  const std::vector<std::string_view> argv(words.begin(), words.end());

  // Guide: written back, it parses to itself.
  for (const std::string& again : {Multibulk(words), InlineLine(words)}) {
    if (again[0] != '*' && again.size() > Limits().max_inline) continue;
    RedisParser parser(Limits());
    RedisCommand c;
    const RedisParseResult r = parser.Parse(again, true, &c);
    if (r.status == RedisParseStatus::kError) {
      FUZZ_CHECK(again[0] == '*');  // a multibulk form may pass the small limits
      continue;
    }
    FUZZ_CHECK(r.status == RedisParseStatus::kCommand && r.consumed == again.size());
    FUZZ_CHECK(Words(c.argv.begin(), c.argv.end()) == words);
  }

  // Guide: the writer's replies read back.
  std::string out;
  RedisReplyWriter w(&out, words.size() % 2 ? RespVersion::kResp2 : RespVersion::kResp3);
  w.ArrayHeader(words.size());
  for (std::string_view word : argv) w.Bulk(word);
  FUZZ_CHECK(ReadBack(out) == words);
  out.clear();
  w.Error(argv[0]);
  FUZZ_CHECK(out.find_first_of("\r\n") == out.size() - 2);

  // Guide: lookup and argument readers on these words.
  std::string error;
  const RedisCommandInfo* info = RedisFindCommand(argv.data(), argv.size(), &error);
  FUZZ_CHECK((info == nullptr) != error.empty());
  for (std::string_view word : argv) {
    int64_t a = 0, b = 0;
    const bool ok = RedisStringToInt64(word, &a);
    FUZZ_CHECK(ok == ReferenceInt64(word, &b));
    FUZZ_CHECK(!ok || a == b);
    long double d = 0;
    RedisStringToLongDouble(word, &d);
    uint64_t cursor = 0;
    RedisParseScanCursor(word, &cursor);
  }
  RedisSetOptions set;
  if (RedisParseSetOptions(argv.data(), argv.size(), 1, RedisSetCommand::kSet, &set).empty() &&
      set.expire != RedisExpireKind::kNone) {
    int64_t at = 0;
    RedisExpireAt(set, 1700000000000, "set", &at);
  }
  RedisScanOptions scan;
  RedisParseScan(argv.data(), argv.size(), &scan);
}

}  // namespace
}  // namespace rowsocket

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rowsocket;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  for (bool authenticated : {true, false}) {
    const Framing whole = Frame(input, 0, authenticated);
    FUZZ_CHECK(whole.consumed <= input.size());
    FUZZ_CHECK(Same(whole, Frame(input, size <= 512 ? 1 : 64, authenticated)));
    FUZZ_CHECK(Same(whole, Frame(input, 5, authenticated)));
    if (authenticated) {
      for (const Words& words : whole.commands) CheckCommand(words);
    }
  }
  return 0;
}
