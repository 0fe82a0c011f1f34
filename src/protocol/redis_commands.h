// The Redis command table: every command (and subcommand) the Redis listener serves,
// declared once, as Redis 7.0's own table declares it (name, arity, flags, key
// positions, which COMMAND INFO shows) plus what rowsocket needs to know of it (does
// it read or change rows, may it insert or delete, which counter it counts in). The
// server batches by it, the engine checks logins and grants by it, the counters
// count by it; no other code lists commands. RedisFindCommand applies Redis's
// lookup and arity check with its exact errors. Constant table; any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rowsocket {

// One id per row of the table (the handler slot of each command), in table order.
enum class RedisCommandId : uint8_t {
  // connection
  kHello, kAuth, kSelect, kClient, kClientSetname, kClientGetname, kClientId, kClientInfo,
  kClientList, kClientSetinfo, kCommand, kCommandCount, kCommandDocs, kCommandInfo, kCommandList, kPing,
  kEcho, kQuit, kReset, kInfo, kConfig, kConfigGet, kConfigSet, kConfigResetstat,
  // strings
  kGet, kSet, kSetnx, kSetex, kGetset, kGetdel, kGetex, kMget, kMset, kMsetnx, kAppend,
  kStrlen, kGetrange, kIncr, kDecr, kIncrby, kDecrby, kIncrbyfloat,
  // keys
  kDel, kUnlink, kExists, kType, kExpire, kPexpire, kExpireat, kPexpireat, kTtl, kPttl,
  kPersist, kScan, kDbsize, kFlushdb,
  // hashes
  kHget, kHmget, kHgetall, kHset, kHsetnx, kHincrby, kHincrbyfloat, kHexists, kHlen,
  kHkeys, kHvals, kHstrlen, kHdel,
  // transactions
  kMulti, kExec, kDiscard, kWatch, kUnwatch,
  kCount,  // not a command: the table's size
};

constexpr size_t kRedisCommands = static_cast<size_t>(RedisCommandId::kCount);

// Redis's command flags, in the order COMMAND INFO lists them.
enum RedisFlag : uint32_t {
  kRedisWrite = 1u << 0,
  kRedisReadonly = 1u << 1,
  kRedisDenyOom = 1u << 2,
  kRedisAdmin = 1u << 3,
  kRedisNoScript = 1u << 4,
  kRedisLoading = 1u << 5,
  kRedisStale = 1u << 6,
  kRedisSkipSlowlog = 1u << 7,
  kRedisFast = 1u << 8,
  kRedisNoAuth = 1u << 9,      // allowed before a login (HELLO, AUTH, QUIT, RESET)
  kRedisAllowBusy = 1u << 10,
};
constexpr size_t kRedisFlagCount = 11;
// The flag's name in COMMAND INFO ("write", "no_auth", ...); bit is 0 to 10.
const char* RedisFlagName(size_t bit);

// What a command does to the rows of the containers (rowsocket's own columns).
enum class RedisRows : uint8_t { kNone, kRead, kWrite };

// The counter (and ROWSOCKET_LATENCY kind) a command counts in, as McCountsAs.
enum class RedisCountsAs : uint8_t { kOther, kFind, kInsert, kUpdate, kDelete };

struct RedisCommandInfo {
  RedisCommandId id;
  const char* name;      // lower case; `container|sub` for a subcommand
  int16_t arity;         // Redis's: n exactly, -n at least n (the name counts)
  uint32_t flags;        // RedisFlag bits
  int8_t first_key;      // key positions: argv[first_key], step by key_step up to
  int8_t last_key;       // last_key (-1: the last argument); 0 = no keys
  int8_t key_step;
  RedisRows rows;
  bool inserts;          // may insert a row: the INSERT grant is checked too
  bool deletes;          // deletes rows: the DELETE grant
  bool flush;            // FLUSHDB: gated as memcached's flush_all is
  RedisCountsAs counts_as;
};

// The command's row of the table.
const RedisCommandInfo& RedisCommandProperties(RedisCommandId id);
// The whole table, in RedisCommandId order (for its unit test).
const RedisCommandInfo* RedisCommandTable();

// The command argv names, as Redis 7.0's processCommand finds it: argv[0] in any
// case; for a command with subcommands and a second word, the subcommand. Null, with
// Redis's error in *error, for an unknown command (`ERR unknown command ...`), an
// unknown subcommand (`ERR unknown subcommand 'x'. Try CLIENT HELP.`) or the wrong
// number of arguments (`ERR wrong number of arguments for 'client|setname' command`).
// `argc` must be at least 1.
const RedisCommandInfo* RedisFindCommand(const std::string_view* argv, size_t argc,
                                         std::string* error);

// Whether argv[i] is one of the command's keys (argc: the whole command's).
bool RedisIsKeyPosition(const RedisCommandInfo& info, size_t i, size_t argc);

}  // namespace rowsocket
