// Session: runs human commands through a Pool and raw lines through a Connection.
//
// Each Run() is one request (or none, for session commands such as `use`), timed
// from before the request is written to after its answer is read. Errors print one
// line on `err`: the wire code and message with their meaning, or what went wrong
// on the client's side. Called on the CLI's only thread.
#include "session.h"

#include <algorithm>
#include <cctype>

namespace rowsocket {
namespace cli {

namespace {

using client::Error;
using client::Index;
using client::Query;
using client::Result;
using client::Rows;
using Clock = std::chrono::steady_clock;

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

client::PoolOptions PoolOptionsFor(const CliOptions& o) {
  client::PoolOptions p;
  for (const std::string& host : o.hosts) {
    if (o.port != 0) p.readers.push_back({host, o.port, o.secret});
    if (o.port_wr != 0) p.writers.push_back({host, o.port_wr, o.secret_wr});
  }
  // The first host that answers, for finds as for writes; a find never moves to a
  // write listener by itself (-P names where finds go, and an error says it is down).
  p.read_balance = client::Balance::kFirstHealthy;
  p.write_balance = client::Balance::kFirstHealthy;
  p.reads_fall_back_to_writers = false;
  p.connect.connect_timeout = o.connect_timeout;
  p.connect.io_timeout = o.io_timeout;
  p.connect.user = o.user;
  p.connect.password = o.password;
  p.connect.login_if_asked = true;  // -u is the SQL account too
  p.connect.ssl = o.ssl;
  p.connect.ssl_ca = o.ssl_ca;
  p.connect.ssl_verify_server_cert = o.ssl_verify_server_cert;
  // A person retries by hand: every command tries the hosts in order again.
  p.min_backoff = std::chrono::milliseconds(0);
  p.max_idle_per_endpoint = 1;
  return p;
}

std::string Plural(uint64_t n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

// The first word of a line, lower-cased.
std::string FirstWord(const std::string& line) {
  std::string word;
  for (char c : line) {
    if (c == ' ' || c == '\t') {
      if (word.empty()) continue;
      break;
    }
    word.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return word;
}

}  // namespace

Session::Session(const CliOptions& options, FILE* out, FILE* err)
    : options_(options),
      out_(out),
      err_(err),
      pool_(PoolOptionsFor(options)),
      sql_(std::make_unique<SqlColumns>(options.sql)),
      db_(options.database),
      raw_(options.raw) {}

std::string Session::Prompt() const {
  if (!raw_) return "rowsocket> ";
  return "raw " + std::to_string(raw_to_writer_ ? options_.port_wr : options_.port) + "> ";
}

std::vector<std::string> Session::Words() const {
  std::vector<std::string> words = {
      "open", "find", "insert", "update", "increment", "decrement", "delete", "help", "quit",
      "use", "format", "timing", "raw", "human", "using", "columns", "limit", "offset", "in",
      "where", "while", "set", "by", "returning", "values", "filter", "PRIMARY", "NULL"};
  for (const auto& entry : tables_) words.push_back(entry.first);
  return words;
}

std::string Session::Timing(double ms) const {
  if (!options_.timing) return "";
  char buf[32];
  std::snprintf(buf, sizeof(buf), " (%.2f ms)", ms);
  return buf;
}

bool Session::Fail(const Error& e) {
  if (e.is_server()) {
    std::fprintf(err_, "ERROR %s\n", e.ToString().c_str());
  } else if (e.is_io()) {
    std::fprintf(err_, "ERROR (connection): %s\n", e.message().c_str());
  } else {
    std::fprintf(err_, "ERROR: %s\n", e.message().c_str());
  }
  std::fflush(err_);
  return false;
}

void Session::PrintStatus(const std::string& text, double ms) {
  if (options_.interactive) std::fprintf(out_, "%s%s\n", text.c_str(), Timing(ms).c_str());
}

void Session::PrintRows(const Index& index, const Rows& rows, bool vertical, double ms,
                        const char* note) {
  Format format = vertical ? Format::kVertical : options_.format;
  if (!rows.empty() || !options_.interactive) {
    std::fputs(RenderRows(index.columns(), rows, format, options_.column_names).c_str(), out_);
  }
  if (options_.interactive) {
    std::string text = rows.empty() ? "Empty set" : Plural(rows.size(), "row") + " in set";
    std::fprintf(out_, "%s%s%s\n", text.c_str(), note, Timing(ms).c_str());
  }
  std::fflush(out_);
}

bool Session::Run(const std::string& line) {
  if (raw_) {
    const std::string word = FirstWord(line);
    const bool command = word == "human" || word == "quit" || word == "exit" || word == "\\q" ||
                         word == "help" || word == "\\h" || word == "raw" || word == "timing";
    if (!command) return RunRaw(line);
  }
  Result<Command> c = ParseCommand(line);
  if (!c.ok()) return Fail(c.error());
  return RunCommand(*c);
}

bool Session::RunCommand(const Command& c) {
  switch (c.verb) {
    case Verb::kEmpty: return true;
    case Verb::kOpen: return RunOpen(c);
    case Verb::kFind: return RunFind(c);
    case Verb::kInsert: return RunInsert(c);
    case Verb::kUpdate: case Verb::kIncrement: case Verb::kDecrement: case Verb::kDelete:
      return RunModify(c);
    case Verb::kHelp:
      std::fputs(HelpText(c.argument).c_str(), out_);
      return true;
    case Verb::kQuit:
      done_ = true;
      return true;
    default: return RunSetting(c);
  }
}

bool Session::RunSetting(const Command& c) {
  switch (c.verb) {
    case Verb::kUse:
      if (c.argument.empty()) return Fail(Error::Usage("use <database>"));
      db_ = c.argument;
      PrintStatus("Database changed", 0);
      return true;
    case Verb::kFormat:
      if (c.argument == "tab") options_.format = Format::kTab;
      else if (c.argument == "table") options_.format = Format::kTable;
      else if (c.argument == "vertical") options_.format = Format::kVertical;
      else return Fail(Error::Usage("format tab|table|vertical"));
      return true;
    case Verb::kTiming:
      if (c.argument != "on" && c.argument != "off") return Fail(Error::Usage("timing on|off"));
      options_.timing = c.argument == "on";
      return true;
    case Verb::kRaw:
      if (c.argument == "write" || c.argument == "wr") raw_to_writer_ = true;
      else if (c.argument.empty() || c.argument == "read" || c.argument == "rd") raw_to_writer_ = false;
      else return Fail(Error::Usage("raw [read|write]"));
      raw_ = true;
      if (options_.interactive) {
        std::fprintf(out_, "Raw mode on the %s listener: lines go out as typed (TAB separates "
                           "tokens; \\t \\0 \\xHH work too). 'human' goes back.\n",
                     raw_to_writer_ ? "write" : "read");
      }
      return true;
    case Verb::kHuman:
      raw_ = false;
      return true;
    default:
      return Fail(Error::Usage("not a command"));
  }
}

// All the columns of db.table the account may read, as the server describes them
// (on the listener `role` names, the one the command will use), once per table.
// Where the server cannot describe (the original plugin), over SQL when the command
// line named an SQL server; otherwise the error says what to do.
Result<std::vector<std::string>> Session::ColumnsOf(const std::string& db,
                                                    const std::string& table,
                                                    const std::string& index,
                                                    client::Role role) {
  const std::string name = db + "." + table;
  const auto cached = described_.find(name);
  if (cached != described_.end()) return cached->second;
  Result<client::Pool::Lease> lease = pool_.Acquire(role);
  if (!lease.ok()) return lease.error();
  // (A raw line on a pooled connection: ?describe uses no index id, so the
  // connection's own bookkeeping of ids stays true.)
  Result<std::vector<std::string>> answers = (*lease)->ExchangeRaw(DescribeRequest(db, table, index));
  if (!answers.ok()) return answers.error();
  Result<std::vector<DescribedColumn>> described = ParseDescribeAnswer(answers->front());
  if (!described.ok()) {
    if (!IsUnknownRequest(described.error())) return described.error();
    if (options_.sql.given) return sql_->Columns(db, table);
    return Error::Usage("which columns of " + name + "? the server cannot list them (it "
                        "answers ?describe with 2 1 cmd: not rowsocket, or an older one); "
                        "name them (columns a,b or open " + name + " PRIMARY a,b), or start "
                        "rowsocket-cli with --sql-socket or --sql-port so it reads them over SQL");
  }
  return described_[name] = ColumnsToOpen(*described);
}

Result<Index> Session::IndexFor(const Command& c, client::Role role) {
  const std::string db = c.db.empty() ? db_ : c.db;
  if (db.empty()) return Error::Usage("which database? write <db>." + c.table + " or use <db>");
  const std::string name = db + "." + c.table;
  const auto known = tables_.find(name);
  const TableDefaults* defaults = known == tables_.end() ? nullptr : &known->second;

  std::string index = c.index;
  if (index.empty()) index = defaults && !defaults->index.empty() ? defaults->index : "PRIMARY";
  std::vector<std::string> columns = c.columns;
  if (columns.empty() && defaults) columns = defaults->columns;
  if (columns.empty()) {
    Result<std::vector<std::string>> all = ColumnsOf(db, c.table, index, role);
    if (!all.ok()) return all.error();
    columns = all.value();
  }
  std::vector<std::string> filter_columns = c.filter_columns;
  if (filter_columns.empty() && defaults) filter_columns = defaults->filter_columns;
  for (const CliFilter& f : c.filters) {
    if (std::find(filter_columns.begin(), filter_columns.end(), f.column) == filter_columns.end()) {
      filter_columns.push_back(f.column);
    }
  }
  // Remember the table (and what was named for it) for completion and later commands.
  TableDefaults& remembered = tables_[name];
  if (!c.index.empty()) remembered.index = c.index;
  if (remembered.columns.empty() || !c.columns.empty()) remembered.columns = columns;
  return Index(db, c.table, index, columns, filter_columns);
}

Query Session::QueryFor(const Command& c) const {
  Query q(c.op, c.key);
  if (c.limit) q.Limit(*c.limit);
  if (c.offset) q.Offset(*c.offset);
  if (c.has_in) q.In(c.in_key_part, c.in_values);
  for (const CliFilter& f : c.filters) {
    if (f.stop) q.While(f.column, f.op, f.value); else q.Where(f.column, f.op, f.value);
  }
  return q;
}

bool Session::RunOpen(const Command& c) {
  Result<Index> index = IndexFor(c, client::Role::kRead);
  if (!index.ok()) return Fail(index.error());
  const Clock::time_point start = Clock::now();
  Result<client::Pool::Lease> lease = pool_.Acquire(client::Role::kRead);
  if (!lease.ok()) return Fail(lease.error());
  Result<uint32_t> id = (*lease)->Open(*index);
  if (!id.ok()) return Fail(id.error());
  TableDefaults& d = tables_[index->db() + "." + index->table()];
  d.index = index->name();
  d.columns = index->columns();
  d.filter_columns = index->filter_columns();
  std::string cols;
  for (const std::string& col : index->columns()) cols += (cols.empty() ? "" : ",") + col;
  PrintStatus("Opened " + index->db() + "." + index->table() + " " + index->name() + " (" +
                  cols + ")",
              MillisSince(start));
  return true;
}

bool Session::RunFind(const Command& c) {
  Result<Index> index = IndexFor(c, client::Role::kRead);
  if (!index.ok()) return Fail(index.error());
  const Clock::time_point start = Clock::now();
  Result<Rows> rows = pool_.Find(*index, QueryFor(c));
  if (!rows.ok()) return Fail(rows.error());
  PrintRows(*index, *rows, c.vertical, MillisSince(start), "");
  return true;
}

bool Session::RunInsert(const Command& c) {
  Result<Index> index = IndexFor(c, client::Role::kWrite);
  if (!index.ok()) return Fail(index.error());
  const Clock::time_point start = Clock::now();
  Result<uint64_t> id = pool_.Insert(*index, c.values);
  if (!id.ok()) return Fail(id.error());
  if (options_.interactive) {
    PrintStatus("Query OK, 1 row inserted" +
                    (*id ? ", insert id " + std::to_string(*id) : std::string()),
                MillisSince(start));
  } else if (*id) {
    std::fprintf(out_, "%llu\n", static_cast<unsigned long long>(*id));
  }
  return true;
}

bool Session::RunModify(const Command& c) {
  Result<Index> index = IndexFor(c, client::Role::kWrite);
  if (!index.ok()) return Fail(index.error());
  const Query q = QueryFor(c);
  const Clock::time_point start = Clock::now();
  if (c.returning) {
    client::Modify m = client::Modify::Delete();
    if (c.verb == Verb::kUpdate) m = client::Modify::Update(c.values);
    if (c.verb == Verb::kIncrement) m = client::Modify::Increment(c.values);
    if (c.verb == Verb::kDecrement) m = client::Modify::Decrement(c.values);
    Result<Rows> before = pool_.FindAndModify(*index, q, m);
    if (!before.ok()) return Fail(before.error());
    PrintRows(*index, *before, c.vertical, MillisSince(start), ", as they were before");
    return true;
  }
  Result<uint64_t> n = Error::Usage("");
  switch (c.verb) {
    case Verb::kUpdate: n = pool_.Update(*index, q, c.values); break;
    case Verb::kIncrement: n = pool_.Increment(*index, q, c.values); break;
    case Verb::kDecrement: n = pool_.Decrement(*index, q, c.values); break;
    default: n = pool_.Remove(*index, q); break;
  }
  if (!n.ok()) return Fail(n.error());
  if (options_.interactive) {
    PrintStatus("Query OK, " + Plural(*n, "row") + " affected", MillisSince(start));
  } else {
    std::fprintf(out_, "%llu\n", static_cast<unsigned long long>(*n));
  }
  return true;
}

bool Session::RunRaw(const std::string& line) {
  std::string bytes;
  if (!Unescape(line, &bytes)) return Fail(Error::Usage("bad escape (use \\t \\n \\0 \\\\ \\xHH)"));
  if (bytes.find_first_not_of(" ") == std::string::npos) return true;
  bytes.push_back('\n');
  std::optional<client::Connection>& conn = raw_conn_[raw_to_writer_ ? 1 : 0];
  if (!conn || !conn->connected()) {
    client::ConnectOptions o;
    o.connect_timeout = options_.connect_timeout;
    o.io_timeout = options_.io_timeout;
    o.secret = raw_to_writer_ ? options_.secret_wr : options_.secret;
    o.user = options_.user;
    o.password = options_.password;
    o.login_if_asked = true;
    o.ssl = options_.ssl;
    o.ssl_ca = options_.ssl_ca;
    o.ssl_verify_server_cert = options_.ssl_verify_server_cert;
    Result<client::Connection> c = Error::Usage("no host");
    for (const std::string& host : options_.hosts) {
      c = client::Connection::Connect(host, raw_to_writer_ ? options_.port_wr : options_.port, o);
      if (c.ok()) break;
    }
    if (!c.ok()) return Fail(c.error());
    conn.emplace(std::move(c.value()));
  }
  const Clock::time_point start = Clock::now();
  Result<std::vector<std::string>> answers = conn->ExchangeRaw(bytes);
  if (!answers.ok()) return Fail(answers.error());
  bool ok = true;
  for (const std::string& answer : *answers) {
    std::fprintf(out_, "%s\n", ShowRawLine(answer).c_str());
    if (answer.compare(0, 2, "0\t") != 0) {
      ok = false;
      const size_t tab = answer.find('\t');
      const size_t tab2 = tab == std::string::npos ? tab : answer.find('\t', tab + 1);
      const std::string message = tab2 == std::string::npos ? "" : answer.substr(tab2 + 1);
      const std::string_view words =
          client::ExplainServerError(std::atoi(answer.c_str()), message);
      if (!words.empty()) std::fprintf(err_, "-- %.*s\n", static_cast<int>(words.size()), words.data());
    }
  }
  if (options_.interactive && options_.timing) std::fprintf(out_, "--%s\n", Timing(MillisSince(start)).c_str());
  std::fflush(out_);
  std::fflush(err_);
  return ok;
}

}  // namespace cli
}  // namespace rowsocket
