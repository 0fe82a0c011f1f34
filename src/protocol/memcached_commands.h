// The memcached command table: what each command is, declared once. The server
// batches by it (reads, writes), the engine checks grants and login gating by it,
// and the counters count by it; no other code lists commands for these questions.
// Constant table; any thread.
#pragma once

#include <cstddef>
#include <cstdint>

#include "protocol/memcached.h"

namespace rowsocket {

// The counter (and ROWSOCKET_LATENCY kind) a command counts in: the HandlerSocket
// request it amounts to; commands without a key count with the P requests (kOther).
enum class McCountsAs : uint8_t { kOther, kFind, kInsert, kUpdate, kDelete, kInvalid };

struct McCommandInfo {
  McCommand command;
  const char* name;        // for people: "get", "mg", "sasl_auth", ...
  bool uses_rows;          // reads or changes the container's rows
  bool writes;             // changes rows (a write batch, UPDATE grants)
  char writes_with_flag;   // a meta flag that makes a reading command write ('T'), or 0
  bool inserts;            // may insert a row: the INSERT grant is checked too
  bool deletes;            // deletes rows: the DELETE grant (not UPDATE) is checked
  bool before_login;       // allowed before an account login
  bool logs_in;            // the account login itself (SASL)
  McCountsAs counts_as;
  bool retrieves;          // answers the items it reads (get, gat, mg, me, ...)
};

constexpr size_t kMcCommands = static_cast<size_t>(McCommand::kInvalid) + 1;

// The command's row of the table.
const McCommandInfo& McCommandProperties(McCommand command);

// The whole table, in McCommand order (for its unit test).
const McCommandInfo* McCommandTable();

// Whether this request changes rows: its command writes, or it carries the flag
// that makes its command write (mg with T changes the expiry time).
inline bool McWritesRows(const McRequest& mc) {
  const McCommandInfo& info = McCommandProperties(mc.command);
  return info.writes || (info.writes_with_flag != 0 && mc.meta.Has(info.writes_with_flag));
}

// What the request counts as in the counters and latency (its table row's counts_as;
// kOther counts as an open).
RequestCategory McCategoryOf(const McRequest& mc);

// Whether this request reads or changes rows; the others (version, stats, noop, ...)
// are answered without the container.
inline bool McTouchesRows(const McRequest& mc) { return McCommandProperties(mc.command).uses_rows; }

}  // namespace rowsocket
