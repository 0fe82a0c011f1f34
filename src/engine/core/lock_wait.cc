// Requests that meet a lock: the worker never waits for one, the request waits apart.
//
// A worker serves many connections, and SQL's way — the statement's thread sleeps
// until the lock is granted — would make every other connection of the batch (and,
// with io_uring, every connection of the worker) wait with it. So the worker's THD
// waits for no lock at all: innodb_lock_wait_timeout and lock_wait_timeout are 0 on
// it (InnoDB then answers a conflicting row lock request at once, without queueing
// it: lock_rec_enqueue_waiting; the metadata, table and backup locks fail at once
// too). A request that meets a lock another transaction holds is set aside with
// every later request of its connection (they keep their order): the batch goes on
// without them, their answers are not written, and the server offers them again a
// few milliseconds later (BatchItem::retry_ms: 1 ms, doubling to 16 ms). Tried
// again, such a connection runs as a group of its own, so that its likely second
// conflict undoes nobody else's work. Once a request has waited the lock wait
// timeout SQL's would (rowsocket_lock_wait_timeout for row, table and metadata
// locks; the server's lock_wait_timeout for FLUSH TABLES WITH READ LOCK and backup
// stages, as SQL's writes wait for those), counted from when it first met the lock,
// it answers the lock error as SQL's statement would, and so do the later requests
// of its connection in the same batch that meet one.
//
// Where a request meets the lock decides what is undone: a row lock inside a group
// undoes that request only (InnoDB rolls back the failed row operation, and a
// request undoes the rows it had changed: row_requests.h; a key-value command
// changes at most one row, last); a group run in lock order is rolled back whole
// and runs again without the connection (its requests ran out of request order).
// A group whose tables cannot be locked runs per connection, and the connections
// whose tables are free go on. On a write worker, connections whose requests only
// read a snapshot (ItemTraits::locking_read false) run as a read group of their
// own: consistent reads, which wait for no row lock, as SQL's plain SELECT.
//
// Runs on the worker's thread, inside Execute.
#include "engine/core/executor.h"

#include <algorithm>

#include "protocol/engine_status.h"

