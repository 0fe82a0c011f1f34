// EngineExecutor: the batch flow — prepare, lock, run, commit, answer.
// Runs on a worker thread. The requests that touch rows are in row_requests.cc.
#include "engine/executor.h"

#include <chrono>

#include "engine/request_check.h"
#include "protocol/name_list.h"
#include "protocol/wire_errors.h"
#include "util/clock.h"
#include "util/log.h"

namespace rowsocket {
namespace {

constexpr const char* kSystemSchemas[] = {"mysql", "information_schema", "performance_schema",
                                          "sys"};

// Tries of a group of write requests as one transaction before it is split up
// (see Execute).
constexpr int kGroupAttempts = 2;

bool SameName(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

bool ListContains(std::string_view list, std::string_view name) {
  for (std::string_view item : SplitNameList(list)) {
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (SameName(item, name)) return true;
  }
  return false;
}

}  // namespace

EngineExecutor::EngineExecutor(const WorkerInfo& info, const EngineOptions& options,
                               SharedLogFlusher* flusher)
    : info_(info),
      options_(options),
      stats_(info.stats),
      thread_(info.read_only ? "rowsocket: read worker" : "rowsocket: write worker"),
      tables_(thread_.thd(), !info.read_only),
      rows_(thread_.thd(), options.tunables),
      shared_flusher_(info.read_only ? nullptr : flusher) {
  if (thread_.ok()) ApplyLockWaitTimeout(NowMs(), false);
}

EngineExecutor::~EngineExecutor() {
  if (flusher_ != nullptr) flusher_->Forget(&info_.wake);
  tables_.CloseAll();
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

// A worker serves many connections: a request waiting for a lock stalls them all,
// so rowsocket's threads wait at most rowsocket_lock_wait_timeout for a row lock
// (then the request answers the storage engine's lock wait timeout error), and as
// long for a table's metadata lock or table lock (LOCK TABLES, DDL; then the
// request answers `open_table` or `lock_tables`). Backup locks are the exception:
// writes wait for FLUSH TABLES WITH READ LOCK and backups as SQL's writes do.
// While the server is still starting (plugins load before InnoDB's variables can be
// looked up) setting it fails; it is retried before every batch and once a second
// while idle, until it holds.
void EngineExecutor::ApplyLockWaitTimeout(uint64_t now_ms, bool before_batch) {
  const uint32_t seconds = options_.tunables->lock_wait_timeout.load(std::memory_order_relaxed);
  if (seconds == applied_lock_wait_timeout_) return;
  if (!before_batch && now_ms - last_lock_wait_attempt_ms_ < 1000) return;
  last_lock_wait_attempt_ms_ = now_ms;
  thread_.thd()->variables.lock_wait_timeout = seconds;
  if (thread_.SetSessionVariable("innodb_lock_wait_timeout", seconds))
    applied_lock_wait_timeout_ = seconds;
}

// A batch waits for row locks for one lock wait at most: once a request has waited
// in vain, its later requests that meet a row locked by another transaction answer
// the same error at once (innodb_lock_wait_timeout=0) instead of each waiting its
// own timeout while the worker's other connections wait with them. The next batch
// waits again (ApplyLockWaitTimeout).
void EngineExecutor::StopWaitingForRowLocks() {
  if (applied_lock_wait_timeout_ == 0) return;
  applied_lock_wait_timeout_ = 0;
  thread_.SetSessionVariable("innodb_lock_wait_timeout", 0);
}

void EngineExecutor::Tick() {
  tables_.ReleaseContended();
  uint64_t now = NowMs();
  ApplyLockWaitTimeout(now, false);
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
  stats_->batches.Add();
  stats_->batch_requests.Add(count);
  if (!info_.read_only) ApplyLockWaitTimeout(batch_start_ms_, true);
  thread_.BeginBatch(info_.read_only ? SQLCOM_SELECT : SQLCOM_INSERT);
  tables_.BeginBatch(batch_start_ms_);
  Prepare(items, count);
  thread_.ShowExecuting();
  if (!RunWithRetry(items, 0, count)) {
    // Rolled back twice: the batch's requests collide with another transaction's.
    RunEachConnection(items, count);
  } else if (group_lock_failed_ && items[0].bindings != items[count - 1].bindings) {
    // A table of the batch stayed locked (LOCK TABLES, DDL) for the whole lock wait:
    // the connections whose tables are free must not fail with it. They run again
    // on their own, without waiting; the others answer the lock error at once.
    for (size_t i = count; i-- > 0;) ResponseWriter(items[i].out).Truncate(marks_[i]);
    THD* thd = thread_.thd();
    const ulong wait = thd->variables.lock_wait_timeout;
    thd->variables.lock_wait_timeout = 0;
    RunEachConnection(items, count);
    thd->variables.lock_wait_timeout = wait;
  }
  // Requests are counted once they are answered (a deferred one runs again later).
  for (size_t i = 0; i < count; ++i)
    if (!items[i].deferred) CountRequest(*items[i].request);
  retired_.clear();
  thread_.EndBatch();
  if (!flush_left_) return 0;
  flush_left_ = false;
  return flusher_->Request(&info_.wake);
}

// Each connection's requests as a transaction of their own, and if even that keeps
// being rolled back, each request alone (one a deadlock fails is answered so).
void EngineExecutor::RunEachConnection(BatchItem* items, size_t count) {
  for (size_t begin = 0; begin < count;) {
    size_t end = begin + 1;
    while (end < count && items[end].bindings == items[begin].bindings) ++end;
    if (end - begin == count || !RunWithRetry(items, begin, end)) {
      for (size_t i = begin; i < end; ++i) RunGroup(items, i, i + 1);
    }
    begin = end;
  }
}

uint64_t EngineExecutor::Durable() { return flusher_ != nullptr ? flusher_->Durable() : 0; }

// Commits the group's transaction; false if the commit failed. A transaction
// only InnoDB wrote, with no binary log taking part, commits in memory
// first (the engine's commit_ordered step, as the binary log's group commit calls
// it), which leaves the log flush to the caller: the log flusher does it, and the
// batch's answers wait for it (see log_flusher.h).
bool EngineExecutor::Commit() {
  THD* thd = thread_.thd();
  handlerton* engine = FlushDeferrable();  // InnoDB, the flusher's one engine
  if (engine != nullptr && flusher_ == nullptr) flusher_ = shared_flusher_->Get(engine);
  if (engine == nullptr || flusher_ == nullptr) return !trans_commit_stmt(thd);
  // The commit blocker ha_commit_trans takes (FLUSH TABLES WITH READ LOCK and BACKUP
  // STAGE BLOCK_COMMIT hold commits back), taken here because the commit starts here;
  // ha_commit_trans finds it held and leaves it to us.
  MDL_request backup;
  MDL_REQUEST_INIT(&backup, MDL_key::BACKUP, "", "", MDL_BACKUP_COMMIT, MDL_EXPLICIT);
  if (thd->mdl_context.acquire_lock(&backup, global_system_variables.lock_wait_timeout)) {
    // What ha_commit_trans does when it cannot have it: roll back, report failure.
    thd->clear_error();
    trans_rollback_stmt(thd);
    trans_rollback_implicit(thd);
    return false;
  }
  thd->backup_commit_lock = &backup;
  engine->commit_ordered(engine, thd, false);
  const bool failed = trans_commit_stmt(thd);
  thd->backup_commit_lock = nullptr;
  thd->mdl_context.release_lock(backup.ticket);
  flush_left_ = true;
  return !failed;
}

// The engine whose commit may leave its flush to the log flusher: the transaction's
// only participant that wrote, and InnoDB; no binary log (its two-phase commit
// orders and syncs commits itself) and no system-versioned table (whose commit
// ha_commit_trans records in the transaction registry first).
handlerton* EngineExecutor::FlushDeferrable() {
  if (shared_flusher_ == nullptr || !info_.wake || mysql_bin_log.is_open()) return nullptr;
  for (TABLE* t : lock_list_)
    if (t->versioned()) return nullptr;
  THD* thd = thread_.thd();
  if (thd->transaction->all.ha_list != nullptr) return nullptr;
  handlerton* writer = nullptr;
  for (Ha_trx_info* h = thd->transaction->stmt.ha_list; h != nullptr; h = h->next()) {
    if (!h->is_trx_read_write()) continue;
    if (writer != nullptr) return nullptr;
    writer = h->ht();
  }
  if (writer == nullptr || writer->db_type != DB_TYPE_INNODB) return nullptr;
  if (writer->commit_ordered == nullptr || writer->flush_logs == nullptr) return nullptr;
  return writer;
}

// If the storage engine rolls a group's transaction back (a deadlock), nothing of
// it is committed: its answers are discarded and it runs again, since the other
// transaction has usually gone on by then. False if it was rolled back every time.
bool EngineExecutor::RunWithRetry(BatchItem* items, size_t begin, size_t end) {
  for (int attempt = 1;; ++attempt) {
    if (RunGroup(items, begin, end)) return true;
    stats_->rollbacks.Add();
    for (size_t i = end; i-- > begin;) ResponseWriter(items[i].out).Truncate(marks_[i]);
    static LogLimit rolled_back;
    LogLimited(&rolled_back, LogLevel::kNotice,
               "%zu write requests rolled back by a deadlock (try %d of %d)", end - begin,
               attempt, kGroupAttempts);
    if (attempt == kGroupAttempts) return false;
  }
}

void EngineExecutor::Prepare(BatchItem* items, size_t count) {
  steps_.resize(count);
  marks_.resize(count);
  for (size_t i = 0; i < count; ++i) steps_[i] = PrepareOne(items[i]);
}

EngineExecutor::Step EngineExecutor::PrepareOne(const BatchItem& item) {
  Step step;
  const Request& r = *item.request;
  auto* bindings = static_cast<EngineIndexBindings*>(item.bindings);
  switch (r.type) {
    case RequestType::kInvalid:
      step.answered = true;
      step.status = r.error;
      return step;
    case RequestType::kAuth:
      step.answered = true;
      return step;
    case RequestType::kOpenIndex:
      step.answered = true;
      step.status = BindIndex(bindings, r);
      return step;
    case RequestType::kFind:
    case RequestType::kInsert:
      break;
  }
  WireStatus s;
  OpenIndex* oi = BoundIndex(bindings, r.index_id, &s);
  if (oi == nullptr) {
    step.answered = true;
    step.status = s;
    return step;
  }
  // read_only holds rowsocket's clients to it like SQL's ordinary users (rowsocket's
  // threads have every privilege; a replica's read_only must not let writes through).
  if (opt_readonly && r.IsWrite()) {
    step.answered = true;
    step.status = WireStatus::StorageCode(ER_OPTION_PREVENTS_STATEMENT);
    return step;
  }
  if (WSREP_ON && r.IsWrite()) {
    step.answered = true;
    step.status = RefuseGaleraWrite();
    return step;
  }
  s = tables_.Reopen(oi->entry());
  if (s.ok()) s = oi->Resolve();
  if (s.ok()) s = CheckRequest(item.request, oi);
  if (!s.ok()) {
    step.answered = true;
    step.status = s;
    return step;
  }
  oi->entry()->last_used_ms = batch_start_ms_;
  step.index = oi;
  return step;
}

// On a Galera node, a write through the handler API on rowsocket's own threads is
// not a cluster transaction: it would be certified and replicated nowhere, and the
// nodes would silently diverge. Until rowsocket's writes are wsrep transactions,
// they are refused (reads go on) and the first refusal is logged.
WireStatus EngineExecutor::RefuseGaleraWrite() {
  static std::atomic<bool> logged{false};
  if (!logged.exchange(true)) {
    Log(LogLevel::kWarning,
        "this server is a Galera node (wsrep_on=ON): rowsocket refuses writes "
        "(`1 1 galera`), which would not be replicated to the cluster; reads are served");
  }
  stats_->galera_writes_refused.Add();
  return ErrorStatus(WireError::kGalera);
}

// A `P`: binds index id r.index_id of the connection to the index it names.
WireStatus EngineExecutor::BindIndex(EngineIndexBindings* bindings, const Request& r) {
  if (r.index_id >= options_.tunables->max_open_indexes.load(std::memory_order_relaxed))
    return ErrorStatus(WireError::kStmtNum);
  if (!SchemaAllowed(r.db)) return ErrorStatus(WireError::kForbidden);
  auto binding = std::make_unique<IndexBinding>();
  binding->db = r.db;
  binding->table = r.table;
  binding->index = r.index;
  binding->columns = r.columns;
  binding->filter_columns = r.filter_columns;
  WireStatus s;
  OpenIndex* oi = OpenForThisWorker(binding.get(), &s);
  if (oi == nullptr) return s;
  oi->entry()->last_used_ms = batch_start_ms_;
  s = oi->Resolve();
  if (!s.ok()) return s;  // the id keeps what it was bound to
  bindings->Bind(r.index_id, std::move(binding), &retired_);
  return WireStatus::OK();
}

// The index bound to `id` as this executor opens it.
OpenIndex* EngineExecutor::BoundIndex(EngineIndexBindings* bindings, uint32_t id, WireStatus* status) {
  IndexBinding* b = bindings->Find(id);
  if (b == nullptr) {
    *status = ErrorStatus(WireError::kStmtNum);
    return nullptr;
  }
  return OpenForThisWorker(b, status);
}

// `b` as this executor opens it: the first time this executor serves the binding's
// connection, in its own table cache. (A connection is served by its listener's
// workers only, so their slots number the binding's openings.)
OpenIndex* EngineExecutor::OpenForThisWorker(IndexBinding* b, WireStatus* status) {
  const size_t slot = static_cast<size_t>(info_.slot);
  if (b->opened.size() <= slot) b->opened.resize(slot + 1);
  if (!b->opened[slot]) {
    TableEntry* entry = tables_.Get(b->db, b->table, status);
    if (entry == nullptr) return nullptr;
    b->opened[slot] = std::make_unique<OpenIndex>(entry, b->index, b->columns, b->filter_columns);
  }
  return b->opened[slot].get();
}

// Writes wait while FLUSH TABLES WITH READ LOCK or a backup stage blocks DML,
// exactly as SQL's do: the protection SQL takes when it opens a table for writing,
// held for the batch only.
bool EngineExecutor::AcquireBackupProtection() {
  THD* thd = thread_.thd();
  MDL_request request;
  MDL_REQUEST_INIT(&request, MDL_key::BACKUP, "", "", MDL_BACKUP_DML, MDL_STATEMENT);
  if (thd->mdl_context.acquire_lock(&request, global_system_variables.lock_wait_timeout)) {
    thd->clear_error();
    return false;
  }
  return true;
}

MYSQL_LOCK* EngineExecutor::LockTables(TABLE** tables, size_t n) {
  MYSQL_LOCK* lock = mysql_lock_tables(thread_.thd(), tables, static_cast<uint>(n), 0);
  if (lock == nullptr) thread_.thd()->clear_error();
  return lock;
}

bool EngineExecutor::RunGroup(BatchItem* items, size_t begin, size_t end) {
  THD* thd = thread_.thd();
  lock_list_.clear();
  locked_entries_.clear();
  ++batch_number_;
  for (size_t i = begin; i < end; ++i) {
    TableEntry* e = steps_[i].index ? steps_[i].index->entry() : nullptr;
    if (e != nullptr && e->batch_mark != batch_number_) {
      e->batch_mark = batch_number_;
      lock_list_.push_back(e->table);
      locked_entries_.push_back(e);
    }
  }
  bool writes = false;
  for (size_t i = begin; i < end && !writes; ++i) writes = steps_[i].index && items[i].request->IsWrite();
  MYSQL_LOCK* lock = nullptr;
  bool lock_failed = false;
  if (!lock_list_.empty()) {
    lock_failed = writes && !AcquireBackupProtection();
    if (!lock_failed) lock = LockTables(lock_list_.data(), lock_list_.size());
    lock_failed = lock == nullptr;
  }
  group_lock_failed_ = lock_failed;
  if (lock != nullptr && !info_.read_only) BeginWriteStatement(lock);
  if (!lock_failed && PlanLockOrder(items, begin, end)) {
    // (Answers go to side buffers first, so the group answers every item: a lock
    // order group is single-row writes, whose answers are a few bytes each.)
    AnswerInLockOrder(items, begin, end);
  } else {
    for (size_t i = begin; i < end; ++i) {
      marks_[i] = items[i].out->size();
      // Backpressure: a connection whose client has not read its answers gets no
      // more; the server runs the rest of its requests in a later batch. Its output
      // only grows, so every later item of it stays unanswered too.
      items[i].deferred = items[i].out->size() >= items[i].out_limit;
      if (items[i].deferred) continue;
      if (lock_failed && steps_[i].index) {
        ResponseWriter(items[i].out).Error(ErrorStatus(WireError::kLockTables));
      } else {
        Answer(items[i], steps_[i]);
      }
    }
  }
  for (TableEntry* e : locked_entries_) RowRequests::EndScan(e);
  if (lock != nullptr) {
    if (!info_.read_only) EndWriteStatement();
    bool rolled_back = thd->transaction_rollback_request;
    if (rolled_back) {
      // The engine already undid the whole transaction; end it on the server's side
      // too (this also clears the rollback request, so the retry can commit).
      trans_rollback_stmt(thd);
      trans_rollback_implicit(thd);
    } else if (!Commit()) {
      // The commit failed: nothing the group wrote is durable. Say so.
      static LogLimit commit_failed;
      LogLimited(&commit_failed, LogLevel::kError,
                 "commit failed; answering %zu requests with errors", end - begin);
      for (size_t i = end; i-- > begin;) ResponseWriter(items[i].out).Truncate(marks_[i]);
      for (size_t i = begin; i < end; ++i) {
        if (items[i].deferred) continue;
        ResponseWriter(items[i].out)
            .Error(steps_[i].index ? ErrorStatus(WireError::kCommit) : steps_[i].status);
      }
      thd->clear_error();
    } else if (!info_.read_only) {
      stats_->commits.Add();
      InvalidateQueryCache();
    }
    for (TableEntry* e : locked_entries_) e->written = false;
    thd->lock = nullptr;
    mysql_unlock_tables(thd, lock);
    // What SQL does when it closes a statement's tables: forget per-statement
    // handler state (the row-logging decision above all). Reads have none to forget.
    if (!info_.read_only)
      for (TABLE* t : lock_list_) t->file->ha_reset();
    if (rolled_back) {
      thd->mdl_context.release_statement_locks();
      return false;
    }
  }
  thd->mdl_context.release_statement_locks();
  return true;
}

// Writes are logged to the binary log as row events, whatever binlog_format says,
// exactly as the same change made by SQL in row format: table maps are written on
// the first changed row (from thd->lock), the pending rows event is flushed at the
// end, and the commit goes through the binlog's group commit with a GTID.
void EngineExecutor::BeginWriteStatement(MYSQL_LOCK* lock) {
  THD* thd = thread_.thd();
  thd->reset_binlog_for_next_statement();
  thd->set_current_stmt_binlog_format_row();
  thd->lock = lock;
  for (TABLE* t : lock_list_) {
    t->file->prepare_for_row_logging();
    // A UNIQUE over long values is checked by the server through a second handler
    // on the table (the first one may be in the middle of a scan), as for SQL.
    if (t->s->long_unique_table || t->s->period.unique_keys) t->file->prepare_for_insert(true);
  }
}

void EngineExecutor::EndWriteStatement() {
  THD* thd = thread_.thd();
  if (thd->binlog_flush_pending_rows_event(true, false) ||
      thd->binlog_flush_pending_rows_event(true, true)) {
    static LogLimit binlog_failed;
    LogLimited(&binlog_failed, LogLevel::kError, "could not write row events to the binary log");
  }
  thd->reset_binlog_for_next_statement();
}

// After a commit: SELECTs cached before it must not answer with the old rows.
void EngineExecutor::InvalidateQueryCache() {
  for (TableEntry* e : locked_entries_) {
    if (e->written) query_cache_invalidate3(thread_.thd(), e->table, FALSE);
    e->written = false;
  }
}

void EngineExecutor::Answer(const BatchItem& item, const Step& step) {
  ResponseWriter w(item.out);
  const Request& r = *item.request;
  RowResult result;
  if (step.answered) {
    result.status = step.status;
    w.Result(step.status);
  } else if (thread_.thd()->killed != NOT_KILLED) {
    // KILL of this worker's process-list id: the rest of its batch does not run.
    result.status = ErrorStatus(WireError::kKilled);
    w.Error(result.status);
  } else {
    // Each write is a statement of its own time, as in SQL: ON UPDATE values and
    // the periods of versioned rows change from one to the next (a row two requests
    // of a batch change keeps its middle version as history).
    if (r.IsWrite()) thread_.thd()->set_time();
    result = r.type == RequestType::kInsert ? rows_.Insert(r, step.index, &w)
                                            : rows_.Find(r, step.index, &w);
    if (result.engine_error == HA_ERR_LOCK_WAIT_TIMEOUT) StopWaitingForRowLocks();
  }
  CountResult(r, result);
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
  switch (result.status.code()) {
    case WireStatus::kOk: break;
    case WireStatus::kStorage: stats_->errors_storage.Add(); break;
    case WireStatus::kBadRequest: stats_->errors_request.Add(); break;
    case WireStatus::kUnauthorized: stats_->errors_auth.Add(); break;
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
    auto executor = std::make_unique<EngineExecutor>(info, options_, &flusher_);
    if (!executor->ok()) return nullptr;
    return executor;
  }

 private:
  EngineOptions options_;
  SharedLogFlusher flusher_;  // outlives the executors: the factory outlives the workers
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
