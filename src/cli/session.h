// Session: what rowsocket-cli does with each line the user types.
//
// Human mode parses a command (command.h) and runs it through a client Pool: finds
// on the read listener, writes on the write listener (of the first host that
// answers, when several are given), each table opened on demand
// with the index and columns last named for it (open, using, columns) or, failing
// that, its PRIMARY key and all the columns the account may read, as the server
// describes them (server_columns.h; over SQL instead, with --sql-socket, --sql-port
// or --sql-host, where the server cannot: sql_columns.h). Raw mode sends the line
// as typed, escapes decoded, on a connection of its own (to the first host that
// answers), and prints the answer line.
// Output goes to `out`, errors to `err`; in interactive mode with status lines and
// timings. Single-threaded (the CLI's only thread).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "output.h"
#include "rowsocket/client.h"
#include "server_columns.h"
#include "sql_columns.h"

namespace rowsocket {
namespace cli {

struct CliOptions {
  // Servers in order of preference (-h a,b or -h a -h b): finds and writes each go
  // to the first one whose listener answers.
  std::vector<std::string> hosts = {"127.0.0.1"};
  uint16_t port = 9998;      // read listener; 0: none
  uint16_t port_wr = 9999;   // write listener; 0: none
  std::string secret;        // for the read listener
  std::string secret_wr;     // for the write listener
  std::string user;          // MariaDB account both listeners log in to; empty: none
  std::string password;      // its password
  std::string database;      // `use` database at start
  bool interactive = false;  // status lines, timings, table format by default
  Format format = Format::kTab;
  bool column_names = false;  // header line in tab format
  bool timing = true;
  bool raw = false;           // start in raw mode
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds io_timeout{30000};
  // TLS to both listeners, as the mariadb client's --ssl, --ssl-ca and
  // --ssl-verify-server-cert (see client::ConnectOptions).
  bool ssl = false;
  std::string ssl_ca;
  bool ssl_verify_server_cert = false;
  SqlOptions sql;
};

class Session {
 public:
  Session(const CliOptions& options, FILE* out, FILE* err);

  // Runs one line; false when it failed (a server, I/O or usage error, or an error
  // answer in raw mode).
  bool Run(const std::string& line);
  bool done() const { return done_; }
  bool raw_mode() const { return raw_; }
  std::string Prompt() const;
  // Words TAB completes in human mode: commands, keywords, tables seen so far.
  std::vector<std::string> Words() const;

 private:
  // The index and columns last named for a table.
  struct TableDefaults {
    std::string index;
    std::vector<std::string> columns, filter_columns;
  };

  bool RunCommand(const Command& c);
  bool RunRaw(const std::string& line);
  bool RunOpen(const Command& c);
  bool RunFind(const Command& c);
  bool RunInsert(const Command& c);
  bool RunModify(const Command& c);
  bool RunSetting(const Command& c);
  client::Result<client::Index> IndexFor(const Command& c, client::Role role);
  client::Result<std::vector<std::string>> ColumnsOf(const std::string& db, const std::string& table,
                                                     const std::string& index, client::Role role);
  client::Query QueryFor(const Command& c) const;

  void PrintRows(const client::Index& index, const client::Rows& rows, bool vertical,
                 double ms, const char* note);
  void PrintStatus(const std::string& text, double ms);
  bool Fail(const client::Error& e);
  std::string Timing(double ms) const;

  CliOptions options_;
  FILE* out_;
  FILE* err_;
  client::Pool pool_;
  std::unique_ptr<SqlColumns> sql_;
  std::map<std::string, TableDefaults> tables_;  // "db.table" -> defaults
  std::map<std::string, std::vector<std::string>> described_;  // "db.table" -> ColumnsToOpen
  std::string db_;
  bool raw_ = false;
  bool raw_to_writer_ = false;
  std::optional<client::Connection> raw_conn_[2];  // [0] read, [1] write listener
  bool done_ = false;
};

// The help text: the overview, or the details of one command.
std::string HelpText(const std::string& topic);

}  // namespace cli
}  // namespace rowsocket
