// EngineExecutor: the batch flow — prepare, lock, run, commit, answer.
// Runs on a worker thread. The requests that touch rows are in row_requests.cc;
// memcached's commands (containers, SASL, memcached's answers) in
// memcached_executor.cc.
#include "engine/core/executor.h"

#include <chrono>
#include <cstring>
#include <ctime>

#include "engine/memcached/containers.h"
#include "engine/handlersocket/request_check.h"
#include "engine/rows/row_lookup.h"
#include "protocol/memcached_status.h"
#include "protocol/name_list.h"
#include "protocol/engine_status.h"
#include "protocol/handlersocket_status.h"
#include "util/clock.h"
#include "util/log.h"

namespace rowsocket {
namespace {

constexpr const char* kSystemSchemas[] = {"mysql", "information_schema", "performance_schema",
                                          "sys"};

// Tries of a group of write requests as one transaction before it is split up
// (see Execute).
constexpr int kGroupAttempts = 2;


bool ListContains(std::string_view list, std::string_view name) {
  for (std::string_view item : SplitNameList(list)) {
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (SameName(item, name)) return true;
  }
  return false;
}

// As SQL decides for its queries: a node is ready for clients while it is synced
// with the cluster and wsrep_reject_queries rejects nothing; one that is not serves
// reads only when wsrep_dirty_reads allows them.
bool GaleraNodeReady() { return wsrep_ready_get() && wsrep_reject_queries == WSREP_REJECT_NONE; }

bool GaleraNodeServesReads() {
  return GaleraNodeReady() || global_system_variables.wsrep_dirty_reads;
}

// The bits of wsrep_sync_wait (SQL's causality checks on a Galera node) that cover
// a request: reads 1, updates and deletes 2, inserts 4. A memcached write may
// update or insert.
uint SyncWaitBits(const Request& r) {
  switch (r.type) {
    case RequestType::kFind:
      return r.modify == ModifyOp::kNone ? WSREP_SYNC_WAIT_BEFORE_READ
                                         : WSREP_SYNC_WAIT_BEFORE_UPDATE_DELETE;
    case RequestType::kInsert:
      return WSREP_SYNC_WAIT_BEFORE_INSERT_REPLACE;
    case RequestType::kMemcached:
      return r.memcached_writes
                 ? WSREP_SYNC_WAIT_BEFORE_UPDATE_DELETE | WSREP_SYNC_WAIT_BEFORE_INSERT_REPLACE
                 : WSREP_SYNC_WAIT_BEFORE_READ;
    default:
      return 0;
  }
}

// Numbers every batch of every executor: a connection may be served by any worker
// of its listener, and remembers batches by number (lock_wait.cc).
uint64_t NextBatchNumber() {
  static std::atomic<uint64_t> next{0};
  return next.fetch_add(1, std::memory_order_relaxed) + 1;
}

}  // namespace

bool SameName(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

const char* GaleraState() {
  if (!WSREP_ON) return "OFF";
  if (GaleraNodeReady()) return "READY";
  return global_system_variables.wsrep_dirty_reads ? "DIRTY_READS" : "REFUSED";
}

EngineExecutor::EngineExecutor(const WorkerInfo& info, const EngineOptions& options,
                               SharedLogFlusher* flusher, KvFlushes* flushes)
    : info_(info),
      options_(options),
      stats_(info.stats),
      thread_(info.read_only ? "rowsocket: read worker" : "rowsocket: write worker"),
      tables_(thread_.thd(), !info.read_only),
      rows_(thread_.thd(), options.tunables),
      group_(thread_.thd(), !info.read_only, flusher, &info_.wake, stats_),
      accounts_(thread_.thd()),
      kv_(&rows_),
      sweeps_expired_items_(std::strcmp(info.listener, "memcached") == 0 && info.slot == 0),
      flushes_(flushes) {
  if (!thread_.ok()) return;
  ApplyNoWait(NowMs(), false);
  if (std::strcmp(info.listener, "memcached") == 0) {
    // Each memcached command reads and writes the row of one key, so its batches
    // run in READ COMMITTED: a locking read of a key no row has takes no gap lock.
    // Under REPEATABLE READ the find before a set's or add's insert locks the gap
    // the new key goes into, and two batches inserting keys into one gap (distinct
    // keys, both needing the other's gap) deadlock. (InnoDB logs such writes only as
    // rows, which rowsocket does anyway: the session's binlog_format says so.)
    THD* thd = thread_.thd();
    thd->variables.tx_isolation = ISO_READ_COMMITTED;
    thd->tx_isolation = ISO_READ_COMMITTED;
    thd->variables.binlog_format = BINLOG_FORMAT_ROW;
  }
}

EngineExecutor::~EngineExecutor() {
  tables_.CloseAll();
  container_mapping_.clear();
  container_names_.clear();
  PublishCacheSizes();
}

std::unique_ptr<IndexBindings> EngineExecutor::NewIndexBindings() { return std::make_unique<EngineIndexBindings>(); }

bool EngineExecutor::ShouldStop() {
  return interrupted_.load(std::memory_order_acquire) || thread_.ShutdownRequested();
}

// The flag first: ShouldStop() must not take the interruption for an
// administrator's KILL and clear it.
void EngineExecutor::Interrupt() {
  interrupted_.store(true, std::memory_order_release);
  thread_.Interrupt();
}

void EngineExecutor::Tick() {
  tables_.ReleaseContended();
  uint64_t now = NowMs();
  ApplyNoWait(now, false);
  if (sweeps_expired_items_) {
    CarryOutFlushes(now);
    SweepExpiredItems(now);
  }
  if (now - last_idle_sweep_ms_ >= 1000) {
    tables_.CloseIdle(now, options_.idle_table_close_ms);
    last_idle_sweep_ms_ = now;
  }
}

bool EngineExecutor::SchemaAllowed(std::string_view db) const {
  for (const char* system : kSystemSchemas) {
    if (SameName(db, system)) return ListContains(options_.allowed_system_schemas, db);
  }
  return true;
}

uint64_t EngineExecutor::Execute(BatchItem* items, size_t count) {
  batch_start_ms_ = NowMs();
  batch_number_ = NextBatchNumber();
  stats_->batches.Add();
  stats_->batch_requests.Add(count);
  ApplyNoWait(batch_start_ms_, true);
  thread_.BeginBatch(info_.read_only ? SQLCOM_SELECT : SQLCOM_INSERT);
  tables_.BeginBatch(batch_start_ms_);
  Prepare(items, count);
  thread_.ShowExecuting();
  RunBatch(items, count);
  EndLockWaits(items, count);
  // Requests are counted once they are answered (a deferred one runs again later).
  for (size_t i = 0; i < count; ++i)
    if (!items[i].deferred) CountRequest(*items[i].request);
  retired_.clear();
  thread_.EndBatch();
  return group_.TakeFlushTicket();
}

// The members of [begin, end) (see Member) of each connection as a transaction of
// their own, and if even that keeps being rolled back, each request alone (one a
// deadlock fails is answered so).
void EngineExecutor::RunEachConnection(BatchItem* items, size_t begin, size_t end) {
  for (size_t first = begin; first < end;) {
    size_t last = first + 1;
    while (last < end && items[last].bindings == items[first].bindings) ++last;
    bool members = false;
    for (size_t i = first; i < last; ++i) members = members || Member(i);
    if (members && !RunWithRetry(items, first, last)) {
      for (size_t i = first; i < last; ++i) {
        if (!Member(i)) continue;
        if (RunGroup(items, i, i + 1) == GroupRun::kLockBusy) RunLocked(items, i, i + 1);
      }
    }
    first = last;
  }
}

uint64_t EngineExecutor::Durable() { return group_.Durable(); }

// If the storage engine rolls a group's transaction back (a deadlock), nothing of
// it is committed: its answers are discarded and it runs again, since the other
// transaction has usually gone on by then. A group that met a lock it may wait for
// runs again without the connection that met it (RunGroup), and one whose tables
// could not be locked runs per connection (RunLocked). False if it was rolled back
// every time.
bool EngineExecutor::RunWithRetry(BatchItem* items, size_t begin, size_t end) {
  for (int attempt = 1;;) {
    const GroupRun run = RunGroup(items, begin, end);
    if (run == GroupRun::kCommitted) return true;
    if (run == GroupRun::kRerun) continue;  // one connection fewer each time
    if (run == GroupRun::kLockBusy) {
      RunLocked(items, begin, end);
      return true;
    }
    stats_->rollbacks.Add();
    TruncateMembers(items, begin, end);
    static LogLimit rolled_back;
    LogLimited(&rolled_back, LogLevel::kNotice,
               "%zu write requests rolled back by a deadlock (try %d of %d)", end - begin,
               attempt, kGroupAttempts);
    if (attempt++ == kGroupAttempts) return false;
  }
}

void EngineExecutor::TruncateMembers(BatchItem* items, size_t begin, size_t end) {
  for (size_t i = end; i-- > begin;)
    if (Member(i)) ResponseWriter(items[i].out).Truncate(marks_[i]);
}

// Pass 1, in request order. A request whose table another thread has locked (its
// metadata lock: LOCK TABLES, DDL) waits apart with the rest of its connection; so
// does, for the next turn, a `P` that binds an id again or an `A`, after requests
// of its connection that touch rows (should those wait for a lock, the later
// request must not have taken effect before them).
void EngineExecutor::Prepare(BatchItem* items, size_t count) {
  steps_.resize(count);
  marks_.resize(count);
  parked_.assign(count, 0);
  outside_.assign(count, 0);
  batch_count_ = count;
  tables_.TakeMetLock();
  bool touched_rows = false;  // by an earlier request of the same connection
  for (size_t i = 0; i < count; ++i) {
    marks_[i] = items[i].out->size();
    items[i].retry_ms = 0;
    if (i > 0 && items[i - 1].bindings != items[i].bindings) touched_rows = false;
    if (parked_[i]) continue;
    const Request& r = *items[i].request;
    if (touched_rows && SetsUpConnection(items[i])) {
      Hold(items, i);
      continue;
    }
    steps_[i] = PrepareOne(items[i]);
    touched_rows = touched_rows || r.type == RequestType::kFind ||
                   r.type == RequestType::kInsert || r.type == RequestType::kMemcached;
    if (tables_.TakeMetLock() && steps_[i].answered && !steps_[i].status.ok() &&
        MayWait(items, i, RowLockLimitMs()))
      Park(items, i);
  }
}

EngineExecutor::Step EngineExecutor::PrepareOne(const BatchItem& item) {
  Step step;
  const Request& r = *item.request;
  auto* bindings = static_cast<EngineIndexBindings*>(item.bindings);
  switch (r.type) {
    case RequestType::kInvalid:
      step.answered = true;
      step.status = HsEngineStatus(r.error);
      return step;
    case RequestType::kAuth:
      if (bindings->account_logins) return LogIn(bindings, r);
      step.answered = true;
      return step;
    case RequestType::kOpenIndex:
      step.answered = true;
      step.status = BindIndex(bindings, r);
      return step;
    case RequestType::kMemcached:
      return PrepareMemcached(bindings, r);
    case RequestType::kFind:
    case RequestType::kInsert:
      break;
  }
  const Opened<OpenIndex> bound = BoundIndex(bindings, r.index_id);
  if (!bound.ok()) {
    step.answered = true;
    step.status = bound.error;
    return step;
  }
  OpenIndex* oi = bound.value;
  EngineStatus s = RefusedByServerState(r);
  if (s.ok()) s = tables_.Reopen(oi->entry());
  if (s.ok()) s = oi->Resolve();
  if (s.ok()) s = RefusedByGalera(r, oi);
  if (s.ok()) s = CheckRequest(item.request, oi);
  if (s.ok() && bindings->account_logins)
    s = CheckGrants(bindings, bindings->Find(r.index_id), oi, r);
  if (!s.ok()) {
    step.answered = true;
    step.status = s;
    return step;
  }
  tables_.MarkUsed(oi->entry());
  step.index = oi;
  return step;
}

// What the server's state refuses `r`, as it refuses SQL: read_only holds rowsocket's
// clients to it like SQL's ordinary users (rowsocket's threads have every privilege; a
// replica's read_only must not let writes through); a Galera node that is not ready
// refuses writes, and reads unless wsrep_dirty_reads allows them (ER_UNKNOWN_COM_ERROR,
// as SQL answers).
EngineStatus EngineExecutor::RefusedByServerState(const Request& r) {
  if (opt_readonly && r.IsWrite()) return EngineStatus::ReadOnly(ER_OPTION_PREVENTS_STATEMENT);
  if (!WSREP_ON) return EngineStatus::OK();
  if (r.IsWrite() ? GaleraNodeReady() : GaleraNodeServesReads()) return EngineStatus::OK();
  (r.IsWrite() ? stats_->galera_writes_refused : stats_->galera_reads_refused).Add();
  return EngineStatus::ClusterNotReady(ER_UNKNOWN_COM_ERROR);
}

// On a Galera node with wsrep_certify_nonPK=OFF, a write to a table without a primary
// key is refused as SQL refuses it (ER_LOCK_DEADLOCK): such rows would be certified
// by no key of their own.
EngineStatus EngineExecutor::RefusedByGalera(const Request& r, const OpenIndex* oi) {
  if (!WSREP_ON || wsrep_certify_nonPK || !r.IsWrite()) return EngineStatus::OK();
  if (oi->table()->s->primary_key != MAX_KEY) return EngineStatus::OK();
  stats_->galera_writes_refused.Add();
  return EngineStatus::ClusterRefused(ER_LOCK_DEADLOCK);
}

// rowsocket_auth=account: `A 2` answers a nonce; `A 3` and `A 4` log the connection
// in as an account, or out (every failure is counted and logged, never a password).
EngineExecutor::Step EngineExecutor::LogIn(EngineIndexBindings* bindings, const Request& r) {
  Step step;
  step.answered = true;
  if (r.auth_type == "2") {
    step.status = accounts_.Challenge(&bindings->login, r, &step.value);
    return step;
  }
  step.status = accounts_.LogIn(&bindings->login, r, bindings->peer_address, bindings->tls);
  bindings->SetAccount(bindings->login.AccountName());
  if (step.status.ok()) {
    stats_->logins.Add();
    static LogLimit logged_in;
    LogLimited(&logged_in, LogLevel::kDebug, "%s logged in from %s",
               bindings->login.AccountName().c_str(), bindings->peer_address.c_str());
    return step;
  }
  stats_->logins_failed.Add();
  ++bindings->failed_logins;  // the server layer delays the answer (login_policy.h)
  static LogLimit failed;
  std::string user = std::string(r.auth_key).substr(0, USERNAME_CHAR_LENGTH);
  for (char& c : user)  // a client's bytes: nothing that could forge a log line
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  LogLimited(&failed, LogLevel::kWarning, "login refused (%.*s) for user '%s' from %s",
             static_cast<int>(step.status.Name().size()), step.status.Name().data(),
             user.c_str(), bindings->peer_address.c_str());
  return step;
}

// `grants` for `oi` (and filter columns `filters`) brought up to date with the
// connection's login, itself rebuilt from the server's ACL once it is a second old;
// `unauth` when the account has been dropped meanwhile (the login ends).
EngineStatus EngineExecutor::RefreshGrants(EngineIndexBindings* bindings, OpenIndex* oi,
                                         const std::vector<Field*>& filters,
                                         IndexGrants* grants) {
  AccountLogin* login = &bindings->login;
  if (!accounts_.Refresh(login, batch_start_ms_, kAccountMaxAgeMs)) {
    bindings->SetAccount("");
    return EngineStatus::Unauthenticated();
  }
  accounts_.Check(login, oi->table(), oi->key_number(), oi->columns(), filters, grants);
  return EngineStatus::OK();
}

// rowsocket_auth=account: the account's privileges, as the server's grants give
// them (see accounts.h), at most a second old. Every request on an index needs
// SELECT on what its `P` named; writes need INSERT, UPDATE or DELETE as well.
EngineStatus EngineExecutor::CheckGrants(EngineIndexBindings* bindings, IndexBinding* binding,
                                       OpenIndex* oi, const Request& r) {
  EngineStatus s = RefreshGrants(bindings, oi, oi->filter_columns(), &binding->grants);
  if (!s.ok()) return s;
  const IndexGrants& g = binding->grants;
  bool allowed = g.select;
  const char* wanted = "SELECT";
  if (allowed && r.type == RequestType::kInsert) {
    allowed = r.insert_values.size() <= g.insert_columns;
    wanted = "INSERT";
  } else if (allowed && r.type == RequestType::kFind && r.modify == ModifyOp::kDelete) {
    allowed = g.del;
    wanted = "DELETE";
  } else if (allowed && r.type == RequestType::kFind && r.modify != ModifyOp::kNone) {
    allowed = r.modify_values.size() <= g.update_columns;
    wanted = "UPDATE";
  }
  if (allowed) return EngineStatus::OK();
  stats_->requests_denied.Add();
  static LogLimit denied;
  LogLimited(&denied, LogLevel::kWarning, "%s denied to %s from %s on %s.%s",
             wanted, bindings->login.AccountName().c_str(), bindings->peer_address.c_str(),
             binding->db.c_str(), binding->table.c_str());
  return EngineStatus::Denied();
}

void EngineExecutor::AnswerError(const BatchItem& item, const EngineStatus& status) {
  if (item.request->type != RequestType::kMemcached) return ResponseWriter(item.out).Error(status);
  const McRequest& mc = *item.request->memcached;
  if (status.ok()) return AnswerMemcachedWithoutRows(mc, item.out);
  McAnswerFailure(mc, status, item.out);
}

// A `P`: binds index id r.index_id of the connection to the index it names.
EngineStatus EngineExecutor::BindIndex(EngineIndexBindings* bindings, const Request& r) {
  if (r.index_id >= options_.tunables->max_open_indexes.load(std::memory_order_relaxed))
    return EngineStatus::IndexNotOpen();
  if (!SchemaAllowed(r.db)) return EngineStatus::SchemaForbidden();
  auto binding = std::make_unique<IndexBinding>();
  binding->db = r.db;
  binding->table = r.table;
  binding->index = r.index;
  binding->columns = r.columns;
  binding->filter_columns = r.filter_columns;
  const Opened<OpenIndex> opened = OpenForThisWorker(binding.get());
  if (!opened.ok()) return opened.error;
  OpenIndex* oi = opened.value;
  tables_.MarkUsed(oi->entry());
  EngineStatus s = oi->Resolve();
  if (s.ok() && bindings->account_logins) s = CheckGrants(bindings, binding.get(), oi, r);
  if (!s.ok()) return s;  // the id keeps what it was bound to
  bindings->Bind(r.index_id, std::move(binding), &retired_);
  return EngineStatus::OK();
}

// The index bound to `id` as this executor opens it.
Opened<OpenIndex> EngineExecutor::BoundIndex(EngineIndexBindings* bindings, uint32_t id) {
  IndexBinding* b = bindings->Find(id);
  if (b == nullptr) return Opened<OpenIndex>::Failed(EngineStatus::IndexNotOpen());
  return OpenForThisWorker(b);
}

// `b` as this executor opens it: the first time this executor serves the binding's
// connection, in its own table cache. (A connection is served by its listener's
// workers only, so their slots number the binding's openings.)
Opened<OpenIndex> EngineExecutor::OpenForThisWorker(IndexBinding* b) {
  const size_t slot = static_cast<size_t>(info_.slot);
  if (b->opened.size() <= slot) b->opened.resize(slot + 1);
  if (!b->opened[slot]) {
    const Opened<TableEntry> table = tables_.Get(b->db, b->table);
    if (!table.ok()) return Opened<OpenIndex>::Failed(table.error);
    b->opened[slot] =
        std::make_unique<OpenIndex>(table.value, b->index, b->columns, b->filter_columns);
  }
  return Opened<OpenIndex>::Of(b->opened[slot].get());
}

EngineExecutor::GroupRun EngineExecutor::RunGroup(BatchItem* items, size_t begin, size_t end) {
  group_.Clear();
  bool writes = false;
  // memcached's gets read a snapshot, as memcached never makes a get wait; a
  // HandlerSocket find on the write port locks what it reads, as the original's does.
  bool locking_reads = false;
  uint sync_wait = 0;
  for (size_t i = begin; i < end; ++i) {
    if (!Member(i) || steps_[i].index == nullptr) continue;
    group_.Add(steps_[i].index->entry());
    writes = writes || items[i].request->IsWrite();
    locking_reads = locking_reads || items[i].request->type != RequestType::kMemcached;
    sync_wait |= SyncWaitBits(*items[i].request);
  }
  const EngineStatus causal = WaitForCluster(sync_wait);
  // The worker's THD waits for no lock: a table lock or backup lock another thread
  // holds fails the lock at once, and the group's connections run apart.
  const bool locked = causal.ok() && group_.Lock(writes, locking_reads, false);
  // (A KILL also fails the lock: the group then answers it.)
  const bool killed = thread_.thd()->killed != NOT_KILLED;
  if (causal.ok() && !locked && !killed &&
      group_.refusal() != GroupTransaction::Refusal::kGalera) {
    group_.End();
    return GroupRun::kLockBusy;
  }
  if (locked && PlanLockOrder(items, begin, end)) {
    // (Answers go to side buffers first, so the group answers every item: a lock
    // order group is single-row writes, whose answers are a few bytes each.)
    if (!AnswerInLockOrder(items, begin, end)) {
      // A request met a row lock after others that follow it in request order may
      // have run: all of it is undone, and it runs again without that connection.
      group_.End(true);
      return GroupRun::kRerun;
    }
  } else {
    for (size_t i = begin; i < end; ++i) {
      if (!Member(i)) continue;
      marks_[i] = items[i].out->size();
      // Backpressure: a connection whose client has not read its answers gets no
      // more; the server runs the rest of its requests in a later batch. Its output
      // only grows, so every later item of it stays unanswered too.
      items[i].deferred = items[i].out->size() >= items[i].out_limit;
      if (items[i].deferred) continue;
      if (!locked && steps_[i].index) {
        AnswerError(items[i], !causal.ok() ? causal
                              : killed     ? KilledStatus(thread_.thd())
                                           : EngineStatus::TableLocked());
        continue;
      }
      if (!Answer(items[i], steps_[i])) continue;
      // It met a row lock: a request that has not waited its lock wait timeout yet
      // waits apart (it changed nothing: a failed request undoes its rows), and the
      // group goes on without its connection.
      if (MayWait(items, i, RowLockLimitMs())) {
        ResponseWriter(items[i].out).Truncate(marks_[i]);
        Park(items, i);
      } else {
        CountLockTimeout(items[i]);
      }
      if (thread_.thd()->transaction_rollback_request) {
        // The engine undid the whole transaction, not only the failed row operation
        // (innodb_rollback_on_timeout): what ran before it is gone too. Nothing of
        // the group stands; it runs again without the connection that met the lock.
        for (size_t j = i; j-- > begin;)  // (the latest first: a connection's marks grow)
          if (Member(j) && !items[j].deferred) ResponseWriter(items[j].out).Truncate(marks_[j]);
        group_.End(true);
        return GroupRun::kRerun;
      }
    }
  }
  switch (group_.End()) {
    case GroupTransaction::Outcome::kCommitted:
      return GroupRun::kCommitted;
    case GroupTransaction::Outcome::kRolledBack:
      return GroupRun::kRolledBack;
    case GroupTransaction::Outcome::kConflict:
      AnswerConflict(items, begin, end);
      return GroupRun::kRolledBack;
    case GroupTransaction::Outcome::kCommitFailed:
      break;
  }
  // Nothing the group wrote is durable. Say so.
  static LogLimit commit_failed;
  LogLimited(&commit_failed, LogLevel::kError, "commit failed; answering %zu requests with errors",
             end - begin);
  TruncateMembers(items, begin, end);
  for (size_t i = begin; i < end; ++i) {
    if (!Member(i) || items[i].deferred) continue;
    AnswerError(items[i], steps_[i].index ? EngineStatus::CommitFailed() : steps_[i].status);
  }
  return GroupRun::kCommitted;
}

// wsrep_sync_wait on a Galera node: a group with requests its bits cover (see
// SyncWaitBits) first waits until the node has applied every transaction the
// cluster had committed, as SQL's statements do; one wait serves the whole group.
// A wait that times out (the provider's repl.causal_read_timeout) answers the
// group's requests as a lock wait timeout, as SQL answers its statement. A node
// serving dirty reads (wsrep_dirty_reads) does not wait before reads, as SQL's.
EngineStatus EngineExecutor::WaitForCluster(uint sync_wait) {
  if (sync_wait == 0 || !WSREP_ON || !GaleraNodeReady()) return EngineStatus::OK();
  uint wanted = global_system_variables.wsrep_sync_wait;
  if (global_system_variables.wsrep_dirty_reads) wanted &= ~uint{WSREP_SYNC_WAIT_BEFORE_READ};
  if ((wanted & sync_wait) == 0) return EngineStatus::OK();
  stats_->galera_causal_waits.Add();
  if (Wsrep_server_state::instance().causal_read(-1).second == wsrep::provider::success)
    return EngineStatus::OK();
  static LogLimit timed_out;
  LogLimited(&timed_out, LogLevel::kWarning,
             "a wait for the Galera cluster (wsrep_sync_wait) failed; its batch's requests "
             "are answered as lock wait timeouts");
  return EngineStatus::LockWaitTimeout(HA_ERR_LOCK_WAIT_TIMEOUT);
}

// The Galera cluster aborted the group after its requests had answered: nothing of
// it is anywhere, so each request that reached the table answers the deadlock error
// of a rolled-back request instead (the caller may run the group again, which
// replaces these answers).
void EngineExecutor::AnswerConflict(BatchItem* items, size_t begin, size_t end) {
  static LogLimit conflict;
  LogLimited(&conflict, LogLevel::kNotice,
             "%zu write requests rolled back by a Galera cluster conflict", end - begin);
  TruncateMembers(items, begin, end);
  for (size_t i = begin; i < end; ++i) {
    if (!Member(i) || items[i].deferred) continue;
    AnswerError(items[i], steps_[i].index ? EngineStatus::Deadlock(HA_ERR_LOCK_DEADLOCK)
                                          : steps_[i].status);
  }
}

bool EngineExecutor::Answer(const BatchItem& item, const Step& step) {
  if (item.request->type == RequestType::kMemcached) return AnswerMemcached(item, step);
  ResponseWriter w(item.out);
  const Request& r = *item.request;
  RowResult result;
  if (step.answered && step.status.ok() && !step.value.empty()) {
    w.BeginRows(1);
    w.WireValue(step.value);
    w.EndRows();
  } else if (step.answered) {
    result.status = step.status;
    w.Result(step.status);
  } else if (thread_.thd()->killed != NOT_KILLED) {
    // KILL of this worker's process-list id (or a Galera cluster's interruption):
    // the rest of its batch does not run.
    result.status = KilledStatus(thread_.thd());
    w.Error(result.status);
  } else {
    // Each write is a statement of its own time, as in SQL: ON UPDATE values and
    // the periods of versioned rows change from one to the next (a row two requests
    // of a batch change keeps its middle version as history).
    if (r.IsWrite()) thread_.thd()->set_time();
    const uint64_t locks_met = rows_.locks_met();
    result = r.type == RequestType::kInsert ? rows_.Insert(r, step.index, &w)
                                            : rows_.Find(r, step.index, &w);
    if (rows_.locks_met() != locks_met) return true;  // counted by the caller
  }
  CountResult(r, result);
  return false;
}


void EngineExecutor::CountRequest(const Request& r) {
  switch (CategoryOf(r)) {
    case RequestCategory::kOpen: stats_->requests_open.Add(); break;
    case RequestCategory::kAuth: stats_->requests_auth.Add(); break;
    case RequestCategory::kInsert: stats_->requests_insert.Add(); break;
    case RequestCategory::kFind: stats_->requests_find.Add(); break;
    case RequestCategory::kUpdate: stats_->requests_update.Add(); break;
    case RequestCategory::kDelete: stats_->requests_delete.Add(); break;
    case RequestCategory::kInvalid: break;
  }
}

void EngineExecutor::CountResult(const Request& r, const RowResult& result) {
  switch (result.status.category()) {
    case EngineStatus::kOk: break;
    case EngineStatus::kStorage: stats_->errors_storage.Add(); break;
    case EngineStatus::kBadRequest: stats_->errors_request.Add(); break;
    case EngineStatus::kUnauthorized: stats_->errors_auth.Add(); break;
  }
  if (result.engine_error == HA_ERR_LOCK_WAIT_TIMEOUT) stats_->lock_wait_timeouts.Add();
  if (result.engine_error == HA_ERR_LOCK_DEADLOCK) stats_->deadlocks.Add();
  if (!result.status.ok()) return;
  stats_->rows_read.Add(result.rows_read);
  if (r.type == RequestType::kInsert)
    stats_->rows_inserted.Add(result.rows_changed);
  else if (r.modify == ModifyOp::kDelete)
    stats_->rows_deleted.Add(result.rows_changed);
  else if (r.modify != ModifyOp::kNone)
    stats_->rows_updated.Add(result.rows_changed);
}

namespace {

class EngineExecutorFactory : public ExecutorFactory {
 public:
  explicit EngineExecutorFactory(const EngineOptions& options) : options_(options) {}
  std::unique_ptr<Executor> Create(const WorkerInfo& info) override {
    if (std::strcmp(info.listener, "memcached") == 0) default_container_.Start();
    auto executor = std::make_unique<EngineExecutor>(info, options_, &flusher_, &flushes_);
    if (!executor->ok()) return nullptr;
    return executor;
  }

 private:
  EngineOptions options_;
  SharedLogFlusher flusher_;  // outlives the executors: the factory outlives the workers
  KvFlushes flushes_;         // the memcached listener's delayed flush_all, likewise
  DefaultContainer default_container_;
};

void ErrorLogSink(LogLevel level, const char* message) {
  switch (level) {
    case LogLevel::kError: sql_print_error("rowsocket: %s", message); break;
    case LogLevel::kWarning: sql_print_warning("rowsocket: %s", message); break;
    default: sql_print_information("rowsocket: %s", message); break;
  }
}

}  // namespace

std::unique_ptr<ExecutorFactory> NewEngineExecutorFactory(const EngineOptions& options) {
  return std::make_unique<EngineExecutorFactory>(options);
}

void LogToServerErrorLog() { SetLogSink(ErrorLogSink); }

}  // namespace rowsocket
