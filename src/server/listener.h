// Listener: one listening TCP socket (the read or the write port), the facts every
// connection accepted on it shares (read-only or not, its secret, its limit), and
// what its workers serve together: the connections and one epoll set.
//
// Every worker of a listener waits on the same epoll set, where each connection is
// registered once, edge-triggered. A readiness reaches one worker, which owns the
// connection if it is free (Connection::Acquire) and serves it in its next turn: a
// connection is served by whichever worker is free, and a worker's turn takes every
// connection that is ready, whichever worker served it last. A connection whose
// answers wait for their batch's log flush stays owned (on `held`) until whichever
// worker the flush wakes releases them.
//
// A closed connection is freed only once every worker has come back to its wait
// since: until then a worker may still hold an event that points to it.
//
// Opened and closed by Server on the plugin's thread. The lists are guarded by
// their mutexes; everything else is immutable or atomic while workers run.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace rowsocket {

class Connection;
class Worker;

class Listener {
 public:
  // epoll user data of the set's three non-connection fds.
  static void* const kAcceptTag;
  static void* const kStopTag;
  static void* const kDurableTag;

  Listener(const char* name, bool read_only, std::string secret);
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
  const char* name() const { return name_; }
  bool read_only() const { return read_only_; }
  const std::string& secret() const { return secret_; }
  const std::string& port() const { return port_; }

  // Arms the listening socket again after accepting.
  void ArmAccept();
  // Every worker's next wait returns kStopTag (any thread).
  void RequestStop();
  // One worker's next wait returns kDurableTag (any thread); wake-ups that arrive
  // before that worker takes it are one.
  void WakeForDurable();
  // The worker that took kDurableTag: lets later wake-ups through again.
  void TakeDurableWake();

  // Connections currently open on this listener (for the per-listener limit),
  // counted from the moment they are accepted.
  std::atomic<uint32_t> connections{0};

  // Every connection, for lifetime, information_schema and the idle sweep. A
  // connection leaves the list (under the mutex) before its socket is closed.
  std::mutex connections_mutex;
  std::vector<std::unique_ptr<Connection>> connection_list;

  // Connections whose answers wait for their batch's log flush.
  std::mutex held_mutex;
  std::vector<Connection*> held;

  // Closed connections not freed yet, with the epoch they were closed in.
  struct Retired {
    uint64_t epoch;
    std::unique_ptr<Connection> connection;
  };
  std::mutex retired_mutex;
  std::vector<Retired> retired;
  std::atomic<uint64_t> epoch{1};           // advanced by every retirement
  std::atomic<size_t> retired_count{0};

  // The listener's workers, set by Server before any of them starts.
  std::vector<Worker*> workers;
  std::atomic<int> running_workers{0};
  std::atomic<uint64_t> last_sweep_ms{0};  // the worker that moves it sweeps

 private:
  const char* name_;
  bool read_only_;
  std::string secret_;
  std::string port_;
  int fd_ = -1;
  int epoll_fd_ = -1;
  int stop_fd_ = -1;     // eventfd, level-triggered, never drained
  int durable_fd_ = -1;  // eventfd, one-shot
  std::atomic<bool> durable_wake_pending_{false};
};

}  // namespace rowsocket
