// The Redis command table (redis_commands.h). Names, arities, flags and key positions
// are Redis 7.0's, as COMMAND INFO shows them (tests/unit/protocol/data/
// redis_commands.tsv, checked by redis_commands_test.cc; CLIENT SETINFO is 7.2's);
// the columns after them are rowsocket's.
#include "protocol/redis_commands.h"

#include <algorithm>
#include <array>

#include "protocol/redis_reply.h"

namespace rowsocket {
namespace {

using I = RedisCommandId;
using R = RedisRows;
using N = RedisCountsAs;

// id, name, arity, flags, first key, last key, step, rows, inserts, deletes, flush,
// counts_as. In RedisCommandId order; subcommands right after their container.
constexpr RedisCommandInfo kTable[kRedisCommands] = {
    {I::kHello, "hello", -1, kRedisNoScript | kRedisLoading | kRedisStale | kRedisFast | kRedisNoAuth | kRedisAllowBusy,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
    {I::kAuth, "auth", -2, kRedisNoScript | kRedisLoading | kRedisStale | kRedisFast | kRedisNoAuth | kRedisAllowBusy,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
    {I::kSelect, "select", 2, kRedisLoading | kRedisStale | kRedisFast,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
    {I::kClient, "client", -2, 0,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
    {I::kClientSetname, "client|setname", 3, kRedisNoScript | kRedisLoading | kRedisStale,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
    {I::kClientGetname, "client|getname", 2, kRedisNoScript | kRedisLoading | kRedisStale,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
    {I::kClientId, "client|id", 2, kRedisNoScript | kRedisLoading | kRedisStale,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
    {I::kClientInfo, "client|info", 2, kRedisNoScript | kRedisLoading | kRedisStale,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
    {I::kClientList, "client|list", -2, kRedisAdmin | kRedisNoScript | kRedisLoading | kRedisStale,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
    // Redis 7.2's (7.0 lacks it; redis-py 5 and other clients send it on connecting).
    {I::kClientSetinfo, "client|setinfo", 4, kRedisNoScript | kRedisLoading | kRedisStale,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
    {I::kCommand, "command", -1, kRedisLoading | kRedisStale,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
    {I::kCommandCount, "command|count", 2, kRedisLoading | kRedisStale,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
    {I::kCommandDocs, "command|docs", -2, kRedisLoading | kRedisStale,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
    {I::kCommandInfo, "command|info", -2, kRedisLoading | kRedisStale,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
    {I::kCommandList, "command|list", -2, kRedisLoading | kRedisStale,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
    {I::kPing, "ping", -1, kRedisFast,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
    {I::kEcho, "echo", 2, kRedisLoading | kRedisStale | kRedisFast,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
    {I::kQuit, "quit", -1, kRedisNoScript | kRedisLoading | kRedisStale | kRedisFast | kRedisNoAuth | kRedisAllowBusy,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
    {I::kReset, "reset", 1, kRedisNoScript | kRedisLoading | kRedisStale | kRedisFast | kRedisNoAuth | kRedisAllowBusy,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
    {I::kInfo, "info", -1, kRedisLoading | kRedisStale,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
    {I::kConfig, "config", -2, 0,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
    {I::kConfigGet, "config|get", -3, kRedisAdmin | kRedisNoScript | kRedisLoading | kRedisStale,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
    {I::kConfigSet, "config|set", -4, kRedisAdmin | kRedisNoScript | kRedisLoading | kRedisStale,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
    {I::kConfigResetstat, "config|resetstat", 2, kRedisAdmin | kRedisNoScript | kRedisLoading | kRedisStale,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
    {I::kGet, "get", 2, kRedisReadonly | kRedisFast,
     1, 1, 1, R::kRead, false, false, false, N::kFind},
    {I::kSet, "set", -3, kRedisWrite | kRedisDenyOom,
     1, 1, 1, R::kWrite, true, false, false, N::kInsert},
    {I::kSetnx, "setnx", 3, kRedisWrite | kRedisDenyOom | kRedisFast,
     1, 1, 1, R::kWrite, true, false, false, N::kInsert},
    {I::kSetex, "setex", 4, kRedisWrite | kRedisDenyOom,
     1, 1, 1, R::kWrite, true, false, false, N::kInsert},
    {I::kGetset, "getset", 3, kRedisWrite | kRedisDenyOom | kRedisFast,
     1, 1, 1, R::kWrite, true, false, false, N::kInsert},
    {I::kGetdel, "getdel", 2, kRedisWrite | kRedisFast,
     1, 1, 1, R::kWrite, false, true, false, N::kDelete},
    {I::kGetex, "getex", -2, kRedisWrite | kRedisFast,
     1, 1, 1, R::kWrite, false, false, false, N::kUpdate},
    {I::kMget, "mget", -2, kRedisReadonly | kRedisFast,
     1, -1, 1, R::kRead, false, false, false, N::kFind},
    {I::kMset, "mset", -3, kRedisWrite | kRedisDenyOom,
     1, -1, 2, R::kWrite, true, false, false, N::kInsert},
    {I::kMsetnx, "msetnx", -3, kRedisWrite | kRedisDenyOom,
     1, -1, 2, R::kWrite, true, false, false, N::kInsert},
    {I::kAppend, "append", 3, kRedisWrite | kRedisDenyOom | kRedisFast,
     1, 1, 1, R::kWrite, true, false, false, N::kInsert},
    {I::kStrlen, "strlen", 2, kRedisReadonly | kRedisFast,
     1, 1, 1, R::kRead, false, false, false, N::kFind},
    {I::kGetrange, "getrange", 4, kRedisReadonly,
     1, 1, 1, R::kRead, false, false, false, N::kFind},
    {I::kIncr, "incr", 2, kRedisWrite | kRedisDenyOom | kRedisFast,
     1, 1, 1, R::kWrite, true, false, false, N::kInsert},
    {I::kDecr, "decr", 2, kRedisWrite | kRedisDenyOom | kRedisFast,
     1, 1, 1, R::kWrite, true, false, false, N::kInsert},
    {I::kIncrby, "incrby", 3, kRedisWrite | kRedisDenyOom | kRedisFast,
     1, 1, 1, R::kWrite, true, false, false, N::kInsert},
    {I::kDecrby, "decrby", 3, kRedisWrite | kRedisDenyOom | kRedisFast,
     1, 1, 1, R::kWrite, true, false, false, N::kInsert},
    {I::kIncrbyfloat, "incrbyfloat", 3, kRedisWrite | kRedisDenyOom | kRedisFast,
     1, 1, 1, R::kWrite, true, false, false, N::kInsert},
    {I::kDel, "del", -2, kRedisWrite,
     1, -1, 1, R::kWrite, false, true, false, N::kDelete},
    {I::kUnlink, "unlink", -2, kRedisWrite | kRedisFast,
     1, -1, 1, R::kWrite, false, true, false, N::kDelete},
    {I::kExists, "exists", -2, kRedisReadonly | kRedisFast,
     1, -1, 1, R::kRead, false, false, false, N::kFind},
    {I::kType, "type", 2, kRedisReadonly | kRedisFast,
     1, 1, 1, R::kRead, false, false, false, N::kFind},
    {I::kExpire, "expire", -3, kRedisWrite | kRedisFast,
     1, 1, 1, R::kWrite, false, false, false, N::kUpdate},
    {I::kPexpire, "pexpire", -3, kRedisWrite | kRedisFast,
     1, 1, 1, R::kWrite, false, false, false, N::kUpdate},
    {I::kExpireat, "expireat", -3, kRedisWrite | kRedisFast,
     1, 1, 1, R::kWrite, false, false, false, N::kUpdate},
    {I::kPexpireat, "pexpireat", -3, kRedisWrite | kRedisFast,
     1, 1, 1, R::kWrite, false, false, false, N::kUpdate},
    {I::kTtl, "ttl", 2, kRedisReadonly | kRedisFast,
     1, 1, 1, R::kRead, false, false, false, N::kFind},
    {I::kPttl, "pttl", 2, kRedisReadonly | kRedisFast,
     1, 1, 1, R::kRead, false, false, false, N::kFind},
    {I::kPersist, "persist", 2, kRedisWrite | kRedisFast,
     1, 1, 1, R::kWrite, false, false, false, N::kUpdate},
    {I::kScan, "scan", -2, kRedisReadonly,
     0, 0, 0, R::kRead, false, false, false, N::kFind},
    {I::kDbsize, "dbsize", 1, kRedisReadonly | kRedisFast,
     0, 0, 0, R::kRead, false, false, false, N::kOther},
    {I::kFlushdb, "flushdb", -1, kRedisWrite,
     0, 0, 0, R::kWrite, false, true, true, N::kDelete},
    {I::kHget, "hget", 3, kRedisReadonly | kRedisFast,
     1, 1, 1, R::kRead, false, false, false, N::kFind},
    {I::kHmget, "hmget", -3, kRedisReadonly | kRedisFast,
     1, 1, 1, R::kRead, false, false, false, N::kFind},
    {I::kHgetall, "hgetall", 2, kRedisReadonly,
     1, 1, 1, R::kRead, false, false, false, N::kFind},
    {I::kHset, "hset", -4, kRedisWrite | kRedisDenyOom | kRedisFast,
     1, 1, 1, R::kWrite, true, false, false, N::kInsert},
    {I::kHsetnx, "hsetnx", 4, kRedisWrite | kRedisDenyOom | kRedisFast,
     1, 1, 1, R::kWrite, true, false, false, N::kInsert},
    {I::kHincrby, "hincrby", 4, kRedisWrite | kRedisDenyOom | kRedisFast,
     1, 1, 1, R::kWrite, true, false, false, N::kInsert},
    {I::kHincrbyfloat, "hincrbyfloat", 4, kRedisWrite | kRedisDenyOom | kRedisFast,
     1, 1, 1, R::kWrite, true, false, false, N::kInsert},
    {I::kHexists, "hexists", 3, kRedisReadonly | kRedisFast,
     1, 1, 1, R::kRead, false, false, false, N::kFind},
    {I::kHlen, "hlen", 2, kRedisReadonly | kRedisFast,
     1, 1, 1, R::kRead, false, false, false, N::kFind},
    {I::kHkeys, "hkeys", 2, kRedisReadonly,
     1, 1, 1, R::kRead, false, false, false, N::kFind},
    {I::kHvals, "hvals", 2, kRedisReadonly,
     1, 1, 1, R::kRead, false, false, false, N::kFind},
    {I::kHstrlen, "hstrlen", 3, kRedisReadonly | kRedisFast,
     1, 1, 1, R::kRead, false, false, false, N::kFind},
    {I::kHdel, "hdel", -3, kRedisWrite | kRedisFast,
     1, 1, 1, R::kWrite, false, false, false, N::kUpdate},
    {I::kMulti, "multi", 1, kRedisNoScript | kRedisLoading | kRedisStale | kRedisFast | kRedisAllowBusy,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
    {I::kExec, "exec", 1, kRedisNoScript | kRedisLoading | kRedisStale | kRedisSkipSlowlog,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
    {I::kDiscard, "discard", 1, kRedisNoScript | kRedisLoading | kRedisStale | kRedisFast | kRedisAllowBusy,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
    {I::kWatch, "watch", -2, kRedisNoScript | kRedisLoading | kRedisStale | kRedisFast | kRedisAllowBusy,
     1, -1, 1, R::kRead, false, false, false, N::kOther},
    {I::kUnwatch, "unwatch", 1, kRedisNoScript | kRedisLoading | kRedisStale | kRedisFast | kRedisAllowBusy,
     0, 0, 0, R::kNone, false, false, false, N::kOther},
};

constexpr const char* kFlagNames[kRedisFlagCount] = {
    "write", "readonly", "denyoom", "admin", "noscript", "loading",
    "stale", "skip_slowlog", "fast", "no_auth", "allow_busy"};

// Longest name in the table, container|sub included.
constexpr size_t kMaxName = 24;

// Lower-cases `word` into `buf`; false when it is longer than any name.
bool Lower(std::string_view word, char* buf, size_t* size) {
  if (word.size() > kMaxName) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    const char c = word[i];
    buf[i] = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  *size = word.size();
  return true;
}

// The table's rows sorted by name, for the lookup (each name's length measured once:
// every command of every client is looked up).
struct ByName {
  struct Row {
    std::string_view name;
    const RedisCommandInfo* info;
  };
  std::array<Row, kRedisCommands> rows{};
  ByName() {
    for (size_t i = 0; i < kRedisCommands; ++i) rows[i] = {kTable[i].name, &kTable[i]};
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.name < b.name; });
  }
  const RedisCommandInfo* Find(std::string_view lower) const {
    auto it = std::lower_bound(rows.begin(), rows.end(), lower,
                               [](const Row& row, std::string_view key) { return row.name < key; });
    return it != rows.end() && it->name == lower ? it->info : nullptr;
  }
};

const ByName& Names() {
  static const ByName names;
  return names;
}

bool HasSubcommands(const RedisCommandInfo& info) {
  const size_t next = static_cast<size_t>(info.id) + 1;
  if (next >= kRedisCommands) return false;
  const std::string_view sub(kTable[next].name);
  const std::string_view name(info.name);
  return sub.size() > name.size() && sub.compare(0, name.size(), name) == 0 &&
         sub[name.size()] == '|';
}

}  // namespace

const char* RedisFlagName(size_t bit) { return bit < kRedisFlagCount ? kFlagNames[bit] : ""; }

const RedisCommandInfo& RedisCommandProperties(RedisCommandId id) {
  return kTable[static_cast<size_t>(id)];
}

const RedisCommandInfo* RedisCommandTable() { return kTable; }

const RedisCommandInfo* RedisFindCommand(const std::string_view* argv, size_t argc,
                                         std::string* error) {
  char name[2 * kMaxName + 1];
  size_t size = 0;
  const RedisCommandInfo* info = nullptr;
  // A name with '|' is never a command of its own (Redis looks its parts up apart).
  if (Lower(argv[0], name, &size) && std::string_view(name, size).find('|') == std::string_view::npos) {
    info = Names().Find(std::string_view(name, size));
  }
  if (info != nullptr && argc >= 2 && HasSubcommands(*info)) {
    size_t sub = 0;
    info = nullptr;
    name[size] = '|';
    if (Lower(argv[1], name + size + 1, &sub)) {
      info = Names().Find(std::string_view(name, size + 1 + sub));
    }
    if (info == nullptr) {
      std::string upper(argv[0]);
      for (char& c : upper) c = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
      *error = RedisErrUnknownSubcommand(upper, argv[1]);
      return nullptr;
    }
  }
  if (info == nullptr) {
    *error = RedisErrUnknownCommand(argv, argc);
    return nullptr;
  }
  const int64_t n = static_cast<int64_t>(argc);
  if ((info->arity > 0 && info->arity != n) || n < -info->arity) {
    *error = RedisErrWrongArity(info->name);
    return nullptr;
  }
  return info;
}

bool RedisIsKeyPosition(const RedisCommandInfo& info, size_t i, size_t argc) {
  if (info.first_key <= 0 || i < static_cast<size_t>(info.first_key)) return false;
  const int64_t last = info.last_key < 0 ? static_cast<int64_t>(argc) + info.last_key
                                         : info.last_key;
  if (static_cast<int64_t>(i) > last) return false;
  return (i - static_cast<size_t>(info.first_key)) % static_cast<size_t>(info.key_step) == 0;
}

}  // namespace rowsocket
