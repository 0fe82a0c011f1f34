// RedisHashes: Redis's hash commands on the rows of a table that a container of
// rowsocket.containers maps (the mapping the memcached listener reads too). A key
// `<name>:<rest>` whose `<name>` names a container (other than `default`) is the
// row of that container's table whose key column holds `<rest>`; its fields are the
// table's visible columns but the key column, by name (as SQL matches names: in any
// case), its values their values as SQL prints them, a NULL column an absent field.
// Every other key is a string of the default container (redis_strings.h).
//
// Each command is the typed row operations it amounts to (engine/rows), inside the
// running batch's transaction, as the strings are: a find of the row (which a write
// locks until the batch commits, so HINCRBY and HSETNX are atomic), then an update
// of the columns it sets, an insert of a new row (the key column and the columns it
// sets; the others take their defaults), or a delete (DEL). HDEL sets a nullable
// column to NULL and refuses a NOT NULL one; a write of an unknown column is
// refused; every SQL row rule applies (strict sql_mode, constraints; generated
// columns and tables with triggers refused, OpenIndex::WriteRefusal).
//
// One per handler, on its worker's thread, with the batch's tables locked.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/open_index.h"
#include "engine/core/worker_engine.h"
#include "engine/memcached/key_value.h"
#include "engine/redis/redis_undo_log.h"
#include "engine/rows/row_requests.h"
#include "protocol/redis_commands.h"
#include "protocol/redis_reply.h"

namespace rowsocket {

// What the size of an answer, held to rowsocket_max_answer_size, counts for each bulk
// string beside its bytes: at most what its reply adds (`$<length>` and two CRLFs).
constexpr uint64_t kRedisBulkHeader = 16;

// `<name>` of a key `<name>:<rest>` that may name a hash container: empty for a key
// without a colon, and for `default:...` (the default container holds strings).
std::string_view RedisHashPrefix(std::string_view key);
// `<rest>`: the value of the key column of the row a hash key names.
inline std::string_view RedisHashRowKey(std::string_view key) {
  return key.substr(key.find(':') + 1);
}

// Binds a hash container's two indexes on the unique index of its key column
// (BindContainerIndexes): `lookup` with the fields, `insert` with the key column then
// the fields.
EngineStatus BindHashIndexes(WorkerEngine* engine, ContainerBinding* binding,
                             const KvContainer& container);
// Whether the fields of an open lookup index are still the table's (no ALTER added
// or dropped a column since the binding was made).
bool HashFieldsCurrent(const OpenIndex* lookup);

// The container of one hash key of the running command, as the handler prepared it.
struct RedisHashTarget {
  std::string prefix;                     // `<name>` as the command's key spells it
  const ContainerBinding* binding = nullptr;
  OpenIndex* lookup = nullptr;            // the fields
  OpenIndex* insert = nullptr;            // the key column, then the fields; null: reads
};

class RedisHashes {
 public:
  explicit RedisHashes(RowRequests* rows) : rows_(rows) {}
  RedisHashes(const RedisHashes&) = delete;
  RedisHashes& operator=(const RedisHashes&) = delete;

  // The hash keys' containers of the command about to run (kept by the caller).
  void Use(const std::vector<RedisHashTarget>* targets) { targets_ = targets; }
  // The container of `key` if it is a hash key of the running command; else null.
  const RedisHashTarget* TargetOf(std::string_view key) const;

  // Runs a hash command (its arity checked) on the row `argv[1]` names in `target`,
  // and writes its reply. A null `target`: the key is of no hash container; where
  // `string` it holds a string (-WRONGTYPE), else it is a missing hash (reads find
  // nothing, writes are refused: no table holds such a hash).
  void Run(const RedisCommandInfo& info, const std::vector<std::string_view>& argv,
           const RedisHashTarget* target, bool string, RedisReplyWriter* w);

  // Key commands on a hash key (RedisStrings: DEL, EXISTS, TYPE, ...): whether its
  // row exists, and its deletion; false on an error, answered to `w`.
  bool Exists(const RedisHashTarget& target, std::string_view key, bool* exists,
              RedisReplyWriter* w);
  bool Delete(const RedisHashTarget& target, std::string_view key, bool* existed,
              RedisReplyWriter* w);

  // A command of several rows is all or nothing (RedisStrings::BeginAll, which calls
  // these): between BeginAll and EndAll each hash row changed is recorded, and EndAll
  // puts them back when `undo` (or a change of them failed). True if nothing was put
  // back.
  void BeginAll();
  bool EndAll(bool undo);
  bool failed() const { return undo_.failed(); }
  const std::string& failure() const { return undo_.failure(); }

 private:
  // A row as the lookup index reads it: by field, its text or NULL.
  struct Row {
    bool exists = false;
    std::vector<std::string> values;
    std::vector<bool> null;
    bool Has(int field) const { return exists && field >= 0 && !null[field]; }
  };

  void Begin(const RedisHashTarget& target, RedisReplyWriter* w);
  bool Error(std::string_view text);
  bool Fail(const EngineStatus& status);
  bool Failed(const RowResult& row);
  // The field's position among the lookup index's columns; -1 if none is named so.
  int FieldAt(std::string_view name) const;
  // As FieldAt, answering the error of an unknown column.
  bool KnownField(std::string_view name, int* at);
  // Reads the row of the running command's key; false on an error (answered), which
  // for a key of no hash container holding a string is -WRONGTYPE.
  bool Read(Row* row);
  bool ReadRow(std::string_view row_key, Row* row, bool quiet = false);
  // Sets `fields` to `values` (an update of the row, or the insert of a new one).
  bool Write(const Row& row, const std::vector<uint32_t>& fields,
             const std::vector<RowValue>& values);
  bool Record(std::string_view row_key);
  bool Restore(const std::string& row_key, const Row& before);
  size_t Length(const Row& row) const;
  // Whether an answer of `bytes` stays within rowsocket_max_answer_size (if not, the
  // error is answered).
  bool WithinAnswerSize(uint64_t bytes);

  void Get(const std::vector<std::string_view>& argv, bool many);
  void GetAll(RedisCommandId id);
  void Exists(std::string_view field);
  void StrLen(std::string_view field);
  void Set(const std::vector<std::string_view>& argv, bool nx);
  void IncrBy(std::string_view field, std::string_view delta);
  void IncrByFloat(std::string_view field, std::string_view delta);
  void Del(const std::vector<std::string_view>& argv);

  RowRequests* rows_;
  const std::vector<RedisHashTarget>* targets_ = nullptr;
  const RedisHashTarget* target_ = nullptr;  // the running command's (null: none)
  bool string_ = false;                      // and without one, whether it is a string
  std::string_view row_key_;
  OpenIndex* lookup_ = nullptr;
  OpenIndex* insert_ = nullptr;
  Field* key_column_ = nullptr;
  RedisReplyWriter* w_ = nullptr;
  ScanSpec spec_;
  RowChange change_;
  std::vector<RowValue> values_;
  std::vector<uint32_t> at_;
  String scratch_;
  // The rows the running command of several rows changed, as they were before.
  struct Recorded {
    OpenIndex* lookup;
    OpenIndex* insert;
    std::string row_key;
    Row before;
  };
  RedisUndoLog<Recorded> undo_;
};

}  // namespace rowsocket
