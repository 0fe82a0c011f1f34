// TableCache: the tables one worker keeps open across batches.
//
// Opening a table (metadata lock, table definition, handler) costs more than a
// primary-key lookup, so a worker opens each table once and reuses it. An open
// table holds a shared metadata lock, which would make ALTER, RENAME, DROP,
// TRUNCATE and FLUSH wait; Release() closes every table that some other thread is
// waiting for (or that FLUSH marked old), and CloseIdle() those unused for a while.
// While the server's table cache is full (table_open_cache), opening a table first
// closes this worker's least recently used one.
// A closed entry keeps its name and reopens on next use; `generation` changes with
// every reopen so that open indexes re-check their columns against the (possibly
// new) definition.
//
// Used only on its worker's thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include <unordered_map>
#include <unordered_set>

#include "engine/core/opened.h"
#include "engine/server_headers.h"
#include "protocol/engine_status.h"

namespace rowsocket {

struct TableEntry {
  std::string db;
  std::string name;
  TABLE* table = nullptr;         // null while closed
  // The table's place in a statement's table list, which the server's code may
  // consult while the table is used (table->pos_in_table_list points here; a
  // partitioned table reads it on every ordered scan). Lives as long as the entry.
  TABLE_LIST table_list;
  MDL_ticket* mdl_ticket = nullptr;
  uint64_t generation = 0;        // incremented by every (re)open
  uint64_t last_used_ms = 0;
  uint64_t batch_mark = 0;        // the batch that last used it (TableCache::MarkUsed)
  uint64_t group_mark = 0;        // group that last locked it (GroupTransaction::Add)
  bool written = false;           // rows changed since the group began
  const void* scan_index = nullptr;  // open index whose scan is initialized (see BeginScan)
  uint scan_key = 0;                 // that scan's index number
  bool scan_all_columns = false;
  // The table has foreign keys, or is referenced by some (found when it opens:
  // changing them takes DDL, which reopens it).
  bool has_foreign_keys = false;
  // The tables whose rows InnoDB changes when a row of this one changes (a FOREIGN
  // KEY ... ON UPDATE or ON DELETE CASCADE, SET NULL or SET DEFAULT of theirs; found
  // by a writing worker when the table opens), and whether one of them has virtual
  // columns (see TableCache::CheckCascades).
  struct CascadeChild {
    std::string db;
    std::string name;
    bool on_update = false;
    bool on_delete = false;
  };
  std::vector<CascadeChild> cascade_children;
  bool update_cascades_into_virtual = false;
  bool delete_cascades_into_virtual = false;
  // Scratch space sized for the open table, shared by every open index on it (a
  // request uses them only while it runs): a key image, a record that holds filter
  // values, and one that holds a request's key values.
  std::vector<uchar> key_buffer;
  std::vector<uchar> filter_record;
  std::vector<uchar> key_record;
};

class TableCache {
 public:
  TableCache(THD* thd, bool for_writes) : thd_(thd), for_writes_(for_writes) {}
  ~TableCache();  // closes everything
  TableCache(const TableCache&) = delete;
  TableCache& operator=(const TableCache&) = delete;

  // The entry for db.name, opening the table if needed. The entry stays valid
  // (possibly closed) for the cache's lifetime.
  Opened<TableEntry> Get(std::string_view db, std::string_view name);
  // Opens a closed entry again; checks its cascades (CheckCascades) each time.
  EngineStatus Reopen(TableEntry* entry);
  // Whether a change of the entry's rows would cascade into a table that has virtual
  // columns: InnoDB then computes them through the child table as SQL opened it for
  // the statement, which a rowsocket write has not, so such a write is refused
  // (RowRequests::ModifyRow). A child that cannot be opened counts as one.
  void CheckCascades(TableEntry* entry);

  // Starts a batch at `now_ms`: a table whose metadata lock another thread held
  // (the worker's THD waits for no lock: lock_wait_timeout 0) is not tried again by
  // the same batch, and tables the batch uses (see MarkUsed) are not closed to make
  // room.
  void BeginBatch(uint64_t now_ms) {
    lock_timed_out_.clear();
    batch_start_ms_ = now_ms;
    ++batch_number_;
  }
  // The running batch uses `entry`.
  void MarkUsed(TableEntry* entry) {
    entry->last_used_ms = batch_start_ms_;
    entry->batch_mark = batch_number_;
  }

  // True if an open since the last call failed because another thread held the
  // table's metadata lock (LOCK TABLES, DDL): the request may wait apart and retry.
  bool TakeMetLock() {
    const bool met = met_lock_;
    met_lock_ = false;
    return met;
  }

  // Closes tables that DDL or FLUSH waits for. Call between batches only.
  void ReleaseContended();
  // Closes tables not used since `now_ms - idle_ms`.
  void CloseIdle(uint64_t now_ms, uint64_t idle_ms);
  void CloseAll();
  // Tables open now.
  size_t open_count() const { return open_count_; }


 private:
  EngineStatus Open(TableEntry* entry);
  void MakeRoom();
  void Close(TableEntry* entry);

  THD* thd_;
  bool for_writes_;
  size_t open_count_ = 0;
  uint64_t batch_start_ms_ = 0;
  uint64_t batch_number_ = 0;
  std::unordered_map<std::string, std::unique_ptr<TableEntry>> entries_;  // "db\0name"
  std::unordered_set<std::string> lock_timed_out_;  // "db\0name", this batch
  bool met_lock_ = false;                           // see TakeMetLock
};

}  // namespace rowsocket
