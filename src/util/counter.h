// Counter: a count that one thread adds to and any thread reads, without a locked
// read-modify-write on the hot path (a relaxed load and store). Two threads must not
// add to the same Counter.
#pragma once

#include <atomic>
#include <cstdint>

namespace rowsocket {

class Counter {
 public:
  void Add(uint64_t n = 1) {
    value_.store(value_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  uint64_t Get() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

}  // namespace rowsocket
