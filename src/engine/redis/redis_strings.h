// RedisStrings: Redis's string and key commands on a key-value container's rows
// (engine/memcached/key_value.h describes the container: a key column with a unique
// index of its own, one value column, and where the container has them the CAS,
// client flags and expiry columns). The default container rowsocket.kv is the one
// the memcached listener serves: a Redis SET is a memcached get, and the reverse.
//
// Each command is the typed row operations it amounts to (engine/rows: a find of its
// keys, an update, an insert or a delete of each row), on the container's lookup
// index (the value, CAS, flags and expiry columns) and insert index (the key column
// and the same), inside the running batch's transaction: a write's find locks the
// row until the batch commits, so a read-modify-write (INCR, APPEND, SETNX, GETSET)
// is atomic. Every write gives the row a new CAS (KeyValue::NextCas); a new value
// gets flags 0, a changed one (APPEND, INCR) keeps its flags. Expiry is the
// container's unix time in whole seconds (0: never): a millisecond expiry rounds up
// to the next second; an expired row is a miss, and the write that meets it
// replaces or deletes it. A key the key column cannot hold exactly is a miss, and a
// write of it is refused. A hash key (redis_hashes.h) is a hash to the key commands
// (DEL, UNLINK, EXISTS, TYPE, TTL, PTTL, PERSIST), a missing key to MGET, and
// -WRONGTYPE to the others.
//
// One per handler, on its worker's thread, with the batch's tables locked.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/open_index.h"
#include "engine/memcached/key_value.h"
#include "engine/redis/redis_hashes.h"
#include "engine/redis/redis_undo_log.h"
#include "engine/rows/row_requests.h"
#include "protocol/redis_args.h"
#include "protocol/redis_commands.h"
#include "protocol/redis_reply.h"
#include "protocol/redis_request.h"

namespace rowsocket {

// What string commands met, for INFO's keyspace_hits and keyspace_misses.
struct RedisKeyCounts {
  uint64_t hits = 0, misses = 0;
};

class RedisStrings {
 public:
  // `hashes`: what the hash keys among a command's keys are.
  RedisStrings(RowRequests* rows, RedisHashes* hashes) : rows_(rows), hashes_(hashes) {}
  RedisStrings(const RedisStrings&) = delete;
  RedisStrings& operator=(const RedisStrings&) = delete;

  // Runs `argv` (a string or key command of the table; its arity checked) on
  // `container`'s open indexes (`insert`: null unless the command writes) and
  // writes its reply. `max_value`: the longest value a command may make
  // (proto-max-bulk-len: rowsocket_max_line_length).
  void Run(const RedisCommandInfo& info, const std::vector<std::string_view>& argv,
           const KvContainer& container, OpenIndex* lookup, OpenIndex* insert,
           uint64_t max_value, RedisReplyWriter* w, RedisKeyCounts* counts);

  // The container's live keys, and how many of them have an expiry (DBSIZE, INFO).
  // A command of several rows (MSET, DEL, a MULTI's EXEC) is all or nothing: between
  // BeginAll and EndAll each row it changes is recorded, and if a change failed (a
  // storage error, a row another transaction holds) or `undo` says so, EndAll puts
  // the rows changed back, so the command had no effect (the batch core runs it
  // again after a lock). True if nothing was put back.
  void BeginAll();
  bool EndAll(bool undo);
  // Whether a change failed since BeginAll (a command's own error does not count),
  // and that failure's error reply. (BeginAll and EndAll cover the hash rows the
  // command changes too: RedisHashes::BeginAll.)
  bool failed() const { return undo_.failed() || hashes_->failed(); }
  const std::string& failure() const {
    return !undo_.failure().empty() ? undo_.failure() : hashes_->failure();
  }

  // Whether the string `key` of `container` is live (a hash command's key of no hash
  // container: -WRONGTYPE if it is); false on an error, answered to `w`.
  bool Holds(const KvContainer& container, OpenIndex* lookup, std::string_view key,
             RedisReplyWriter* w, bool* live);

  // One step of SCAN: at most `count` rows of `keys_index` (an open index whose first
  // column is the key column, on the key index: the insert index) in key order, from
  // the key after `*after` (from the first when `from_start`); with a MATCH of a
  // literal prefix, from that prefix and only while keys begin with it. The live keys
  // that match go to *keys; *last is the last key examined, and *done says the
  // index's end (or the prefix's) was reached.
  EngineStatus Scan(const KvContainer& container, OpenIndex* lookup, OpenIndex* keys_index,
                    bool from_start, const std::string& after, const RedisScanOptions& options,
                    std::vector<std::string>* keys, std::string* last, bool* done);

  // Deletes every row of the container (FLUSHDB), within rowsocket_max_rows_examined.
  EngineStatus DeleteAll(OpenIndex* lookup, uint64_t* deleted);

  EngineStatus CountKeys(const KvContainer& container, OpenIndex* lookup, uint64_t* keys,
                         uint64_t* with_expiry);

 private:
  enum class Found : uint8_t { kMissing, kExpired, kPresent };
  struct Item {
    Found found = Found::kMissing;
    std::string value;
    uint64_t cas = 0;
    uint32_t flags = 0;
    int64_t expires = 0;  // unix seconds, 0: never
    bool live() const { return found == Found::kPresent; }
    bool has_row() const { return found != Found::kMissing; }
  };

