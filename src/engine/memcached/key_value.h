// KeyValue: memcached's commands on a container's table (rowsocket_memcached_port).
//
// A container keeps memcached's items as rows of a table: a key column (with a unique
// index of its own), one or more value columns (a memcached value is their values
// joined by the container's separator), and optionally the item's CAS, client flags
// and expiry time (0: never; else a unix time). The mapping table
// rowsocket.containers names containers; a key `@@<name>.<key>` selects one, any
// other key the container `default`, which is the table rowsocket.kv unless the
// mapping says otherwise:
//
//   k VARBINARY(250) PRIMARY KEY, v MEDIUMBLOB NOT NULL,
//   cas BIGINT UNSIGNED NOT NULL, flags INT UNSIGNED NOT NULL,
//   expires INT UNSIGNED NOT NULL
//
// A retrieval reads the rows of its keys in one find (an IN list of the key column),
// whose rows come straight from the record (RowRequests::Read); a batch of nothing but
// retrievals reads a snapshot without row locks (the batch core: core/executor.h). A command
// that changes an item runs as the typed row operations it amounts to (row_spec.h) —
// a find of the key, which locks the row, then an update, insert or delete — on two
// open indexes of the container (`lookup`: the value columns, then CAS, flags and
// expiry where the container has them; `insert`: the key column and the same),
// inside the running batch's transaction. A key is one only if the key column holds
// it exactly (HoldsExactly): another is a miss, and a write of it is refused. A
// command writes only the columns it is about (append the last value column, prepend
// the first, incr the one, touch the expiry), the others keep their values. A
// container without a CAS column gives each item a CAS derived from its value and
// flags, which every change of them (SQL's included) moves. CAS, flags and expiry are
// stored as integers. So a memcached write obeys every rule a HandlerSocket write
// does (sql_mode, defaults, generated columns, CHECK, versioning, binlog, durability before
// the answer), and a read-modify-write (cas, append, incr) is atomic: the row stays
// locked until the batch commits. An expired item is a miss; the write that meets it
// replaces or deletes it. Every write but a touch gives the item a new CAS, unique
// across the server's life (a counter that starts at the time the plugin loaded, in
// microseconds); a change made by SQL keeps the CAS unless SQL sets it.
//
// One per executor, used on its worker's thread, with the batch's tables locked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/open_index.h"
#include "engine/rows/row_requests.h"
#include "protocol/engine_status.h"
#include "protocol/memcached.h"
#include "protocol/memcached_response.h"
#include "seam/memcached_counters.h"

namespace rowsocket {

// Where a container keeps its items (a row of rowsocket.containers).
struct KvContainer {
  std::string name;  // as rowsocket.containers stores it (`default` without a row)
  std::string db, table;
  std::string key_column;
  std::vector<std::string> value_columns;
  std::string separator = "|";
  std::string cas_column, flags_column, expires_column;  // empty: none

  // rowsocket.kv, unless rowsocket.containers names another `default`.
  static KvContainer Default();
  // The columns of the lookup and insert indexes, comma-separated: the value
  // columns, then CAS, flags and expiry where the container has them (the insert
  // index: the key column first).
  std::string LookupColumns() const;
  std::string InsertColumns() const;
  // The value columns and the expiry alone: what a read that answers neither a CAS
  // nor flags needs (a Redis read's index).
  std::string ValueColumns() const;
  bool operator==(const KvContainer& o) const;
};

// A connection's binding of a container: the mapping it was made from, and its
// lookup, insert and value indexes (the last opened only where a read uses it).
struct ContainerBinding {
  KvContainer container;
  std::unique_ptr<IndexBinding> lookup, insert, values;
  IndexGrants grants;  // what the connection's account may do (rowsocket_memcached_auth)
};

// The key a memcached key stands for in its container's table: `<key>` of
// `@@<name>.<key>`, the whole key otherwise; and the container it names.
std::string_view KvRowKey(std::string_view key);
std::string_view KvContainerName(std::string_view key);

// What one command found or did, for the protocol's answer.
struct KvItem {
  std::string_view key;
  std::string value;
  uint32_t flags = 0;
  uint64_t cas = 0;
  int64_t expires = 0;  // unix time, 0: never
};
struct KvResult {
  McOutcome outcome = McOutcome::kSuccess;
  std::vector<KvItem> items;  // retrieval: the hits, in key order
  uint64_t number = 0;        // incr/decr: the new value
  EngineStatus status;        // kError: what happened (memcached_status.h spells it)
};

class KeyValue {
 public:
  explicit KeyValue(RowRequests* rows) : rows_(rows) {}
  // Where Answer counts what its commands did, as memcached counts it (get_hits,
  // cas_badval, ...; kv_counts.cc); null: nowhere.
  void CountInto(McCounters* counts) { counts_ = counts; }
  KeyValue(const KeyValue&) = delete;
  KeyValue& operator=(const KeyValue&) = delete;

