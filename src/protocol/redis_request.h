// RedisRequest: one command of the Redis listener as the server layer framed it
// (redis.h) and looked it up (redis_commands.h), for the batch core and the Redis
// handler (engine/redis). A command the server layer refused or could not look up
// carries the error it answers (`error`, answered as `-<error>`), and no command
// info. RedisStatusError spells an EngineStatus in Redis's words. Pure;
// thread-compatible.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "protocol/engine_status.h"
#include "protocol/parsed_request.h"
#include "protocol/redis.h"
#include "protocol/redis_commands.h"

namespace rowsocket {

// A command a MULTI queued, kept until its EXEC (its words copied: the input they
// came in is gone by then).
struct RedisQueued {
  std::vector<std::string> words;
  const RedisCommandInfo* info = nullptr;
};

struct RedisRequest : ParsedRequest {
  RedisCommand command;                  // argv points into the connection's input
  const RedisCommandInfo* info = nullptr;  // null: answered with `error` alone
  std::string error;                     // without `-` and CRLF
  bool close_after = false;              // a protocol error: the connection closes after it
  bool queued = false;                   // queued by the connection's MULTI: +QUEUED
  bool unknown = false;                  // no command of the table (name or arity):
                                         // refused unrun, as Redis does
  // EXEC: the commands its MULTI queued, in order; `exec_abort`: one of them was
  // refused when queued (EXECABORT, nothing runs).
  std::vector<RedisQueued> transaction;
  bool exec_abort = false;

  void Clear() {
    command.Clear();
    info = nullptr;
    error.clear();
    close_after = false;
    queued = false;
    unknown = false;
    transaction.clear();
    exec_abort = false;
  }
  // Whether the command writes rows (the server's read/write split, read_only); an
  // EXEC, whether one of its commands does.
  bool writes() const {
    if (info == nullptr || queued) return false;
    for (const RedisQueued& q : transaction)
      if (q.info->rows == RedisRows::kWrite) return true;
    return info->rows == RedisRows::kWrite;
  }
};

// What a request counts as (its command table's counts_as; kInvalid without a
// command, kAuth for AUTH and HELLO).
RequestCategory RedisCategoryOf(const RedisRequest& request);

// The error answer (without `-` and CRLF) to a command that ended with `status` (not
// OK): `NOAUTH ...` before a login, `WRONGPASS ...` for a refused one, `NOPERM ...`
// where the account's grants refuse it, `ERR <what happened>` otherwise (with the
// server's error number where it gave one: `ERR rowsocket: lock wait timeout (1205)`).
std::string RedisStatusError(const EngineStatus& status);

// Redis's glob-style match (stringmatchlen), as CONFIG GET and SCAN MATCH read a
// pattern: `*` any bytes, `?` one byte, `[abc]`, `[a-z]`, `[^...]` one byte of (not
// of) the set, `\x` the byte x; `nocase` compares ASCII letters in any case.
bool RedisGlobMatch(std::string_view pattern, std::string_view text, bool nocase);

// Whether `name` is a valid client name (CLIENT SETNAME, HELLO SETNAME): bytes from
// '!' to '~' only, as Redis 7.0's clientSetName.
bool RedisValidClientName(std::string_view name);

// HELLO [protover [AUTH user password] [SETNAME name]], read as Redis 7.0 reads it:
// an error text (empty: fine), the version asked (0: none), and the options.
struct RedisHello {
  int version = 0;
  bool auth = false;
  std::string_view user, password;
  bool setname = false;
  std::string_view name;
};
std::string RedisParseHello(const std::vector<std::string_view>& argv, RedisHello* hello);

}  // namespace rowsocket
