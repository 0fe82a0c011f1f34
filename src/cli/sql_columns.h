// SqlColumns: the column names of a table, read over SQL, for auto-open.
//
// The HandlerSocket protocol cannot list a table's columns, yet `find test.user =
// 101` on a table not opened yet should open it with all its columns. When the user
// gives rowsocket-cli a SQL endpoint (--sql-socket or --sql-port, -u, --password),
// this asks information_schema once per table and caches the answer; without one,
// Columns() says how to name the columns instead. Single-threaded (the CLI's thread).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "rowsocket/result.h"

struct st_mysql;

namespace rowsocket {
namespace cli {

struct SqlOptions {
  std::string host = "127.0.0.1";
  unsigned port = 0;      // 0: no TCP endpoint given
  std::string socket;     // empty: no socket given
  std::string user = "root";
  std::string password;
  bool configured() const { return port != 0 || !socket.empty(); }
};

class SqlColumns {
 public:
  explicit SqlColumns(SqlOptions options) : options_(std::move(options)) {}
  ~SqlColumns();
  SqlColumns(const SqlColumns&) = delete;
  SqlColumns& operator=(const SqlColumns&) = delete;

  // The table's columns in table order, or a usage error that explains what to do.
  client::Result<std::vector<std::string>> Columns(const std::string& db, const std::string& table);

 private:
  client::Status Connect();

  SqlOptions options_;
  st_mysql* mysql_ = nullptr;
  std::map<std::string, std::vector<std::string>> cache_;  // "db.table" -> columns
};

}  // namespace cli
}  // namespace rowsocket
