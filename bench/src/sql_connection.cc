// SqlConnection: one MariaDB connection in the closed loop, through libmariadb's
// non-blocking API (mysql_real_query_start/_cont, mysql_stmt_execute_start/_cont, and
// the store-result pairs), so SQL runs under the same epoll loop and client model as
// the other targets. The protocol allows one statement in flight per connection:
// depth is always 1 here. Text mode sends a fresh query string per request; prepared
// mode prepares one statement per request shape at Open and only executes after.
// With --batch B (text mode, writes only) one statement carries B rows of distinct
// keys: a multi-row INSERT, an UPDATE ... WHERE user_id IN (...) or a DELETE ...
// WHERE user_id IN (...); each row counts as one request, completed when the
// statement is. The UPDATE sets every row's user_email to "user<id>.<stamp>@..." with
// one stamp for the statement, computed per row by CONCAT (a CASE with a branch per
// row would cost the server a linear search per row). Every result is checked like the
// other targets check theirs (row count, keys, the name asked for, rows changed).
// With --kv (options.h) a get selects v,cas,flags,expires by k and an update writes
// the whole item with INSERT ... ON DUPLICATE KEY UPDATE (an upsert, as memcached's
// set is; it reports 2 rows changed for a replaced row). Owned and run by one Worker
// thread.
#include <mysql.h>
#include <mysqld_error.h>
#include <errmsg.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "driver.h"
#include "protocol/decimal.h"

namespace bench {

namespace {

constexpr const char* kSelect = "SELECT user_id,user_name,user_email,created FROM ";
constexpr const char* kSelectItem = "SELECT v,cas,flags,expires FROM ";
constexpr const char* kUpsertItem = " (k,v,cas,flags,expires) VALUES ";
constexpr const char* kUpsertItemTail =
    " ON DUPLICATE KEY UPDATE v=VALUES(v),cas=VALUES(cas),flags=VALUES(flags),"
    "expires=VALUES(expires)";
constexpr int kShapes = 6;  // one prepared statement per OpKind

class SqlConnection : public Connection {
 public:
  explicit SqlConnection(Worker* worker)
      : Connection(worker), o_(worker->options()),
        prepared_(o_.target == TargetKind::kSqlPrepared) {}
  ~SqlConnection() override {
    for (MYSQL_STMT* s : stmts_) if (s) mysql_stmt_close(s);
    if (mysql_) mysql_close(mysql_);
  }

  std::string Open() override;
  int fd() const override { return fd_; }
  size_t in_flight() const override { return busy_ ? rows() : 0; }
  std::string Start() override;
  std::string OnEvents(uint32_t events) override;

 private:
  enum class Step { kQuery, kStore };  // executing the statement; storing its rows

  std::string Prepare(OpKind kind);
  std::string StatementText(OpKind kind, int* nkeys) const;
  bool TakeOps(int64_t now);
  void Issue(int64_t now);
  void CompleteAll(int64_t now, const std::string& error, size_t failed);
  // Requests the statement in flight stands for.
  size_t rows() const { return o_.batch > 1 ? batch_.size() : 1; }
  std::string Drive();
  std::string CheckResult(MYSQL_STMT* s);
  void BuildQuery();
  void BuildBatchQuery();
  void AppendRowValues(uint64_t key);
  void AppendKeyLiteral(uint64_t key);
  void SetItemKey(int i, uint64_t key);
  void BindParams();
  // A client-side error (lost connection, protocol out of sync): the connection is
  // unusable. Server errors (duplicate key, lock wait timeout) fail one request only.
  bool Fatal(MYSQL_STMT* s) const {
    const unsigned e = prepared_ && s ? mysql_stmt_errno(s) : mysql_errno(mysql_);
    return e >= CR_MIN_ERROR && e <= CR_MAX_ERROR;
  }

