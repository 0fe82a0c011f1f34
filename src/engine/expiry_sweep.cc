// The sweep of expired memcached items: EngineExecutor's part (see executor.h). The
// memcached listener's first worker, between its turns, examines a few rows of each
// container with an expiry column every 100 ms (rowsocket_memcached_sweep_rate rows
// a second in each) and deletes the expired ones, in a write transaction of the same
// kind as a memcached delete's: binlogged, durable, with SQL's rules.
#include "engine/server_headers.h"

#include <algorithm>
#include <string>
#include <vector>

#include "engine/executor.h"
#include "rpl_mi.h"

namespace rowsocket {
namespace {

constexpr uint64_t kSweepEveryMs = 100;

// A server whose rows are not its own to delete: a read_only server, a replica
// (the primary's sweep deletes there through replication), a Galera node (every
// node would sweep the same rows; its items are deleted when a write meets them).
bool SweepsHere() { return !opt_readonly && !WSREP_ON && any_slave_sql_running(false) == 0; }

}  // namespace

void EngineExecutor::SweepExpiredItems(uint64_t now_ms) {
  const uint32_t rate = options_.tunables->memcached_sweep_rate.load(std::memory_order_relaxed);
  if (rate == 0 || now_ms - last_expiry_sweep_ms_ < kSweepEveryMs) return;
  last_expiry_sweep_ms_ = now_ms;
  if (!SweepsHere()) return;
  uint64_t budget = std::max<uint32_t>(1, rate / (1000 / kSweepEveryMs));
  // A step is one find, held to rowsocket_max_rows_examined (its key counts as one).
  const uint64_t max_examined = options_.tunables->max_rows_examined.load(std::memory_order_relaxed);
  if (max_examined != 0) budget = std::min(budget, max_examined - 1);
  if (budget == 0) return;
  std::vector<std::string> names = {"default"};
  for (const auto& [name, cached] : container_mapping_)
    if (cached.found && name != "default") names.push_back(name);
  // Nothing waits for the sweep (the worker's THD waits for no lock: ApplyNoWait):
  // a row another transaction holds is left for a later pass, and so is a table
  // under LOCK TABLES, FLUSH TABLES WITH READ LOCK or a backup.
  batch_start_ms_ = now_ms;  // the container mapping's age counts from it
  thread_.BeginBatch(SQLCOM_INSERT);
  tables_.BeginBatch(batch_start_ms_);
  for (const std::string& name : names) SweepContainer(name, static_cast<uint32_t>(budget));
  retired_.clear();
  thread_.EndBatch();
}

// One step of the sweep over container `name`: a read of at most `budget` rows, then
// a write transaction for the expired ones among them.
void EngineExecutor::SweepContainer(const std::string& name, uint32_t budget) {
  const KvContainer* container = ContainerNamed(name);
  if (container == nullptr || container->expires_column.empty() || !SchemaAllowed(container->db))
    return;
  SweptContainer& swept = swept_[name];
  if (!swept.binding.lookup || !(swept.binding.container == *container)) {
    if (!BindContainer(&swept.binding, *container).ok()) return;
    if (swept.sweep)
      for (auto& opened : swept.sweep->opened)
        if (opened) retired_.push_back(std::move(opened));
    swept.sweep = std::make_unique<IndexBinding>();
    swept.sweep->db = container->db;
    swept.sweep->table = container->table;
    swept.sweep->index = swept.binding.lookup->index;
    swept.sweep->columns = container->key_column + "," + container->expires_column;
    swept.cursor.clear();
  }
  const Opened<OpenIndex> lookup = OpenContainerIndex(swept.binding.lookup.get());
  const Opened<OpenIndex> sweep = lookup.ok() ? OpenContainerIndex(swept.sweep.get()) : lookup;
  if (sweep.ok()) {
    // The rows are examined as a get reads them (no row locks), the expired ones
    // deleted in a transaction of their own.
    group_.Clear();
    group_.Add(sweep.value->entry());
    if (group_.Lock(false, /*locking_reads=*/false, /*wait=*/false))
      kv_.FindExpired(sweep.value, budget, &swept.cursor);
    group_.End();
    if (kv_.FoundExpired()) {
      group_.Clear();
      group_.Add(lookup.value->entry());
      uint64_t deleted = 0;
      if (group_.Lock(true, true, /*wait=*/false)) deleted = kv_.DeleteExpired(lookup.value);
      if (group_.End() == GroupTransaction::Outcome::kCommitted)
        stats_->memcached_items_expired.Add(deleted);
    }
  }
}

}  // namespace rowsocket
