// The columns of a table as rowsocket itself tells them, for auto-open.
//
// `find test.user = 101` on a table not opened yet opens it with all its columns.
// rowsocket answers its own request `?describe <db> <table> [<index>]` (see
// docs/PROTOCOL.md) with the table's columns, in table order, that the connection's
// account has a privilege on: a name, the column's place in the index's key and the
// privileges, one row each. These are the pure halves: the request line and the
// reading of its answer; Session sends one on the listener the command uses. A
// server that is not rowsocket (the original plugin) answers `2 1 cmd`, which
// IsUnknownRequest recognizes. Any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rowsocket/result.h"

namespace rowsocket {
namespace cli {

struct DescribedColumn {
  std::string name;
  uint32_t key_part = 0;   // its position in the index's key, from 1; 0: not a key part
  std::string privileges;  // "select,insert,update,references" or a part of it
  bool selectable() const;  // a `P` may name it (SELECT)
};

// `?describe <db> <table> <index>` with its LF, names encoded for the wire.
std::string DescribeRequest(const std::string& db, const std::string& table,
                            const std::string& index);

// Reads the answer line (without its LF): the columns, the server's error, or a
// usage error when the line is not an answer of that shape.
client::Result<std::vector<DescribedColumn>> ParseDescribeAnswer(const std::string& line);

// The server does not know the request: the original plugin, or a rowsocket older
// than it.
bool IsUnknownRequest(const client::Error& e);

// The columns a command opens the table with: those the account may read, in
// table order (all of them when it may read none, so that `P` says what is refused).
std::vector<std::string> ColumnsToOpen(const std::vector<DescribedColumn>& columns);

}  // namespace cli
}  // namespace rowsocket
