// Tests for Pool's endpoint choice with several endpoints per role: pinned or
// in-turn writes, failover of writes only when nothing was sent, reads falling back
// to the writers, the lazy health check (out after a failed connect, back in after
// its backoff, on an injected clock), and a Session reading its own writes.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fake_server.h"
#include "pool_fakes.h"
#include "rowsocket/pool.h"

namespace rowsocket {
namespace client {
namespace {

using std::chrono::milliseconds;
using testing::ClosedPort;
using testing::FakeServer;
using Clock = std::chrono::steady_clock;

Endpoint At(uint16_t port) { return {"127.0.0.1", port}; }
Endpoint At(const FakeServer& server) { return At(server.port()); }

PoolOptions Options(std::vector<Endpoint> readers, std::vector<Endpoint> writers) {
  PoolOptions o;
  o.readers = std::move(readers);
  o.writers = std::move(writers);
  return o;
}

bool Up(const Pool& pool, size_t i) { return pool.endpoints()[i].up; }

TEST(PoolRouting, writes_are_pinned_to_the_first_writer_by_default) {
  FakeServer a(Answer), b(Answer);
  PoolOptions o = Options({}, {At(a), At(b)});
  Pool pool(o);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(pool.Insert(kIdx, {i}).ok());
  EXPECT_EQ(Count(a.lines(), '0'), 4u);
  EXPECT_EQ(b.connections(), 0);
}

TEST(PoolRouting, writes_in_turn_spread_over_the_writers) {
  FakeServer a(Answer), b(Answer);
  PoolOptions o = Options({}, {At(a), At(b)});
  o.write_balance = Balance::kInTurn;
  Pool pool(o);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(pool.Insert(kIdx, {i}).ok());
  EXPECT_EQ(Count(a.lines(), '0'), 2u);
  EXPECT_EQ(Count(b.lines(), '0'), 2u);
}

TEST(PoolRouting, a_write_fails_over_to_the_next_writer_when_a_connect_is_refused) {
  FakeServer b(Answer);
  PoolOptions o = Options({}, {At(ClosedPort()), At(b)});
  Pool pool(o);
  Result<uint64_t> r = pool.Insert(kIdx, {1});
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_FALSE(Up(pool, 0));
  EXPECT_EQ(pool.endpoints()[0].failures, 1);
  EXPECT_TRUE(Up(pool, 1));
  ASSERT_TRUE(pool.Insert(kIdx, {2}).ok());  // the dead one is skipped, not tried
  EXPECT_EQ(pool.endpoints()[0].failures, 1);
  EXPECT_EQ(Count(b.lines(), '0'), 2u);
}

TEST(PoolRouting, a_write_sent_on_a_connection_that_broke_is_not_tried_on_another_writer) {
  FakeServer a([](const std::string& line, int) -> std::string {
    return line[0] == 'P' ? "0\t1\n" : FakeServer::kClose;
  });
  FakeServer b(Answer);
  PoolOptions o = Options({}, {At(a), At(b)});
  Pool pool(o);
  Result<uint64_t> r = pool.Insert(kIdx, {1});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().is_io());
  EXPECT_EQ(Count(a.lines(), '0'), 1u);
  EXPECT_EQ(b.connections(), 0);
  EXPECT_TRUE(Up(pool, 0));  // it accepted a connection: not out, only suspect
}

TEST(PoolRouting, every_writer_refusing_fails_the_write_with_an_io_error) {
  PoolOptions o = Options({}, {At(ClosedPort()), At(ClosedPort())});
  Pool pool(o);
  Result<uint64_t> r = pool.Insert(kIdx, {1});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().is_io());
  Result<uint64_t> again = pool.Insert(kIdx, {1});
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.error().message().find("is down"), std::string::npos);
}

TEST(PoolRouting, reads_fall_back_to_the_writers_when_no_reader_is_healthy) {
  FakeServer writer(Answer);
  PoolOptions o = Options({At(ClosedPort()), At(ClosedPort())}, {At(writer)});
  Pool pool(o);
  Result<Rows> r = pool.Find(kIdx, Query("=", {1}));
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_FALSE(Up(pool, 0));
  EXPECT_FALSE(Up(pool, 1));
  EXPECT_EQ(Count(writer.lines(), '0'), 1u);
  Result<Pool::Lease> lease = pool.Acquire(Role::kRead);
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ((*lease)->port(), writer.port());
}

