// Unit tests of the ConnectionTable's rules: admission against the limit, deferred
// freeing of closed connections (epochs), the held list and the stopping workers'
// wait for durable answers, and the idle walk. Socketpairs stand in for clients; no
// MariaDB involved.
#include "server/connection_table.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <deque>
#include <memory>
#include <thread>
#include <vector>

#include "server/client_connection.h"
#include "server/listener.h"

namespace rowsocket {
namespace {

// Bindings that say when they are destroyed, i.e. when its connection is freed.
class WatchedBindings : public ConnectionSession {
 public:
  explicit WatchedBindings(bool* freed) : freed_(freed) {}
  ~WatchedBindings() override { *freed_ = true; }

 private:
  bool* freed_;
};

class ConnectionTableTest : public ::testing::Test {
 protected:
  void TearDown() override {
    table_.reset();
    for (int fd : clients_) ::close(fd);
  }
  void MakeTable(size_t workers) { table_ = std::make_unique<ConnectionTable>(workers); }

  // Admits and adds a connection; *freed (which outlives the table) becomes true
  // when it is freed.
  ClientConnection* Connect(bool** freed) {
    flags_.push_back(false);
    *freed = &flags_.back();
    int fds[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds), 0);
    clients_.push_back(fds[0]);
    EXPECT_TRUE(table_->Admit(100));
    auto c = std::make_unique<ClientConnection>(fds[1], 1, "test", &listener_,
                                          std::make_unique<WatchedBindings>(*freed), &stats_, 0);
    return table_->Add(std::move(c));
  }

  std::deque<bool> flags_;
  Listener listener_{"write", false, AuthMode::kNone, "", 1};
  WorkerStats stats_;
  std::unique_ptr<ConnectionTable> table_;
  std::vector<int> clients_;
};

TEST_F(ConnectionTableTest, admission_stops_at_the_limit_and_a_close_makes_room) {
  MakeTable(1);
  bool* freed = nullptr;
  ClientConnection* c = Connect(&freed);
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(table_->Admit(2));
  EXPECT_FALSE(table_->Admit(2));
  EXPECT_EQ(table_->open(), 2u);
  table_->Close(c);
  EXPECT_EQ(table_->open(), 1u);
  EXPECT_TRUE(table_->Admit(2));
}

// A worker may still hold an event that points to a connection another worker
// closed: the connection is freed only once every serving worker has come back to
// its wait since the close.
TEST_F(ConnectionTableTest, a_closed_connection_is_freed_once_every_worker_came_back_to_its_wait) {
  MakeTable(2);
  table_->EnterWait(0);
  table_->EnterWait(1);
  bool* freed = nullptr;
  ClientConnection* c = Connect(&freed);
  ASSERT_NE(c, nullptr);
  table_->Close(c);
  EXPECT_EQ(table_->open(), 0u);
  EXPECT_FALSE(*freed);
  table_->EnterWait(0);
  EXPECT_FALSE(*freed);  // worker 1 may still hold it
  table_->EnterWait(1);
  EXPECT_TRUE(*freed);
}

TEST_F(ConnectionTableTest, a_worker_out_of_its_loop_does_not_hold_up_freeing) {
  MakeTable(2);
  table_->EnterWait(1);
  table_->LeaveLoop(1);
  bool* freed = nullptr;
  table_->Close(Connect(&freed));
  table_->EnterWait(0);
  EXPECT_TRUE(*freed);
}

TEST_F(ConnectionTableTest, close_all_frees_listed_and_retired_connections) {
  MakeTable(1);
  table_->EnterWait(0);
  bool* listed = nullptr;
  bool* retired = nullptr;
  Connect(&listed);
  table_->Close(Connect(&retired));
  EXPECT_FALSE(*retired);
  table_->CloseAll();
  EXPECT_TRUE(*listed);
  EXPECT_TRUE(*retired);
  EXPECT_EQ(table_->open(), 0u);
}

TEST_F(ConnectionTableTest, held_connections_are_taken_once_all_their_batches_are_durable) {
  MakeTable(1);
  bool* freed = nullptr;
  ClientConnection* c = Connect(&freed);
  c->output()->append("0\t1\n");
  c->HoldOutput(5, 0, 0, 0);
  c->output()->append("0\t1\n");
  c->HoldOutput(7, 4, 0, 0);
  table_->Hold(&c, 1);
  std::vector<ClientConnection*> taken;
  table_->TakeDurable(6, -1, &taken);
  EXPECT_TRUE(taken.empty());
  table_->TakeDurable(7, -1, &taken);
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0], c);
  taken.clear();
  table_->TakeDurable(8, -1, &taken);  // taken once only
  EXPECT_TRUE(taken.empty());
}

