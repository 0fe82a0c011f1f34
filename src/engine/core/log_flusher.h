// LogFlusher: makes write batches durable in groups, off the workers' threads.
//
// Under innodb_flush_log_at_trx_commit=1 an InnoDB commit ends with a redo log
// write and fsync in the committing thread; a write worker waiting there serves
// none of its connections meanwhile, and two workers each pay a flush for their
// own batch. Instead, a worker whose batch only InnoDB wrote commits it in memory
// the way the binary log's group commit does (the engine's commit_ordered step,
// which leaves the flush to its caller), takes a ticket and goes on with its next
// batch. This thread then flushes InnoDB's log once for every commit made before
// the flush began, marks their tickets durable and calls their executors' wake-ups
// (a worker of the listener then sends the answers). The rows are visible to other transactions from the
// in-memory commit on, as with any InnoDB commit.
//
// Thread-safe. Tickets only grow; a worker's batch is durable once Durable() has
// reached its ticket.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/server_headers.h"
#include "engine/core/server_thread.h"

namespace rowsocket {

class LogFlusher {
 public:
  // Flushes `engine`'s log (its handlerton's flush_logs).
  explicit LogFlusher(handlerton* engine);
  ~LogFlusher();  // stops the thread; waits for a running flush
  LogFlusher(const LogFlusher&) = delete;
  LogFlusher& operator=(const LogFlusher&) = delete;

  handlerton* engine() const { return engine_; }
  // Starts the thread; false (logged) if it could not become a server thread.
  bool Start();

  // After commits that left their flush to this thread: returns their ticket. Once
  // it is durable, `wake` is called, on this thread; it must stay callable until
  // Forget(wake).
  uint64_t Request(const std::function<void()>* wake);
  // Every ticket up to this one is durable.
  uint64_t Durable() const { return durable_.load(std::memory_order_acquire); }
  // The latest ticket the flush under way makes durable; 0 while none is.
  uint64_t Flushing() const { return flushing_.load(std::memory_order_acquire); }
  // No more calls of `wake` after this returns.
  void Forget(const std::function<void()>* wake);

 private:
  void Run(ServerThread* thread);

  handlerton* const engine_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable requested_cv_;
  bool stop_ = false;                // asked to stop (destructor, server shutdown)
  bool stopped_ = false;             // the thread has gone
  uint64_t requested_ = 0;           // the latest ticket handed out
  std::atomic<uint64_t> durable_{0};
  std::atomic<uint64_t> flushing_{0};
  // Who waits: one entry per waker, with the oldest ticket it may still wait for
  // and its latest.
  struct Waiting {
    const std::function<void()>* wake;
    uint64_t oldest;
    uint64_t latest;
  };
  std::vector<Waiting> waiting_;
};

// The flusher of the one engine whose commits can leave their flush to it (InnoDB),
// started the first time a write worker needs it. Thread-safe.
class SharedLogFlusher {
 public:
  // Null if `engine` is not the flusher's, or the flusher could not start (then
  // commits flush their own log).
  LogFlusher* Get(handlerton* engine);
  // The flusher once a commit has started it, else null (no ticket exists yet).
  const LogFlusher* Started() const { return started_.load(std::memory_order_acquire); }

 private:
  std::mutex mutex_;
  std::unique_ptr<LogFlusher> flusher_;
  std::atomic<const LogFlusher*> started_{nullptr};
  bool failed_ = false;
};

}  // namespace rowsocket
