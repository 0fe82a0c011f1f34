// Unit tests of a listener's worker loop with a stand-in executor: backpressure
// (requests the executor defers are executed later, in order, while the client
// reads), requests that wait apart for a lock (offered again later while other
// clients are served), answers that wait for a log flush (held until it ends,
// without holding up the worker's other clients for long), and accept pausing
// when descriptors run out, with the error log not flooded. Real loopback sockets;
// no MariaDB involved.
#include "server/worker.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "protocol/request.h"
#include "server/listener.h"
#include "util/log.h"

namespace rowsocket {
namespace {

// Answers a find with `0 1 <key><padding>`; honours BatchItem::out_limit as the
// engine does; remembers the largest output it left behind. A find of key `locked`
// meets a lock until `released` is set: it and the later requests of its connection
// are deferred with a retry delay, as the engine defers a request that met a lock.
// A find of key `write` stands for a write: its batch's answers wait for the log
// flush of the next ticket; the test says which flush is under way and which
// tickets are durable.
class StandInExecutor : public Executor {
 public:
  StandInExecutor(size_t padding, std::atomic<size_t>* largest_output,
                  const std::atomic<bool>* released, std::atomic<int>* lock_tries,
                  std::atomic<uint64_t>* tickets, const std::atomic<uint64_t>* durable,
                  const std::atomic<uint64_t>* flushing)
      : padding_(padding), largest_output_(largest_output), released_(released),
        lock_tries_(lock_tries), tickets_(tickets), durable_(durable), flushing_(flushing) {}
  std::unique_ptr<ConnectionSession> NewSession() override {
    return std::make_unique<ConnectionSession>();
  }
  uint64_t Execute(BatchItem* items, size_t count) override {
    bool wrote = false;
    for (size_t i = 0; i < count; ++i) {
      BatchItem& item = items[i];
      if (i > 0 && items[i - 1].deferred && items[i - 1].session == item.session) {
        item.deferred = true;
        continue;
      }
      if (item.out->size() >= item.out_limit) {
        item.deferred = true;
        continue;
      }
      const Request& r = *static_cast<const Request*>(item.request);
      std::string key(r.key.empty() ? "" : r.key[0].view());
      if (key == "locked" && !released_->load()) {
        lock_tries_->fetch_add(1);
        item.deferred = true;
        item.retry_ms = 2;
        continue;
      }
      wrote = wrote || key == "write";
      item.out->append("0\t1\t" + key + std::string(padding_, 'v') + "\n");
      if (item.out->size() > largest_output_->load()) largest_output_->store(item.out->size());
    }
    return wrote ? tickets_->fetch_add(1) + 1 : 0;
  }
  uint64_t Durable() override { return durable_->load(); }
  uint64_t Flushing() override { return flushing_->load(); }
  void Tick() override {}
  bool ShouldStop() override { return false; }
  void Interrupt() override {}

 private:
  size_t padding_;
  std::atomic<size_t>* largest_output_;
  const std::atomic<bool>* released_;
  std::atomic<int>* lock_tries_;
  std::atomic<uint64_t>* tickets_;
  const std::atomic<uint64_t>* durable_;
  const std::atomic<uint64_t>* flushing_;
};

class StandInFactory : public ExecutorFactory {
 public:
  explicit StandInFactory(size_t padding) : padding_(padding) {}
  std::unique_ptr<Executor> Create(const WorkerInfo& info) override {
    wake = info.wake;
    return std::make_unique<StandInExecutor>(padding_, &largest_output, &released, &lock_tries,
                                             &tickets, &durable, &flushing);
  }
  // A log flush begins: it makes every ticket handed out so far durable.
  void BeginFlush() { flushing.store(tickets.load()); }
  // The flush under way ends.
  void EndFlush() {
    durable.store(flushing.load());
    flushing.store(0);
    wake();
  }
  // Waits until the executor has handed out `n` tickets.
  bool AwaitTickets(uint64_t n) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (tickets.load() < n && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    return tickets.load() == n;
  }
  std::atomic<size_t> largest_output{0};
  std::atomic<bool> released{false};  // the lock on key `locked` is gone
  std::atomic<int> lock_tries{0};     // finds of `locked` that met the lock
  std::atomic<uint64_t> tickets{0};   // write batches so far
  std::atomic<uint64_t> durable{0};
  std::atomic<uint64_t> flushing{0};  // the flush under way makes tickets up to it durable
  std::function<void()> wake;         // the worker's, set before it takes a turn

