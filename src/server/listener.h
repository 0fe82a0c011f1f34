// Listener: one listening TCP socket (the read or the write port), the facts every
// connection accepted on it shares (read-only or not, its secret, TLS), and what its
// workers serve together: the table of its connections and their wake-ups.
//
// With the epoll loop every worker of a listener waits on the same epoll set, where
// each connection is registered once, edge-triggered. A readiness reaches one worker,
// which owns the connection if it is free (ClientConnection::Acquire) and serves it in
// its next turn: a connection is served by whichever worker is free, and a worker's
// turn takes every connection that is ready, whichever worker served it last. With
// io_uring each worker has its own ring and serves the connections it accepted; the
// listener gives each worker its own wake-up for durable answers (wake_fd). Which connections exist,
// when they are freed and who holds answers that wait for a log flush is the
// ConnectionTable's business (connection_table.h).
//
// Opened and closed by Server on the plugin's thread; everything else may be called
// from any thread while workers run.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "seam/config.h"
#include "seam/listener_figures.h"
#include "server/connection_table.h"
#include "server/event_loop.h"
#include "server/run_gate.h"

namespace rowsocket {

class TlsContext;

class Listener {
 public:
  // epoll user data of the set's three non-connection fds.
  static void* const kAcceptTag;
  static void* const kStopTag;
  static void* const kDurableTag;

  // `workers`: how many workers will serve it, the last `spares` of them spare
  // workers (RunGate); `io`: their loop.
  Listener(const char* name, bool read_only, AuthMode auth, std::string secret, size_t workers,
           WireProtocol protocol = WireProtocol::kHandlerSocket, IoLoop io = IoLoop::kEpoll,
           size_t spares = 0);
  ~Listener();  // closes the connections left, then the sockets
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  // Binds and listens on address:port (numeric or service name; IPv4 or IPv6) and
  // makes the epoll set. Returns false and sets *error on failure.
  bool Open(const std::string& address, const std::string& port, int backlog,
            std::string* error);
  void Close();

  int fd() const { return fd_; }
  int epoll_fd() const { return epoll_fd_; }
  int stop_fd() const { return stop_fd_; }
  // io_uring: worker `slot`'s eventfd, written when a batch becomes durable or a
  // connection is handed to it.
  int wake_fd(size_t slot) const { return wake_fds_[slot]; }

  // io_uring: a connection one worker accepted for worker `slot`, which serves fewer
  // (any thread); the worker takes it in its next turn.
  void HandOff(size_t slot, const Accepted& accepted);
  bool TakeHandedOff(size_t slot, Accepted* accepted);
  // Connections handed to worker `slot` and not taken yet.
  uint32_t handed_off(size_t slot) const {
    return inboxes_[slot].size.load(std::memory_order_relaxed);
  }
  // io_uring: worker `slot` runs a batch (it may wait for a lock for seconds, and
  // the connections handed to it with it); a no-op with epoll.
  void BatchRunning(size_t slot, bool running) {
    if (inboxes_) inboxes_[slot].batch_running.store(running, std::memory_order_relaxed);
  }
  bool batch_running(size_t slot) const {
    return inboxes_[slot].batch_running.load(std::memory_order_relaxed);
  }
  const char* name() const { return name_; }
  bool read_only() const { return read_only_; }
  AuthMode auth() const { return auth_; }
  WireProtocol protocol() const { return protocol_; }
  const std::string& secret() const { return secret_; }
  // Every worker it has, spares (RunGate) included.
  size_t workers() const { return workers_; }
  // Which of its workers take turns (its spares ask it).
  RunGate& gate() { return gate_; }
  const RunGate& gate() const { return gate_; }

  // TLS for its connections: `tls` (null: TLS is off) and the tunables that say
  // whether plain text is refused. Before workers start; both outlive the listener.
  void UseTls(const TlsContext* tls, const ServerTunables* tunables) {
    tls_ = tls;
    tunables_ = tunables;
  }
  const TlsContext* tls() const { return tls_; }
  bool requires_tls() const {
    return tunables_ != nullptr &&
           tunables_->require_secure_transport.load(std::memory_order_relaxed);
  }
  // Connections whose TLS handshake completed and that are not closed yet.
  void TlsOpened() { tls_open_.fetch_add(1, std::memory_order_relaxed); }
  void TlsClosed() { tls_open_.fetch_sub(1, std::memory_order_relaxed); }
  uint32_t tls_open() const { return tls_open_.load(std::memory_order_relaxed); }
  // The listener's connections (valid once Open succeeded).
  ConnectionTable& connections() { return *connections_; }
  const ConnectionTable& connections() const { return *connections_; }