  void Begin(const KvContainer& container, OpenIndex* lookup, OpenIndex* insert);
  bool Check(const std::vector<std::string_view>& argv, const RedisCommandInfo& info);
  bool Read(std::string_view key, Item* item, bool quiet = false);
  // Read, or for a hash key whether its row exists (as a live item of no expiry).
  bool ReadKey(std::string_view key, Item* item);
  void ItemOfRow(Item* item);
  // The value of the row in record[0] unless it has expired (false), as ItemOfRow
  // reads it but not copied: valid until the next row is read.
  bool LiveValueOfRow(std::string_view* value);
  // (As the memcached listener: an item is expired from its expiry's second on.)
  bool Expired(int64_t expires) const { return expires != 0 && expires * 1000 <= now_ms_; }
  // A hit's value or a miss's nil, counted.
  void AnswerValue(const Item& item);
  // GET's read_ gives its value's storage back past kKeptReadBytes, MGET's in_keys_
  // theirs past kKeptReadKeys keys.
  void KeepReadItem();
  void KeepInKeys();
  bool Write(std::string_view key, Item* item);
  // Writes `item` as the row of `key` whatever the row held, without reading it first
  // (outside MULTI: no earlier image to record).
  bool Overwrite(std::string_view key, Item* item);
  // values_: the row's columns of `item` (the key first for an insert).
  void ValuesOf(std::string_view key, const Item& item, bool insert);
  // The update of the row of `key` to values_ (without the key); *matched: the rows
  // it found (0 or 1).
  bool UpdateRow(std::string_view key, uint64_t* matched = nullptr);
  // The insert of values_ (with the key); false with *duplicate, unanswered, where
  // another transaction has the key.
  bool InsertRow(bool* duplicate);
  bool WriteExpiry(std::string_view key, int64_t expires);
  bool Delete(std::string_view key);
  bool Fail(const EngineStatus& status);
  // A change (or its find) that failed: answered, and recorded as failed (EndAll).
  bool Failed(const RowResult& row) { return !row.status.ok() && !FailChange(row.status); }
  bool FailChange(const EngineStatus& status);
  // Records the row of `key` as it is before a change (between BeginAll and EndAll).
  bool Record(std::string_view key);
  // Puts a recorded row back: its value, CAS, flags and expiry, or no row.
  bool Restore(const std::string& key, const Item& before);
  bool Error(std::string_view text);

  void Get(std::string_view key, bool del);
  void Set(const std::vector<std::string_view>& argv);
  void SetNx(std::string_view key, std::string_view value);
  void SetEx(const std::vector<std::string_view>& argv);
  void GetSet(std::string_view key, std::string_view value);
  void GetEx(const std::vector<std::string_view>& argv);
  void MGet(const std::vector<std::string_view>& argv);
  void MSet(const std::vector<std::string_view>& argv, bool nx);
  void Append(std::string_view key, std::string_view tail);
  void StrLen(std::string_view key);
  void GetRange(const std::vector<std::string_view>& argv);
  void IncrBy(std::string_view key, int64_t delta);
  void IncrByText(std::string_view key, std::string_view delta, bool negate);
  void IncrByFloat(std::string_view key, std::string_view delta);
  void Del(const std::vector<std::string_view>& argv);
  void Exists(const std::vector<std::string_view>& argv);
  void Type(std::string_view key);
  void Expire(const std::vector<std::string_view>& argv, bool ms, bool absolute);
  void Ttl(std::string_view key, bool ms);
  void Persist(std::string_view key);
  void DbSize();
  // The expiry column's value for an absolute time in ms: rounded up to a second,
  // at most the largest an INT UNSIGNED holds (2106); false (answered) when the
  // container keeps no expiry.
  bool ExpiryOf(int64_t at_ms, int64_t* expires);

  RowRequests* rows_;
  RedisHashes* hashes_;
  const KvContainer* container_ = nullptr;
  OpenIndex* lookup_ = nullptr;
  OpenIndex* insert_ = nullptr;
  Field* key_column_ = nullptr;
  // The positions of the CAS, flags and expiry columns in the lookup index (after
  // the value column), -1 where the container has none.
  int cas_at_ = -1, flags_at_ = -1, expires_at_ = -1;
  RedisReplyWriter* w_ = nullptr;
  RedisKeyCounts* counts_ = nullptr;
  uint64_t max_value_ = 0;
  int64_t now_ms_ = 0;
  ScanSpec spec_;
  RowChange change_;
  std::vector<RowValue> values_;
  String scratch_;
  std::string text_;  // a value or number written
  // GET's item, whose value keeps its storage from one request to the next up to
  // kKeptReadBytes; MGET's keys of the IN list, up to kKeptReadKeys.
  static constexpr size_t kKeptReadBytes = 64 * 1024;
  static constexpr size_t kKeptReadKeys = 256;
  Item read_;
  std::vector<size_t> in_keys_;  // MGET's keys of the IN list, by their argument
  // The rows the running command of several rows changed, as they were before.
  struct Recorded {
    std::string key;
    Item before;
  };
  RedisUndoLog<Recorded> undo_;
};

}  // namespace rowsocket