 private:
  size_t padding_;
};

std::atomic<int> g_accept_lines{0};
void CountingSink(LogLevel, const char* message) {
  if (std::strstr(message, "accept on") != nullptr) g_accept_lines.fetch_add(1);
}

class WorkerTest : public ::testing::Test {
 protected:
  void Start(size_t padding) {
    factory_ = std::make_unique<StandInFactory>(padding);
    std::string error;
    ASSERT_TRUE(listener_.Open("127.0.0.1", "0", 64, &error)) << error;
    sockaddr_in addr{};
    socklen_t len = sizeof addr;
    ASSERT_EQ(getsockname(listener_.fd(), reinterpret_cast<sockaddr*>(&addr), &len), 0);
    port_ = ntohs(addr.sin_port);
  }
  void RunWorker() {
    WorkerInfo info{0, 0, false, "write", nullptr, {}, {}, {}};
    worker_ = std::make_unique<Worker>(info, &listener_, 0, factory_.get(), config_, &tunables_);
    std::string error;
    ASSERT_TRUE(worker_->Start(&error)) << error;
  }
  void TearDown() override {
    listener_.RequestStop();
    if (worker_) worker_->Join();
    for (int fd : clients_) ::close(fd);
    SetLogSink(nullptr);
  }
  // A blocking client socket connected to the listener (-1 if none could be made).
  int Connect() {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port_);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval timeout{10, 0};  // a hang fails the test instead of stalling it
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    clients_.push_back(fd);
    return fd;
  }
  static void SendAll(int fd, const std::string& bytes) {
    ASSERT_EQ(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(bytes.size()));
  }
  // Reads until `n` answer lines have arrived (or the peer closed, or 10 s passed).
  static std::vector<std::string> ReadLines(int fd, size_t n) {
    std::vector<std::string> lines;
    std::string pending;
    char buf[65536];
    while (lines.size() < n) {
      ssize_t got = ::recv(fd, buf, sizeof buf, 0);
      if (got <= 0) break;
      pending.append(buf, static_cast<size_t>(got));
      size_t lf;
      while ((lf = pending.find('\n')) != std::string::npos) {
        lines.push_back(pending.substr(0, lf));
        pending.erase(0, lf + 1);
      }
    }
    return lines;
  }