  // Runs `mc` (a command with keys) on `container`'s two open indexes. Items whose
  // CAS is below `flushed_below` (every item, in a container without a CAS column)
  // are flushed (KvFlushes): missing, as expired items are; 0: none is. A retrieval
  // whose answer would pass rowsocket_max_answer_size (its items' keys and values,
  // and kKvItemFraming bytes each) ends with EngineStatus::TooBig() instead, and
  // keeps none of them.
  void Run(const McRequest& mc, const KvContainer& container, OpenIndex* lookup,
           OpenIndex* insert, KvResult* result, uint64_t flushed_below = 0);

  // Runs `mc` as Run does and appends its answer to `out` (as WriteKvAnswer writes
  // it). A text get or gets of a container with a CAS column and one value column
  // writes each hit's value into `out` straight from its row: no copy of it but the
  // answer's, no allocation per hit.
  void Answer(const McRequest& mc, const KvContainer& container, OpenIndex* lookup,
              OpenIndex* insert, uint64_t flushed_below, std::string* out);

  // A new CAS (any thread).
  static uint64_t NextCas();

  // The sweep of expired items, one step in two groups. FindExpired, in a group of
  // reads holding `sweep`'s table: examines at most `budget` rows in key order from
  // the key after *cursor (from the first when it is empty) through `sweep` (an open
  // index of the key column and the expiry column on the key index), and keeps the
  // keys of the expired ones; sets *cursor to the last key examined, or clears it
  // once the table's end was reached. DeleteExpired, in a write group: deletes the
  // rows kept that are still expired, each read again under its row lock through
  // `lookup` (whose last column is the expiry column); returns the rows deleted,
  // stopping at the first error (a row another transaction holds).
  void FindExpired(OpenIndex* sweep, uint32_t budget, std::string* cursor);
  bool FoundExpired() const { return !expired_.empty(); }
  uint64_t DeleteExpired(OpenIndex* lookup);

  // A flush's deletion (KvFlushes), in the same two groups: FindFlushed, through
  // `scan` (the key column, then the CAS column where the container has one), keeps
  // the keys of the rows flushed below `below` among at most `budget` from the key
  // after *cursor, which it moves as FindExpired does; false if the read failed.
  // DeleteFlushed deletes those rows, each read again under its row lock through
  // `lookup`; *complete is false when it stopped at an error before the last.
  bool FindFlushed(const KvContainer& container, OpenIndex* scan, uint32_t budget,
                   uint64_t below, std::string* cursor);
  uint64_t DeleteFlushed(const KvContainer& container, OpenIndex* lookup, uint64_t below,
                         bool* complete);

