// KvFlushes: the delayed flush_all of each container (see kv_flushes.h).
#include "engine/memcached/kv_flushes.h"

#include "engine/memcached/key_value.h"

namespace rowsocket {

void KvFlushes::Advance(Entry* e, int64_t now) {
  if (e->at == 0 || now < e->at) return;
  // A later CAS covers every item an earlier flush still holds flushed.
  e->below = KeyValue::NextCas();
  e->at = 0;
}

void KvFlushes::Schedule(const std::string& container, int64_t at) {
  std::lock_guard<std::mutex> lock(mutex_);
  flushes_[container].at = at;
  size_.store(flushes_.size(), std::memory_order_relaxed);
}

void KvFlushes::CancelPending(const std::string& container) {
  if (size_.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = flushes_.find(container);
  if (it == flushes_.end()) return;
  it->second.at = 0;
  if (it->second.below == 0) flushes_.erase(it);
  size_.store(flushes_.size(), std::memory_order_relaxed);
}

uint64_t KvFlushes::FlushedBelow(const std::string& container, int64_t now) {
  if (size_.load(std::memory_order_relaxed) == 0) return 0;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = flushes_.find(container);
  if (it == flushes_.end()) return 0;
  Advance(&it->second, now);
  return it->second.below;
}

void KvFlushes::InEffect(int64_t now, std::vector<std::pair<std::string, uint64_t>>* out) {
  out->clear();
  if (size_.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [name, e] : flushes_) {
    Advance(&e, now);
    if (e.below != 0) out->emplace_back(name, e.below);
  }
}

void KvFlushes::Done(const std::string& container, uint64_t below) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = flushes_.find(container);
  if (it == flushes_.end() || it->second.below != below) return;
  it->second.below = 0;
  if (it->second.at == 0) flushes_.erase(it);
  size_.store(flushes_.size(), std::memory_order_relaxed);
}

}  // namespace rowsocket
