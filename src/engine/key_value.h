// KeyValue: memcached's commands on a container's table (rowsocket_memcached_port).
//
// A container keeps memcached's items as rows: a key column (its primary key), a
// value column, and the item's CAS, client flags and expiry time. The default
// container is the table rowsocket.kv:
//
//   k VARBINARY(250) PRIMARY KEY, v MEDIUMBLOB NOT NULL,
//   cas BIGINT UNSIGNED NOT NULL, flags INT UNSIGNED NOT NULL,
//   expires INT UNSIGNED NOT NULL          (0: never; else a unix time)
//
// Each command runs as the HandlerSocket requests it amounts to — a find of the key
// (which locks the row in a write batch), then an update, insert or delete — on two
// open indexes of the container (`lookup`: v, cas, flags, expires; `insert`: k and the
// same), inside the running batch's transaction. So a memcached write obeys every rule
// a HandlerSocket write does (sql_mode, binlog, durability before the answer), and a
// read-modify-write (cas, append, incr) is atomic: the row stays locked until the
// batch commits. An expired item is a miss; the write that meets it replaces or
// deletes it. Every write gives the item a new CAS, unique across the server's life
// (a counter that starts at the time the plugin loaded, in microseconds); a change
// made by SQL keeps the CAS unless SQL sets it.
//
// One per executor, used on its worker's thread, with the batch's tables locked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/open_index.h"
#include "engine/row_requests.h"
#include "protocol/answer.h"
#include "protocol/memcached.h"
#include "protocol/memcached_response.h"

namespace rowsocket {

// The default container's table and the columns its two open indexes name.
struct KvContainer {
  static constexpr const char* kDb = "rowsocket";
  static constexpr const char* kTable = "kv";
  static constexpr const char* kLookupColumns = "v,cas,flags,expires";
  static constexpr const char* kInsertColumns = "k,v,cas,flags,expires";
};

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
  std::string error;          // kError: the answer line (CLIENT_ERROR ..., SERVER_ERROR ...)
  McStatus status = McStatus::kOk;  // kError: the binary status
};

class KeyValue {
 public:
  explicit KeyValue(RowRequests* rows) : rows_(rows) {}
  KeyValue(const KeyValue&) = delete;
  KeyValue& operator=(const KeyValue&) = delete;

  // Runs `mc` (a command with keys) on the container's two open indexes.
  void Run(const McRequest& mc, OpenIndex* lookup, OpenIndex* insert, KvResult* result);

  // A new CAS (any thread).
  static uint64_t NextCas();

 private:
  enum class Found { kMissing, kExpired, kPresent };
  struct ItemNumbers {
    WireValue cas, flags, expires;
  };
  ItemNumbers Numbers(const KvItem& item);
  void FindKey(std::string_view key);
  Found Read(std::string_view key, OpenIndex* lookup, KvItem* item, KvResult* result);
  // Writes value, cas, flags and expiry of the row of `key` (which exists).
  bool Update(std::string_view key, const KvItem& item, OpenIndex* lookup, KvResult* result);
  bool Insert(std::string_view key, const KvItem& item, OpenIndex* insert, KvResult* result,
              bool* duplicate);
  bool Delete(std::string_view key, OpenIndex* lookup, KvResult* result);
  bool Failed(const RowResult& row, KvResult* result);

  void Retrieve(const McRequest& mc, OpenIndex* lookup, KvResult* result);
  void Store(const McRequest& mc, OpenIndex* lookup, OpenIndex* insert, KvResult* result);
  void Arithmetic(const McRequest& mc, OpenIndex* lookup, OpenIndex* insert, KvResult* result);
  void Touch(const McRequest& mc, OpenIndex* lookup, KvResult* result);
  void Remove(const McRequest& mc, OpenIndex* lookup, KvResult* result);

  RowRequests* rows_;
  Request request_;      // the HandlerSocket request a step amounts to
  std::string answer_;   // its answer
  Answer parsed_;
  std::string numbers_;  // text of the numbers a write stores
};

// The answer to `mc` (in its framing, unless its noreply silences it).
void WriteKvAnswer(const McRequest& mc, const KvResult& result, std::string* out);

// memcached's exptime as a unix time: 0 never; up to 30 days, seconds from `now`;
// more, a unix time already; negative, already expired.
int64_t KvExpiry(int64_t exptime, int64_t now);

}  // namespace rowsocket
