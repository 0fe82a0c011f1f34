// Worker: one event-loop thread serving many connections of one listener.
//
// Each loop turn: wait for events (epoll), accept new connections, read from every
// readable connection once, parse every complete line, hand all requests of the
// turn to the Executor as ONE batch, then write every connection's answers. The
// batch is what makes rowsocket cheap per request: one table lock, one statement or
// transaction, one write per connection for many requests.
//
// Started and stopped by Server (plugin thread); everything else runs on the
// worker's own thread. Stop() is thread-safe.
#pragma once

#include <atomic>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/config.h"
#include "server/connection.h"
#include "server/executor.h"

namespace rowsocket {

class Listener;

class Worker {
 public:
  Worker(const WorkerInfo& info, Listener* listener, ExecutorFactory* factory,
         const ServerConfig& config, ServerTunables* tunables);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Starts the thread and waits until its database thread is set up, so that a
  // worker that cannot start fails INSTALL PLUGIN instead of vanishing.
  bool Start(std::string* error);
  // Asks the loop to finish its batch, close its connections and exit.
  void Stop();
  void Join();

  // Connections this worker holds now (any thread may read it).
  size_t connection_count() const { return connection_count_.load(std::memory_order_relaxed); }
  // The same plus those passed on to it that it has not taken over yet.
  size_t load() const { return connection_count() + adopting_.load(std::memory_order_relaxed); }
  // Passes an accepted connection on to this worker (any thread).
  void Adopt(int fd, std::string peer);
  const WorkerStats& stats() const { return stats_; }
  // Appends a description of every connection (any thread).
  void DescribeConnections(std::vector<ConnectionInfo>* out) const;
  bool read_only() const { return info_.read_only; }

 private:
  void Run();
  void Loop(Executor* executor);
  void Accept(Executor* executor);
  void AddConnection(int fd, std::string peer, Executor* executor);
  Worker* LeastLoaded();
  void AdoptConnections(Executor* executor);
  void CloseInbox();
  void RecordLatency(Connection* c, uint64_t micros);
  void CloseConnection(Connection* c);
  void ServeTurn(Executor* executor, Connection** ready, size_t count);
  bool SendAnswers(Connection* c);
  void ReleaseDurable(Executor* executor);
  WorkerInfo WithWorker(WorkerInfo info);
  void TakeRequests(Connection* c, uint32_t max_line, uint64_t now_ms);
  void GatherWhilePeerExecutes(uint32_t max_line);
  void WakeGatheringPeers();
  void Wake();       // any thread: makes the loop (or a gathering turn) look up
  void DrainWake();
  void WatchOutput(Connection* c, bool on);
  void SweepConnections(uint64_t now_ms);

  WorkerStats stats_;
  const WorkerInfo info_;
  Listener* listener_;
  ExecutorFactory* factory_;
  const ServerConfig& config_;
  ServerTunables* tunables_;

  std::thread thread_;
  std::promise<bool> started_;  // set by Run once the executor exists (or failed)
  int epoll_fd_ = -1;
  int wake_fd_ = -1;          // eventfd: Stop() and Adopt() write to it
  std::atomic<bool> stop_{false};
  std::atomic<size_t> connection_count_{0};

  // Connections other workers accepted for this one (Adopt).
  struct Adoptee {
    int fd;
    std::string peer;
  };
  std::mutex inbox_mutex_;
  std::vector<Adoptee> inbox_;
  std::atomic<size_t> adopting_{0};
  uint64_t turn_ = 0;                      // counts ServeTurn calls
  std::atomic<bool> gathering_{false};     // in GatherWhilePeerExecutes
  bool wake_pending_ = false;
  bool flushes_elsewhere_ = false;         // the last write batch left its flush to the engine

  // Guards the list (not the connections' work): the worker changes it on accept and
  // close; information_schema reads it from other threads.
  mutable std::mutex connections_mutex_;
  std::vector<std::unique_ptr<Connection>> connections_;
  std::vector<char> read_buffer_;          // every read lands here first
  std::vector<BatchItem> batch_;           // reused every turn
  std::vector<Connection*> answered_;      // connections with answers this turn
  std::vector<Connection*> held_;          // with answers waiting for durability
  std::vector<Connection*> released_;      // reused by ReleaseDurable
  uint64_t last_sweep_ms_ = 0;
};

}  // namespace rowsocket
