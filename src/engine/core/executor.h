// EngineExecutor: the batch core. Executes batches of requests through MariaDB's
// handler API, whatever protocol each request speaks.
//
// One per worker thread, owning that thread's engine (WorkerEngine: its THD, its
// open tables, the row operations) and one handler per protocol
// (protocol_handler.h). A batch runs in two passes: first every item is prepared by
// its protocol's handler (binding, resolving, answers decided early), after the
// refusals every protocol shares (login gating, the server's state); then all
// tables the batch touches are locked at once, the items run in order (or in lock
// order, lock_order.cc), and the batch ends with one commit (one statement for
// reads, one transaction for writes; group_transaction.h) before any answer
// leaves. If the storage engine rolls the transaction back (a deadlock), the
// answers are discarded and the batch runs again: whole once more, then one
// transaction per connection, then per request; every answer tells the truth
// about its request. The worker's THD waits for no lock: a request that meets one
// waits apart, with the rest of its connection, and the others go on
// (lock_wait.cc).
//
// Created, used and destroyed on its worker's thread.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/lock_plan.h"
#include "engine/core/protocol_handler.h"
#include "engine/core/worker_engine.h"
#include "seam/executor.h"

namespace rowsocket {

class EngineExecutor : public Executor {
 public:
  // `flusher`: where write commits may leave their log flush (null: they do not);
  // `protocols`: the engine's protocols, which make this worker's handlers.
  EngineExecutor(const WorkerInfo& info, const EngineOptions& options,
                 SharedLogFlusher* flusher,
                 const std::vector<std::unique_ptr<ProtocolModule>>& protocols);
  ~EngineExecutor() override;

  bool ok() const { return engine_.ok(); }

  std::unique_ptr<ConnectionSession> NewSession() override;
  uint64_t Execute(BatchItem* items, size_t count) override;
  uint64_t Durable() override;
  uint64_t Flushing() override;
  void Tick() override;
  bool HasPeriodicWork() override { return engine_.tables().open_count() != 0; }
  bool ShouldStop() override;
  void Interrupt() override;

 private:
  // What pass 1 learned about one item.
  struct Step {
    ProtocolHandler* handler = nullptr;  // of the protocol the item speaks
    ItemTraits traits;                   // its command's declared properties
    Prepared prepared;
  };

  void Prepare(BatchItem* items, size_t count);
  Prepared PrepareOne(const BatchItem& item, size_t i);
  ProtocolHandler* HandlerOf(const BatchItem& item) const;

  // Runs the members of items[begin..end) (see Member) in order with their tables
  // locked, as one statement (reads) or transaction (writes).
  enum class GroupRun {
    kCommitted,   // (or answered with errors where the commit failed)
    kRolledBack,  // by the storage engine (a deadlock) or a Galera cluster
    kLockBusy,    // its tables could not be locked: nothing ran, nothing answered
    kRerun,       // rolled back: a request met a row lock, its connection waits now
  };
  GroupRun RunGroup(BatchItem* items, size_t begin, size_t end);
  // Runs the locked group's members in request order; false if it must run again
  // (the engine undid the whole transaction).
  bool RunInRequestOrder(BatchItem* items, size_t begin, size_t end,
                         const EngineStatus& refusal);
  GroupRun EndGroup(BatchItem* items, size_t begin, size_t end);
  EngineStatus WaitForCluster(uint sync_wait);
  void AnswerConflict(BatchItem* items, size_t begin, size_t end);
  bool RunWithRetry(BatchItem* items, size_t begin, size_t end);
  void RunEachConnection(BatchItem* items, size_t begin, size_t end);
  void TruncateMembers(BatchItem* items, size_t begin, size_t end);
  // Lock order (lock_order.cc): runs a group of single-row items in key order;
  // false if a request met a row lock it waits for apart (the group must roll back).
  bool PlanLockOrder(BatchItem* items, size_t begin, size_t end);
  bool OneRowEach(BatchItem* items, size_t begin, size_t end);
  bool AnswerInLockOrder(BatchItem* items, size_t begin, size_t end);
  // Writes the answer of item i; true if it met a row lock another transaction
  // holds (its answer is then the lock error, not yet counted: see RunGroup).
  bool Answer(const BatchItem& item, size_t i);
  void AnswerFailure(const BatchItem& item, size_t i, const EngineStatus& status);
  void CountLockTimeout(const BatchItem& item, size_t i);
  // Requests that meet a lock (lock_wait.cc).
  void ApplyNoWait(uint64_t now_ms, bool before_batch);
  void RunBatch(BatchItem* items, size_t count);
  void RunLocked(BatchItem* items, size_t begin, size_t end);
  bool Member(size_t i) const { return !outside_[i] && !parked_[i]; }
  bool MayWait(const BatchItem* items, size_t i, uint64_t limit_ms) const;
  void Park(BatchItem* items, size_t i);
  void Hold(BatchItem* items, size_t i);
  void EndLockWaits(BatchItem* items, size_t count);
  uint64_t RowLockLimitMs() const;

  WorkerEngine engine_;
  WorkerStats* stats_;
  std::vector<std::unique_ptr<ProtocolHandler>> handlers_;
  std::vector<Step> steps_;
  std::vector<size_t> marks_;
  uint64_t last_idle_sweep_ms_ = 0;
  bool no_wait_applied_ = false;            // innodb_lock_wait_timeout=0 holds
  uint64_t last_lock_wait_attempt_ms_ = 0;
  // By item of the running batch: it waits apart for a lock (or a later turn) and
  // is not run again in this batch; it is outside the group being run.
  std::vector<char> parked_;
  std::vector<char> outside_;
  std::vector<char> run_kinds_;  // by item: which group of RunBatch runs it
  size_t batch_count_ = 0;
  uint64_t batch_number_ = 0;    // the running batch's, unique among all executors
  std::atomic<bool> interrupted_{false};  // Interrupt() was called: the worker stops
  // The lock order of the group being run (see PlanLockOrder).
  LockPlan lock_plan_;
  std::vector<std::string> lock_answers_;
};

}  // namespace rowsocket
