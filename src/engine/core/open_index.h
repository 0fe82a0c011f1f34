// OpenIndex: what a `P` request binds to an index id on one connection, opened by
// one executor: a table of that executor's cache, one of its indexes, the columns
// answers carry (and inserts and updates write), and the columns filters may test.
// EngineSession holds a connection's bindings by id; a connection is served by
// whichever worker of its listener is free, and each executor opens a binding the
// first time it serves that connection.
//
// Names are resolved to field and key numbers against the open table; when the
// table is reopened (after DDL or FLUSH) the names are resolved again, so an index
// keeps working while it still makes sense and answers an error when it does not.
// Used only on its executor's thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/admin/accounts.h"
#include "engine/rows/row_spec.h"
#include "engine/server_headers.h"
#include "engine/core/table_cache.h"
#include "protocol/engine_status.h"
#include "seam/executor.h"

namespace rowsocket {

class OpenIndex {
 public:
  OpenIndex(TableEntry* entry, std::string_view index, std::string_view columns,
            std::string_view filter_columns);
  ~OpenIndex();
  OpenIndex(const OpenIndex&) = delete;
  OpenIndex& operator=(const OpenIndex&) = delete;

  // Resolves names against the table if it was (re)opened since the last call.
  // The table must be open.
  EngineStatus Resolve();

  TableEntry* entry() const { return entry_; }
  TABLE* table() const { return entry_->table; }
  uint key_number() const { return key_number_; }
  KEY* key() const { return &entry_->table->key_info[key_number_]; }
  uint key_parts() const { return key()->user_defined_key_parts; }
  // Whether one of the first `nparts` key parts holds only a prefix of its column
  // (the index then cannot tell values that share the prefix apart).
  bool HasPrefixPart(size_t nparts) const { return nparts > first_prefix_part_; }
  const std::vector<Field*>& columns() const { return columns_; }
  const std::vector<Field*>& filter_columns() const { return filter_columns_; }

  // Column bitmap covering the columns, filter columns and key parts: what a find
  // must read.
  MY_BITMAP* read_set() { return &read_set_; }

  // The keys whose values change when a write of `values` values to the index's
  // columns writes them to its first columns, or (`columns` not empty) to the
  // columns at those positions; the values fit the index's columns.
  key_map KeysWrittenBy(size_t values, const std::vector<uint32_t>& columns) const;
  // The same for `change`; none for a delete.
  key_map KeysChangedBy(const RowChange& change) const;

  // Whether a write of the index's columns in `columns` (a bit by column position;
  // ~0: every one) is refused, as SQL refuses it: a value for a generated or
  // system-versioning column (SQL's error 1906), any write to a table with
  // triggers (SQL would run them; rowsocket cannot). Decided when the names are
  // resolved, so that a write only reads it.
  EngineStatus WriteRefusal(uint64_t columns = ~uint64_t{0}) const;

  // The table's scratch buffers (see TableEntry).
  uchar* key_buffer() { return entry_->key_buffer.data(); }
  uchar* filter_record() { return entry_->filter_record.data(); }
  uchar* key_record() { return entry_->key_record.data(); }

 private:
  EngineStatus ResolveNames();
  void FindChangedKeys();

  TableEntry* entry_;
  uint64_t resolved_generation_ = 0;
  std::string index_name_;
  std::vector<std::string> column_names_;
  std::vector<std::string> filter_names_;

  uint key_number_ = 0;
  uint first_prefix_part_ = 0;  // key_parts() if no part is a prefix
  std::vector<Field*> columns_;
  std::vector<Field*> filter_columns_;
  std::vector<key_map> changed_keys_;  // by number of columns written
  std::vector<key_map> column_keys_;   // by column: the keys writing it alone changes
  uint64_t computed_columns_ = 0;      // by column (the first 64): SQL computes it
  bool computed_beyond_ = false;       // a column past the 64th is computed
  MY_BITMAP read_set_{};
  std::vector<my_bitmap_map> read_set_words_;
};

// Whether write `change` on `oi` changes the value of the scanned index (which
// moves the row within the scan).
bool ChangesScannedKey(const RowChange& change, OpenIndex* oi);

// What a `P` bound to one index id: the names, and the index as each executor
// opened it (by the worker's slot in its listener).
struct IndexBinding {
  std::string db;
  std::string table;
  std::string index;
  std::string columns;
  std::string filter_columns;
  std::vector<std::unique_ptr<OpenIndex>> opened;
  IndexGrants grants;  // what the connection's account may do through it
};

// What a protocol keeps of a connection besides its index ids (a key-value
// protocol's container bindings): its handler's to make and read.
class ProtocolState {
 public:
  virtual ~ProtocolState() = default;
};

// A connection's engine session: its index bindings by id, its login, its lock
// waits, its protocol's state. Used by one executor at a time (the one serving the
// connection's turn).
class EngineSession : public ConnectionSession {
 public:
  IndexBinding* Find(uint32_t id) {
    return id < bindings_.size() ? bindings_[id].get() : nullptr;
  }
  // Binds `binding` to `id`. What the binding it replaces had opened goes to
  // `retired`, so that a batch still referring to it can finish first.
  void Bind(uint32_t id, std::unique_ptr<IndexBinding> binding,
            std::vector<std::unique_ptr<OpenIndex>>* retired);

  ~EngineSession() override;

  AccountLogin login;  // rowsocket_auth=account
  // The connection's first unanswered request met a lock and waits apart
  // (lock_wait.cc): since when (steady clock ms; 0: nothing waits), and how often
  // it has been tried again.
  uint64_t lock_wait_since_ms = 0;
  uint32_t lock_wait_tries = 0;
  uint64_t lock_timed_out_batch = 0;  // the executor's batch in which one answered it
  // The state the connection's protocol keeps of it (null until its handler makes it).
  std::unique_ptr<ProtocolState> protocol_state;

 private:
  std::vector<std::unique_ptr<IndexBinding>> bindings_;
};

}  // namespace rowsocket
