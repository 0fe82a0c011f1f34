// SqlColumns: the column names of a table, read over SQL, for auto-open where the
// server cannot tell them.
//
// rowsocket describes a table itself (server_columns.h); the original HandlerSocket
// plugin cannot, yet `find test.user = 101` on a table not opened yet should open it
// with all its columns. When the command line names an SQL server (--sql-socket,
// --sql-port or --sql-host), this asks information_schema once per table and caches
// the answer. It connects as the mariadb client does: what those options, -u and
// --password say, the rest from the [client] and [rowsocket-cli] groups of the usual
// option files (/etc/mysql/my.cnf, ~/.my.cnf, ...). Single-threaded (the CLI's
// thread).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rowsocket/result.h"

struct st_mysql;

namespace rowsocket {
namespace cli {

struct SqlOptions {
  std::string host;                     // empty: the option files' host, or the local server
  unsigned port = 0;                    // 0: the option files' port, or the default
  std::string socket;                   // empty: the option files' socket, or the default
  std::optional<std::string> user;      // unset: the option files' user, or the login name
  std::optional<std::string> password;  // unset: the option files' password, or none
  // The command line named an SQL server (--sql-socket, --sql-port or --sql-host):
  // only then is SQL asked.
  bool given = false;
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
  std::string table_asked_;  // "db.table" whose columns are being read, for errors
};

}  // namespace cli
}  // namespace rowsocket
