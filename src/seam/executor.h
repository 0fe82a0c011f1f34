// The seam between the server layer (sockets, event loops, batching) and the
// engine layer (MariaDB). The server knows nothing of tables; it hands every batch
// of parsed requests to an Executor and sends what the Executor wrote.
//
// Threading: each worker thread creates its own Executor through the
// ExecutorFactory on that thread, uses it only there, and destroys it there. A
// ConnectionSession belongs to a connection, which any worker of its listener may
// serve: it is used by one executor at a time, and may be destroyed on any
// worker's thread (the last worker of a stopping listener destroys those left,
// before its Executor).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "protocol/parsed_request.h"
#include "seam/config.h"
#include "seam/listener_figures.h"
#include "seam/stats.h"

namespace rowsocket {

// A connection's session with the engine: what the executor keeps of it (the index
// ids its `P` requests bound, its protocol's state: opaque to the server) and what
// both sides read — its peer, its refused logins and, on a listener with account
// logins, who logged in.
class ConnectionSession {
 public:
  virtual ~ConnectionSession() = default;
  // Index ids bound on this connection; written by the worker, read by
  // information_schema.ROWSOCKET_CONNECTIONS from any thread.
  Counter open_indexes;

  // Set by the server before the connection's first request: its peer's IP address
  // (accounts are matched against it), whether its listener wants account logins
  // (`A` types 2 to 4 reach the executor), and whether it speaks TLS (kept current
  // by the server).
  std::string peer_address;
  bool account_logins = false;
  bool tls = false;
  // The logins refused on this connection so far, counted by the executor (account
  // logins) or the connection (a wrong `A 1` secret); the server delays the answers
  // and ends the connection by them (login_policy.h).
  uint32_t failed_logins = 0;

  // Account logins: the executor marks the connection logged in (or out again);
  // `account` names the account as `user@host` while it is logged in (any thread).
  bool logged_in() const { return logged_in_.load(std::memory_order_acquire); }
  void SetAccount(std::string account) {
    std::lock_guard<std::mutex> lock(account_mutex_);
    account_ = std::move(account);
    logged_in_.store(!account_.empty(), std::memory_order_release);
  }
  std::string account() const {
    std::lock_guard<std::mutex> lock(account_mutex_);
    return account_;
  }

 private:
  std::atomic<bool> logged_in_{false};
  mutable std::mutex account_mutex_;
  std::string account_;
};

// One request of a batch, and where its answer goes.
struct BatchItem {
  ConnectionSession* session;  // the connection's
  WireProtocol protocol;       // what its connection speaks: the type of `request`
  // The parsed request, of its protocol's own type (derived from ParsedRequest; only
  // that protocol's code casts it back). An invalid one carries its error.
  ParsedRequest* request;
  std::string* out;            // the connection's output buffer; append the answer
  // Backpressure: once `out` holds `out_limit` bytes or more (its client has not
  // read rowsocket_max_output_buffer of answers), the executor leaves this item and
  // every later item of the same connection unanswered and sets `deferred`; the
  // server executes them in a later batch, once the client has read.
  size_t out_limit = SIZE_MAX;
  bool deferred = false;
  // Set with `deferred` on the first deferred item of a connection whose request
  // met a row or table lock (the executor never waits for one): the server offers
  // its items again after this many milliseconds, not at once.
  uint32_t retry_ms = 0;
};

// Told when a worker's thread waits inside a batch (a page read from disk, a log
// write the commit waits for), so that another worker of its listener may serve
// meanwhile (run_gate.h). Called on the waiting worker's thread, in pairs.
class WaitObserver {
 public:
  virtual ~WaitObserver() = default;
  virtual void WaitBegan() = 0;
  virtual void WaitEnded() = 0;
};

// Describes the worker an executor serves.
struct WorkerInfo {
  int index;               // 0-based across all workers
  int slot;                // 0-based among its listener's workers
  bool read_only;          // serves the read listener
  const char* listener;    // "read" or "write", for logs and process lists
  WorkerStats* stats;      // the worker's counters; the executor adds its own
  // Makes a worker of the listener release the answers whose batches are durable
  // (Durable()); callable from any thread.
  std::function<void()> wake;
  // The figures of the worker's listener (its workers' counters summed, and its
  // connections when `with_connections`); callable from the worker's thread.
  std::function<ListenerFigures(bool with_connections)> listener_figures;
  // Resets the figures of the worker's listener (a protocol's `stats reset`);
  // callable from any thread.
  std::function<void()> reset_listener_figures;
  // What the listener's clients speak: a ProtocolModule makes handlers for the
  // workers whose protocol it serves.
  WireProtocol protocol = WireProtocol::kHandlerSocket;
  // Told of the worker's waits inside a batch; null: nobody is told.
  WaitObserver* waits = nullptr;
  // A spare worker (RunGate): it takes turns only while others wait.
  bool spare = false;
};

class Executor {
 public:
  virtual ~Executor() = default;

  virtual std::unique_ptr<ConnectionSession> NewSession() = 0;

  // Executes items[0..count) and appends exactly one answer per item to its
  // `out`, in item order, except for deferred items (see BatchItem::out_limit), which
  // get none. A connection's items are consecutive. Each item is prepared, run and
  // answered by the handler of its protocol: an invalid request is answered with
  // its error; a login logs an account in where the connection's listener wants
  // account logins, and is answered with success otherwise (the server has
  // checked a shared secret already).
  // A request that meets a lock held by another transaction is deferred with a
  // `retry_ms` (with every later item of its connection), so that the other
  // connections of the batch never wait for it; the executor answers its lock
  // error itself once the request has waited its lock wait timeout.
  // Returns 0 when the answers may leave at once, or a ticket: the batch's writes
  // are committed but not yet durable, and its answers (and any appended after
  // them) must wait until Durable() reaches the ticket; `wake` is called then.
  virtual uint64_t Execute(BatchItem* items, size_t count) = 0;
  // The latest ticket whose batch is durable. Tickets only grow.
  virtual uint64_t Durable() = 0;
  // The latest ticket the log flush now under way makes durable; 0 while none is.
  virtual uint64_t Flushing() { return 0; }

  // Called after every loop turn and at least every few tens of milliseconds while
  // idle: release tables that DDL is waiting for, close idle tables.
  virtual void Tick() = 0;
  // Whether Tick has work to do on a worker that runs no batch for a while (a
  // parked spare worker): it holds tables open.
  virtual bool HasPeriodicWork() { return true; }

  // True once the server is shutting down (or this worker was killed for good):
  // the worker should close its connections and exit.
  virtual bool ShouldStop() = 0;

  // Called from another thread while the server layer stops (UNINSTALL PLUGIN):
  // ends the running batch, if any, as KILL QUERY does (a lock wait ends at once,
  // the batch's remaining requests answer `1 1 killed`, what committed stays), and
  // makes ShouldStop() true. Safe at any point of the executor's life.
  virtual void Interrupt() = 0;
};

class ExecutorFactory {
 public:
  virtual ~ExecutorFactory() = default;
  // Runs on the worker thread. Returns null if the worker cannot start (logged).
  virtual std::unique_ptr<Executor> Create(const WorkerInfo& info) = 0;
};

}  // namespace rowsocket