  // Arms the listening socket again after accepting.
  void ArmAccept();
  // accept() failed for lack of descriptors (or memory): the listening socket stays
  // unarmed for a pause, 100 ms doubling up to 3.2 s while accepting keeps failing,
  // instead of failing again at once. Returns the pause in milliseconds, or 0 when
  // accepting is paused already (another worker met the same failure).
  uint64_t PauseAccept(uint64_t now_ms);
  // A connection was accepted: the next pause is short again.
  void AcceptSucceeded() {
    if (accept_pause_ms_.load(std::memory_order_relaxed) != 0)
      accept_pause_ms_.store(0, std::memory_order_relaxed);
  }
  // Any worker, every loop turn: arms the listening socket once its pause is over.
  void ResumeAcceptIfDue(uint64_t now_ms);
  // Accepting is paused at `now_ms` (io_uring workers arm their accepts themselves).
  bool AcceptPaused(uint64_t now_ms) const {
    return now_ms < accept_resume_ms_.load(std::memory_order_acquire);
  }
  // A worker's counters, for Figures(): each of its workers before it starts.
  void AddWorkerStats(const WorkerStats* stats) { worker_stats_.push_back(stats); }
  // Its workers' counters summed, its connections (when `with_connections`), where
  // it listens and since when (listener_figures.cc; any thread once workers run).
  ListenerFigures Figures(bool with_connections) const;
  // memcached's `stats reset`: the counters Figures() reports restart from zero
  // (what is open now, uptime and the workers' own counters are untouched).
  void ResetFigures();
  // Every worker's next wait returns kStopTag (any thread).
  void RequestStop();
  // A batch became durable (any thread): workers waiting for a flush
  // (ConnectionTable::WaitForDurable) wake up; unless one did (epoll), one worker's
  // next wait returns kDurableTag (io_uring: every worker's wake_fd is written).
  // Wake-ups that arrive before a worker takes them are one.
  void WakeForDurable();
  // The worker that took kDurableTag: lets later wake-ups through again.
  void TakeDurableWake();

 private:
  const char* name_;
  bool read_only_;
  AuthMode auth_;
  std::string secret_;
  WireProtocol protocol_;
  const size_t workers_;
  const size_t spares_;
  const IoLoop io_;
  const TlsContext* tls_ = nullptr;
  const ServerTunables* tunables_ = nullptr;
  std::atomic<uint32_t> tls_open_{0};
  int fd_ = -1;
  int epoll_fd_ = -1;
  int stop_fd_ = -1;     // eventfd, level-triggered, never drained
  int durable_fd_ = -1;  // eventfd, one-shot
  std::vector<int> wake_fds_;  // io_uring: an eventfd per worker, read by its ring
  struct Inbox {
    std::mutex mutex;
    std::vector<Accepted> accepted;
    std::atomic<uint32_t> size{0};
    std::atomic<bool> batch_running{false};
  };
  std::unique_ptr<Inbox[]> inboxes_;  // io_uring: per worker, see HandOff
  RunGate gate_;
  std::atomic<bool> durable_wake_pending_{false};
  std::atomic<uint64_t> accept_resume_ms_{0};  // 0: accepting is not paused
  std::atomic<uint64_t> accept_pause_ms_{0};   // the last pause, 0 after a success
  std::unique_ptr<ConnectionTable> connections_;  // made by Open, with the epoll set
  std::vector<const WorkerStats*> worker_stats_;  // its workers', before they start
  std::string address_, port_;                    // set by Open
  uint64_t opened_unix_ = 0;
  // What the counters held at the last ResetFigures(), subtracted by Figures().
  mutable std::mutex figures_mutex_;
  StatsSnapshot figures_base_;  // guarded by figures_mutex_
  McCounts memcached_base_;     // guarded by figures_mutex_
};

}  // namespace rowsocket