  const Options& o_;
  const bool prepared_;
  MYSQL* mysql_ = nullptr;
  int fd_ = -1;
  MYSQL_STMT* stmts_[kShapes] = {};
  Op op_;                  // the request in flight (with --batch: its first row)
  std::vector<Op> batch_;  // --batch: every row of the statement in flight
  std::unordered_set<uint64_t> batch_keys_;
  bool busy_ = false;
  Step step_ = Step::kQuery;
  bool want_write_ = false;
  int wait_ = 0;           // what the library waits for (MYSQL_WAIT_*), 0 = step done
  int ret_ = 0;            // the finished step's return value
  MYSQL_RES* res_ = nullptr;
  std::vector<uint64_t> ids_, sorted_;  // scratch: keys of the rows received
  std::string query_, expect_name_;
  // Prepared-statement buffers: parameters and one result row.
  uint64_t pkeys_[kMaxKeysPerRequest] = {};
  char pitem_keys_[kMaxKeysPerRequest][24] = {};  // --kv: "u<id>" per key
  unsigned long pitem_lens_[kMaxKeysPerRequest] = {};
  uint64_t rnum_[3] = {};                         // --kv: cas, flags, expires
  char pstr_[2][128] = {};
  unsigned long plen_[2] = {};
  uint64_t rid_ = 0;
  char rname_[64] = {}, remail_[256] = {}, rcreated_[32] = {};
  unsigned long rlen_[4] = {};
};

std::string SqlConnection::Open() {
  mysql_ = mysql_init(nullptr);
  if (!mysql_) return "mysql_init failed";
  mysql_options(mysql_, MYSQL_OPT_NONBLOCK, 0);
  if (!mysql_real_connect(mysql_, o_.host.c_str(), o_.user.c_str(), o_.password.c_str(),
                          o_.db.c_str(), unsigned(o_.port), nullptr, 0))
    return std::string("connect: ") + mysql_error(mysql_);
  fd_ = mysql_get_socket(mysql_);
  if (!prepared_) return "";
  const OpKind kinds[] = {OpKind::kGet, OpKind::kIndexGet, OpKind::kRange,
                          OpKind::kInsert, OpKind::kUpdate, OpKind::kDelete};
  for (OpKind k : kinds) {
    const bool used =
        (k == OpKind::kGet && (o_.workload == Workload::kGet || o_.workload == Workload::kMix)) ||
        (k == OpKind::kUpdate && (o_.workload == Workload::kUpdate || o_.workload == Workload::kMix)) ||
        (k == OpKind::kIndexGet && o_.workload == Workload::kIndexGet) ||
        (k == OpKind::kRange && o_.workload == Workload::kRange) ||
        (k == OpKind::kInsert && o_.workload == Workload::kInsert) ||
        (k == OpKind::kDelete && o_.workload == Workload::kDelete);
    if (!used) continue;
    std::string error = Prepare(k);
    if (!error.empty()) return error;
  }
  return "";
}

// The SQL of one request shape; `*nkeys`: how many key parameters it takes.
std::string SqlConnection::StatementText(OpKind kind, int* nkeys) const {
  const std::string t = o_.db + "." + o_.table;
  std::string q;
  switch (kind) {
    case OpKind::kGet:
      *nkeys = o_.workload == Workload::kGet ? int(o_.keys) : 1;
      q = (o_.kv ? kSelectItem : kSelect) + t + (o_.kv ? " WHERE k" : " WHERE user_id");
      if (*nkeys == 1) q += "=?";
      else { q += " IN (?"; for (int i = 1; i < *nkeys; ++i) q += ",?"; q += ")"; }
      break;
    case OpKind::kIndexGet:
      *nkeys = 0;
      q = kSelect + o_.db + "." + o_.index_table + " WHERE user_name=? LIMIT " + std::to_string(o_.limit);
      break;
    case OpKind::kRange:
      q = kSelect + t + " WHERE user_id>=? ORDER BY user_id LIMIT " + std::to_string(o_.limit);
      break;
    case OpKind::kInsert:
      q = "INSERT INTO " + t + " VALUES (?,?,?,'" + kCreated + "')";
      break;
    case OpKind::kUpdate:
      q = o_.kv ? "INSERT INTO " + t + kUpsertItem + "(?,?,?,0,0)" + kUpsertItemTail
                : "UPDATE " + t + " SET user_email=? WHERE user_id=?";
      break;
    case OpKind::kDelete:
      q = "DELETE FROM " + t + " WHERE user_id=?";
      break;
  }
  return q;
}

// Prepares the statement of one request shape and binds its buffers once; each
// request then only rewrites pkeys_/pstr_ before executing.
std::string SqlConnection::Prepare(OpKind kind) {
  int nkeys = 1;
  const std::string q = StatementText(kind, &nkeys);
  MYSQL_STMT* s = mysql_stmt_init(mysql_);
  stmts_[int(kind)] = s;
  if (!s || mysql_stmt_prepare(s, q.c_str(), q.size()))
    return "prepare: " + std::string(s ? mysql_stmt_error(s) : "out of memory");
  // Parameters in statement order: the key(s) come first except for UPDATE.
  MYSQL_BIND params[kMaxKeysPerRequest + 2];
  std::memset(params, 0, sizeof params);
  auto bind_key = [&](MYSQL_BIND* b, int i) {
    if (o_.kv) {
      b->buffer_type = MYSQL_TYPE_STRING; b->buffer = pitem_keys_[i];
      b->buffer_length = sizeof pitem_keys_[i]; b->length = &pitem_lens_[i];
      return;
    }
    b->buffer_type = MYSQL_TYPE_LONGLONG; b->buffer = &pkeys_[i]; b->is_unsigned = 1;
  };
  auto bind_str = [&](MYSQL_BIND* b, int i) {
    b->buffer_type = MYSQL_TYPE_STRING; b->buffer = pstr_[i];
    b->buffer_length = sizeof pstr_[i]; b->length = &plen_[i];
  };
  if (kind == OpKind::kUpdate && o_.kv) {  // k, v, cas
    bind_key(&params[0], 0); bind_str(&params[1], 0);
    params[2].buffer_type = MYSQL_TYPE_LONGLONG; params[2].buffer = &pkeys_[0];
    params[2].is_unsigned = 1;
  } else if (kind == OpKind::kUpdate) { bind_str(&params[0], 0); bind_key(&params[1], 0); }
  else if (kind == OpKind::kInsert) { bind_key(&params[0], 0); bind_str(&params[1], 0); bind_str(&params[2], 1); }
  else if (kind == OpKind::kIndexGet) { bind_str(&params[0], 0); }
  else for (int i = 0; i < nkeys; ++i) bind_key(&params[i], i);
  if (mysql_stmt_bind_param(s, params)) return "bind: " + std::string(mysql_stmt_error(s));
  if (mysql_stmt_field_count(s) == 4 && o_.kv) {  // v into remail_, then three numbers
    MYSQL_BIND r[4];
    std::memset(r, 0, sizeof r);
    r[0].buffer_type = MYSQL_TYPE_STRING; r[0].buffer = remail_;
    r[0].buffer_length = sizeof remail_; r[0].length = &rlen_[0];
    for (int i = 1; i < 4; ++i) {
      r[i].buffer_type = MYSQL_TYPE_LONGLONG; r[i].buffer = &rnum_[i - 1]; r[i].is_unsigned = 1;
    }
    if (mysql_stmt_bind_result(s, r)) return "bind result: " + std::string(mysql_stmt_error(s));
  } else if (mysql_stmt_field_count(s) == 4) {
    MYSQL_BIND r[4];
    std::memset(r, 0, sizeof r);
    r[0].buffer_type = MYSQL_TYPE_LONGLONG; r[0].buffer = &rid_; r[0].is_unsigned = 1;
    char* bufs[3] = {rname_, remail_, rcreated_};
    unsigned long sizes[3] = {sizeof rname_, sizeof remail_, sizeof rcreated_};
    for (int i = 1; i < 4; ++i) {
      r[i].buffer_type = MYSQL_TYPE_STRING; r[i].buffer = bufs[i - 1];
      r[i].buffer_length = sizes[i - 1]; r[i].length = &rlen_[i];
    }
    if (mysql_stmt_bind_result(s, r)) return "bind result: " + std::string(mysql_stmt_error(s));
  }
  return "";
}

void SqlConnection::BuildQuery() {
  std::string& q = query_;
  q.clear();
  switch (op_.kind) {
    case OpKind::kGet:
      q.append(o_.kv ? kSelectItem : kSelect).append(o_.db).append(".").append(o_.table)
          .append(o_.kv ? " WHERE k" : " WHERE user_id");
      if (op_.nkeys == 1) {
        q.push_back('=');
        AppendKeyLiteral(op_.key);
      } else {
        q.append(" IN (");
        for (uint32_t i = 0; i < op_.nkeys; ++i) {
          if (i) q.push_back(',');
          AppendKeyLiteral(op_.keys[i]);
        }
        q.push_back(')');
      }
      return;
    case OpKind::kIndexGet:
      q.append(kSelect).append(o_.db).append(".").append(o_.index_table).append(" WHERE user_name='");
      AppendUserName(&q, op_.key);
      q.append("' LIMIT ");
      AppendUint(&q, o_.limit);
      return;
    case OpKind::kRange:
      q.append(kSelect).append(o_.db).append(".").append(o_.table).append(" WHERE user_id>=");
      AppendUint(&q, op_.key);
      q.append(" ORDER BY user_id LIMIT ");
      AppendUint(&q, o_.limit);
      return;
    case OpKind::kInsert:
      q.append("INSERT INTO ").append(o_.db).append(".").append(o_.table).append(" VALUES ");
      AppendRowValues(op_.key);
      return;
    case OpKind::kUpdate:
      if (o_.kv) {  // the value holds TABs only: no quote or backslash to escape
        q.append("INSERT INTO ").append(o_.db).append(".").append(o_.table).append(kUpsertItem)
            .append("(");
        AppendKeyLiteral(op_.key);
        q.append(",'");
        AppendMemcachedRow(&q, op_.key, op_.stamp);
        q.append("',");
        AppendUint(&q, op_.stamp);
        q.append(",0,0)").append(kUpsertItemTail);
        return;
      }
      q.append("UPDATE ").append(o_.db).append(".").append(o_.table).append(" SET user_email='");
      AppendUserEmail(&q, op_.key, op_.stamp);
      q.append("' WHERE user_id=");
      AppendUint(&q, op_.key);
      return;
    case OpKind::kDelete:
      q.append("DELETE FROM ").append(o_.db).append(".").append(o_.table).append(" WHERE user_id=");
      AppendUint(&q, op_.key);
      return;
  }
}

// A key in a statement: user_id, or with --kv the item's key 'u<id>'.
void SqlConnection::AppendKeyLiteral(uint64_t key) {
  if (!o_.kv) {
    AppendUint(&query_, key);
    return;
  }
  query_.push_back('\'');
  AppendItemKey(&query_, key);
  query_.push_back('\'');
}

// "(id,'name','email','created')": the values of a fresh row.
void SqlConnection::AppendRowValues(uint64_t key) {
  std::string& q = query_;
  q.push_back('(');
  AppendUint(&q, key);
  q.append(",'");
  AppendUserName(&q, NameGroupOf(key));
  q.append("','");
  AppendUserEmail(&q, key, 0);
  q.append("','").append(kCreated).append("')");
}

// The one statement of a --batch request: every row of batch_.
void SqlConnection::BuildBatchQuery() {
  std::string& q = query_;
  q.clear();
  const std::string table = o_.db + "." + o_.table;
  auto append_key_list = [&] {
    q.append(" WHERE user_id IN (");
    for (size_t i = 0; i < batch_.size(); ++i) {
      if (i) q.push_back(',');
      AppendUint(&q, batch_[i].key);
    }
    q.push_back(')');
  };
  switch (op_.kind) {
    case OpKind::kInsert:
      q.append("INSERT INTO ").append(table).append(" VALUES ");
      for (size_t i = 0; i < batch_.size(); ++i) {
        if (i) q.push_back(',');
        AppendRowValues(batch_[i].key);
      }
      return;
    case OpKind::kUpdate:  // the value AppendUserEmail(id, stamp) makes, per row
      q.append("UPDATE ").append(table).append(" SET user_email=CONCAT('user',user_id,'.");
      AppendUint(&q, op_.stamp);
      q.append("@example.com')");
      append_key_list();
      return;
    case OpKind::kDelete:
      q.append("DELETE FROM ").append(table);
      append_key_list();
      return;
    default:
      return;  // options.cc admits writes only
  }
}

void SqlConnection::BindParams() {
  auto set_str = [&](int i, const std::string& s) {
    plen_[i] = std::min(s.size(), sizeof pstr_[i]);
    std::memcpy(pstr_[i], s.data(), plen_[i]);
  };
  std::string& s = query_;  // scratch
  switch (op_.kind) {
    case OpKind::kGet:
      for (uint32_t i = 0; i < op_.nkeys; ++i) {
        pkeys_[i] = op_.keys[i];
        if (o_.kv) SetItemKey(int(i), op_.keys[i]);
      }
      return;
    case OpKind::kIndexGet:
      s.clear(); AppendUserName(&s, op_.key); set_str(0, s);
      return;
    case OpKind::kInsert:
      pkeys_[0] = op_.key;
      s.clear(); AppendUserName(&s, NameGroupOf(op_.key)); set_str(0, s);
      s.clear(); AppendUserEmail(&s, op_.key, 0); set_str(1, s);
      return;
    case OpKind::kUpdate:
      if (o_.kv) {  // k, v, cas = the stamp
        SetItemKey(0, op_.key);
        s.clear(); AppendMemcachedRow(&s, op_.key, op_.stamp); set_str(0, s);
        pkeys_[0] = op_.stamp;
        return;
      }
      pkeys_[0] = op_.key;
      s.clear(); AppendUserEmail(&s, op_.key, op_.stamp); set_str(0, s);
      return;
    case OpKind::kRange:
    case OpKind::kDelete:
      pkeys_[0] = op_.key;
      return;
  }
}

void SqlConnection::SetItemKey(int i, uint64_t key) {
  std::string k;
  AppendItemKey(&k, key);
  pitem_lens_[i] = std::min(k.size(), sizeof pitem_keys_[i]);
  std::memcpy(pitem_keys_[i], k.data(), pitem_lens_[i]);
}

// The request(s) of the next statement: one op, or with --batch up to B ops of
// distinct keys (a key twice in one UPDATE or DELETE would change one row). False
// when nothing more is to be sent.
bool SqlConnection::TakeOps(int64_t now) {
  if (o_.batch <= 1) {
    if (!worker_->NextOp(&op_)) return false;
    op_.sent_ns = now;
    return true;
  }
  batch_.clear();
  batch_keys_.clear();
  const size_t want = size_t(o_.batch);
  Op op;
  for (size_t draws = 0; batch_.size() < want && draws < 4 * want; ++draws) {
    if (!worker_->NextOp(&op)) break;
    if (!batch_keys_.insert(op.key).second) continue;
    op.sent_ns = now;
    batch_.push_back(op);
  }
  if (batch_.empty()) return false;
  op_ = batch_[0];
  return true;
}

void SqlConnection::Issue(int64_t now) {
  busy_ = false;
  if (!TakeOps(now)) return;
  busy_ = true;
  step_ = Step::kQuery;
  if (prepared_) {
    BindParams();
    wait_ = mysql_stmt_execute_start(&ret_, stmts_[int(op_.kind)]);
  } else {
    if (o_.batch > 1) BuildBatchQuery();
    else BuildQuery();
    wait_ = mysql_real_query_start(&ret_, mysql_, query_.data(), query_.size());
  }
}

std::string SqlConnection::Start() {
  Issue(NowNs());
  return Drive();
}

std::string SqlConnection::OnEvents(uint32_t events) {
  if (!busy_) return "the server sent data or closed the connection while idle";
  int ready = 0;
  if (events & EPOLLIN) ready |= MYSQL_WAIT_READ;
  if (events & EPOLLOUT) ready |= MYSQL_WAIT_WRITE;
  if (events & (EPOLLERR | EPOLLHUP)) ready |= MYSQL_WAIT_READ | MYSQL_WAIT_EXCEPT;
  MYSQL_STMT* s = stmts_[int(op_.kind)];
  if (step_ == Step::kQuery)
    wait_ = prepared_ ? mysql_stmt_execute_cont(&ret_, s, ready)
                      : mysql_real_query_cont(&ret_, mysql_, ready);
  else
    wait_ = prepared_ ? mysql_stmt_store_result_cont(&ret_, s, ready)
                      : mysql_store_result_cont(&res_, mysql_, ready);
  return Drive();
}

// Runs the request's steps while the library needs no socket readiness; after a
// request completes, issues the next one. Returns "" or a fatal (connection) error.
std::string SqlConnection::Drive() {
  while (busy_) {
    if (wait_ != 0) {
      const bool w = (wait_ & MYSQL_WAIT_WRITE) != 0;
      if (w != want_write_) worker_->WantWrite(this, want_write_ = w);
      return "";
    }
    MYSQL_STMT* s = stmts_[int(op_.kind)];
    std::string error;
    size_t failed = 0;  // requests of the statement that failed, when error is set
    if (step_ == Step::kQuery) {
      if (ret_ != 0) {
        error = prepared_ ? mysql_stmt_error(s) : mysql_error(mysql_);
        if (Fatal(s)) return error;
      } else if ((prepared_ ? mysql_stmt_field_count(s) : mysql_field_count(mysql_)) != 0) {
        step_ = Step::kStore;
        wait_ = prepared_ ? mysql_stmt_store_result_start(&ret_, s)
                          : mysql_store_result_start(&res_, mysql_);
        continue;
      } else {
        const uint64_t changed = prepared_ ? mysql_stmt_affected_rows(s) : mysql_affected_rows(mysql_);
        if (op_.kind != OpKind::kInsert && op_.kind != OpKind::kUpdate && op_.kind != OpKind::kDelete)
          error = "a read returned no result set";
        else if (o_.kv && op_.kind == OpKind::kUpdate && (changed == 1 || changed == 2))
          ;  // the upsert inserted (1) or replaced (2) the item
        else if (changed != rows())
          error = "write changed " + std::to_string(changed) + " rows, not " +
                  std::to_string(rows());
        if (!error.empty() && changed < rows()) failed = rows() - size_t(changed);
      }
    } else {
      error = CheckResult(s);
      if (!error.empty() && Fatal(s)) return error;
    }
    const int64_t now = NowNs();
    CompleteAll(now, error, error.empty() ? 0 : failed ? failed : rows());
    Issue(now);
  }
  return "";
}

// Ends the request(s) of the statement that finished, the first `failed` of them
// with `error` (a batch's statement does not say which of its rows failed).
void SqlConnection::CompleteAll(int64_t now, const std::string& error, size_t failed) {
  if (o_.batch <= 1) {
    worker_->Complete(op_, now, failed ? &error : nullptr);
    return;
  }
  for (size_t i = 0; i < batch_.size(); ++i)
    worker_->Complete(batch_[i], now, i < failed ? &error : nullptr);
}

// Reads the stored result of the current request and checks it.
std::string SqlConnection::CheckResult(MYSQL_STMT* s) {
  ids_.clear();
  size_t wrong_names = 0;
  expect_name_.clear();
  if (op_.kind == OpKind::kIndexGet) AppendUserName(&expect_name_, op_.key);
  if (prepared_) {
    if (ret_ != 0) return mysql_stmt_error(s);
    int rc;
    while ((rc = mysql_stmt_fetch(s)) == 0 || rc == MYSQL_DATA_TRUNCATED) {
      ids_.push_back(o_.kv ? LeadingId(std::string_view(remail_, std::min<unsigned long>(
                                 rlen_[0], sizeof remail_)))
                           : rid_);
      wrong_names += std::string_view(rname_, rlen_[1]) != expect_name_;
    }
    mysql_stmt_free_result(s);
    if (rc != MYSQL_NO_DATA) return "fetch: " + std::string(mysql_stmt_error(s));
  } else {
    if (res_ == nullptr) return mysql_error(mysql_);
    while (MYSQL_ROW row = mysql_fetch_row(res_)) {
      unsigned long* len = mysql_fetch_lengths(res_);
      uint64_t id = 0;
      if (o_.kv) id = row[0] ? LeadingId(std::string_view(row[0], len[0])) : 0;
      else rowsocket::ParseDecimal(std::string_view(row[0], len[0]), &id);
      ids_.push_back(id);
      wrong_names += std::string_view(row[1] ? row[1] : "", len[1]) != expect_name_;
    }
    mysql_free_result(res_);
    res_ = nullptr;
  }
  switch (op_.kind) {
    case OpKind::kGet:
      if (ids_.size() != op_.nkeys) return "get: wrong number of rows";
      if (op_.nkeys == 1) return ids_[0] == op_.key ? "" : "get: wrong key";
      std::sort(ids_.begin(), ids_.end());  // IN (...) has no defined order
      sorted_.assign(op_.keys, op_.keys + op_.nkeys);
      std::sort(sorted_.begin(), sorted_.end());
      return ids_ == sorted_ ? "" : "get: wrong keys";
    case OpKind::kIndexGet:
      if (ids_.size() != std::min<uint64_t>(RowsInGroup(op_.key, o_.rows), o_.limit))
        return "index get: wrong number of rows";
      return wrong_names ? "index get: wrong user_name" : "";
    case OpKind::kRange:
      if (ids_.size() != o_.limit) return "range: wrong number of rows";
      for (size_t i = 0; i < ids_.size(); ++i)
        if (ids_[i] != op_.key + i) return "range: wrong key";
      return "";
    default:
      return "a write returned a result set";
  }
}

}  // namespace

std::unique_ptr<Connection> MakeSqlConnection(Worker* worker) {
  return std::make_unique<SqlConnection>(worker);
}

}  // namespace bench
