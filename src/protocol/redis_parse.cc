// RedisParser (redis.h): Redis 7.0's framing of multibulk and inline requests, with
// its error answers, and the two helpers it is made of (RedisSplitArgs, Redis's
// sdssplitargs, and RedisStringToInt64, its string2ll).
#include <cctype>

#include "protocol/redis.h"

namespace rowsocket {
namespace {

constexpr size_t kNotFound = std::string_view::npos;

// The first `end` byte of input from `from`, as Redis's strchr finds it: a NUL before
// it hides it (kNotFound), since Redis's query buffer is read as a C string there.
size_t FindLineEnd(std::string_view input, size_t from, char end) {
  for (size_t i = from; i < input.size(); ++i) {
    if (input[i] == end) return i;
    if (input[i] == '\0') return kNotFound;
  }
  return kNotFound;
}

RedisParseResult Error(std::string text) {
  RedisParseResult result;
  result.status = RedisParseStatus::kError;
  result.error = std::move(text);
  return result;
}

RedisParseResult NeedMore(size_t at_least = 0) {
  RedisParseResult result;
  result.need_at_least = at_least;
  return result;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

}  // namespace

bool RedisStringToInt64(std::string_view s, int64_t* value) {
  // Redis: LONG_STR_SIZE (21) bytes or more never make a number.
  if (s.empty() || s.size() >= 21) return false;
  if (s.size() == 1 && s[0] == '0') {
    *value = 0;
    return true;
  }
  size_t i = 0;
  const bool negative = s[0] == '-';
  if (negative && ++i == s.size()) return false;
  if (s[i] < '1' || s[i] > '9') return false;
  unsigned __int128 v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + static_cast<unsigned>(s[i] - '0');
  }
  const unsigned __int128 max = negative ? static_cast<unsigned __int128>(INT64_MAX) + 1
                                         : static_cast<unsigned __int128>(INT64_MAX);
  if (v > max) return false;
  *value = negative ? static_cast<int64_t>(-static_cast<__int128>(v)) : static_cast<int64_t>(v);
  return true;
}

bool RedisSplitArgs(std::string_view line, std::vector<std::string_view>* words,
                    std::string* storage) {
  // Decoded words never outgrow the line, so the storage never moves once reserved
  // and the views into it stay valid.
  storage->reserve(storage->size() + line.size());
  auto at = [&](size_t i) { return i < line.size() ? line[i] : '\0'; };
  size_t p = 0;
  for (;;) {
    while (p < line.size() && IsSpace(line[p])) ++p;
    if (p >= line.size()) return true;

    // Guide: one word. It stays a slice of the line until a quote makes it a copy.
    const size_t start = p;
    bool copying = false;
    size_t copy_start = 0;
    bool in_double = false, in_single = false, done = false;
    auto append = [&](char c) {
      if (copying) storage->push_back(c);
    };
    auto start_copy = [&]() {
      if (copying) return;
      copying = true;
      copy_start = storage->size();
      storage->append(line.substr(start, p - start));
    };
    size_t end = p;  // the word's end in the line, while it is a slice
    while (!done) {
      const char c = at(p);
      if (in_double) {
        if (c == '\\' && at(p + 1) == 'x' && HexValue(at(p + 2)) >= 0 && HexValue(at(p + 3)) >= 0) {
          append(static_cast<char>(HexValue(at(p + 2)) * 16 + HexValue(at(p + 3))));
          p += 3;
        } else if (c == '\\' && at(p + 1) != '\0') {
          ++p;
          switch (at(p)) {
            case 'n': append('\n'); break;
            case 'r': append('\r'); break;
            case 't': append('\t'); break;
            case 'b': append('\b'); break;
            case 'a': append('\a'); break;
            default: append(at(p)); break;
          }
        } else if (c == '"') {
          if (at(p + 1) != '\0' && !IsSpace(at(p + 1))) return false;
          done = true;
        } else if (c == '\0') {
          return false;
        } else {
          append(c);
        }
      } else if (in_single) {
        if (c == '\\' && at(p + 1) == '\'') {
          ++p;
          append('\'');
        } else if (c == '\'') {
          if (at(p + 1) != '\0' && !IsSpace(at(p + 1))) return false;
          done = true;
        } else if (c == '\0') {
          return false;
        } else {
          append(c);
        }
      } else {
        switch (c) {
          case ' ': case '\n': case '\r': case '\t': case '\0':
            done = true;
            end = p;
            break;
          case '"':
            start_copy();
            in_double = true;
            break;
          case '\'':
            start_copy();
            in_single = true;
            break;
          default:
            append(c);
            break;
        }
      }
      if (p < line.size()) ++p;
    }
    if (copying) {
      words->push_back(std::string_view(storage->data() + copy_start, storage->size() - copy_start));
    } else {
      words->push_back(line.substr(start, end - start));
    }
  }
}

void RedisParser::Reset() {
  in_multibulk_ = false;
  pos_ = 0;
  remaining_ = 0;
  bulk_len_ = -1;
  spans_.clear();
}

RedisParseResult RedisParser::Parse(std::string_view input, bool authenticated,
                                    RedisCommand* out) {
  // A caller that passes fewer bytes than the command in progress had is not
  // passing the same input: start again from its first byte.
  if (in_multibulk_ && input.size() < pos_) Reset();
  if (in_multibulk_) return ParseMultibulk(input, authenticated, out);
  if (input.empty()) return NeedMore();
  if (input[0] == '*') return ParseMultibulk(input, authenticated, out);
  return ParseInline(input, out);
}

RedisParseResult RedisParser::ParseInline(std::string_view input, RedisCommand* out) {
  const size_t lf = FindLineEnd(input, 0, '\n');
  // A line is too long once more than max_inline bytes came without its end (Redis
  // checks the bytes waiting unended; see redis.h).
  if (lf == kNotFound ? input.size() > limits_.max_inline : lf > limits_.max_inline) {
    return Error("ERR Protocol error: too big inline request");
  }
  if (lf == kNotFound) return NeedMore();
  size_t end = lf;
  if (end > 0 && input[end - 1] == '\r') --end;
  out->Clear();
  out->inline_form = true;
  if (!RedisSplitArgs(input.substr(0, end), &out->argv, &out->storage)) {
    out->Clear();
    return Error("ERR Protocol error: unbalanced quotes in request");
  }
  RedisParseResult result;
  result.status = RedisParseStatus::kCommand;
  result.consumed = lf + 1;
  return result;
}

void RedisParser::Trim() {
  if (!in_multibulk_) std::vector<std::pair<size_t, size_t>>().swap(spans_);
}

RedisParseResult RedisParser::ParseMultibulk(std::string_view input, bool authenticated,
                                             RedisCommand* out) {
  // Guide: the count line, `*<n>\r\n`, unless a command is in progress.
  if (!in_multibulk_) {
    const size_t cr = FindLineEnd(input, 0, '\r');
    if (cr == kNotFound ? input.size() > limits_.max_inline : cr > limits_.max_inline) {
      return Error("ERR Protocol error: too big mbulk count string");
    }
    // Redis needs one byte after the CR, and skips it unread.
    if (cr == kNotFound || cr + 1 >= input.size()) return NeedMore();
    int64_t count = 0;
    if (!RedisStringToInt64(input.substr(1, cr - 1), &count) || count > limits_.max_arguments) {
      return Error("ERR Protocol error: invalid multibulk length");
    }
    if (!authenticated && count > limits_.max_arguments_unauthenticated) {
      return Error("ERR Protocol error: unauthenticated multibulk length");
    }
    if (count <= 0) {  // nothing to run
      out->Clear();
      RedisParseResult result;
      result.status = RedisParseStatus::kCommand;
      result.consumed = cr + 2;
      return result;
    }
    in_multibulk_ = true;
    pos_ = cr + 2;
    remaining_ = count;
    bulk_len_ = -1;
    spans_.clear();
  }

  // Guide: each argument, `$<len>\r\n<len bytes>` and two bytes Redis does not read.
  while (remaining_ > 0) {
    if (bulk_len_ < 0) {
      const size_t cr = FindLineEnd(input, pos_, '\r');
      if (cr == kNotFound ? input.size() - pos_ > limits_.max_inline
                          : cr - pos_ > limits_.max_inline) {
        Reset();
        return Error("ERR Protocol error: too big bulk count string");
      }
      if (cr == kNotFound || cr + 1 >= input.size()) return NeedMore();
      if (input[pos_] != '$') {
        // Redis writes the byte with %c and turns CR and LF into spaces.
        char got = input[pos_];
        if (got == '\r' || got == '\n') got = ' ';
        Reset();
        return Error(std::string("ERR Protocol error: expected '$', got '") + got + "'");
      }
      int64_t len = 0;
      if (!RedisStringToInt64(input.substr(pos_ + 1, cr - pos_ - 1), &len) || len < 0 ||
          len > limits_.max_bulk) {
        Reset();
        return Error("ERR Protocol error: invalid bulk length");
      }
      if (!authenticated && len > limits_.max_bulk_unauthenticated) {
        Reset();
        return Error("ERR Protocol error: unauthenticated bulk length");
      }
      pos_ = cr + 2;
      bulk_len_ = len;
    }
    const size_t needed = pos_ + static_cast<size_t>(bulk_len_) + 2;
    if (input.size() < needed) return NeedMore(needed);
    spans_.emplace_back(pos_, static_cast<size_t>(bulk_len_));
    pos_ = needed;
    bulk_len_ = -1;
    --remaining_;
  }

  // Guide: the whole command; its words are slices of this input.
  out->Clear();
  out->argv.reserve(spans_.size());
  for (const auto& span : spans_) out->argv.push_back(input.substr(span.first, span.second));
  RedisParseResult result;
  result.status = RedisParseStatus::kCommand;
  result.consumed = pos_;
  Reset();
  return result;
}

}  // namespace rowsocket
