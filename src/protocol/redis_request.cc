// RedisRequest's category and the engine's statuses in Redis's words (redis_request.h).
#include "protocol/redis_request.h"

#include <cstdint>
#include <utility>

#include "protocol/redis_reply.h"

namespace rowsocket {

using Kind = EngineStatus::Kind;

RequestCategory RedisCategoryOf(const RedisRequest& request) {
  if (request.info == nullptr) return RequestCategory::kInvalid;
  if (request.queued) return RequestCategory::kOpen;  // runs with its EXEC
  if (request.info->id == RedisCommandId::kAuth || request.info->id == RedisCommandId::kHello)
    return RequestCategory::kAuth;
  switch (request.info->counts_as) {
    case RedisCountsAs::kFind: return RequestCategory::kFind;
    case RedisCountsAs::kInsert: return RequestCategory::kInsert;
    case RedisCountsAs::kUpdate: return RequestCategory::kUpdate;
    case RedisCountsAs::kDelete: return RequestCategory::kDelete;
    case RedisCountsAs::kOther: break;
  }
  return RequestCategory::kOpen;  // a connection command: counted with the set-up requests
}

namespace {

std::string WithNumber(std::string_view text, int error) {
  std::string s = "ERR rowsocket: ";
  s += text;
  if (error != 0) s += " (" + std::to_string(error) + ")";
  return s;
}

}  // namespace

std::string RedisStatusError(const EngineStatus& status) {
  switch (status.kind()) {
    case Kind::kUnauthenticated:
      return std::string(kRedisErrNoAuth);
    case Kind::kAuthTypeUnknown:
    case Kind::kNoChallenge:
    case Kind::kAccountLocked:
    case Kind::kPasswordExpired:
    case Kind::kAuthPluginUnsupported:
    case Kind::kAccountBlocked:
      return std::string(kRedisErrWrongPass);
    case Kind::kTooManyConnections:
      return "ERR max number of clients reached";
    case Kind::kTlsRequired:
      return "ERR rowsocket: AUTH sends the password in clear: connect with TLS";
    case Kind::kDenied:
      return std::string(kRedisErrNoPermKey);
    case Kind::kNotAKey:
      return "ERR rowsocket: the key is not a value of the key column (too long?)";
    case Kind::kValueShape:
      return "ERR rowsocket: the container's value is not one column";
    case Kind::kNotANumber:
      return std::string(kRedisErrNotInteger);
    case Kind::kUnknownCommand:
      return "ERR rowsocket: the command is not served";
    case Kind::kTooBig:
      return "ERR rowsocket: the answer would pass rowsocket_max_answer_size";
    case Kind::kTooManyRows:
      return "ERR rowsocket: the command would examine more than rowsocket_max_rows_examined rows";
    case Kind::kStorageError:
      if (status.error() == 1406) return "ERR rowsocket: the value is too long for its column";
      return WithNumber(status.Name(), status.error());
    case Kind::kOk:
      return "ERR rowsocket: no error";
    default:
      return WithNumber(status.Name(), status.error());
  }
}

namespace {

unsigned char Fold(unsigned char c, bool nocase) {
  return nocase && c >= 'A' && c <= 'Z' ? static_cast<unsigned char>(c - 'A' + 'a') : c;
}

// Recursive on `*` only, with the pattern's length as its bound; a run of `*` is one.
bool Match(const unsigned char* p, size_t plen, const unsigned char* s, size_t slen,
           bool nocase) {
  while (plen > 0) {
    switch (p[0]) {
      case '*': {
        while (plen > 1 && p[1] == '*') {
          ++p;
          --plen;
        }
        if (plen == 1) return true;
        for (size_t i = 0; i <= slen; ++i)
          if (Match(p + 1, plen - 1, s + i, slen - i, nocase)) return true;
        return false;
      }
      case '?':
        if (slen == 0) return false;
        ++s;
        --slen;
        break;
      case '[': {
        if (slen == 0) return false;
        ++p;
        --plen;
        const bool negate = plen > 0 && p[0] == '^';
        if (negate) {
          ++p;
          --plen;
        }
        bool matched = false;
        while (plen > 0 && p[0] != ']') {
          if (p[0] == '\\' && plen >= 2) {
            ++p;
            --plen;
            if (Fold(p[0], nocase) == Fold(s[0], nocase)) matched = true;
          } else if (plen >= 3 && p[1] == '-') {
            unsigned char lo = Fold(p[0], nocase), hi = Fold(p[2], nocase);
            if (lo > hi) std::swap(lo, hi);
            const unsigned char c = Fold(s[0], nocase);
            if (c >= lo && c <= hi) matched = true;
            p += 2;
            plen -= 2;
          } else if (Fold(p[0], nocase) == Fold(s[0], nocase)) {
            matched = true;
          }
          ++p;
          --plen;
        }
        if (plen == 0) {  // an unclosed set ends at the pattern's end, as Redis reads it
          ++plen;
          --p;
        }
        if (negate) matched = !matched;
        if (!matched) return false;
        ++s;
        --slen;
        break;
      }
      case '\\':
        if (plen >= 2) {
          ++p;
          --plen;
        }
        [[fallthrough]];
      default:
        if (slen == 0 || Fold(p[0], nocase) != Fold(s[0], nocase)) return false;
        ++s;
        --slen;
        break;
    }
    ++p;
    --plen;
  }
  return slen == 0;
}

}  // namespace

bool RedisGlobMatch(std::string_view pattern, std::string_view text, bool nocase) {
  return Match(reinterpret_cast<const unsigned char*>(pattern.data()), pattern.size(),
               reinterpret_cast<const unsigned char*>(text.data()), text.size(), nocase);
}

std::string RedisParseHello(const std::vector<std::string_view>& argv, RedisHello* hello) {
  *hello = RedisHello();
  if (argv.size() >= 2) {
    int64_t version = 0;
    if (!RedisStringToInt64(argv[1], &version) || version < INT32_MIN || version > INT32_MAX)
      return "ERR Protocol version is not an integer or out of range";
    if (version < 2 || version > 3) return std::string(kRedisErrProtocolVersion);
    hello->version = static_cast<int>(version);
  }
  for (size_t j = 2; j < argv.size(); ++j) {
    const size_t more = argv.size() - 1 - j;
    const std::string_view opt = argv[j].substr(0, argv[j].find('\0'));
    auto is = [&opt](std::string_view word) {
      if (opt.size() != word.size()) return false;
      for (size_t i = 0; i < opt.size(); ++i)
        if ((opt[i] | 0x20) != word[i]) return false;
      return true;
    };
    if (is("auth") && more >= 2) {
      hello->auth = true;
      hello->user = argv[j + 1];
      hello->password = argv[j + 2];
      j += 2;
    } else if (is("setname") && more >= 1) {
      hello->setname = true;
      hello->name = argv[j + 1];
      ++j;
    } else {
      return "ERR Syntax error in HELLO option '" + std::string(opt) + "'";
    }
  }
  return std::string();
}

bool RedisValidClientName(std::string_view name) {
  for (char c : name)
    if (c < '!' || c > '~') return false;
  return true;
}

}  // namespace rowsocket
