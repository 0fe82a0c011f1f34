// Redis's shared argument readers (redis_args.h).
#include "protocol/redis_args.h"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "protocol/redis.h"
#include "protocol/redis_reply.h"

namespace rowsocket {
namespace {

// Redis's MAX_LONG_DOUBLE_CHARS.
constexpr size_t kMaxLongDoubleChars = 5 * 1024;

// The bytes as C reads them: up to the first NUL.
std::string_view CString(std::string_view bytes) {
  const size_t nul = bytes.find('\0');
  return nul == std::string_view::npos ? bytes : bytes.substr(0, nul);
}

// strcasecmp(word, option) == 0, with the word read as a C string.
bool Is(std::string_view word, std::string_view option) {
  word = CString(word);
  if (word.size() != option.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(word[i])) !=
        std::tolower(static_cast<unsigned char>(option[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool RedisStringToLongDouble(std::string_view text, long double* value) {
  if (text.empty() || text.size() >= kMaxLongDoubleChars) return false;
  char buf[kMaxLongDoubleChars];
  std::memcpy(buf, text.data(), text.size());
  buf[text.size()] = '\0';
  errno = 0;
  char* end = nullptr;
  const long double v = std::strtold(buf, &end);
  if (std::isspace(static_cast<unsigned char>(buf[0])) || *end != '\0' ||
      static_cast<size_t>(end - buf) != text.size() ||
      (errno == ERANGE && (v == HUGE_VALL || v == -HUGE_VALL || std::fpclassify(v) == FP_ZERO)) ||
      errno == EINVAL || std::isnan(v)) {
    return false;
  }
  *value = v;
  return true;
}

bool RedisParseScanCursor(std::string_view text, uint64_t* cursor) {
  const std::string copy(CString(text));
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(copy.c_str(), &end, 10);
  if ((!copy.empty() && std::isspace(static_cast<unsigned char>(copy[0]))) || *end != '\0' ||
      errno == ERANGE) {
    return false;
  }
  *cursor = v;
  return true;
}

std::string RedisParseSetOptions(const std::string_view* argv, size_t argc, size_t first,
                                 RedisSetCommand command, RedisSetOptions* o) {
  const bool set = command == RedisSetCommand::kSet;
  using E = RedisExpireKind;
  for (size_t j = first; j < argc; ++j) {
    const std::string_view w = argv[j];
    const bool has_next = j + 1 < argc;
    // Each kind of expiry excludes the others, KEEPTTL and PERSIST, but not itself.
    auto expiry_allowed = [&](E kind) {
      return !o->keepttl && !o->persist && (o->expire == E::kNone || o->expire == kind) &&
             has_next;
    };
    if (set && Is(w, "NX") && !o->xx) {
      o->nx = true;
    } else if (set && Is(w, "XX") && !o->nx) {
      o->xx = true;
    } else if (set && Is(w, "GET")) {
      o->get = true;
    } else if (set && Is(w, "KEEPTTL") && !o->persist && o->expire == E::kNone) {
      o->keepttl = true;
    } else if (!set && Is(w, "PERSIST") && o->expire == E::kNone && !o->keepttl) {
      o->persist = true;
    } else if ((Is(w, "EX") && expiry_allowed(E::kEx)) || (Is(w, "PX") && expiry_allowed(E::kPx)) ||
               (Is(w, "EXAT") && expiry_allowed(E::kExat)) ||
               (Is(w, "PXAT") && expiry_allowed(E::kPxat))) {
      o->expire = Is(w, "EX") ? E::kEx : Is(w, "PX") ? E::kPx : Is(w, "EXAT") ? E::kExat : E::kPxat;
      o->expire_arg = argv[++j];
    } else {
      return std::string(kRedisErrSyntax);
    }
  }
  return std::string();
}

std::string RedisExpireAt(const RedisSetOptions& o, int64_t now_ms, std::string_view name,
                          int64_t* at_ms) {
  int64_t v = 0;
  if (!RedisStringToInt64(o.expire_arg, &v)) return std::string(kRedisErrNotInteger);
  const bool seconds = o.expire == RedisExpireKind::kEx || o.expire == RedisExpireKind::kExat;
  if (v <= 0 || (seconds && v > LLONG_MAX / 1000)) return RedisErrInvalidExpire(name);
  if (seconds) v *= 1000;
  if (o.expire == RedisExpireKind::kEx || o.expire == RedisExpireKind::kPx) {
    // Redis adds with wrap-around and then sees the overflow as a value <= 0.
    v = static_cast<int64_t>(static_cast<uint64_t>(v) + static_cast<uint64_t>(now_ms));
  }
  if (v <= 0) return RedisErrInvalidExpire(name);
  *at_ms = v;
  return std::string();
}

std::string RedisParseScan(const std::string_view* argv, size_t argc, RedisScanOptions* o) {
  if (argc < 2 || !RedisParseScanCursor(argv[1], &o->cursor)) {
    return std::string(kRedisErrInvalidCursor);
  }
  for (size_t i = 2; i < argc;) {
    const bool has_arg = argc - i >= 2;
    if (Is(argv[i], "COUNT") && has_arg) {
      if (!RedisStringToInt64(argv[i + 1], &o->count)) return std::string(kRedisErrNotInteger);
      if (o->count < 1) return std::string(kRedisErrSyntax);
    } else if (Is(argv[i], "MATCH") && has_arg) {
      o->match = argv[i + 1];
      o->has_match = !(o->match.size() == 1 && o->match[0] == '*');
    } else if (Is(argv[i], "TYPE") && has_arg) {
      o->type = argv[i + 1];
      o->has_type = true;
    } else {
      return std::string(kRedisErrSyntax);
    }
    i += 2;
  }
  return std::string();
}

}  // namespace rowsocket
