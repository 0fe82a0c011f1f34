// GroupTransaction: what SQL does around a statement, for one group of a batch's
// requests. It locks the group's tables at once (writes first take the backup
// protection that FLUSH TABLES WITH READ LOCK and backups wait for), makes a write
// group one row-based binary log statement, and ends it: a commit (one statement
// for reads, one transaction for writes) whose log flush may be left to the log
// flusher, or the server's side of a rollback the storage engine already made. On
// a Galera node a write group is a cluster transaction (galera_transaction.h).
// The requests themselves run between Lock and End (row_requests.h).
//
// One per executor, on its worker's thread; reused group after group.
#pragma once

#include <functional>
#include <vector>

#include "engine/core/galera_transaction.h"
#include "engine/core/log_flusher.h"
#include "engine/server_headers.h"
#include "engine/core/table_cache.h"
#include "seam/stats.h"

namespace rowsocket {

class GroupTransaction {
 public:
  // `flusher`: where write commits may leave their log flush (null: they do not);
  // `wake` is what the flusher calls when a flush the commits left has ended.
  GroupTransaction(THD* thd, bool writes, SharedLogFlusher* flusher,
                   const std::function<void()>* wake, WorkerStats* stats);
  ~GroupTransaction();

  // Starts a group: no tables yet.
  void Clear();
  // Adds the table of `entry` (once, however often it is added).
  void Add(TableEntry* entry);
  // Locks the tables added, all at once, waiting at most the THD's lock wait; for a
  // group with `writes`, after the backup protection. True when locked (or when
  // the group has no table); false when a lock could not be had, or on a Galera
  // node the group's wsrep transaction could not start (nothing to undo; refusal()
  // says which). On a write worker, a group without writes whose reads need no row
  // locks (`locking_reads` false: a key-value get) runs as a read worker's
  // statement does: consistent reads that neither wait for nor take row locks.
  // Without `wait`, writes do not wait for the backup protection either.
  bool Lock(bool writes, bool locking_reads = true, bool wait = true);

  // Why the last Lock failed: FLUSH TABLES WITH READ LOCK or a backup stage blocks
  // writes (kBackup), a table lock is held (kTables), or the Galera transaction
  // could not start (kGalera).
  enum class Refusal { kNone, kBackup, kTables, kGalera };
  Refusal refusal() const { return refusal_; }

  enum class Outcome {
    kCommitted,     // or nothing to commit: the group's answers stand
    kCommitFailed,  // nothing the group wrote is durable; logged
    kRolledBack,    // the storage engine undid the transaction (a deadlock)
    kConflict,      // a Galera cluster aborted it (certification failure or
                    // brute-force abort): rolled back, nothing of it anywhere
  };
  // Ends the group's statement: ends its scans, commits (or ends the rollback),
  // unlocks the tables and releases the statement's metadata locks. With
  // `roll_back`, the group's transaction is rolled back instead (kRolledBack).
  Outcome End(bool roll_back = false);

  // The flush ticket of the commits since the last call that left their log flush
  // to the flusher (see log_flusher.h), or 0 when none did.
  uint64_t TakeFlushTicket();
  // The latest ticket whose flush has ended, whichever worker committed it (0 before
  // any).
  uint64_t Durable() const;
  // The latest ticket the flush under way makes durable; 0 while none is.
  uint64_t Flushing() const;

 private:
  const LogFlusher* Flusher() const;  // null until a commit has started it
  bool AcquireBackupProtection(bool wait);
  void BeginWriteStatement();
  void EndWriteStatement();
  void LockAsReads(bool reads);
  bool Commit();
  handlerton* FlushDeferrable();
  void InvalidateQueryCache();

  THD* const thd_;
  GaleraTransaction galera_;          // a write worker's groups on a Galera node
  const bool writes_;                 // a write worker's: binlog statements, commits
  bool write_statement_ = false;      // the locked group is a write statement
  enum_sql_command write_command_ = SQLCOM_INSERT;  // the batch's, while LockAsReads
  SharedLogFlusher* shared_flusher_;  // null for reads
  const std::function<void()>* wake_;
  WorkerStats* stats_;
  LogFlusher* flusher_ = nullptr;     // once a commit has left its flush to it
  bool flush_left_ = false;           // commits since TakeFlushTicket did
  uint64_t group_number_ = 0;         // marks entries added to the current group
  std::vector<TABLE*> tables_;        // the group's tables
  std::vector<TableEntry*> entries_;  // the same, as cache entries
  MYSQL_LOCK* lock_ = nullptr;        // while locked
  Refusal refusal_ = Refusal::kNone;  // why the last Lock failed
};

}  // namespace rowsocket