// io_uring: a connection belongs to the ring that accepted it; only its home worker
// takes it off the held list (epoll connections, home -1, go to any worker).
TEST_F(ConnectionTableTest, held_connections_with_a_home_are_taken_by_their_home_worker_only) {
  MakeTable(2);
  bool* freed = nullptr;
  ClientConnection* c = Connect(&freed);
  c->SetHome(1);
  c->output()->append("0\t1\n");
  c->HoldOutput(5, 0, 0, 0);
  table_->Hold(&c, 1);
  std::vector<ClientConnection*> taken;
  table_->TakeDurable(5, 0, &taken);
  EXPECT_TRUE(taken.empty());
  table_->TakeDurable(5, 1, &taken);
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0], c);
}

// Shutdown: a stopping worker waits for a batch to become durable, not for a clock;
// with nothing held it does not wait at all.
TEST_F(ConnectionTableTest, a_stopping_worker_waits_for_a_durable_batch_not_for_the_deadline) {
  MakeTable(1);
  const auto far = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  EXPECT_FALSE(table_->WaitForDurable(table_->DurableNotes(), far));  // nothing held

  bool* freed = nullptr;
  ClientConnection* c = Connect(&freed);
  c->output()->append("0\t1\n");
  c->HoldOutput(3, 0, 0, 0);
  table_->Hold(&c, 1);
  const uint64_t seen = table_->DurableNotes();
  std::thread flusher([this] { table_->NoteDurable(); });
  EXPECT_TRUE(table_->WaitForDurable(seen, far));  // returns long before `far`
  flusher.join();

  // A deadline that has passed ends the wait although something is held.
  EXPECT_FALSE(table_->WaitForDurable(table_->DurableNotes(), std::chrono::steady_clock::now()));
  // With no worker waiting, a durable batch is nobody's to release yet.
  EXPECT_FALSE(table_->NoteDurable());
}

TEST_F(ConnectionTableTest, the_idle_walk_visits_only_free_connections_it_wants) {
  MakeTable(1);
  bool* freed_a = nullptr;
  bool* freed_b = nullptr;
  ClientConnection* a = Connect(&freed_a);
  ClientConnection* b = Connect(&freed_b);
  ASSERT_TRUE(a->Release());  // free
  // b stays owned by the worker that accepted it.
  std::vector<ClientConnection*> visited;
  table_->ForEachIdle(
      5000, [](const ClientConnection&, uint64_t idle_ms) { return idle_ms >= 1000; },
      [&](ClientConnection* c, uint64_t idle_ms) {
        EXPECT_EQ(idle_ms, 5000u);
        EXPECT_FALSE(c->Claim());  // claimed for the call
        visited.push_back(c);
      });
  ASSERT_EQ(visited.size(), 1u);
  EXPECT_EQ(visited[0], a);
  EXPECT_TRUE(a->Acquire());  // free again after the walk
  EXPECT_FALSE(b->Claim());
}

TEST_F(ConnectionTableTest, delayed_connections_are_taken_once_their_deadline_has_passed) {
  MakeTable(2);
  bool* freed_a = nullptr;
  bool* freed_b = nullptr;
  ClientConnection* a = Connect(&freed_a);
  ClientConnection* b = Connect(&freed_b);
  a->DelayOutput(100);
  b->DelayOutput(300);
  b->SetHome(1);
  table_->Delay(a);
  table_->Delay(b);
  std::vector<ClientConnection*> taken;
  table_->TakeDelayed(99, 0, &taken);
  EXPECT_TRUE(taken.empty());
  table_->TakeDelayed(300, 0, &taken);  // b's home is worker 1
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0], a);
  taken.clear();
  table_->TakeDelayed(300, 1, &taken);
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0], b);
  taken.clear();
  table_->TakeDelayed(1000, 1, &taken);
  EXPECT_TRUE(taken.empty());  // taken once
}

TEST_F(ConnectionTableTest, the_sweep_is_due_once_a_second) {
  MakeTable(2);
  EXPECT_TRUE(table_->SweepDue(10000));
  EXPECT_FALSE(table_->SweepDue(10500));
  EXPECT_TRUE(table_->SweepDue(11000));
}

}  // namespace
}  // namespace rowsocket
