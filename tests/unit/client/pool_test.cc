// Tests for Pool against scripted servers: routing, reuse of connections and their
// open indexes, backoff after refused connects, and the one retry reads get.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "fake_server.h"
#include "pool_fakes.h"
#include "rowsocket/pool.h"

namespace rowsocket {
namespace client {
namespace {

using testing::ClosedPort;
using testing::FakeServer;

PoolOptions Options(const FakeServer& reader, const FakeServer& writer) {
  PoolOptions o;
  o.readers.push_back({"127.0.0.1", reader.port()});
  o.writers.push_back({"127.0.0.1", writer.port()});
  return o;
}

TEST(Pool, reads_go_to_readers_and_writes_to_writers) {
  FakeServer reader(Answer), writer(Answer);
  Pool pool(Options(reader, writer));
  ASSERT_TRUE(pool.Find(kIdx, Query("=", {1})).ok());
  EXPECT_EQ(*pool.Insert(kIdx, {2}), 9u);
  EXPECT_EQ(*pool.Update(kIdx, Query("=", {2}), {3}), 1u);
  EXPECT_EQ(reader.lines().size(), 2u);  // P + find
  EXPECT_EQ(writer.lines().size(), 3u);  // P + insert + update
}

TEST(Pool, reads_use_writers_when_there_is_no_reader) {
  FakeServer writer(Answer);
  PoolOptions o;
  o.writers.push_back({"127.0.0.1", writer.port()});
  Pool pool(o);
  ASSERT_TRUE(pool.Find(kIdx, Query("=", {1})).ok());
  EXPECT_EQ(writer.lines().size(), 2u);
}

TEST(Pool, an_idle_connection_is_reused_with_its_open_indexes) {
  FakeServer reader(Answer), writer(Answer);
  Pool pool(Options(reader, writer));
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(pool.Find(kIdx, Query("=", {i})).ok());
  EXPECT_EQ(reader.connections(), 1);
  EXPECT_EQ(Count(reader.lines(), 'P'), 1u);
  EXPECT_EQ(pool.idle_connections(), 1u);
}

TEST(Pool, batches_with_writes_go_to_the_writer) {
  FakeServer reader(Answer), writer(Answer);
  Pool pool(Options(reader, writer));
  Batch reads, mixed;
  reads.Find(kIdx, Query("=", {1}));
  mixed.Find(kIdx, Query("=", {1}));
  mixed.Insert(kIdx, {1});
  EXPECT_TRUE(pool.Execute(reads).ok());
  EXPECT_TRUE(pool.Execute(mixed).ok());
  EXPECT_EQ(reader.lines().size(), 2u);
  EXPECT_EQ(writer.lines().size(), 3u);
}

TEST(Pool, a_refused_endpoint_backs_off_then_is_tried_again) {
  ManualClock clock;
  PoolOptions o;
  o.writers.push_back({"127.0.0.1", ClosedPort()});
  o.min_backoff = std::chrono::milliseconds(1000);
  o.clock = clock.Source();
  Pool pool(o);
  Result<uint64_t> first = pool.Insert(kIdx, {1});
  ASSERT_FALSE(first.ok());
  EXPECT_NE(first.error().message().find("cannot connect"), std::string::npos);
  Result<uint64_t> second = pool.Insert(kIdx, {1});
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(second.error().is_io());
  EXPECT_NE(second.error().message().find("is down"), std::string::npos);
  clock.Advance(std::chrono::milliseconds(1000));
  Result<uint64_t> third = pool.Insert(kIdx, {1});
  ASSERT_FALSE(third.ok());
  EXPECT_NE(third.error().message().find("cannot connect"), std::string::npos);
}

TEST(Pool, a_read_on_a_connection_that_broke_is_retried_once) {
  std::atomic<int> finds{0};
  FakeServer reader([&finds](const std::string& line, int) -> std::string {
    if (line[0] == 'P') return "0\t1\n";
    // The first connection's second find meets a server that went away.
    if (++finds == 2) return FakeServer::kClose;
    return "0\t1\trow\n";
  });
  FakeServer writer(Answer);
  Pool pool(Options(reader, writer));
  ASSERT_TRUE(pool.Find(kIdx, Query("=", {1})).ok());
  Result<Rows> again = pool.Find(kIdx, Query("=", {1}));
  ASSERT_TRUE(again.ok()) << again.error().ToString();
  EXPECT_EQ(reader.connections(), 2);
}

TEST(Pool, a_write_on_a_connection_that_broke_is_not_retried) {
  FakeServer reader(Answer);
  FakeServer writer([](const std::string& line, int) -> std::string {
    if (line[0] == 'P') return "0\t1\n";
    return FakeServer::kClose;
  });
  Pool pool(Options(reader, writer));
  Result<uint64_t> r = pool.Insert(kIdx, {1});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().is_io());
  EXPECT_EQ(Count(writer.lines(), '0'), 1u);
  EXPECT_EQ(pool.idle_connections(), 0u);  // the broken connection was dropped
}

// A Galera node not ready for clients refuses every request, `1 1 1047`.
std::string NotReady(const std::string& line, int) {
  return line[0] == 'P' ? "0\t1\n" : "1\t1\t1047\n";
}

size_t Inserts(const std::vector<std::string>& lines) {
  size_t n = 0;
  for (const std::string& l : lines) n += l.find("\t+\t") != std::string::npos;
  return n;
}

TEST(Pool, a_write_a_node_refused_whole_goes_to_the_next_writer_and_the_node_backs_off) {
  FakeServer not_ready(NotReady), writer(Answer);
  PoolOptions o;
  o.writers.push_back({"127.0.0.1", not_ready.port()});
  o.writers.push_back({"127.0.0.1", writer.port()});
  o.min_backoff = std::chrono::milliseconds(60000);
  Pool pool(o);
  EXPECT_EQ(*pool.Insert(kIdx, {1}), 9u);
  EXPECT_EQ(*pool.Insert(kIdx, {2}), 9u);
  EXPECT_EQ(Inserts(not_ready.lines()), 1u);  // taken out after its refusal
  EXPECT_EQ(Inserts(writer.lines()), 2u);
  EXPECT_FALSE(pool.endpoints()[0].up);
}

TEST(Pool, a_write_the_only_writer_refused_answers_the_refusal) {
  // Readers do not take writes: with no other writer, the answer is the node's own
  // (nothing applied), not an I/O error (which would say it may have).
  FakeServer reader(Answer), not_ready(NotReady);
  Pool pool(Options(reader, not_ready));
  Result<uint64_t> r = pool.Insert(kIdx, {1});
  ASSERT_FALSE(r.ok());
  EXPECT_FALSE(r.error().is_io()) << r.error().ToString();
  EXPECT_EQ(Inserts(not_ready.lines()), 1u);
  EXPECT_EQ(Inserts(reader.lines()), 0u);
}

TEST(Pool, a_write_is_not_sent_again_unless_the_node_refused_all_of_it) {
  // One refusal among answers that applied, or another error: the batch stays
  // where it ran, as its replies say.
  FakeServer partly([](const std::string& line, int) -> std::string {
    if (line[0] == 'P') return "0\t1\n";
    return line.find("\t7") != std::string::npos ? "1\t1\t1047\n" : "0\t1\t9\n";
  });
  FakeServer duplicate([](const std::string& line, int) -> std::string {
    return line[0] == 'P' ? "0\t1\n" : "1\t1\t121\n";
  });
  for (FakeServer* first : {&partly, &duplicate}) {
    FakeServer writer(Answer);
    PoolOptions o;
    o.writers.push_back({"127.0.0.1", first->port()});
    o.writers.push_back({"127.0.0.1", writer.port()});
    Pool pool(o);
    Batch b;
    b.Insert(kIdx, {1});
    b.Insert(kIdx, {7});
    const BatchResult r = pool.Execute(b);
    EXPECT_EQ(r.answered, 2u);
    EXPECT_FALSE(r.replies[1].ok());
    EXPECT_EQ(Inserts(writer.lines()), 0u);
    EXPECT_TRUE(pool.endpoints()[0].up);
  }
}

TEST(Pool, endpoints_of_a_role_are_used_in_turn) {
  FakeServer a(Answer), b(Answer), writer(Answer);
  PoolOptions o;
  o.readers.push_back({"127.0.0.1", a.port()});
  o.readers.push_back({"127.0.0.1", b.port()});
  o.writers.push_back({"127.0.0.1", writer.port()});
  Pool pool(o);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(pool.Find(kIdx, Query("=", {i})).ok());
  EXPECT_EQ(Count(a.lines(), '0'), 2u);
  EXPECT_EQ(Count(b.lines(), '0'), 2u);
}

TEST(Pool, threads_share_a_pool) {
  FakeServer reader(Answer), writer(Answer);
  Pool pool(Options(reader, writer));
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) ok += pool.Find(kIdx, Query("=", {i})).ok();
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(ok.load(), 200);
  EXPECT_LE(reader.connections(), 4);
}

TEST(Pool, a_lease_keeps_one_connection_for_several_calls) {
  FakeServer reader(Answer), writer(Answer);
  Pool pool(Options(reader, writer));
  {
    Result<Pool::Lease> lease = pool.Acquire(Role::kWrite);
    ASSERT_TRUE(lease.ok());
    ASSERT_TRUE((*lease)->Insert(kIdx, {1}).ok());
    ASSERT_TRUE((*lease)->Find(kIdx, Query("=", {1})).ok());
    EXPECT_EQ(pool.idle_connections(), 0u);
  }
  EXPECT_EQ(pool.idle_connections(), 1u);
  EXPECT_EQ(writer.connections(), 1);
}

TEST(Pool, every_new_connection_logs_in_to_the_account) {
  // The scramble of "pw" for this nonce, computed apart with Python's hashlib.
  const std::string login = "A\t3\tapp\t09870633c1fe3ba1515b7473abf7b736710e5e73";
  auto account = [login](const std::string& line, int conn) -> std::string {
    if (line == "A\t2\tapp") return "0\t1\tf3a9c2e07b5d1148a6e2907fcd3318b0e45a7c21\n";
    if (line.compare(0, 2, "A\t") == 0) return line == login ? "0\t1\n" : "3\t1\tunauth\n";
    return Answer(line, conn);
  };
  FakeServer reader(account), writer(account);
  PoolOptions o = Options(reader, writer);
  o.connect.user = "app";
  o.connect.password = "pw";
  Pool pool(o);
  ASSERT_TRUE(pool.Find(kIdx, Query("=", {1})).ok());
  ASSERT_TRUE(pool.Insert(kIdx, {2}).ok());
  for (const FakeServer* server : {&reader, &writer}) {
    std::vector<std::string> lines = server->lines();
    ASSERT_EQ(lines.size(), 4u);  // A 2, A 3, P, the request
    EXPECT_EQ(lines[0], "A\t2\tapp");
    EXPECT_EQ(lines[1], login);
  }

  o.connect.password = "wrong";
  Pool refused(o);
  Result<Rows> r = refused.Find(kIdx, Query("=", {1}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), 3);
  EXPECT_EQ(r.error().message(), "unauth");
}

TEST(Pool, no_endpoint_is_a_usage_error) {
  Pool pool(PoolOptions{});
  Result<Rows> r = pool.Find(kIdx, Query("=", {1}));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().is_usage());
}

}  // namespace
}  // namespace client
}  // namespace rowsocket
