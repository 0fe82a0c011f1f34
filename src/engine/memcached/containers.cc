// DefaultContainer: CREATE ... IF NOT EXISTS through the server's SQL service, only
// when a table is missing (a statement that changes nothing would still be logged and,
// on a Galera node, replicated: a cluster event at every start).
#include "engine/memcached/containers.h"

#include <chrono>
#include <cstring>

#include "engine/server_headers.h"
#include "util/log.h"
#include <mysql/service_sql.h>

namespace rowsocket {
namespace {

constexpr const char* kStatements[] = {
    "CREATE DATABASE IF NOT EXISTS rowsocket",
    "CREATE TABLE IF NOT EXISTS rowsocket.kv ("
    "k VARBINARY(250) NOT NULL PRIMARY KEY, "
    "v MEDIUMBLOB NOT NULL, "
    "cas BIGINT UNSIGNED NOT NULL DEFAULT 0, "
    "flags INT UNSIGNED NOT NULL DEFAULT 0, "
    "expires INT UNSIGNED NOT NULL DEFAULT 0 COMMENT '0: never; else a unix time'"
    ") ENGINE=InnoDB COMMENT='memcached items: rowsocket_memcached_port''s default container'",
    "CREATE TABLE IF NOT EXISTS rowsocket.containers ("
    "name VARCHAR(50) NOT NULL PRIMARY KEY COMMENT 'keys @@<name>.<key>; default: plain keys', "
    "db_schema VARCHAR(64) NOT NULL, "
    "db_table VARCHAR(64) NOT NULL, "
    "key_column VARCHAR(64) NOT NULL COMMENT 'a column with a unique index of its own', "
    "value_columns VARCHAR(1024) NOT NULL COMMENT 'comma-separated', "
    "value_separator VARCHAR(16) NOT NULL DEFAULT '|' COMMENT 'between their values', "
    "flags_column VARCHAR(64) NULL, "
    "cas_column VARCHAR(64) NULL, "
    "expires_column VARCHAR(64) NULL"
    ") ENGINE=InnoDB COMMENT='memcached containers: which table holds which items'",
};

constexpr const char* kBothTablesExist =
    "SELECT COUNT(*) = 2 FROM information_schema.TABLES "
    "WHERE TABLE_SCHEMA = 'rowsocket' AND TABLE_NAME IN ('kv', 'containers')";

// Whether rowsocket.kv and rowsocket.containers are both there.
bool BothTablesExist(MYSQL* mysql) {
  if (mysql_real_query(mysql, kBothTablesExist, std::strlen(kBothTablesExist)) != 0) return false;
  MYSQL_RES* result = mysql_store_result(mysql);
  if (result == nullptr) return false;
  MYSQL_ROW row = mysql_fetch_row(result);
  const bool both = row != nullptr && row[0] != nullptr && std::strcmp(row[0], "1") == 0;
  mysql_free_result(result);
  return both;
}

}  // namespace

DefaultContainer::~DefaultContainer() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

void DefaultContainer::Start() {
  std::call_once(started_, [this] { thread_ = std::thread([this] { Run(); }); });
}

void DefaultContainer::Run() {
  while (!mysqld_server_started) {
    if (stop_.load() || abort_loop) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (my_thread_init()) return;  // the server's thread-local state, for the SQL's THD
  MYSQL* mysql = mysql_init(nullptr);
  if (mysql != nullptr && mysql_real_connect_local(mysql) == nullptr) {
    Log(LogLevel::kError, "memcached: cannot check the default container rowsocket.kv: %s",
        mysql_error(mysql));
  } else if (mysql != nullptr && !BothTablesExist(mysql)) {
    for (const char* statement : kStatements) {
      if (mysql_real_query(mysql, statement, std::strlen(statement)) != 0) {
        Log(LogLevel::kError, "memcached: cannot make the default container rowsocket.kv: %s",
            mysql_error(mysql));
        break;
      }
    }
  }
  if (mysql != nullptr) mysql_close(mysql);
  set_current_thd(nullptr);
  my_thread_end();
}

}  // namespace rowsocket
