// KvFlushes: memcached's delayed flush_all (`flush_all <delay>`, binary Flush with
// an expiry), per container, shared by the memcached listener's workers.
//
// A flush scheduled for unix time `at` takes effect when a command on its container,
// or the sweeping worker, first sees that time come: it takes a CAS then
// (KeyValue::NextCas), and every item of the container whose CAS is below it — every
// item written before that moment, and any row SQL wrote without a new CAS — is
// flushed: a miss to reads, replaced by writes as an expired item is. The memcached
// listener's first worker then deletes those rows (MemcachedHandler::CarryOutFlushes)
// and ends the flush once one pass over the table has deleted them all. A container
// without a CAS column cannot tell older items from newer ones: while its flush is in
// effect every item is a miss, and the pass deletes every row it meets.
//
// Kept in memory only: a restart or UNINSTALL forgets pending flushes and those in
// effect (the rows not yet deleted are items again). Thread-safe; a container with no
// flush costs one relaxed load.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rowsocket {

class KvFlushes {
 public:
  // `container`'s items flush at unix time `at`; replaces a pending flush (one already
  // in effect goes on until its rows are deleted).
  void Schedule(const std::string& container, int64_t at);
  // A flush without a delay: the pending one, if any, is dropped.
  void CancelPending(const std::string& container);
  // The CAS below which `container`'s items are flushed at unix time `now`; 0: none.
  uint64_t FlushedBelow(const std::string& container, int64_t now);
  // The containers with a flush in effect at `now`, and the CAS of each.
  void InEffect(int64_t now, std::vector<std::pair<std::string, uint64_t>>* out);
  // Every row of `container` flushed below `below` is deleted (or the flush is given
  // up): that flush ends, unless another has taken effect since.
  void Done(const std::string& container, uint64_t below);

 private:
  struct Entry {
    int64_t at = 0;      // pending: the unix time it takes effect; 0: none
    uint64_t below = 0;  // in effect: items whose CAS is below it are flushed; 0: none
  };
  // `e` at `now`: a pending flush whose time has come takes effect.
  static void Advance(Entry* e, int64_t now);

  std::mutex mutex_;
  std::atomic<size_t> size_{0};  // flushes_.size(), read without the mutex
  std::unordered_map<std::string, Entry> flushes_;
};

}  // namespace rowsocket
