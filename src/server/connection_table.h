// ConnectionTable: the connections of one listener and the rules of their lifetime.
// It is the only code that lists, closes, retires and frees a connection, that parks
// connections whose answers wait for a log flush, and that walks the idle ones. Owned
// by the Listener; used by the listener's workers, by Server (information_schema) and
// by the flusher's wake-ups, each through its own methods.
//
// The rules, written once:
//  1. A connection is listed (Add) before its worker's event loop watches its socket,
//     and it leaves the list (Close) before its socket is closed: whoever walks the
//     list under its lock (the idle sweep, information_schema) never meets a closed
//     descriptor.
//  2. Only a connection's owner (ClientConnection::Acquire) closes it; the last worker of a
//     stopping listener closes those left (CloseAll), after every other worker has
//     gone and before its executor goes (sessions belong to executors).
//  3. A closed connection is retired, not freed: a worker may still hold a pointer to
//     it from an event it took before the close (its buffers go at the close,
//     ClientConnection::FreeClosed; what is retired is the little a stale pointer
//     touches). Before every wait each worker
//     says it holds none from earlier waits (EnterWait); a retired connection is freed
//     once every serving worker has done so since it was retired (epochs: every
//     retirement advances the table's epoch, every EnterWait publishes the epoch it
//     saw). A worker out of its loop holds none.
//  4. A connection whose answers wait for their batch's log flush stays owned and sits
//     on the held list (Hold). Whichever worker finds its batches durable takes it off
//     (TakeDurable) and owns it from then on — any worker for a connection of the
//     epoll loop, its home worker for one of io_uring. Every wake-up of the flusher is noted
//     (NoteDurable); a worker waits for one (WaitForDurable) up to a deadline: a
//     stopping worker to release what is still held, a write turn's for its flush.
//     A connection whose answers wait for a deadline (a refused login,
//     login_policy.h) sits on the delayed list the same way (Delay), until a worker
//     that may serve it finds the deadline passed (TakeDelayed).
//  5. The input every connection holds (unfinished lines above all) is counted
//     against the listener's budget: its owner charges it after every change
//     (ChargeInput), and Close uncharges it.
//  6. The idle sweep runs once a second at most, on whichever worker comes first
//     (SweepDue), and touches only free connections, each claimed for the moment
//     (ForEachIdle).
//
// Thread-safety: every method may be called on any thread. The list, the held list
// and the retired list each have a private mutex, never held together.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

#include "seam/connection_info.h"

namespace rowsocket {

class ClientConnection;

class ConnectionTable {
 public:
  // `workers`: how many workers serve it (numbered 0 .. workers-1 in EnterWait and
  // LeaveLoop).
  explicit ConnectionTable(size_t workers);
  ~ConnectionTable();  // closes the connections left (workers have gone)
  ConnectionTable(const ConnectionTable&) = delete;
  ConnectionTable& operator=(const ConnectionTable&) = delete;

  // --- Lifetime ---------------------------------------------------------------

  // Counts one more connection if fewer than `limit` are open; false if the limit is
  // reached. A counted connection must be added (Add) next.
  bool Admit(uint32_t limit);
  // Lists `connection` (admitted); the caller owns it and has its loop watch it.
  ClientConnection* Add(std::unique_ptr<ClientConnection> connection);
  // Closes a connection its caller owns: off the list, socket closed (which takes it
  // out of an epoll set), uncounted, retired (freed later, see rule 3).
  void Close(ClientConnection* c);
  // The last worker of a stopping listener: closes and frees every connection left.
  void CloseAll();
  // Connections open now (admitted and not closed).
  uint32_t open() const { return open_.load(std::memory_order_relaxed); }
  // Listed connections whose home is worker `worker` (io_uring).
  uint32_t homed(size_t worker) const { return homed_[worker].load(std::memory_order_relaxed); }

  // The caller owns `c`: counts its input buffer as it is now.
  void ChargeInput(ClientConnection* c);
  // Input all listed connections hold, as last charged (bytes).
  size_t input_bytes() const { return input_bytes_.load(std::memory_order_relaxed); }

  // A worker's executor exists (it may own connections); WorkerStopped: it has gone,
  // true for the last one, which must CloseAll before its executor goes.
  void WorkerStarted() { running_.fetch_add(1, std::memory_order_acq_rel); }
  bool WorkerStopped() { return running_.fetch_sub(1, std::memory_order_acq_rel) == 1; }

