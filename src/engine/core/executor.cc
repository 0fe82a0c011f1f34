// EngineExecutor: the batch flow — prepare, lock, run, commit, answer — for items
// of any protocol, each prepared, run and answered by its protocol's handler
// (protocol_handler.h). Runs on a worker thread.
#include "engine/core/executor.h"

#include <cstring>

#include "protocol/engine_status.h"
#include "util/clock.h"
#include "util/log.h"

namespace rowsocket {
namespace {

// Tries of a group of write requests as one transaction before it is split up
// (see Execute).
constexpr int kGroupAttempts = 2;

// Numbers every batch of every executor: a connection may be served by any worker
// of its listener, and remembers batches by number (lock_wait.cc).
uint64_t NextBatchNumber() {
  static std::atomic<uint64_t> next{0};
  return next.fetch_add(1, std::memory_order_relaxed) + 1;
}

void CountRequest(WorkerStats* stats, const ParsedRequest& r) {
  switch (r.category) {
    case RequestCategory::kOpen: stats->requests_open.Add(); break;
    case RequestCategory::kAuth: stats->requests_auth.Add(); break;
    case RequestCategory::kInsert: stats->requests_insert.Add(); break;
    case RequestCategory::kFind: stats->requests_find.Add(); break;
    case RequestCategory::kUpdate: stats->requests_update.Add(); break;
    case RequestCategory::kDelete: stats->requests_delete.Add(); break;
    case RequestCategory::kInvalid: break;
  }
}

// Drops what was appended to `out` after `mark`.
void TruncateAnswer(std::string* out, size_t mark) {
  if (mark < out->size()) out->resize(mark);
}

EngineSession* SessionOf(const BatchItem& item) {
  return static_cast<EngineSession*>(item.session);
}

}  // namespace

EngineExecutor::EngineExecutor(const WorkerInfo& info, const EngineOptions& options,
                               SharedLogFlusher* flusher,
                               const std::vector<std::unique_ptr<ProtocolModule>>& protocols)
    : engine_(info, options, flusher), stats_(info.stats) {
  if (!engine_.ok()) return;
  ApplyNoWait(NowMs(), false);
  for (const auto& protocol : protocols) {
    std::unique_ptr<ProtocolHandler> handler = protocol->NewHandler(&engine_);
    if (handler) handlers_.push_back(std::move(handler));
  }
}

// The tables close first; the handlers' open indexes are freed after them.
EngineExecutor::~EngineExecutor() { engine_.tables().CloseAll(); }

std::unique_ptr<ConnectionSession> EngineExecutor::NewSession() {
  return std::make_unique<EngineSession>();
}

bool EngineExecutor::ShouldStop() {
  return interrupted_.load(std::memory_order_acquire) || engine_.thread().ShutdownRequested();
}

// The flag first: ShouldStop() must not take the interruption for an
// administrator's KILL and clear it.
void EngineExecutor::Interrupt() {
  interrupted_.store(true, std::memory_order_release);
  engine_.thread().Interrupt();
}

void EngineExecutor::Tick() {
  engine_.tables().ReleaseContended();
  uint64_t now = NowMs();
  ApplyNoWait(now, false);
  for (const auto& handler : handlers_) handler->Tick(now);
  if (now - last_idle_sweep_ms_ >= 1000) {
    engine_.tables().CloseIdle(now, engine_.options().idle_table_close_ms);
    last_idle_sweep_ms_ = now;
  }
}

uint64_t EngineExecutor::Execute(BatchItem* items, size_t count) {
  const uint64_t start_ms = NowMs();
  engine_.set_batch_start_ms(start_ms);
  batch_number_ = NextBatchNumber();
  stats_->batches.Add();
  stats_->batch_requests.Add(count);
  ApplyNoWait(start_ms, true);
  engine_.thread().BeginBatch(engine_.info().read_only ? SQLCOM_SELECT : SQLCOM_INSERT);
  engine_.tables().BeginBatch(start_ms);
  Prepare(items, count);
  engine_.thread().ShowExecuting();
  RunBatch(items, count);
  EndLockWaits(items, count);
  // Requests are counted once they are answered (a deferred one runs again later).
  for (size_t i = 0; i < count; ++i)
    if (!items[i].deferred) CountRequest(stats_, *items[i].request);
  engine_.FreeRetired();
  engine_.thread().EndBatch();
  return engine_.group().TakeFlushTicket();
}

// The members of [begin, end) (see Member) of each connection as a transaction of
// their own, and if even that keeps being rolled back, each request alone (one a
// deadlock fails is answered so).
void EngineExecutor::RunEachConnection(BatchItem* items, size_t begin, size_t end) {
  for (size_t first = begin; first < end;) {
    size_t last = first + 1;
    while (last < end && items[last].session == items[first].session) ++last;
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

uint64_t EngineExecutor::Durable() { return engine_.group().Durable(); }
uint64_t EngineExecutor::Flushing() { return engine_.group().Flushing(); }

void EngineExecutor::TruncateMembers(BatchItem* items, size_t begin, size_t end) {
  for (size_t i = end; i-- > begin;)
    if (Member(i)) TruncateAnswer(items[i].out, marks_[i]);
}

// Pass 1, in request order. A request whose table another thread has locked (its
// metadata lock: LOCK TABLES, DDL) waits apart with the rest of its connection; so
// does, for the next turn, a request that sets up its connection (ItemTraits) after
// requests of its connection that touch rows (should those wait for a lock, the
// later request must not have taken effect before them).
void EngineExecutor::Prepare(BatchItem* items, size_t count) {
  steps_.resize(count);
  marks_.resize(count);
  parked_.assign(count, 0);
  outside_.assign(count, 0);
  batch_count_ = count;
  for (const auto& handler : handlers_) handler->BeginBatch(count);
  engine_.tables().TakeMetLock();
  bool touched_rows = false;  // by an earlier request of the same connection
  for (size_t i = 0; i < count; ++i) {
    marks_[i] = items[i].out->size();
    items[i].retry_ms = 0;
    if (i > 0 && items[i - 1].session != items[i].session) touched_rows = false;
    Step& step = steps_[i];
    step = Step();
    step.handler = HandlerOf(items[i]);
    step.traits = step.handler->Traits(items[i]);
    if (parked_[i]) continue;
    if (touched_rows && step.traits.sets_up_connection) {
      Hold(items, i);
      continue;
    }
    step.prepared = PrepareOne(items[i], i);
    touched_rows = touched_rows || step.traits.touches_rows;
    if (engine_.tables().TakeMetLock() && step.prepared.answered && !step.prepared.status.ok() &&
        MayWait(items, i, RowLockLimitMs()))
      Park(items, i);
  }
}

// The item's protocol's handler (the first registered when none claims it: every
// item gets an answer).
ProtocolHandler* EngineExecutor::HandlerOf(const BatchItem& item) const {
  for (const auto& handler : handlers_)
    if (handler->Speaks(item)) return handler.get();
  return handlers_.front().get();
}

// The refusals every protocol shares, from what the item's command declares: a
// listener with account logins refuses what a connection not logged in may not
// ask; the server's state refuses what SQL's would (read_only, a Galera node not
// ready). Then the handler prepares the rest, and a Galera node refuses a write to
// the table it resolved to where SQL would (RefusedByGalera).
Prepared EngineExecutor::PrepareOne(const BatchItem& item, size_t i) {
  const Step& step = steps_[i];
  const ItemTraits& traits = step.traits;
  const EngineSession* session = SessionOf(item);
  Prepared refused;
  refused.answered = true;
  if (session->account_logins && !traits.logs_in && !traits.before_login &&
      !session->logged_in()) {
    refused.status = EngineStatus::Unauthenticated();
    return refused;
  }
  if (traits.touches_rows) {
    refused.status = engine_.RefusedByServerState(traits.writes);
    if (!refused.status.ok()) return refused;
  }
  Prepared prepared = step.handler->Prepare(item, i);
  if (prepared.answered || !traits.writes) return prepared;
  refused.status = engine_.RefusedByGalera(true, prepared.index);
  for (const OpenIndex* oi : prepared.more)
    if (refused.status.ok()) refused.status = engine_.RefusedByGalera(true, oi);
  return refused.status.ok() ? prepared : refused;
}

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

EngineExecutor::GroupRun EngineExecutor::RunGroup(BatchItem* items, size_t begin, size_t end) {
  GroupTransaction& group = engine_.group();
  group.Clear();
  bool writes = false;
  // Reads of a snapshot (ItemTraits::locking_read) lock nothing where the group
  // holds nothing else.
  bool locking_reads = false;
  uint sync_wait = 0;
  for (size_t i = begin; i < end; ++i) {
    if (!Member(i) || steps_[i].prepared.index == nullptr) continue;
    const ItemTraits& traits = steps_[i].traits;
    group.Add(steps_[i].prepared.index->entry());
    for (OpenIndex* oi : steps_[i].prepared.more) group.Add(oi->entry());
    writes = writes || traits.writes;
    locking_reads = locking_reads || traits.locking_read;
    sync_wait |= traits.sync_wait;
  }
  const EngineStatus causal = WaitForCluster(sync_wait);
  // The worker's THD waits for no lock: a table lock or backup lock another thread
  // holds fails the lock at once, and the group's connections run apart.
  const bool locked = causal.ok() && group.Lock(writes, locking_reads, false);
  // (A KILL also fails the lock: the group then answers it.)
  const bool killed = engine_.Killed();
  if (causal.ok() && !locked && !killed &&
      group.refusal() != GroupTransaction::Refusal::kGalera) {
    group.End();
    return GroupRun::kLockBusy;
  }
  if (locked && PlanLockOrder(items, begin, end)) {
    // (Answers go to side buffers first, so the group answers every item: a lock
    // order group is single-row items, whose answers are small.)
    if (!AnswerInLockOrder(items, begin, end)) {
      // A request met a row lock after others that follow it in request order may
      // have run: all of it is undone, and it runs again without that connection.
      group.End(true);
      return GroupRun::kRerun;
    }
  } else {
    const EngineStatus refusal = locked       ? EngineStatus::OK()
                               : !causal.ok() ? causal
                               : killed       ? KilledStatus(engine_.thd())
                                              : EngineStatus::TableLocked();
    if (!RunInRequestOrder(items, begin, end, refusal)) {
      group.End(true);
      return GroupRun::kRerun;
    }
  }
  return EndGroup(items, begin, end);
}

// `refusal` is OK where the group's tables are locked, else what the items that
// touch rows answer.
bool EngineExecutor::RunInRequestOrder(BatchItem* items, size_t begin, size_t end,
                                       const EngineStatus& refusal) {
  for (size_t i = begin; i < end; ++i) {
    if (!Member(i)) continue;
    marks_[i] = items[i].out->size();
    // Backpressure: a connection whose client has not read its answers gets no
    // more; the server runs the rest of its requests in a later batch. Its output
    // only grows, so every later item of it stays unanswered too.
    items[i].deferred = items[i].out->size() >= items[i].out_limit;
    if (items[i].deferred) continue;
    if (!refusal.ok() && steps_[i].prepared.index) {
      AnswerFailure(items[i], i, refusal);
      continue;
    }
    if (!Answer(items[i], i)) continue;
    // It met a row lock: a request that has not waited its lock wait timeout yet
    // waits apart (it changed nothing: a failed request undoes its rows), and the
    // group goes on without its connection.
    if (MayWait(items, i, RowLockLimitMs())) {
      TruncateAnswer(items[i].out, marks_[i]);
      Park(items, i);
    } else {
      CountLockTimeout(items[i], i);
    }
    if (engine_.thd()->transaction_rollback_request) {
      // The engine undid the whole transaction, not only the failed row operation
      // (innodb_rollback_on_timeout): what ran before it is gone too. Nothing of
      // the group stands; it runs again without the connection that met the lock.
      for (size_t j = i; j-- > begin;)  // (the latest first: a connection's marks grow)
        if (Member(j) && !items[j].deferred) TruncateAnswer(items[j].out, marks_[j]);
      return false;
    }
  }
  return true;
}

// Ends the group's statement or transaction, and answers what its end undid.
EngineExecutor::GroupRun EngineExecutor::EndGroup(BatchItem* items, size_t begin, size_t end) {
  switch (engine_.group().End()) {
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
    const Prepared& p = steps_[i].prepared;
    AnswerFailure(items[i], i, p.index ? EngineStatus::CommitFailed() : p.status);
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
    const Prepared& p = steps_[i].prepared;
    AnswerFailure(items[i], i, p.index ? EngineStatus::Deadlock(HA_ERR_LOCK_DEADLOCK) : p.status);
  }
}

bool EngineExecutor::Answer(const BatchItem& item, size_t i) {
  return steps_[i].handler->Run(item, i, steps_[i].prepared);
}

void EngineExecutor::AnswerFailure(const BatchItem& item, size_t i, const EngineStatus& status) {
  steps_[i].handler->AnswerFailure(item, status);
}

namespace {

class EngineExecutorFactory : public ExecutorFactory {
 public:
  explicit EngineExecutorFactory(const EngineOptions& options)
      : options_(options), protocols_(RegisteredProtocols(options)) {}
  std::unique_ptr<Executor> Create(const WorkerInfo& info) override {
    auto executor = std::make_unique<EngineExecutor>(info, options_, &flusher_, protocols_);
    if (!executor->ok()) return nullptr;
    return executor;
  }

 private:
  EngineOptions options_;
  SharedLogFlusher flusher_;  // outlives the executors: the factory outlives the workers
  // Likewise the protocols, whose modules keep what their workers share.
  std::vector<std::unique_ptr<ProtocolModule>> protocols_;
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