namespace rowsocket {
namespace {

constexpr uint32_t kFirstRetryMs = 1;
constexpr uint32_t kMaxRetryMs = 16;

EngineSession* SessionOf(const BatchItem& item) {
  return static_cast<EngineSession*>(item.session);
}

bool FirstOfConnection(const BatchItem* items, size_t i) {
  return i == 0 || items[i - 1].session != items[i].session;
}

// What the group refused with a lock waits for: SQL's writes wait lock_wait_timeout
// for FLUSH TABLES WITH READ LOCK and backup stages.
uint64_t BackupLockLimitMs() { return uint64_t{global_system_variables.lock_wait_timeout} * 1000; }

}  // namespace

// innodb_lock_wait_timeout and lock_wait_timeout 0 for the worker's THD. While the
// server is still starting (plugins load before InnoDB's variables can be looked
// up) setting the first fails; it is retried before every batch and once a second
// while idle, until it holds.
void EngineExecutor::ApplyNoWait(uint64_t now_ms, bool before_batch) {
  if (no_wait_applied_) return;
  if (!before_batch && now_ms - last_lock_wait_attempt_ms_ < 1000) return;
  last_lock_wait_attempt_ms_ = now_ms;
  engine_.thd()->variables.lock_wait_timeout = 0;
  no_wait_applied_ = engine_.thread().SetSessionVariable("innodb_lock_wait_timeout", 0);
}

uint64_t EngineExecutor::RowLockLimitMs() const {
  return uint64_t{engine_.options().tunables->lock_wait_timeout.load(std::memory_order_relaxed)} * 1000;
}

// Who runs with whom. Connections whose first request waits for a lock run each
// alone; on a write worker, connections that only read a snapshot run as one read
// group; then everything else as one group.
void EngineExecutor::RunBatch(BatchItem* items, size_t count) {
  enum : char { kAlone, kReads, kShared };
  std::vector<char>& kinds = run_kinds_;
  kinds.assign(count, kShared);
  bool any[3] = {false, false, false};
  for (size_t first = 0; first < count;) {
    size_t last = first + 1;
    while (last < count && items[last].session == items[first].session) ++last;
    char k = kShared;
    if (SessionOf(items[first])->lock_wait_since_ms != 0) {
      k = kAlone;
    } else if (!engine_.info().read_only) {
      bool reads = false, only_reads = true;
      for (size_t i = first; i < last; ++i) {
        if (parked_[i] || steps_[i].prepared.index == nullptr) continue;
        const ItemTraits& t = steps_[i].traits;
        reads = true;
        only_reads = only_reads && !t.locking_read && !t.writes;
      }
      if (reads && only_reads) k = kReads;
    }
    std::fill(kinds.begin() + first, kinds.begin() + last, k);
    any[static_cast<int>(k)] = true;
    first = last;
  }
  for (char k : {kReads, kShared}) {
    if (!any[static_cast<int>(k)]) continue;
    for (size_t i = 0; i < count; ++i) outside_[i] = kinds[i] != k;
    if (!RunWithRetry(items, 0, count)) RunEachConnection(items, 0, count);
  }
  if (!any[kAlone]) return;
  for (size_t i = 0; i < count; ++i) outside_[i] = kinds[i] != kAlone;
  RunEachConnection(items, 0, count);
}

// The group's tables could not be locked (a table lock, FLUSH TABLES WITH READ
// LOCK, a backup stage). Several connections: each runs alone, so that those whose
// tables are free go on. One: it waits apart, or answers the lock error once it
// has waited long enough.
void EngineExecutor::RunLocked(BatchItem* items, size_t begin, size_t end) {
  size_t first = begin;
  while (first < end && !Member(first)) ++first;
  if (first == end) return;
  for (size_t i = first + 1; i < end; ++i) {
    if (Member(i) && items[i].session != items[first].session)
      return RunEachConnection(items, begin, end);
  }
  const uint64_t limit = engine_.group().refusal() == GroupTransaction::Refusal::kBackup
                             ? BackupLockLimitMs()
                             : RowLockLimitMs();
  if (MayWait(items, first, limit)) return Park(items, first);
  SessionOf(items[first])->lock_timed_out_batch = batch_number_;
  for (size_t i = first; i < end; ++i) {
    if (!Member(i)) continue;
    marks_[i] = items[i].out->size();
    items[i].deferred = items[i].out->size() >= items[i].out_limit;
    if (items[i].deferred) continue;
    if (steps_[i].prepared.index == nullptr) {
      Answer(items[i], i);
    } else {
      AnswerFailure(items[i], i, EngineStatus::TableLocked());
    }
  }
}

// Whether item i, which met a lock, waits apart: it has waited less than
// `limit_ms` since its connection's first unanswered request first met a lock (a
// request behind answered ones of its own connection begins its wait now). A
// connection waits once per batch: once one of its requests has answered the lock
// error, its later ones in the batch answer it at once.
bool EngineExecutor::MayWait(const BatchItem* items, size_t i, uint64_t limit_ms) const {
  const EngineSession* b = SessionOf(items[i]);
  if (b->lock_timed_out_batch == batch_number_) return false;
  if (!FirstOfConnection(items, i) || b->lock_wait_since_ms == 0) return limit_ms > 0;
  return engine_.batch_start_ms() - b->lock_wait_since_ms < limit_ms;
}

// Sets item i (which met a lock) and the rest of its connection aside; they are
// offered again after the retry delay. (Its answer, if written, was truncated.)
void EngineExecutor::Park(BatchItem* items, size_t i) {
  EngineSession* b = SessionOf(items[i]);
  if (!FirstOfConnection(items, i) || b->lock_wait_since_ms == 0) {
    b->lock_wait_since_ms = engine_.batch_start_ms();
    b->lock_wait_tries = 0;
    stats_->lock_waits.Add();
  }
  items[i].retry_ms = std::min(kMaxRetryMs, kFirstRetryMs << std::min(b->lock_wait_tries, 4u));
  ++b->lock_wait_tries;
  Hold(items, i);
}

// Item i and the later items of its connection are not run in this batch.
void EngineExecutor::Hold(BatchItem* items, size_t i) {
  for (size_t j = i; j < batch_count_ && items[j].session == items[i].session; ++j) {
    parked_[j] = 1;
    items[j].deferred = true;
  }
}

// A connection whose first request of the batch was answered waits for nothing,
// unless a later one of its requests has just met a lock.
void EngineExecutor::EndLockWaits(BatchItem* items, size_t count) {
  for (size_t first = 0; first < count;) {
    size_t last = first;
    bool waits = false;
    for (; last < count && items[last].session == items[first].session; ++last)
      waits = waits || items[last].retry_ms != 0;
    EngineSession* b = SessionOf(items[first]);
    if (!items[first].deferred && !waits) {
      b->lock_wait_since_ms = 0;
      b->lock_wait_tries = 0;
    }
    first = last;
  }
}

// A request that met a row lock answers its lock wait timeout.
void EngineExecutor::CountLockTimeout(const BatchItem& item, size_t i) {
  SessionOf(item)->lock_timed_out_batch = batch_number_;
  stats_->lock_wait_timeouts.Add();
  steps_[i].handler->CountLockTimeout(item);
}

}  // namespace rowsocket
