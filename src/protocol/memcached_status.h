// The engine's outcomes in memcached's words: where a memcached request was refused
// or could not run, these functions write its one answer from the status the engine
// gave (a WireStatus, in the wire's vocabulary of wire_errors.h). The engine never
// spells a memcached error itself. Pure; thread-compatible.
#pragma once

#include <string>

#include "protocol/memcached.h"
#include "protocol/wire_status.h"

namespace rowsocket {

// A request refused by login gating or the account's grants (`status` of class 3,
// kUnauthorized): binary kAuthError; text `CLIENT_ERROR access denied` where the
// grants refuse it (`denied`), `CLIENT_ERROR unauthenticated` otherwise. Answered
// even where the request is quiet: a client must learn that it is refused.
void McAnswerRefusal(const McRequest& mc, const WireStatus& status, std::string* out);

// A request the engine could not run (`status` not OK: a storage error, a lock wait
// timeout, a deadlock, killed, ...): binary kOutOfMemory (memcached's "temporary
// failure"); text `SERVER_ERROR <class> <word>` (`SERVER_ERROR 1 1205`). Nothing
// where the request is quiet about errors.
void McAnswerFailure(const McRequest& mc, const WireStatus& status, std::string* out);

// flush_all where rowsocket_memcached_flush is off: binary kNotStored; text
// `SERVER_ERROR flush_all is off (rowsocket_memcached_flush)`. Nothing where the
// request is quiet about errors.
void McAnswerFlushOff(const McRequest& mc, std::string* out);

}  // namespace rowsocket
