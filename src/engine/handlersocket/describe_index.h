// ?describe: rowsocket's own request `?describe <db> <table> [<index>]` (request.h,
// docs/PROTOCOL.md), which tells a client such as rowsocket-cli the columns of a
// table, in table order, with their places in one index's key and what the
// connection's account may do with each — what it needs to open the index with `P`
// without asking SQL.
//
// It obeys what `P` obeys: the connection's login (the server layer refuses it
// before one, like every request but `A`), the system schemas' refusal (the
// handler's), the table's metadata lock (an open that meets one may wait apart),
// and under rowsocket_auth=account the server's grants as SHOW COLUMNS applies them:
// a table the account has no privilege on answers `denied`, and only the columns it
// has some privilege on are listed. Runs on its worker's thread: the checks in a
// batch's first pass, the answer in its second (where backpressure applies, as to
// every answer); it reads the table's definition, no row.
#pragma once

#include <cstdint>
#include <string>

#include "engine/admin/accounts.h"
#include "engine/core/open_index.h"
#include "engine/core/table_cache.h"
#include "protocol/request.h"
#include "protocol/engine_status.h"

namespace rowsocket {

// What a `?describe` found in the batch's first pass, for its answer in the second.
struct DescribeTarget {
  TableEntry* table = nullptr;  // open, and used by the batch (not closed before it ends)
  uint key_number = 0;
};

// Pass 1: opens the table `r` (a kDescribe) names and finds its index, as `P` does,
// and checks the account's privileges. OK with *target set, or the error `r`
// answers instead: `open_table`, `denied` (no privilege on the table or any of its
// columns; checked before the index, so that the account learns none of its
// names), `idxnum`, `idxtype`, `unauth` (the account has been dropped). `now_ms`:
// the batch's start, for the age of the account's privileges.
EngineStatus PrepareDescribe(const Request& r, TableCache* tables, Accounts* accounts,
                           EngineSession* session, uint64_t now_ms,
                           DescribeTarget* target);

// Pass 2: appends the answer to `out`, one row of kDescribeFields values per column
// shown. Answered when the connection's output has room, as every answer is; one
// answer is at most about a megabyte (4096 columns of 64-character names).
void AnswerDescribe(const DescribeTarget& target, Accounts* accounts,
                    EngineSession* session, std::string* out);

}  // namespace rowsocket
