// GroupTransaction: table locks, the binary log statement and the commit of one
// group of requests. Runs on a worker thread.
#include "engine/core/group_transaction.h"

#include "engine/rows/row_requests.h"
#include "util/log.h"

namespace rowsocket {

GroupTransaction::GroupTransaction(THD* thd, bool writes, SharedLogFlusher* flusher,
                                   const std::function<void()>* wake, WorkerStats* stats)
    : thd_(thd),
      galera_(thd),
      writes_(writes),
      shared_flusher_(writes ? flusher : nullptr),
      wake_(wake),
      stats_(stats) {}

GroupTransaction::~GroupTransaction() {
  if (flusher_ != nullptr) flusher_->Forget(wake_);
}

void GroupTransaction::Clear() {
  tables_.clear();
  entries_.clear();
  ++group_number_;
}

void GroupTransaction::Add(TableEntry* entry) {
  if (entry->group_mark == group_number_) return;
  entry->group_mark = group_number_;
  tables_.push_back(entry->table);
  entries_.push_back(entry);
}

bool GroupTransaction::Lock(bool writes, bool locking_reads, bool wait) {
  refusal_ = Refusal::kNone;
  if (tables_.empty()) return true;
  if (writes && !AcquireBackupProtection(wait)) {
    refusal_ = Refusal::kBackup;
    return false;
  }
  write_statement_ = writes_ && (writes || locking_reads);
  if (writes_ && !write_statement_) LockAsReads(true);
  lock_ = mysql_lock_tables(thd_, tables_.data(), static_cast<uint>(tables_.size()), 0);
  if (lock_ == nullptr) {
    if (writes_ && !write_statement_) LockAsReads(false);
    thd_->clear_error();
    refusal_ = Refusal::kTables;
    return false;
  }
  if (write_statement_ && !galera_.Begin()) {
    static LogLimit not_started;
    LogLimited(&not_started, LogLevel::kError, "could not start a Galera (wsrep) transaction");
    mysql_unlock_tables(thd_, lock_);
    lock_ = nullptr;
    refusal_ = Refusal::kGalera;
    return false;
  }
  if (write_statement_) BeginWriteStatement();
  return true;
}

// A write worker's tables are opened for writing, and its statements are writes
// (InnoDB's reads in them take row locks). For a group of plain reads, the tables
// are locked for reading in a SELECT, so that InnoDB reads a consistent snapshot;
// `reads` false puts the write worker's locking and statement back.
void GroupTransaction::LockAsReads(bool reads) {
  for (TABLE* t : tables_) t->reginfo.lock_type = reads ? TL_READ : TL_WRITE;
  if (reads) write_command_ = thd_->lex->sql_command;
  thd_->lex->sql_command = reads ? SQLCOM_SELECT : write_command_;
}

// Writes wait while FLUSH TABLES WITH READ LOCK or a backup stage blocks DML,
// exactly as SQL's do: the protection SQL takes when it opens a table for writing,
// held for the group only.
bool GroupTransaction::AcquireBackupProtection(bool wait) {
  MDL_request request;
  MDL_REQUEST_INIT(&request, MDL_key::BACKUP, "", "", MDL_BACKUP_DML, MDL_STATEMENT);
  const double timeout = wait ? global_system_variables.lock_wait_timeout : 0;
  if (thd_->mdl_context.acquire_lock(&request, timeout)) {
    thd_->clear_error();
    return false;
  }
  return true;
}

// Writes are logged to the binary log as row events, whatever binlog_format says,
// exactly as the same change made by SQL in row format: table maps are written on
// the first changed row (from thd->lock), the pending rows event is flushed at the
// end, and the commit goes through the binlog's group commit with a GTID.
void GroupTransaction::BeginWriteStatement() {
  thd_->reset_binlog_for_next_statement();
  thd_->set_current_stmt_binlog_format_row();
  thd_->lock = lock_;
  for (TABLE* t : tables_) {
    t->file->prepare_for_row_logging();
    // A UNIQUE over long values is checked by the server through a second handler
    // on the table (the first one may be in the middle of a scan), as for SQL.
    if (t->s->long_unique_table || t->s->period.unique_keys) t->file->prepare_for_insert(true);
  }
}

void GroupTransaction::EndWriteStatement() {
  if (thd_->binlog_flush_pending_rows_event(true, false) ||
      thd_->binlog_flush_pending_rows_event(true, true)) {
    static LogLimit binlog_failed;
    LogLimited(&binlog_failed, LogLevel::kError, "could not write row events to the binary log");
  }
  thd_->reset_binlog_for_next_statement();
}

GroupTransaction::Outcome GroupTransaction::End(bool roll_back) {
  for (TableEntry* e : entries_) RowRequests::EndScan(e);
  Outcome outcome = Outcome::kCommitted;
  if (lock_ != nullptr) {
    if (write_statement_) EndWriteStatement();
    if (roll_back || thd_->transaction_rollback_request) {
      // The engine already undid the whole transaction (or the caller wants it
      // undone); end it on the server's side too (this also clears the rollback
      // request, so a retry can commit).
      trans_rollback_stmt(thd_);
      trans_rollback_implicit(thd_);
      outcome = Outcome::kRolledBack;
    } else if (!Commit()) {
      thd_->clear_error();
      outcome = Outcome::kCommitFailed;
    } else if (write_statement_) {
      stats_->commits.Add();
      InvalidateQueryCache();
    }
    for (TableEntry* e : entries_) e->written = false;
    thd_->lock = nullptr;
    mysql_unlock_tables(thd_, lock_);
    lock_ = nullptr;
    // What SQL does when it closes a statement's tables: forget per-statement
    // handler state (the row-logging decision above all). Reads have none to forget.
    if (write_statement_)
      for (TABLE* t : tables_) t->file->ha_reset();
    else if (writes_)
      LockAsReads(false);
  }
  thd_->mdl_context.release_statement_locks();
  switch (galera_.End()) {
    case GaleraTransaction::Result::kNone:
    case GaleraTransaction::Result::kCommitted:
      break;
    case GaleraTransaction::Result::kReplayed:
      if (outcome != Outcome::kCommitted) stats_->commits.Add();
      outcome = Outcome::kCommitted;
      break;
    case GaleraTransaction::Result::kAborted:
      stats_->galera_conflicts.Add();
      outcome = Outcome::kConflict;
      break;
  }
  return outcome;
}

// Commits the group's transaction; false if the commit failed. A transaction
// only InnoDB wrote, with no binary log taking part, commits in memory
// first (the engine's commit_ordered step, as the binary log's group commit calls
// it), which leaves the log flush to the caller: the log flusher does it, and the
// batch's answers wait for it (see log_flusher.h).
bool GroupTransaction::Commit() {
  handlerton* engine = FlushDeferrable();  // InnoDB, the flusher's one engine
  if (engine != nullptr && flusher_ == nullptr) flusher_ = shared_flusher_->Get(engine);
  if (engine == nullptr || flusher_ == nullptr) return !trans_commit_stmt(thd_);
  // The commit blocker ha_commit_trans takes (FLUSH TABLES WITH READ LOCK and BACKUP
  // STAGE BLOCK_COMMIT hold commits back), taken here because the commit starts here;
  // ha_commit_trans finds it held and leaves it to us.
  MDL_request backup;
  MDL_REQUEST_INIT(&backup, MDL_key::BACKUP, "", "", MDL_BACKUP_COMMIT, MDL_EXPLICIT);
  if (thd_->mdl_context.acquire_lock(&backup, global_system_variables.lock_wait_timeout)) {
    // What ha_commit_trans does when it cannot have it: roll back, report failure.
    thd_->clear_error();
    trans_rollback_stmt(thd_);
    trans_rollback_implicit(thd_);
    return false;
  }
  thd_->backup_commit_lock = &backup;
  engine->commit_ordered(engine, thd_, false);
  const bool failed = trans_commit_stmt(thd_);
  thd_->backup_commit_lock = nullptr;
  thd_->mdl_context.release_lock(backup.ticket);
  flush_left_ = true;
  return !failed;
}

// The engine whose commit may leave its flush to the log flusher: the transaction's
// only participant that wrote, and InnoDB; no binary log (its two-phase commit
// orders and syncs commits itself), no Galera node (whose commits are certified and
// committed in the cluster's order, inside which the engine's commit_ordered step
// must run) and no system-versioned table (whose commit ha_commit_trans records in
// the transaction registry first).
handlerton* GroupTransaction::FlushDeferrable() {
  if (shared_flusher_ == nullptr || !*wake_ || mysql_bin_log.is_open()) return nullptr;
  if (WSREP_NNULL(thd_)) return nullptr;
  for (TABLE* t : tables_)
    if (t->versioned()) return nullptr;
  if (thd_->transaction->all.ha_list != nullptr) return nullptr;
  handlerton* writer = nullptr;
  for (Ha_trx_info* h = thd_->transaction->stmt.ha_list; h != nullptr; h = h->next()) {
    if (!h->is_trx_read_write()) continue;
    if (writer != nullptr) return nullptr;
    writer = h->ht();
  }
  if (writer == nullptr || writer->db_type != DB_TYPE_INNODB) return nullptr;
  if (writer->commit_ordered == nullptr || writer->flush_logs == nullptr) return nullptr;
  return writer;
}

// After a commit: SELECTs cached before it must not answer with the old rows.
void GroupTransaction::InvalidateQueryCache() {
  for (TableEntry* e : entries_) {
    if (e->written) query_cache_invalidate3(thd_, e->table, FALSE);
    e->written = false;
  }
}

uint64_t GroupTransaction::TakeFlushTicket() {
  if (!flush_left_) return 0;
  flush_left_ = false;
  return flusher_->Request(wake_);
}

// Any write worker of a listener may take the wake-up of a flush, or release held
// answers in a quiet moment, also one whose own commits never left a flush to the
// flusher: every worker reads the one flusher's mark.
uint64_t GroupTransaction::Durable() const {
  const LogFlusher* flusher = Flusher();
  return flusher != nullptr ? flusher->Durable() : 0;
}

uint64_t GroupTransaction::Flushing() const {
  const LogFlusher* flusher = Flusher();
  return flusher != nullptr ? flusher->Flushing() : 0;
}

const LogFlusher* GroupTransaction::Flusher() const {
  if (flusher_ != nullptr || shared_flusher_ == nullptr) return flusher_;
  return shared_flusher_->Started();
}

}  // namespace rowsocket