  // Worker `worker` holds no connection pointer taken from an earlier wait: frees
  // the retired connections that no worker can reach any more.
  void EnterWait(size_t worker);
  // Worker `worker` left its loop: it holds no pointer from any wait.
  void LeaveLoop(size_t worker);

  // --- Answers that wait for their batch's log flush -----------------------------

  // Parks connections whose answers wait (each owned by the caller; it lets go of
  // them here: they are owned by the held list until taken).
  void Hold(ClientConnection* const* connections, size_t count);
  // Takes off the held list each connection whose held answers are all durable at
  // `durable` and that worker `home` may serve (ClientConnection::home: -1 or
  // `home`); the caller owns them from now on.
  void TakeDurable(uint64_t durable, int home, std::vector<ClientConnection*>* taken);
  // Any thread: a batch has become durable. True if a worker was waiting for it
  // (WaitForDurable): that worker releases what is durable once it wakes.
  bool NoteDurable();
  // How many batches have been noted durable so far (a count for WaitForDurable).
  uint64_t DurableNotes() const;
  // Waits until a batch becomes durable after `seen` was read
  // (DurableNotes), until nothing is held, or until `deadline`. True if something is
  // held and may be released now.
  bool WaitForDurable(uint64_t seen, std::chrono::steady_clock::time_point deadline);

  // --- Answers that wait for a deadline (a refused login, login_policy.h) ----------

  // Parks a connection whose answers wait until its delayed_until() (owned by the
  // caller, which lets go of it here: it is owned by the delayed list until taken).
  void Delay(ClientConnection* c);
  // Takes off the delayed list each connection whose deadline is `now_ms` or
  // earlier and that worker `home` may serve; the caller owns them from now on.
  void TakeDelayed(uint64_t now_ms, int home, std::vector<ClientConnection*>* taken);

  // --- Idle connections ----------------------------------------------------------

  // True for one caller once a second at most: the worker that should sweep now.
  bool SweepDue(uint64_t now_ms);
  // Calls visit(c, idle_ms) for every free connection that `wants` (given what any
  // thread may read of it: its times, admitted()), claimed for the call (it may trim
  // the buffers or shut the socket down; closing is left to the worker that then
  // sees the end).
  void ForEachIdle(uint64_t now_ms,
                   const std::function<bool(const ClientConnection&, uint64_t idle_ms)>& wants,
                   const std::function<void(ClientConnection*, uint64_t idle_ms)>& visit);

  // Appends a description of every listed connection (information_schema).
  void Describe(uint64_t now_ms, std::vector<ConnectionInfo>* out) const;

 private:
  struct Retired {
    uint64_t epoch;
    std::unique_ptr<ClientConnection> connection;
  };
  static constexpr uint64_t kNotWaiting = std::numeric_limits<uint64_t>::max();
  void FreeRetired();
  void Unlist(ClientConnection* c, std::unique_ptr<ClientConnection>* owned);

  std::atomic<uint32_t> open_{0};
  std::atomic<size_t> input_bytes_{0};

  mutable std::mutex list_mutex_;
  std::vector<std::unique_ptr<ClientConnection>> list_;  // ClientConnection::table_slot_ indexes it

  mutable std::mutex held_mutex_;
  std::condition_variable durable_cv_;
  std::vector<ClientConnection*> held_;
  uint64_t durable_notes_ = 0;
  int durable_waiters_ = 0;  // workers in WaitForDurable

  std::mutex delayed_mutex_;
  std::vector<ClientConnection*> delayed_;
  std::atomic<size_t> delayed_count_{0};

  std::mutex retired_mutex_;
  std::vector<Retired> retired_;
  std::atomic<size_t> retired_count_{0};
  std::atomic<uint64_t> epoch_{1};  // advanced by every retirement
  // Per worker: the epoch seen by its last EnterWait; kNotWaiting outside its loop.
  std::unique_ptr<std::atomic<uint64_t>[]> waiting_epoch_;
  const size_t workers_;
  std::atomic<int> running_{0};  // workers with an executor
  std::unique_ptr<std::atomic<uint32_t>[]> homed_;  // per worker, see homed()

  std::atomic<uint64_t> last_sweep_ms_{0};
};

}  // namespace rowsocket