 private:
  enum class Found { kMissing, kExpired, kPresent };
  // Expired, or flushed (see Run).
  bool Dead(const KvItem& item, int64_t now) const;
  bool Dead(int64_t expires, uint64_t cas, int64_t now) const;  // cas: of a CAS column
  // The values a write stores for `item`, in the lookup index's column order; false
  // (with the error in *result) when its value does not split into the container's
  // value columns.
  bool RowValues(const KvItem& item, std::vector<RowValue>* values, KvResult* result);
  void FindKey(std::string_view key);
  void FindRow(std::string_view row_key);
  static uint64_t DerivedCas(std::string_view value, uint32_t flags);
  static uint64_t DerivedCas(const KvItem& item);
  uint64_t NewCas(const KvItem& item);
  // Reads the item of `key`; with `text_of` >= 0 also the text of that value column
  // (into column_text_; NULL as empty).
  Found Read(std::string_view key, OpenIndex* lookup, KvItem* item, KvResult* result,
             int text_of = -1);
  void ItemOfRow(std::string_view key, OpenIndex* lookup, KvItem* item);
  // Writes value, cas, flags and expiry of the row of `key` (which exists).
  bool Update(std::string_view key, const KvItem& item, OpenIndex* lookup, KvResult* result,
              uint64_t* matched = nullptr);
  // Makes change_ (an update of some of the lookup index's columns, or a delete) to
  // the row of `key`, leaving its other columns as they are.
  bool Change(std::string_view key, OpenIndex* lookup, KvResult* result,
              uint64_t* matched = nullptr);
  void StartAfter(std::string_view cursor, uint32_t budget);
  bool ChangeColumn(const KvItem& item, uint32_t column, std::string_view text,
                    OpenIndex* lookup, KvResult* result);
  bool ChangeExpiry(const KvItem& item, OpenIndex* lookup, KvResult* result);
  uint32_t CasAt() const;
  uint32_t ExpiresAt() const;
  static bool IsRetrieval(McCommand command);
  bool Insert(std::string_view key, const KvItem& item, OpenIndex* insert, KvResult* result,
              bool* duplicate);
  bool Delete(std::string_view key, OpenIndex* lookup, KvResult* result);
  bool Failed(const RowResult& row, KvResult* result);

  // What the running retrieval met besides its hits (kv_counts.cc).
  void NoteDead(int64_t expires, int64_t now);
  void Count(const McRequest& mc, McOutcome outcome);
  bool FindKeys(const McRequest& mc);
  void Retrieve(const McRequest& mc, OpenIndex* lookup, KvResult* result);
  McOutcome RetrieveInto(const McRequest& mc, OpenIndex* lookup, std::string* out);
  void Store(const McRequest& mc, OpenIndex* lookup, OpenIndex* insert, KvResult* result);
  void Set(const McRequest& mc, OpenIndex* lookup, OpenIndex* insert, KvResult* result);
  void Arithmetic(const McRequest& mc, OpenIndex* lookup, OpenIndex* insert, KvResult* result);
  void Touch(const McRequest& mc, OpenIndex* lookup, KvResult* result);
  void Extend(const McRequest& mc, KvItem item, uint32_t column, OpenIndex* lookup,
              KvResult* result);
  void Remove(const McRequest& mc, OpenIndex* lookup, KvResult* result);

  RowRequests* rows_;
  const KvContainer* container_ = nullptr;  // the running command's
  uint64_t flushed_below_ = 0;              // and its flush (see Run)
  Field* key_column_ = nullptr;             // its key column
  ScanSpec spec_;        // the rows a step reads or changes
  RowChange change_;     // and what it does to them
  std::vector<RowValue> values_;  // an insert's values
  String scratch_;       // text of the column being read
  std::vector<std::string> expired_;  // keys a sweep step found expired
  std::string column_text_;       // a value column's text, as Read found it
  std::string value_text_;        // RetrieveInto: a value of several columns
  std::vector<size_t> in_keys_;   // a retrieval: the key of each IN value
  McCounters* counts_ = nullptr;  // see CountInto
  uint32_t hits_ = 0, expired_met_ = 0, flushed_met_ = 0;  // the running command's
};

// What one item adds to a retrieval's answer besides its key and value, at most:
// memcached's `VALUE <key> <flags> <bytes> <cas>` line and its CRLFs, a binary header
// and its extras, a meta answer's flags.
constexpr size_t kKvItemFraming = 128;

// The answer to `mc` (in its framing, unless its noreply silences it).
void WriteKvAnswer(const McRequest& mc, const KvResult& result, std::string* out);

// memcached's exptime as a unix time: 0 never; up to 30 days, seconds from `now`;
// more, a unix time already; negative, already expired.
int64_t KvExpiry(int64_t exptime, int64_t now);

}  // namespace rowsocket
