// HandlerSocket's words for the engine's statuses: the one place where an
// EngineStatus becomes `<code>\t1\t<word>` (ResponseWriter writes it), with the words
// of wire_errors.h, and where an error the HandlerSocket parser or listener found
// becomes a status for the engine to answer. Pure; any thread.
#pragma once

#include "protocol/engine_status.h"
#include "protocol/wire_status.h"

namespace rowsocket {

// `status` in HandlerSocket's words: class 1 (the table or the storage engine), 2 (the
// request), 3 (the login or grants), and a word; where the server gave an error
// number, class 1 and that number (`1 1 1290` for read_only, `1 1 146` for a lock
// wait timeout), as the original plugin answers. A bad request's detail is its word.
WireStatus HsWireStatus(const EngineStatus& status);

// An error HandlerSocket's parser or listener decided (Request::error) as a status
// whose HsWireStatus is that error again.
EngineStatus HsEngineStatus(const WireStatus& error);

}  // namespace rowsocket
