// The engine's statuses in memcached's words: the one place where an EngineStatus
// (engine_status.h) becomes a memcached answer — a text line (`SERVER_ERROR ...`,
// `CLIENT_ERROR ...`, `ERROR`) or a binary status. The engine never spells a memcached
// error itself. Pure; thread-compatible.
#pragma once

#include <string>

#include "protocol/engine_status.h"
#include "protocol/memcached.h"

namespace rowsocket {

// The text answer to a request that ended with `status` (not OK), without its CRLF:
// - a refusal of the login or grants (category kUnauthorized): `CLIENT_ERROR access
//   denied` where the grants refuse it, `CLIENT_ERROR unauthenticated` otherwise;
// - what the request asked is wrong: memcached's `CLIENT_ERROR` words (a key that is
//   no value of the key column, a value of the wrong number of fields, a non-numeric
//   increment), `ERROR` for an unknown command;
// - what the server refused or could not do: `SERVER_ERROR <what happened>`, and
//   where the server gave an error number, `SERVER_ERROR 1 <number>` (`SERVER_ERROR 1
//   146` for a lock wait timeout, `SERVER_ERROR 1 1290` for read_only).
std::string McTextError(const EngineStatus& status);

// The binary status of the same: kAuthError for a refusal, kInvalidArguments for a
// wrong key or value, kNonNumeric, kUnknownCommand, and kOutOfMemory (memcached's
// "temporary failure") for everything the server refused or could not do.
McStatus McBinaryError(const EngineStatus& status);

// Appends `status` (not OK) as the answer to `mc`, in its framing; nothing where the
// request is quiet about errors.
void McAnswerStatus(const McRequest& mc, const EngineStatus& status, std::string* out);

// A request refused by login gating or the account's grants (`status` of category
// kUnauthorized): McAnswerStatus's answer, given even where the request is quiet: a
// client must learn that it is refused.
void McAnswerRefusal(const McRequest& mc, const EngineStatus& status, std::string* out);

// A request the engine could not run (`status` not OK: a storage error, a lock wait
// timeout, a deadlock, killed, ...): McAnswerStatus.
void McAnswerFailure(const McRequest& mc, const EngineStatus& status, std::string* out);

// flush_all where rowsocket_memcached_flush is off: binary kNotStored; text
// `SERVER_ERROR flush_all is off (rowsocket_memcached_flush)`. Nothing where the
// request is quiet about errors.
void McAnswerFlushOff(const McRequest& mc, std::string* out);

}  // namespace rowsocket
