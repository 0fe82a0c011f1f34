// Operations and where they come from: the workload side of rowsocket-bench.
//
// An Op is one request to send: what kind, which key(s), and when it was sent. An
// OpSource turns Options (workload, key distribution, write share) into a stream of
// Ops; each client thread owns one, seeded differently, so key choice needs no lock.
// Fresh keys (inserts) and the delete pool come from a KeyPool shared by all threads,
// so no key is inserted or deleted twice in one run.
//
// Protocol adapters (hs_protocol.cc, memcached_protocol.cc, sql_connection.cc) turn
// an Op into bytes and check the reply against it; they know the data model through
// the helpers at the end of this file.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>

#include "options.h"

namespace bench {

enum class OpKind : uint8_t { kGet, kIndexGet, kRange, kInsert, kUpdate, kDelete };

struct Op {
  OpKind kind = OpKind::kGet;
  uint32_t nkeys = 1;        // kGet: keys in keys[]
  uint64_t key = 0;          // first key; kIndexGet: the name group; kRange: start
  uint64_t stamp = 0;        // kUpdate: makes every new value different
  int64_t sent_ns = 0;       // when the request was put on the wire
  uint64_t keys[kMaxKeysPerRequest];

  // Units of work this op stands for: keys looked up for a get, else 1.
  uint32_t weight() const { return kind == OpKind::kGet ? nkeys : 1; }
};

// Hands out consecutive keys to all threads; thread-safe (one atomic).
class KeyPool {
 public:
  KeyPool(uint64_t first, uint64_t count) : next_(first), end_(count ? first + count : UINT64_MAX) {}
  // The next key, or 0 when the pool is used up.
  uint64_t Take() {
    uint64_t k = next_.fetch_add(1, std::memory_order_relaxed);
    return k < end_ ? k : 0;
  }
  bool exhausted() const { return next_.load(std::memory_order_relaxed) >= end_; }
  // The first key not handed out yet (every key below it was handed out).
  uint64_t next() const {
    uint64_t n = next_.load(std::memory_order_relaxed);
    return n < end_ ? n : end_;
  }

 private:
  std::atomic<uint64_t> next_;
  const uint64_t end_;
};

// Zipf over ranks 0..n-1 (Gray et al.'s method, as YCSB uses), scrambled over the
// key space by a hash so hot keys are not neighbours. Construction is O(n); build
// one and copy it into each thread.
class Zipf {
 public:
  Zipf() = default;
  Zipf(uint64_t n, double theta);
  // Rank in 0..n-1 for a uniform u in [0,1).
  uint64_t Rank(double u) const;

 private:
  uint64_t n_ = 1;
  double theta_ = 0.99, alpha_ = 0, zetan_ = 1, eta_ = 0, half_pow_theta_ = 0;
};

class OpSource {
 public:
  OpSource(const Options& options, const Zipf& zipf, KeyPool* pool, uint64_t seed);

  // Fills `*op` with the next request. Returns false when the key pool is used up
  // (insert and delete workloads with a bounded pool): nothing more to send.
  bool Next(Op* op);

 private:
  uint64_t Pick(uint64_t n);  // a key in 1..n by the configured distribution

  const Options& options_;
  Zipf zipf_;
  KeyPool* pool_;
  std::mt19937_64 rng_;
  uint64_t stamp_ = 0;
};

// --- the data model (see options.h), in one place ----------------------------------

inline uint64_t NameGroupOf(uint64_t id) { return (id - 1) / kRowsPerName; }
// Number of name groups over rows 1..rows, and rows in group g.
inline uint64_t NameGroups(uint64_t rows) { return (rows + kRowsPerName - 1) / kRowsPerName; }
inline uint64_t RowsInGroup(uint64_t g, uint64_t rows) {
  uint64_t first = g * kRowsPerName + 1;
  return first > rows ? 0 : std::min<uint64_t>(kRowsPerName, rows - first + 1);
}

void AppendUint(std::string* out, uint64_t v);
// "user<group>"
void AppendUserName(std::string* out, uint64_t group);
// "user<id>@example.com", or "user<id>.<stamp>@example.com" after an update.
void AppendUserEmail(std::string* out, uint64_t id, uint64_t stamp);
// The fixed `created` value of generated rows.
constexpr const char* kCreated = "2010-02-03 11:22:33";
// The memcached value of row `id`: user_id TAB user_name TAB user_email TAB created.
void AppendMemcachedRow(std::string* out, uint64_t id, uint64_t stamp);
// The memcached key of row `id`, which is also its k in the key-value container: "u<id>".
void AppendItemKey(std::string* out, uint64_t id);
// The row id a memcached value starts with (its digits before the first separator),
// or 0 when it does not start with one.
uint64_t LeadingId(std::string_view value);

}  // namespace bench
