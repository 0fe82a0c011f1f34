// SqlColumns: one libmariadb connection, opened on first need, kept for the session.
// Called on the CLI's only thread.
#include "sql_columns.h"

#include <mysql.h>

namespace rowsocket {
namespace cli {

using client::Error;

SqlColumns::~SqlColumns() {
  if (mysql_ != nullptr) mysql_close(mysql_);
}

client::Status SqlColumns::Connect() {
  if (mysql_ != nullptr) return client::Status();
  MYSQL* m = mysql_init(nullptr);
  unsigned timeout = 5;
  mysql_options(m, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
  // What the command line leaves out (null here) comes from the option files'
  // [client] and [rowsocket-cli] groups, as for the mariadb client; libmariadb
  // falls back to the login name for the user and to the default socket when no
  // host, port or socket is left.
  mysql_options(m, MYSQL_READ_DEFAULT_GROUP, "rowsocket-cli");
  // A socket wins over a port; libmariadb uses the socket only for "localhost".
  const char* socket = options_.socket.empty() ? nullptr : options_.socket.c_str();
  const char* host = socket != nullptr ? "localhost"
                     : options_.host.empty() ? nullptr : options_.host.c_str();
  const char* user = options_.user ? options_.user->c_str() : nullptr;
  const char* password = options_.password ? options_.password->c_str() : nullptr;
  if (mysql_real_connect(m, host, user, password, nullptr, options_.port, socket, 0) == nullptr) {
    std::string why = mysql_error(m);
    mysql_close(m);
    return Error::Usage("which columns of " + table_asked_ + "? cannot read them over SQL: " +
                        why);
  }
  mysql_ = m;
  return client::Status();
}

client::Result<std::vector<std::string>> SqlColumns::Columns(const std::string& db,
                                                             const std::string& table) {
  const std::string name = db + "." + table;
  auto cached = cache_.find(name);
  if (cached != cache_.end()) return cached->second;
  table_asked_ = name;
  client::Status s = Connect();
  if (!s.ok()) return s.error();

  std::string escaped_db(db.size() * 2 + 1, '\0'), escaped_table(table.size() * 2 + 1, '\0');
  escaped_db.resize(mysql_real_escape_string(mysql_, &escaped_db[0], db.data(), db.size()));
  escaped_table.resize(
      mysql_real_escape_string(mysql_, &escaped_table[0], table.data(), table.size()));
  const std::string query =
      "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA='" + escaped_db +
      "' AND TABLE_NAME='" + escaped_table + "' ORDER BY ORDINAL_POSITION";
  if (mysql_real_query(mysql_, query.data(), query.size()) != 0) {
    return Error::Usage(std::string("cannot read column names over SQL: ") + mysql_error(mysql_));
  }
  MYSQL_RES* result = mysql_store_result(mysql_);
  std::vector<std::string> columns;
  if (result != nullptr) {
    while (MYSQL_ROW row = mysql_fetch_row(result)) {
      unsigned long* lengths = mysql_fetch_lengths(result);
      columns.emplace_back(row[0], lengths[0]);
    }
    mysql_free_result(result);
  }
  if (columns.empty()) return Error::Usage("no table " + name + " (asked over SQL)");
  cache_[name] = columns;
  return columns;
}

}  // namespace cli
}  // namespace rowsocket