TEST(PoolRouting, reads_can_be_kept_off_the_writers) {
  FakeServer writer(Answer);
  PoolOptions o = Options({At(ClosedPort())}, {At(writer)});
  o.reads_fall_back_to_writers = false;
  Pool pool(o);
  Result<Rows> r = pool.Find(kIdx, Query("=", {1}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("cannot connect"), std::string::npos);
  EXPECT_EQ(writer.connections(), 0);
}

TEST(PoolRouting, a_reader_that_is_out_skips_to_the_next_reader) {
  FakeServer b(Answer), writer(Answer);
  PoolOptions o = Options({At(ClosedPort()), At(b)}, {At(writer)});
  Pool pool(o);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(pool.Find(kIdx, Query("=", {i})).ok());
  EXPECT_EQ(Count(b.lines(), '0'), 4u);
  EXPECT_EQ(writer.connections(), 0);
}

TEST(PoolRouting, an_endpoint_is_out_until_its_backoff_then_back_in_once_it_answers) {
  ManualClock clock;
  const uint16_t port = ClosedPort();
  FakeServer writer(Answer);
  PoolOptions o = Options({At(port)}, {At(writer)});
  o.min_backoff = milliseconds(100);
  o.clock = clock.Source();
  Pool pool(o);
  ASSERT_TRUE(pool.Find(kIdx, Query("=", {1})).ok());  // refused: out, read on the writer
  EXPECT_FALSE(Up(pool, 0));

  // Still refusing after the first backoff: out again, for twice as long.
  clock.Advance(milliseconds(100));
  ASSERT_TRUE(pool.Find(kIdx, Query("=", {2})).ok());
  EXPECT_EQ(pool.endpoints()[0].failures, 2);

  // The replica is back, but nobody tries it before its backoff (200 ms) is over.
  FakeServer reader(Answer, port);
  clock.Advance(milliseconds(150));
  ASSERT_TRUE(pool.Find(kIdx, Query("=", {3})).ok());
  EXPECT_EQ(reader.connections(), 0);
  EXPECT_EQ(Count(writer.lines(), '0'), 3u);

  clock.Advance(milliseconds(50));
  ASSERT_TRUE(pool.Find(kIdx, Query("=", {4})).ok());
  EXPECT_TRUE(Up(pool, 0));
  EXPECT_EQ(pool.endpoints()[0].failures, 0);
  EXPECT_EQ(Count(reader.lines(), '0'), 1u);
  EXPECT_EQ(Count(writer.lines(), '0'), 3u);
}

TEST(PoolRouting, the_first_writer_gets_the_writes_again_once_it_is_back) {
  ManualClock clock;
  const uint16_t port = ClosedPort();
  FakeServer second(Answer);
  PoolOptions o = Options({}, {At(port), At(second)});
  o.clock = clock.Source();
  Pool pool(o);
  ASSERT_TRUE(pool.Insert(kIdx, {1}).ok());
  EXPECT_EQ(Count(second.lines(), '0'), 1u);
  FakeServer first(Answer, port);
  clock.Advance(o.min_backoff);
  ASSERT_TRUE(pool.Insert(kIdx, {2}).ok());
  EXPECT_EQ(Count(first.lines(), '0'), 1u);
  EXPECT_EQ(Count(second.lines(), '0'), 1u);
}

TEST(PoolRouting, a_request_that_breaks_drops_the_idle_connections_of_its_endpoint) {
  std::atomic<bool> broken{false};
  FakeServer reader([&broken](const std::string& line, int) -> std::string {
    if (line[0] == 'P') return "0\t1\n";
    if (line.find("\t=\t1\t7") != std::string::npos && !broken.exchange(true)) {
      return FakeServer::kClose;
    }
    return "0\t1\trow\n";
  });
  FakeServer writer(Answer);
  PoolOptions o = Options({At(reader)}, {At(writer)});
  Pool pool(o);
  {
    Result<Pool::Lease> one = pool.Acquire(Role::kRead);
    Result<Pool::Lease> two = pool.Acquire(Role::kRead);
    ASSERT_TRUE(one.ok() && two.ok());
  }
  EXPECT_EQ(pool.idle_connections(), 2u);
  ASSERT_TRUE(pool.Find(kIdx, Query("=", {7})).ok());  // broke, retried on a fresh one
  EXPECT_EQ(reader.connections(), 3);
  EXPECT_EQ(pool.idle_connections(), 1u);
}

TEST(PoolRouting, a_session_reads_its_writes_on_the_writer_until_the_time_is_up) {
  ManualClock clock;
  FakeServer reader(Answer), writer(Answer);
  PoolOptions o = Options({At(reader)}, {At(writer)});
  o.read_your_writes = milliseconds(300);
  o.clock = clock.Source();
  Pool pool(o);
  Pool::Session session(pool);
  ASSERT_TRUE(session.Find(kIdx, Query("=", {1})).ok());  // no write yet: the replica
  EXPECT_EQ(Count(reader.lines(), '0'), 1u);
  EXPECT_FALSE(session.reads_own_writes());

  ASSERT_TRUE(session.Insert(kIdx, {2}).ok());
  EXPECT_TRUE(session.reads_own_writes());
  ASSERT_TRUE(session.Find(kIdx, Query("=", {2})).ok());
  EXPECT_EQ(Count(writer.lines(), '0'), 2u);  // the insert and the session's find
  ASSERT_TRUE(pool.Find(kIdx, Query("=", {2})).ok());
  EXPECT_EQ(Count(reader.lines(), '0'), 2u);  // other callers still read the replica

  clock.Advance(milliseconds(299));
  ASSERT_TRUE(session.Find(kIdx, Query("=", {2})).ok());
  EXPECT_EQ(Count(writer.lines(), '0'), 3u);
  clock.Advance(milliseconds(1));
  EXPECT_FALSE(session.reads_own_writes());
  ASSERT_TRUE(session.Find(kIdx, Query("=", {2})).ok());
  EXPECT_EQ(Count(reader.lines(), '0'), 3u);
  EXPECT_EQ(Count(writer.lines(), '0'), 3u);
}

TEST(PoolRouting, a_session_reads_on_the_writer_its_write_went_to) {
  FakeServer reader(Answer), a(Answer), b(Answer);
  PoolOptions o = Options({At(reader)}, {At(a), At(b)});
  o.write_balance = Balance::kInTurn;
  Pool pool(o);
  ASSERT_TRUE(pool.Insert(kIdx, {1}).ok());  // to a
  Pool::Session session(pool);
  ASSERT_TRUE(session.Insert(kIdx, {2}).ok());  // to b
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(session.Find(kIdx, Query("=", {2})).ok());
  EXPECT_EQ(Count(a.lines(), '0'), 1u);
  EXPECT_EQ(Count(b.lines(), '0'), 4u);
  EXPECT_EQ(reader.connections(), 0);
}

TEST(PoolRouting, a_session_write_that_broke_still_sends_its_reads_to_the_writer) {
  std::atomic<int> writes{0};
  FakeServer writer([&writes](const std::string& line, int conn) -> std::string {
    if (line[0] != 'P' && line.find("\t+\t") != std::string::npos && writes++ == 0) {
      return FakeServer::kClose;  // the write may have been applied
    }
    return Answer(line, conn);
  });
  FakeServer reader(Answer);
  PoolOptions o = Options({At(reader)}, {At(writer)});
  Pool pool(o);
  Pool::Session session(pool);
  ASSERT_FALSE(session.Insert(kIdx, {1}).ok());
  ASSERT_TRUE(session.Find(kIdx, Query("=", {1})).ok());
  EXPECT_EQ(reader.connections(), 0);
}

TEST(PoolRouting, the_pool_is_destroyed_at_once_with_endpoints_out) {
  const Clock::time_point start = Clock::now();
  {
    PoolOptions o = Options({At(ClosedPort())}, {At(ClosedPort())});
    o.max_backoff = std::chrono::hours(1);
    Pool pool(o);
    EXPECT_FALSE(pool.Find(kIdx, Query("=", {1})).ok());
  }
  EXPECT_LT(Clock::now() - start, milliseconds(500));
}

}  // namespace
}  // namespace client
}  // namespace rowsocket
