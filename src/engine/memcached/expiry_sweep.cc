// The sweep of expired items: MemcachedHandler's part (memcached_handler.h). The
// memcached listener's first worker (the Redis listener's, where no memcached
// listener runs), between its turns, examines a few rows of each container with an
// expiry column every 100 ms (rowsocket_memcached_sweep_rate rows a second in each)
// and deletes the expired ones, in a write transaction of the same kind as a
// memcached delete's: binlogged, durable, with SQL's rules. The same worker deletes
// the items a delayed flush_all flushed (KvFlushes), kFlushStepRows rows of each
// such container every 100 ms.
#include "engine/server_headers.h"

#include <algorithm>
#include <ctime>
#include <string>
#include <vector>

#include "engine/memcached/memcached_handler.h"
#include "rpl_mi.h"
#include "util/log.h"

namespace rowsocket {
namespace {

constexpr uint64_t kSweepEveryMs = 100;
constexpr uint32_t kFlushStepRows = 1000;  // as many as a sweep step at its default rate

// A server whose rows are not its own to delete: a read_only server, a replica
// (the primary's sweep deletes there through replication), a Galera node (every
// node would sweep the same rows; its items are deleted when a write meets them).
bool SweepsHere() { return !opt_readonly && !WSREP_ON && any_slave_sql_running(false) == 0; }

}  // namespace

void MemcachedHandler::SweepExpiredItems(uint64_t now_ms) {
  const uint32_t rate = engine_->options().tunables->memcached_sweep_rate.load(std::memory_order_relaxed);
  if (rate == 0 || now_ms - last_expiry_sweep_ms_ < kSweepEveryMs) return;
  last_expiry_sweep_ms_ = now_ms;
  if (!SweepsHere()) return;
  uint64_t budget = std::max<uint32_t>(1, rate / (1000 / kSweepEveryMs));
  // A step is one find, held to rowsocket_max_rows_examined (its key counts as one).
  const uint64_t max_examined = engine_->options().tunables->max_rows_examined.load(std::memory_order_relaxed);
  if (max_examined != 0) budget = std::min(budget, max_examined - 1);
  if (budget == 0) return;
  // Nothing waits for the sweep (the worker's THD waits for no lock: ApplyNoWait):
  // a row another transaction holds is left for a later pass, and so is a table
  // under LOCK TABLES, FLUSH TABLES WITH READ LOCK or a backup.
  engine_->set_batch_start_ms(now_ms);  // the container mapping's age counts from it
  engine_->thread().BeginBatch(SQLCOM_INSERT);
  engine_->tables().BeginBatch(now_ms);
  // Each container once, under the name its row stores (ContainerNamed).
  std::vector<std::string> names;
  const KvContainer* by_default = ContainerNamed("default");
  if (by_default != nullptr) names.push_back(by_default->name);
  for (const auto& [name, cached] : container_mapping_)
    if (by_default == nullptr || name != by_default->name) names.push_back(name);
  for (const std::string& name : names) SweepContainer(name, static_cast<uint32_t>(budget));
  engine_->FreeRetired();
  engine_->thread().EndBatch();
}

// One step of the sweep over container `name`: a read of at most `budget` rows, then
// a write transaction for the expired ones among them.
void MemcachedHandler::SweepContainer(const std::string& name, uint32_t budget) {
  const KvContainer* container = ContainerNamed(name);
  if (container == nullptr || container->name != name) {
    // No longer a container (or renamed): its sweep state goes.
    auto gone = swept_.find(name);
    if (gone != swept_.end()) {
      for (IndexBinding* b : {gone->second.binding.lookup.get(), gone->second.sweep.get()})
        engine_->Retire(b);
      swept_.erase(gone);
    }
    return;
  }
  if (container->expires_column.empty() || !engine_->SchemaAllowed(container->db)) return;
  SweptContainer& swept = swept_[name];
  bool rebound = false;
  if (!BindScan(&swept.binding, &swept.sweep, *container,
                container->key_column + "," + container->expires_column, &rebound))
    return;
  if (rebound) swept.cursor.clear();
  GroupTransaction& group = engine_->group();
  const Opened<OpenIndex> lookup = engine_->OpenResolved(swept.binding.lookup.get());
  const Opened<OpenIndex> sweep = lookup.ok() ? engine_->OpenResolved(swept.sweep.get()) : lookup;
  if (sweep.ok()) {
    // The rows are examined as a get reads them (no row locks), the expired ones
    // deleted in a transaction of their own.
    group.Clear();
    group.Add(sweep.value->entry());
    if (group.Lock(false, /*locking_reads=*/false, /*wait=*/false))
      kv_.FindExpired(sweep.value, budget, &swept.cursor);
    group.End();
    if (kv_.FoundExpired()) {
      group.Clear();
      group.Add(lookup.value->entry());
      uint64_t deleted = 0;
      if (group.Lock(true, true, /*wait=*/false)) deleted = kv_.DeleteExpired(lookup.value);
      if (group.End() == GroupTransaction::Outcome::kCommitted)
        engine_->stats()->memcached_items_expired.Add(deleted);
    }
  }
}

// The container's binding, made again (with `scan` beside it: the key index with
// `columns`) when the container's mapping changed; false if it cannot be bound.
bool MemcachedHandler::BindScan(ContainerBinding* binding, std::unique_ptr<IndexBinding>* scan,
                                const KvContainer& container, const std::string& columns,
                                bool* rebound) {
  if (binding->lookup && binding->container == container) return true;
  if (!BindContainer(binding, container).ok()) return false;
  engine_->Retire(scan->get());
  *scan = std::make_unique<IndexBinding>();
  (*scan)->db = container.db;
  (*scan)->table = container.table;
  (*scan)->index = binding->lookup->index;
  (*scan)->columns = columns;
  *rebound = true;
  return true;
}

// Every 100 ms, a step of the deletion of each container whose flush is in effect.
// A step neither waits for a lock nor for anything else: a row or table another
// transaction holds is left for the next pass.
void MemcachedHandler::CarryOutFlushes(uint64_t now_ms) {
  if (now_ms - last_flush_step_ms_ < kSweepEveryMs) return;
  last_flush_step_ms_ = now_ms;
  flushes_->InEffect(static_cast<int64_t>(std::time(nullptr)), &flushes_in_effect_);
  if (flushes_in_effect_.empty()) {
    if (!flushed_.empty()) {
      for (auto& [name, f] : flushed_)
        for (IndexBinding* b : {f.binding.lookup.get(), f.scan.get()}) engine_->Retire(b);
      flushed_.clear();
      engine_->FreeRetired();
    }
    return;
  }
  uint32_t budget = kFlushStepRows;
  const uint64_t max_examined =
      engine_->options().tunables->max_rows_examined.load(std::memory_order_relaxed);
  if (max_examined != 0 && max_examined - 1 < budget)
    budget = static_cast<uint32_t>(max_examined - 1);
  if (budget == 0) return;  // (rowsocket_max_rows_examined=1: a step examines no row)
  engine_->set_batch_start_ms(now_ms);
  engine_->thread().BeginBatch(SQLCOM_INSERT);
  engine_->tables().BeginBatch(now_ms);
  for (const auto& [name, below] : flushes_in_effect_) FlushStep(name, below, budget);
  engine_->FreeRetired();
  engine_->thread().EndBatch();
}

// One step of the deletion of container `name`'s items flushed below `below`: a read
// of at most `budget` rows from where the last step ended, then a write transaction
// deleting the flushed ones. A pass that reaches the table's end having left none
// behind ends the flush; one that left some (held by another transaction) begins
// again. rowsocket_memcached_flush was checked when the command came, as memcached
// checks its own; a flush whose container is gone, or whose server has become
// read_only (rowsocket's writes would be refused), is given up.
void MemcachedHandler::FlushStep(const std::string& name, uint64_t below, uint32_t budget) {
  static LogLimit flushed_log;
  const KvContainer* container = ContainerNamed(name);
  if (container == nullptr || container->name != name || opt_readonly ||
      !engine_->SchemaAllowed(container->db)) {
    LogLimited(&flushed_log, LogLevel::kWarning,
               "memcached flush_all of container '%s' given up: %s", name.c_str(),
               opt_readonly ? "the server is read_only" : "it is no longer a container");
    flushes_->Done(name, below);
    return;
  }
  FlushedContainer& f = flushed_[name];
  if (f.below != below) {
    f.below = below;
    f.cursor.clear();
    f.complete = true;
    f.deleted = 0;
  }
  std::string columns = container->key_column;
  if (!container->cas_column.empty()) columns += "," + container->cas_column;
  bool rebound = false;
  if (!BindScan(&f.binding, &f.scan, *container, columns, &rebound)) return;
  if (rebound) {
    f.cursor.clear();
    f.complete = true;
  }
  GroupTransaction& group = engine_->group();
  const Opened<OpenIndex> lookup = engine_->OpenResolved(f.binding.lookup.get());
  const Opened<OpenIndex> scan = lookup.ok() ? engine_->OpenResolved(f.scan.get()) : lookup;
  if (!scan.ok()) return;
  bool read = false;
  group.Clear();
  group.Add(scan.value->entry());
  if (group.Lock(false, /*locking_reads=*/false, /*wait=*/false))
    read = kv_.FindFlushed(*container, scan.value, budget, below, &f.cursor);
  group.End();
  if (!read) {
    f.complete = false;
  } else if (kv_.FoundExpired()) {
    group.Clear();
    group.Add(lookup.value->entry());
    uint64_t deleted = 0;
    bool complete = false;
    if (group.Lock(true, true, /*wait=*/false))
      deleted = kv_.DeleteFlushed(*container, lookup.value, below, &complete);
    if (group.End() == GroupTransaction::Outcome::kCommitted) {
      f.deleted += deleted;
      f.complete = f.complete && complete;
    } else {
      f.complete = false;
    }
  }
  if (!f.cursor.empty()) return;
  // The pass is over.
  if (!f.complete) {
    f.complete = true;
    return;
  }
  LogLimited(&flushed_log, LogLevel::kWarning,
             "memcached flush_all deleted the %llu rows of %s.%s (container '%s')",
             static_cast<unsigned long long>(f.deleted), container->db.c_str(),
             container->table.c_str(), name.c_str());
  flushes_->Done(name, below);
  f.below = 0;
}

}  // namespace rowsocket
