// EngineExecutor: executes batches of requests through MariaDB's handler API.
//
// One per worker thread, owning that thread's THD (ServerThread) and its open
// tables (TableCache). A batch runs in two passes: first every `P` is executed and
// every other request is matched to its open index (opening tables as needed);
// then all tables the batch touches are locked at once, the requests run in order
// (row_requests.h), and the batch ends with one commit (one statement for reads, one
// transaction for writes; group_transaction.h) before any answer leaves. If the
// storage engine rolls the transaction back (a deadlock), the answers are discarded
// and the batch runs again: whole once more, then one transaction per connection,
// then per request; every answer tells the truth about its request. The worker's
// THD waits for no lock: a request that meets one waits apart, with the rest of its
// connection, and the others go on (lock_wait.cc).
//
// Created, used and destroyed on its worker's thread.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/admin/accounts.h"
#include "engine/engine.h"
#include "engine/server_headers.h"
#include "engine/core/group_transaction.h"
#include "engine/memcached/key_value.h"
#include "engine/memcached/kv_flushes.h"
#include "engine/core/log_flusher.h"
#include "engine/core/open_index.h"
#include "engine/rows/row_requests.h"
#include "engine/core/server_thread.h"
#include "engine/core/table_cache.h"
#include "protocol/response.h"
#include "seam/config.h"
#include "seam/executor.h"

namespace rowsocket {

// Whether two identifiers (schema, column names) are the same, ASCII case aside.
bool SameName(std::string_view a, std::string_view b);

class EngineExecutor : public Executor {
 public:
  // `flusher`: where write commits may leave their log flush (null: they do not);
  // `flushes`: the memcached listener's delayed flush_all, shared by its workers.
  EngineExecutor(const WorkerInfo& info, const EngineOptions& options,
                 SharedLogFlusher* flusher, KvFlushes* flushes);
  ~EngineExecutor() override;

  bool ok() const { return thread_.ok(); }

  std::unique_ptr<IndexBindings> NewIndexBindings() override;
  uint64_t Execute(BatchItem* items, size_t count) override;
  uint64_t Durable() override;
  void Tick() override;
  bool ShouldStop() override;
  void Interrupt() override;

 private:
  // What pass 1 learned about one item.
  struct Step {
    EngineStatus status;              // a final answer decided in pass 1 (P, errors)
    bool answered = false;      // status is the answer; nothing to execute
    std::string value;          // answered with this one value (A 2's nonce)
    OpenIndex* index = nullptr; // target of a find/insert; a memcached command's lookup
    OpenIndex* insert_index = nullptr;  // a memcached command's insert index
    const ContainerBinding* container = nullptr;  // and its container
    std::string client_error;   // a memcached command answered with this error now
  };

  void Prepare(BatchItem* items, size_t count);
  Step PrepareOne(const BatchItem& item);
  EngineStatus BindIndex(EngineIndexBindings* bindings, const Request& r);
  Step LogIn(EngineIndexBindings* bindings, const Request& r);
  Step PrepareMemcached(EngineIndexBindings* bindings, const Request& r);
  const KvContainer* ContainerNamed(std::string_view name);
  void PublishCacheSizes();
  EngineStatus BindContainer(ContainerBinding* binding, const KvContainer& container);
  Opened<OpenIndex> OpenContainerIndex(IndexBinding* binding);
  bool AnswerMemcached(const BatchItem& item, const Step& step);
  void AnswerMemcachedRows(const BatchItem& item, const Step& step);
  void AnswerMemcachedWithoutRows(const McRequest& mc, std::string* out);
  void FlushContainer(const McRequest& mc, const Step& step, std::string* out);
  EngineStatus SaslLogIn(EngineIndexBindings* bindings, const McRequest& mc);
  EngineStatus CheckContainerGrants(EngineIndexBindings* bindings, ContainerBinding* binding,
                                  OpenIndex* lookup, OpenIndex* insert, const Request& r);
  // An error answer in the protocol `item` speaks.
  void AnswerError(const BatchItem& item, const EngineStatus& status);
  EngineStatus CheckGrants(EngineIndexBindings* bindings, IndexBinding* binding, OpenIndex* oi,
                         const Request& r);
  Opened<OpenIndex> BoundIndex(EngineIndexBindings* bindings, uint32_t id);
  Opened<OpenIndex> OpenForThisWorker(IndexBinding* binding);
  bool SchemaAllowed(std::string_view db) const;
  EngineStatus RefusedByServerState(const Request& r);
  EngineStatus RefusedByGalera(const Request& r, const OpenIndex* oi);
  EngineStatus RefreshGrants(EngineIndexBindings* bindings, OpenIndex* oi,
                           const std::vector<Field*>& filters, IndexGrants* grants);

