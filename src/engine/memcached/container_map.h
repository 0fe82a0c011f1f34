// What every key-value protocol (memcached, Redis) shares of the container mapping
// (key_value.h): reading a container's row of rowsocket.containers, and binding a
// connection's lookup and insert indexes of a container. Runs on a worker thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "engine/core/worker_engine.h"
#include "engine/memcached/key_value.h"

namespace rowsocket {

// The container `name` as rowsocket.containers maps it now (a read of its row in a
// transaction of its own, row_lookup.h): false if it names none (or the table cannot
// be opened: then *opened, if given, is false). `default` is rowsocket.kv unless the
// mapping says otherwise.
bool ReadContainerMapping(THD* thd, std::string_view name, KvContainer* container,
                          bool* opened = nullptr);

// The container mapping as a listener's workers read it, shared by them. Each worker
// keeps what it read for a second; a read that finds a mapping other than the last
// read of the same name, or of the same row, found (changed, added, deleted) moves
// the generation on, and every worker's copies of an older generation are stale:
// once one worker has answered with a new mapping, no worker answers with the old
// one. Reads run one at a time, so that the last read is the newest. Thread-safe.
class ContainerMappingReads {
 public:
  // How long a worker's copy of a mapping serves before it is read again.
  static constexpr uint64_t kMaxAgeMs = 1000;
  // The generation now: a copy read in an older one is stale.
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
  // Whether a copy read at `read_ms` in `generation` still serves at `now_ms`.
  bool Fresh(uint64_t read_ms, uint64_t generation, uint64_t now_ms) const {
    return now_ms - read_ms < kMaxAgeMs && generation == this->generation();
  }
  // ReadContainerMapping of `name`; *generation: the generation of what it read.
  bool Read(THD* thd, std::string_view name, KvContainer* container, uint64_t* generation);

 private:
  static constexpr size_t kMaxNames = 1024;  // then they start again empty (a new generation)
  std::mutex mutex_;
  std::atomic<uint64_t> generation_{1};
  // What the last read of each name found, under the name read and the row's own.
  std::unordered_map<std::string, std::optional<KvContainer>> last_read_;
};

// Binds `binding` to `container`: its lookup, insert and value indexes on the unique index
// of its key column (on a system-versioned table the server adds the end of the
// row's period to every unique key: a find of the key skips history rows). What the
// binding had opened before is retired (a step of this batch may still use it).
EngineStatus BindContainerIndexes(WorkerEngine* engine, ContainerBinding* binding,
                                  const KvContainer& container);

// The lock-order plan of a command of one key (protocol_handler.h, TouchesOneRow)
// on a container: it touches at most that key's row, in an order that cannot show,
// where the key index is its key column alone (not a system-versioned table's,
// whose unique keys end with the row's period), no column it writes (`written`: its
// write index, null for a read) is part of a unique key (it could take a unique
// value another command also wants), and an insert takes no AUTO_INCREMENT value
// (those follow the order in which inserts run).
bool KvTouchesOneRow(const OpenIndex* lookup, const OpenIndex* written, bool inserts);
// That row's key image (CopyRowKey).
bool KvCopyRowKey(std::string_view row_key, OpenIndex* lookup, uchar* out);

}  // namespace rowsocket
