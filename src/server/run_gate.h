// RunGate: which of a listener's workers take turns. Its workers proper
// (rowsocket_threads and the like) always do; its spare workers
// (rowsocket_spare_threads) only while as many others wait inside a batch — for a
// page read from disk most often — as MariaDB's thread pool starts another thread
// when one of its threads waits. On data that fits in memory nobody waits and the
// spares sleep; on data that does not, each worker that waits for the disk lets a
// spare serve the next connections, and their page reads are in flight together.
//
// Waits are told by the engine (WaitObserver, from the server's thd_wait_begin and
// thd_wait_end) on the waiting worker's thread; Admit and Leave are the spares' own
// calls, Stop any thread's. Only a spare that holds no connection parks (worker.cc),
// so a parked spare keeps nobody waiting.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>

#include "seam/executor.h"

namespace rowsocket {

class RunGate final : public WaitObserver {
 public:
  RunGate() = default;
  RunGate(const RunGate&) = delete;
  RunGate& operator=(const RunGate&) = delete;

  // A worker (base or spare) begins or ends a wait inside its batch.
  void WaitBegan() override {
    const int waiting = waiting_.fetch_add(1, std::memory_order_seq_cst) + 1;
    // A spare is woken only when one more may take turns than do now.
    if (parked_.load(std::memory_order_seq_cst) != 0 &&
        admitted_.load(std::memory_order_seq_cst) < waiting) {
      std::lock_guard<std::mutex> lock(mutex_);
      cv_.notify_one();
    }
  }
  void WaitEnded() override { waiting_.fetch_sub(1, std::memory_order_relaxed); }

  // A spare asks to take turns: true at once while fewer spares take turns than
  // workers wait, else after parking until that is so, false once `max_wait` has
  // passed without (the spare then does its periodic work and asks again). Stop
  // admits every spare.
  bool Admit(std::chrono::milliseconds max_wait) {
    if (TryAdmit()) return true;
    std::unique_lock<std::mutex> lock(mutex_);
    parked_.fetch_add(1, std::memory_order_seq_cst);
    const bool admitted = cv_.wait_for(lock, max_wait, [this] { return TryAdmit(); });
    parked_.fetch_sub(1, std::memory_order_relaxed);
    return admitted;
  }
  // An admitted spare is done taking turns for now (it holds no connection).
  void Leave() { admitted_.fetch_sub(1, std::memory_order_relaxed); }

  // The listener stops: spares wake and take turns, to see the stop.
  void Stop() {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_.store(true, std::memory_order_relaxed);
    cv_.notify_all();
  }

  // Workers waiting inside a batch now (a turn's share of the connections counts
  // them as workers that need others to serve for them: epoll_loop.cc).
  size_t waiting() const {
    const int n = waiting_.load(std::memory_order_relaxed);
    return n > 0 ? static_cast<size_t>(n) : 0;
  }

 private:
  bool TryAdmit() {
    if (stopping_.load(std::memory_order_relaxed)) {
      admitted_.fetch_add(1, std::memory_order_relaxed);
      return true;
    }
    int admitted = admitted_.load(std::memory_order_seq_cst);
    while (admitted < waiting_.load(std::memory_order_seq_cst)) {
      if (admitted_.compare_exchange_weak(admitted, admitted + 1, std::memory_order_seq_cst))
        return true;
    }
    return false;
  }

  std::atomic<int> waiting_{0};   // workers waiting inside a batch
  std::atomic<int> admitted_{0};  // spares taking turns
  std::atomic<int> parked_{0};    // spares parked in Admit
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::condition_variable cv_;
};

}  // namespace rowsocket
