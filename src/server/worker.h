// Worker: one event-loop thread serving the connections of one listener, together
// with the listener's other workers.
//
// The loop: wait (through its EventLoop, epoll or io_uring: event_loop.h); take every
// connection that is ready and free (it is this worker's until it lets go, see
// client_connection.h); serve them in one turn; release answers that became durable;
// accept; sweep idle connections now and then. The turn: read from each connection once, parse every complete line, hand
// all requests of the turn to the Executor as ONE batch, then write every
// connection's answers and let it go. The batch is what makes rowsocket cheap per
// request: one table lock, one statement or transaction, one write per connection
// for many requests. Which connections exist and when they are freed is the
// listener's ConnectionTable's business.
//
// Started by Server (plugin thread), stopped through its listener
// (Listener::RequestStop); everything else runs on the worker's own thread.
#pragma once

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <vector>

#include "seam/config.h"
#include "server/client_connection.h"
#include "server/event_loop.h"
#include "server/run_gate.h"
#include "seam/executor.h"

namespace rowsocket {

class ConnectionTable;
class Listener;

class Worker {
 public:
  // `slot`: this worker's number among its listener's workers (0-based).
  Worker(const WorkerInfo& info, Listener* listener, size_t slot, ExecutorFactory* factory,
         const ServerConfig& config, ServerTunables* tunables);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Starts the thread and waits until its database thread is set up, so that a
  // worker that cannot start fails INSTALL PLUGIN instead of vanishing.
  bool Start(std::string* error);
  // Ends the batch the worker is running (Executor::Interrupt), from any thread; for
  // a stop, after the listener was asked to stop. False once the worker has let go
  // of its executor (it is about to exit, or never started).
  bool Interrupt();
  void Join();

  const WorkerStats& stats() const { return stats_; }

 private:
  void Run();
  void Loop(Executor* executor);
  void DrainHeld(Executor* executor);
  void ReleaseAsFlushesEnd(Executor* executor, uint64_t ticket,
                           std::chrono::steady_clock::time_point deadline);
  bool MakeLoop();
  void Accept(Executor* executor);
  void AddConnection(int fd, const sockaddr_storage& peer, Executor* executor);
  void Own(ClientConnection* c);
  void ServeTurn(Executor* executor, ClientConnection** ready, size_t count);
  void WaitForFlush(Executor* executor, uint64_t ticket);
  void TakeRequests(ClientConnection* c, uint32_t max_line, size_t max_unsent, uint64_t now_ms);
  void Finish(ClientConnection* c);
  void Park(ClientConnection* c, uint64_t due_ms);
  int WaitTimeout(uint64_t now_ms) const;
  void TakeDueParked(uint64_t now_ms, std::vector<ClientConnection*>* candidates);
  void LetGo(ClientConnection* c);
  void Close(ClientConnection* c);
  void ReleaseDurable(Executor* executor);
  void ReleaseDelayed(uint64_t now_ms);
  void AfterRefusedLogin(ClientConnection* c, uint64_t now_ms);
  void SweepConnections(uint64_t now_ms);
  WorkerInfo WithWorker(WorkerInfo info, Listener* listener);

  // The worker's waits inside a batch, counted, then told to its listener's gate.
  class CountedWaits final : public WaitObserver {
   public:
    CountedWaits(WorkerStats* stats, RunGate* gate) : stats_(stats), gate_(gate) {}
    void WaitBegan() override {
      stats_->worker_waits.Add();
      gate_->WaitBegan();
    }
    void WaitEnded() override { gate_->WaitEnded(); }

   private:
    WorkerStats* stats_;
    RunGate* gate_;
  };

  WorkerStats stats_;
  CountedWaits waits_;
  const WorkerInfo info_;
  Listener* listener_;
  ConnectionTable* connections_;  // the listener's
  const size_t slot_;
  ExecutorFactory* factory_;
  const ServerConfig& config_;
  ServerTunables* tunables_;

  std::thread thread_;
  std::mutex executor_mutex_;        // guards executor_ against Interrupt
  Executor* executor_ = nullptr;     // while Run's executor exists
  std::promise<bool> started_;  // set by Run once the executor exists (or failed)
  bool stopping_ = false;       // the listener asked its workers to stop

  std::unique_ptr<EventLoop> loop_;        // made and destroyed on the worker's thread
  std::vector<BatchItem> batch_;           // reused every turn
  struct TurnEntry {
    ClientConnection* connection;
    size_t first_item;                     // its requests: batch_[first_item, +items)
    size_t items;
    uint32_t failed_logins;                // its refused logins before this turn
  };
  std::vector<TurnEntry> turn_;            // connections with requests this turn
  std::vector<ClientConnection*> holding_;       // this turn's, whose answers wait for durability
  std::vector<ClientConnection*> released_;      // reused by ReleaseDurable
  // Connections this worker owns and serves again next turn: readiness arrived while
  // it owned them, or input may wait unread (a full read, answers that were stuck).
  std::vector<ClientConnection*> again_;
  // Connections this worker owns whose first unanswered request met a lock: served
  // again once `due_ms` (steady clock) has come, each wait a few milliseconds.
  struct ParkedConnection {
    ClientConnection* connection;
    uint64_t due_ms;
  };
  std::vector<ParkedConnection> parked_;
};

}  // namespace rowsocket