  // Runs the members of items[begin..end) (see Member) in order with their tables
  // locked, as one statement (reads) or transaction (writes).
  enum class GroupRun {
    kCommitted,   // (or answered with errors where the commit failed)
    kRolledBack,  // by the storage engine (a deadlock) or a Galera cluster
    kLockBusy,    // its tables could not be locked: nothing ran, nothing answered
    kRerun,       // rolled back: a request met a row lock, its connection waits now
  };
  GroupRun RunGroup(BatchItem* items, size_t begin, size_t end);
  EngineStatus WaitForCluster(uint sync_wait);
  void AnswerConflict(BatchItem* items, size_t begin, size_t end);
  bool RunWithRetry(BatchItem* items, size_t begin, size_t end);
  void RunEachConnection(BatchItem* items, size_t begin, size_t end);
  void TruncateMembers(BatchItem* items, size_t begin, size_t end);
  // Lock order (lock_order.cc): runs a group of single-row writes in key order;
  // false if a request met a row lock it waits for apart (the group must roll back).
  bool PlanLockOrder(BatchItem* items, size_t begin, size_t end);
  bool AnswerInLockOrder(BatchItem* items, size_t begin, size_t end);
  // Writes the answer of one request; true if it met a row lock another transaction
  // holds (its answer is then the lock error, not yet counted: see RunGroup).
  bool Answer(const BatchItem& item, const Step& step);
  void CountRequest(const Request& r);
  void CountResult(const Request& r, const RowResult& result);
  void CountLockTimeout(const BatchItem& item);
  // Requests that meet a lock (lock_wait.cc).
  void ApplyNoWait(uint64_t now_ms, bool before_batch);
  void RunBatch(BatchItem* items, size_t count);
  void RunLocked(BatchItem* items, size_t begin, size_t end);
  bool Member(size_t i) const { return !outside_[i] && !parked_[i]; }
  bool MayWait(const BatchItem* items, size_t i, uint64_t limit_ms) const;
  void Park(BatchItem* items, size_t i);
  void Hold(BatchItem* items, size_t i);
  bool SetsUpConnection(const BatchItem& item) const;
  void EndLockWaits(BatchItem* items, size_t count);
  uint64_t RowLockLimitMs() const;
  // The sweep of expired memcached items (expiry_sweep.cc).
  void SweepExpiredItems(uint64_t now_ms);
  void SweepContainer(const std::string& name, uint32_t budget);
  // The deletion of flushed items (KvFlushes), by the same worker (expiry_sweep.cc).
  void CarryOutFlushes(uint64_t now_ms);
  void FlushStep(const std::string& name, uint64_t below, uint32_t budget);

  const WorkerInfo info_;
  const EngineOptions options_;
  WorkerStats* stats_;
  ServerThread thread_;
  TableCache tables_;
  std::vector<Step> steps_;
  std::vector<size_t> marks_;
  std::vector<std::unique_ptr<OpenIndex>> retired_;  // replaced during this batch
  uint64_t last_idle_sweep_ms_ = 0;
  uint64_t batch_start_ms_ = 0;             // steady clock, when Execute began
  bool no_wait_applied_ = false;            // innodb_lock_wait_timeout=0 holds
  uint64_t last_lock_wait_attempt_ms_ = 0;
  // By item of the running batch: it waits apart for a lock (or a later turn) and
  // is not run again in this batch; it is outside the group being run.
  std::vector<char> parked_;
  std::vector<char> outside_;
  std::vector<char> run_kinds_;  // by item: which group of RunBatch runs it
  size_t batch_count_ = 0;
  uint64_t batch_number_ = 0;    // the running batch's, unique among all executors
  RowRequests rows_;
  GroupTransaction group_;
  Accounts accounts_;
  KeyValue kv_;
  // rowsocket.containers as this worker read it last (rows read again after a second),
  // by the name each row stores: one entry per container this worker served.
  struct CachedContainer {
    KvContainer container;
    uint64_t read_ms = 0;
  };
  std::unordered_map<std::string, CachedContainer> container_mapping_;
  // The other names clients used, read as long: the row's own name each matched
  // (empty: none matched), at most kMaxContainerNames.
  struct CachedName {
    std::string row_name;
    uint64_t read_ms = 0;
  };
  static constexpr size_t kMaxContainerNames = 256;
  std::unordered_map<std::string, CachedName> container_names_;
  size_t published_containers_ = 0, published_names_ = 0;  // in stats_ (PublishCacheSizes)
  // The sweep of expired items, run by the memcached listener's first worker over
  // `default` and every container it has served: per container, its indexes (a
  // lookup, and `sweep`: the key and expiry columns on the key index) and where the
  // next step starts.
  struct SweptContainer {
    ContainerBinding binding;
    std::unique_ptr<IndexBinding> sweep;
    std::string cursor;
  };
  const bool sweeps_expired_items_;
  std::unordered_map<std::string, SweptContainer> swept_;
  uint64_t last_expiry_sweep_ms_ = 0;
  // The deletion of each container's flushed items: its indexes (`scan`: the key and
  // CAS columns on the key index), the flush it deletes for, where its pass is, and
  // whether the pass has left no flushed row behind so far.
  KvFlushes* flushes_;
  struct FlushedContainer {
    ContainerBinding binding;
    std::unique_ptr<IndexBinding> scan;
    uint64_t below = 0;
    std::string cursor;
    bool complete = true;
    uint64_t deleted = 0;
  };
  std::unordered_map<std::string, FlushedContainer> flushed_;
  std::vector<std::pair<std::string, uint64_t>> flushes_in_effect_;
  uint64_t last_flush_step_ms_ = 0;
  std::atomic<bool> interrupted_{false};  // Interrupt() was called: the worker stops
  // The lock order of the group being run (see PlanLockOrder).
  struct KeySlot {
    uint32_t item;              // position in the batch
    OpenIndex* index;           // null: the request touches no row
    size_t offset;              // its key in lock_keys_
    uint32_t length;            // 0: no key (touches no row)
  };
  std::vector<KeySlot> key_slots_;
  std::string lock_keys_;
  std::vector<std::string> lock_answers_;
};

}  // namespace rowsocket