  ServerConfig config_;
  ServerTunables tunables_;
  Listener listener_{"write", false, AuthMode::kNone, "", 1};
  std::unique_ptr<StandInFactory> factory_;
  std::unique_ptr<Worker> worker_;
  uint16_t port_ = 0;
  std::vector<int> clients_;
};

// 40 pipelined requests whose answers take 20 KB each, to a client that reads only
// later: the executor defers what passes the 64 KiB output limit, the worker runs it
// once the client has read, and every answer arrives, in order. The output never
// holds more than the limit plus one answer.
TEST_F(WorkerTest, deferred_requests_run_once_the_client_reads_and_answer_in_order) {
  constexpr size_t kPadding = 20000;
  constexpr size_t kRequests = 40;
  tunables_.max_output_buffer.store(64 * 1024);
  Start(kPadding);
  RunWorker();
  int fd = Connect();
  ASSERT_GE(fd, 0);
  std::string pipeline;
  for (size_t i = 0; i < kRequests; ++i) pipeline += "1\t=\t1\t" + std::to_string(i) + "\n";
  SendAll(fd, pipeline);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the client is slow
  std::vector<std::string> lines = ReadLines(fd, kRequests);
  ASSERT_EQ(lines.size(), kRequests);
  for (size_t i = 0; i < kRequests; ++i)
    EXPECT_EQ(lines[i], "0\t1\t" + std::to_string(i) + std::string(kPadding, 'v')) << i;
  listener_.RequestStop();
  worker_->Join();
  EXPECT_GT(worker_->stats().requests_deferred.Get(), 0u);
  EXPECT_LE(factory_->largest_output.load(), 64 * 1024 + kPadding + 64);
}

// A request that meets a lock is offered again later, without the client sending
// anything more; the requests it holds back stay behind it, in order; other clients
// are answered meanwhile; once the lock is gone it is answered. (The worker has one
// thread: had it waited for the lock, the other client would not be answered.)
TEST_F(WorkerTest, a_request_that_waits_for_a_lock_holds_up_only_its_own_connection) {
  Start(0);
  RunWorker();
  int waiting = Connect();
  int other = Connect();
  ASSERT_GE(waiting, 0);
  ASSERT_GE(other, 0);
  SendAll(waiting, "1\t=\t1\tlocked\n1\t=\t1\tafter\n");
  // Tried again by the worker alone (the client sends nothing more).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (factory_->lock_tries.load() < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_GE(factory_->lock_tries.load(), 2);
  for (int round = 0; round < 3; ++round) {
    SendAll(other, "1\t=\t1\tfree\n");
    EXPECT_EQ(ReadLines(other, 1), std::vector<std::string>{"0\t1\tfree"});
  }
  char byte;
  EXPECT_EQ(::recv(waiting, &byte, 1, MSG_DONTWAIT), -1) << "answered while locked";
  factory_->released.store(true);
  EXPECT_EQ(ReadLines(waiting, 2), (std::vector<std::string>{"0\t1\tlocked", "0\t1\tafter"}));
  listener_.RequestStop();
  worker_->Join();
  EXPECT_EQ(worker_->stats().requests_deferred.Get(), 0u);  // lock waits are not backpressure
}

// A write's answer waits for its log flush. A worker whose write turn committed
// while an earlier flush was under way waits for that flush a moment at most: if
// it does not end, the worker goes on serving its other clients, and their reads
// are answered. Every write is answered once its flush has ended, also when the
// flush it waits for ends during the wait.
TEST_F(WorkerTest, a_write_waiting_for_its_flush_holds_up_only_its_own_answer) {
  Start(0);
  RunWorker();
  int first = Connect();
  int second = Connect();
  int reader = Connect();
  ASSERT_GE(first, 0);
  ASSERT_GE(second, 0);
  ASSERT_GE(reader, 0);
  SendAll(first, "1\t=\t1\twrite\n");
  ASSERT_TRUE(factory_->AwaitTickets(1));
  factory_->BeginFlush();  // and it never ends, until the test says so
  SendAll(second, "1\t=\t1\twrite\n");
  ASSERT_TRUE(factory_->AwaitTickets(2));
  for (int round = 0; round < 3; ++round) {
    SendAll(reader, "1\t=\t1\tread\n");
    EXPECT_EQ(ReadLines(reader, 1), std::vector<std::string>{"0\t1\tread"});
  }
  char byte;
  EXPECT_EQ(::recv(first, &byte, 1, MSG_DONTWAIT), -1) << "answered before its flush";
  EXPECT_EQ(::recv(second, &byte, 1, MSG_DONTWAIT), -1) << "answered before its flush";
  factory_->EndFlush();
  EXPECT_EQ(ReadLines(first, 1), std::vector<std::string>{"0\t1\twrite"});
  EXPECT_EQ(::recv(second, &byte, 1, MSG_DONTWAIT), -1) << "answered before its flush";
  factory_->BeginFlush();
  factory_->EndFlush();
  EXPECT_EQ(ReadLines(second, 1), std::vector<std::string>{"0\t1\twrite"});

  // The flush under way ends while the worker waits for it.
  SendAll(first, "1\t=\t1\twrite\n");
  ASSERT_TRUE(factory_->AwaitTickets(3));
  factory_->BeginFlush();
  SendAll(second, "1\t=\t1\twrite\n");
  ASSERT_TRUE(factory_->AwaitTickets(4));
  factory_->EndFlush();
  EXPECT_EQ(ReadLines(first, 1), std::vector<std::string>{"0\t1\twrite"});
  factory_->BeginFlush();
  factory_->EndFlush();
  EXPECT_EQ(ReadLines(second, 1), std::vector<std::string>{"0\t1\twrite"});
}

// Descriptors run out while clients wait in the backlog: the worker stops accepting
// for a while instead of failing again at once, logs that a few times at most, and
// accepts the waiting clients once descriptors are free again.
TEST_F(WorkerTest, accepting_pauses_while_descriptors_run_out_and_resumes_after) {
  g_accept_lines.store(0);
  SetLogSink(CountingSink);
  Start(0);
  std::vector<int> waiting;
  for (int i = 0; i < 6; ++i) waiting.push_back(Connect());  // in the backlog
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &saved), 0);
  // Room for two more descriptors at most.
  int probe = dup(0);
  ASSERT_GE(probe, 0);
  ::close(probe);
  rlimit tight = saved;
  tight.rlim_cur = static_cast<rlim_t>(probe) + 2;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &tight), 0);
  RunWorker();
  for (int i = 0; i < 100 && worker_->stats().accept_pauses.Get() < 3; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const uint64_t pauses = worker_->stats().accept_pauses.Get();
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &saved), 0);
  EXPECT_GE(pauses, 2u);
  EXPECT_LT(worker_->stats().connections_total.Get(), waiting.size());
  // Every waiting client is served once descriptors are free again.
  for (size_t i = 0; i < waiting.size(); ++i) {
    SendAll(waiting[i], "1\t=\t1\t" + std::to_string(i) + "\n");
    std::vector<std::string> lines = ReadLines(waiting[i], 1);
    ASSERT_EQ(lines.size(), 1u) << i;
    EXPECT_EQ(lines[0], "0\t1\t" + std::to_string(i));
  }
  // Paused 100 ms, 200 ms, ...: a handful of failures in seconds, logged once a
  // second at most, where a busy loop fails (and logged) thousands of times.
  EXPECT_LE(pauses, 12u);
  EXPECT_LE(g_accept_lines.load(), 6);
}

}  // namespace
}  // namespace rowsocket
