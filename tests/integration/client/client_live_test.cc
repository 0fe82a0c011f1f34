// librowsocket against a live mariadbd with rowsocket: every request kind, the
// read/write split, pipelines with partial failures, and a server that goes away.
//
// Not run by ctest directly: test_client_library.py (and test_client_auth.py,
// test_client_server_loss.py) start a private server through the integration
// harness, create the tables below, and run this binary with the server's address
// in ROWSOCKET_TEST_HOST / _PORT / _PORT_WR (and _SECRET, _MARIADBD_PID; _USER and
// _PASSWORD for test_account_clients.py; _SSL_CA: every connection speaks TLS and
// verifies the server against it). Without them every test skips.
//   test.user          the sample table (row 101)
//   test.client_items  id INT PK, grp INT, name VARCHAR, qty INT, note VARBINARY NULL,
//                      KEY grp_id (grp, id); rows 1..5
//   test.client_ai     id BIGINT AUTO_INCREMENT PK, name VARCHAR
//   test.client_bin    k VARBINARY PK, v BLOB NULL
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "rowsocket/client.h"

namespace rowsocket {
namespace client {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

struct Server {
  std::string host = Env("ROWSOCKET_TEST_HOST");
  uint16_t port = static_cast<uint16_t>(std::atoi(Env("ROWSOCKET_TEST_PORT").c_str()));
  uint16_t port_wr = static_cast<uint16_t>(std::atoi(Env("ROWSOCKET_TEST_PORT_WR").c_str()));
  std::string secret = Env("ROWSOCKET_TEST_SECRET");
  std::string user = Env("ROWSOCKET_TEST_USER");
  std::string password = Env("ROWSOCKET_TEST_PASSWORD");
  std::string ssl_ca = Env("ROWSOCKET_TEST_SSL_CA");
  bool present() const { return !host.empty() && port != 0 && port_wr != 0; }
};

#define REQUIRE_SERVER()                                                   \
  Server server;                                                           \
  if (!server.present()) GTEST_SKIP() << "no ROWSOCKET_TEST_* server given"

Connection Open(const Server& s, uint16_t port) {
  ConnectOptions o;
  o.secret = s.secret;
  o.ssl_ca = s.ssl_ca;
  o.ssl_verify_server_cert = !s.ssl_ca.empty();
  o.io_timeout = std::chrono::seconds(20);
  Result<Connection> c = Connection::Connect(s.host, port, o);
  EXPECT_TRUE(c.ok()) << c.error().ToString();
  return std::move(c.value());
}

const Index kUsers("test", "user", "PRIMARY", {"user_name", "user_email", "created"});
const Index kItems("test", "client_items", "PRIMARY", {"id", "grp", "name", "qty", "note"},
                   {"qty", "name"});
const Index kItemsByGroup("test", "client_items", "grp_id", {"id", "name"});
const Index kAi("test", "client_ai", "PRIMARY", {"name"});
const Index kBin("test", "client_bin", "PRIMARY", {"k", "v"});

std::vector<std::string> Column(const Rows& rows, size_t j) {
  std::vector<std::string> out;
  for (const Row& r : rows) out.push_back(r[j].str());
  return out;
}

using Names = std::vector<std::string>;

// True once every thread of `pid` is stopped (state T): SIGSTOP takes effect some
// time after kill() returns, and a thread still running could answer.
bool AllThreadsStopped(pid_t pid) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const fs::directory_entry& task :
       fs::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    std::ifstream stat(task.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const size_t paren = line.rfind(')');
    if (paren == std::string::npos || paren + 2 >= line.size() || line[paren + 2] != 'T') {
      return false;
    }
  }
  return !ec;
}

TEST(Live, finds_the_sample_row_on_the_read_port) {
  REQUIRE_SERVER();
  Connection conn = Open(server, server.port);
  Result<Rows> rows = conn.Find(kUsers, Query("=", {101}));
  ASSERT_TRUE(rows.ok()) << rows.error().ToString();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0][0].str(), "Yukari Takeba");
  EXPECT_EQ((*rows)[0][2].str(), "2010-02-03 11:22:33");
  EXPECT_TRUE(conn.Find(kUsers, Query("=", {999}))->empty());
}

TEST(Live, every_find_operator_scans_the_right_way) {
  REQUIRE_SERVER();
  Connection conn = Open(server, server.port);
  EXPECT_EQ(Column(*conn.Find(kItems, Query(">=", {2}).Limit(10)), 0), (Names{"2", "3", "4", "5"}));
  EXPECT_EQ(Column(*conn.Find(kItems, Query(">", {2}).Limit(2)), 0), (Names{"3", "4"}));
  EXPECT_EQ(Column(*conn.Find(kItems, Query("<", {3}).Limit(10)), 0), (Names{"2", "1"}));
  EXPECT_EQ(Column(*conn.Find(kItems, Query("<=", {3}).Limit(2).Offset(1)), 0), (Names{"2", "1"}));
}

TEST(Live, in_list_answers_in_value_order) {
  REQUIRE_SERVER();
  Connection conn = Open(server, server.port);
  Result<Rows> rows = conn.Find(kItems, Query("=", {0}).Limit(10).In(0, {5, 1, 3, 42}));
  ASSERT_TRUE(rows.ok()) << rows.error().ToString();
  EXPECT_EQ(Column(*rows, 0), (Names{"5", "1", "3"}));
}

TEST(Live, filters_by_name_skip_or_stop) {
  REQUIRE_SERVER();
  Connection conn = Open(server, server.port);
  Result<Rows> skip = conn.Find(kItems, Query(">=", {1}).Limit(10).Where("qty", "!=", 30));
  ASSERT_TRUE(skip.ok()) << skip.error().ToString();
  EXPECT_EQ(Column(*skip, 0), (Names{"1", "2", "4", "5"}));
  Result<Rows> stop = conn.Find(kItems, Query(">=", {1}).Limit(10).While("qty", "<", 30));
  EXPECT_EQ(Column(*stop, 0), (Names{"1", "2"}));
}

TEST(Live, secondary_index_with_a_key_prefix) {
  REQUIRE_SERVER();
  Connection conn = Open(server, server.port);
  Result<Rows> rows = conn.Find(kItemsByGroup, Query("=", {2}).Limit(10));
  ASSERT_TRUE(rows.ok()) << rows.error().ToString();
  EXPECT_EQ(Column(*rows, 1), (Names{"c", "d"}));
}

TEST(Live, null_and_empty_come_back_as_they_are_stored) {
  REQUIRE_SERVER();
  Connection conn = Open(server, server.port);
  Rows rows = *conn.Find(kItems, Query("<=", {2}).Limit(2));
  EXPECT_FALSE(rows[0][4].is_null());  // id 2: ''
  EXPECT_EQ(rows[0][4].str(), "");
  EXPECT_TRUE(rows[1][4].is_null());   // id 1: NULL
}

TEST(Live, binary_values_round_trip) {
  REQUIRE_SERVER();
  Connection conn = Open(server, server.port_wr);
  const std::string key("k\t\n\0\x01\x0f", 6);
  const std::string value("\0\x01\x02\t\n\r\x0f\x10\xff", 9);
  ASSERT_TRUE(conn.Insert(kBin, {key, value}).ok());
  ASSERT_TRUE(conn.Insert(kBin, {"null", nullptr}).ok());
  ASSERT_TRUE(conn.Insert(kBin, {"empty", ""}).ok());
  EXPECT_EQ((*conn.Find(kBin, Query("=", {key})))[0][1].str(), value);
  EXPECT_TRUE((*conn.Find(kBin, Query("=", {"null"})))[0][1].is_null());
  Value empty = (*conn.Find(kBin, Query("=", {"empty"})))[0][1];
  EXPECT_FALSE(empty.is_null());
  EXPECT_EQ(empty.str(), "");
}

TEST(Live, insert_returns_the_auto_increment_id) {
  REQUIRE_SERVER();
  Connection conn = Open(server, server.port_wr);
  Result<uint64_t> first = conn.Insert(kAi, {"a"});
  ASSERT_TRUE(first.ok()) << first.error().ToString();
  Result<uint64_t> second = conn.Insert(kAi, {"b"});
  EXPECT_GT(*first, 0u);
  EXPECT_EQ(*second, *first + 1);
  EXPECT_EQ(*conn.Insert(kBin, {"no-ai", "x"}), 0u);  // no AUTO_INCREMENT column
}

TEST(Live, modify_ops_count_rows_and_question_forms_return_rows_before) {
  REQUIRE_SERVER();
  Connection conn = Open(server, server.port_wr);
  ASSERT_TRUE(conn.Insert(kItems, {100, 9, "m", 10, nullptr}).ok());
  EXPECT_EQ(*conn.Update(kItems, Query("=", {100}), {100, 9, "n"}), 1u);
  EXPECT_EQ(*conn.Update(kItems, Query("=", {999}), {999}), 0u);
  Index qty("test", "client_items", "PRIMARY", {"qty"});
  EXPECT_EQ(*conn.Increment(qty, Query("=", {100}), {5}), 1u);
  EXPECT_EQ(*conn.Decrement(qty, Query("=", {100}), {100}), 0u);  // would cross zero
  Result<Rows> before = conn.FindAndModify(qty, Query("=", {100}), Modify::Increment({1}));
  ASSERT_TRUE(before.ok()) << before.error().ToString();
  EXPECT_EQ(Column(*before, 0), (Names{"15"}));
  Result<Rows> updated = conn.FindAndModify(kItems, Query("=", {100}), Modify::Update({100, 9, "o"}));
  EXPECT_EQ((*updated)[0][2].str(), "n");
  Result<Rows> deleted = conn.FindAndModify(kItems, Query("=", {100}), Modify::Delete());
  ASSERT_EQ(deleted->size(), 1u);
  EXPECT_EQ((*deleted)[0][2].str(), "o");
  EXPECT_EQ((*deleted)[0][3].str(), "16");
  EXPECT_EQ(*conn.Remove(kItems, Query("=", {100})), 0u);
}

TEST(Live, writes_on_the_read_port_are_refused_and_the_connection_survives) {
  REQUIRE_SERVER();
  Connection conn = Open(server, server.port);
  Result<uint64_t> r = conn.Insert(kItems, {200, 1, "x", 1, nullptr});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().is_server());
  EXPECT_EQ(r.error().ToString(), "2 1 readonly (writes are refused on the read-only listener; "
                                  "use the write port)");
  EXPECT_TRUE(conn.Find(kUsers, Query("=", {101})).ok());
}

TEST(Live, bad_requests_answer_server_errors) {
  REQUIRE_SERVER();
  Connection conn = Open(server, server.port);
  EXPECT_EQ(conn.Find(kUsers, Query("=", {101, 2})).error().message(), "kpnum");
  Result<Rows> no_table = conn.Find(Index("test", "nope", "PRIMARY", {"a"}), Query("=", {1}));
  EXPECT_EQ(no_table.error().code(), 1);
  EXPECT_EQ(no_table.error().message(), "open_table");
  Result<Rows> no_column = conn.Find(Index("test", "user", "PRIMARY", {"nope"}), Query("=", {1}));
  EXPECT_EQ(no_column.error().message(), "fld");
  EXPECT_EQ(conn.Find(77, Query("=", {1})).error().message(), "stmtnum");
  EXPECT_TRUE(conn.connected());
}

TEST(Live, pipeline_mixes_requests_and_keeps_going_after_an_error) {
  REQUIRE_SERVER();
  Connection conn = Open(server, server.port_wr);
  Batch batch;
  batch.Insert(kItems, {300, 1, "p", 1, nullptr});
  batch.Insert(kItems, {300, 1, "dup", 1, nullptr});  // duplicate key
  batch.Find(kItems, Query("=", {300}));
  batch.Remove(kItems, Query("=", {300}));
  for (int i = 0; i < 1000; ++i) batch.Find(kUsers, Query("=", {101}));
  BatchResult r = conn.Execute(batch);
  EXPECT_EQ(r.answered, batch.size());
  EXPECT_TRUE(r.replies[0].ok());
  ASSERT_FALSE(r.replies[1].ok());
  EXPECT_EQ(r.replies[1].error().ToString(), "1 1 121 (duplicate key)");
  EXPECT_EQ(r.replies[2]->rows()[0][2].str(), "p");
  EXPECT_EQ(r.replies[3]->count(), 1u);
  for (size_t i = 4; i < r.replies.size(); ++i) ASSERT_TRUE(r.replies[i].ok()) << i;
}

TEST(Live, connection_closed_mid_pipeline_keeps_the_answers_before_it) {
  REQUIRE_SERVER();
  Connection conn = Open(server, server.port);
  Batch batch;
  batch.Find(kUsers, Query("=", {101}));
  batch.Find(kUsers, Query("=", {101}));
  batch.Find(kUsers, Query("=", {std::string(1100000, 'x')}));  // > rowsocket_max_line_length
  batch.Find(kUsers, Query("=", {101}));
  batch.Find(kUsers, Query("=", {101}));
  BatchResult r = conn.Execute(batch);
  EXPECT_EQ(r.answered, 3u);
  EXPECT_TRUE(r.replies[0].ok());
  EXPECT_TRUE(r.replies[1].ok());
  ASSERT_FALSE(r.replies[2].ok());
  EXPECT_EQ(r.replies[2].error().message(), "linelen");
  EXPECT_TRUE(r.replies[3].error().is_io());
  EXPECT_TRUE(r.replies[4].error().is_io());
  EXPECT_FALSE(conn.connected());
}

TEST(Live, pool_routes_reads_and_writes_and_reopens_indexes_by_itself) {
  REQUIRE_SERVER();
  PoolOptions o;
  o.readers.push_back({server.host, server.port, server.secret});
  o.writers.push_back({server.host, server.port_wr, server.secret});
  o.connect.ssl_ca = server.ssl_ca;
  Pool pool(o);
  ASSERT_TRUE(pool.Insert(kItems, {400, 4, "pool", 4, nullptr}).ok());  // readonly if misrouted
  Result<Rows> rows = pool.Find(kItems, Query("=", {400}));
  ASSERT_TRUE(rows.ok()) << rows.error().ToString();
  EXPECT_EQ((*rows)[0][2].str(), "pool");
  EXPECT_EQ(*pool.Remove(kItems, Query("=", {400})), 1u);
  Batch reads;
  for (int id = 1; id <= 5; ++id) reads.Find(kItems, Query("=", {id}));
  BatchResult r = pool.Execute(reads);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(pool.idle_connections(), 2u);
}

TEST(Auth, secret_opens_the_door_and_a_wrong_one_does_not) {
  REQUIRE_SERVER();
  if (server.secret.empty()) GTEST_SKIP() << "server has no secret";
  EXPECT_TRUE(Open(server, server.port).Find(kUsers, Query("=", {101})).ok());
  ConnectOptions wrong;
  wrong.secret = "wrong";
  Result<Connection> refused = Connection::Connect(server.host, server.port, wrong);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code(), 3);
  Result<Connection> anonymous = Connection::Connect(server.host, server.port);
  ASSERT_TRUE(anonymous.ok());
  Result<Rows> r = anonymous->Find(kUsers, Query("=", {101}));
  EXPECT_EQ(r.error().ToString(), "3 1 unauth (not authenticated: wrong or missing secret "
                                  "(A 1, --secret), or wrong account or password (A 3, A 4, "
                                  "--user))");
  EXPECT_TRUE(anonymous->Auth(server.secret).ok());
  EXPECT_TRUE(anonymous->Find(kUsers, Query("=", {101})).ok());
}

#define REQUIRE_ACCOUNT()                                                  \
  REQUIRE_SERVER();                                                        \
  if (server.user.empty()) GTEST_SKIP() << "no ROWSOCKET_TEST_USER given"

ConnectOptions AccountOptions(const Server& s) {
  ConnectOptions o;
  o.user = s.user;
  o.password = s.password;
  o.io_timeout = std::chrono::seconds(20);
  return o;
}

TEST(Account, login_opens_both_listeners_to_finds_and_writes) {
  REQUIRE_ACCOUNT();
  Result<Connection> reader = Connection::Connect(server.host, server.port, AccountOptions(server));
  ASSERT_TRUE(reader.ok()) << reader.error().ToString();
  Result<Rows> rows = reader->Find(kUsers, Query("=", {101}));
  ASSERT_TRUE(rows.ok()) << rows.error().ToString();
  EXPECT_EQ((*rows)[0][0].str(), "Yukari Takeba");
  Result<Connection> writer =
      Connection::Connect(server.host, server.port_wr, AccountOptions(server));
  ASSERT_TRUE(writer.ok()) << writer.error().ToString();
  ASSERT_TRUE(writer->Insert(kItems, {500, 5, "account", 5, nullptr}).ok());
  EXPECT_EQ(*writer->Remove(kItems, Query("=", {500})), 1u);
}

TEST(Account, pool_logs_in_every_connection) {
  REQUIRE_ACCOUNT();
  PoolOptions o;
  o.readers.push_back({server.host, server.port});
  o.writers.push_back({server.host, server.port_wr});
  o.connect = AccountOptions(server);
  Pool pool(o);
  ASSERT_TRUE(pool.Insert(kItems, {501, 5, "pool", 5, nullptr}).ok());
  Result<Rows> rows = pool.Find(kItems, Query("=", {501}));
  ASSERT_TRUE(rows.ok()) << rows.error().ToString();
  EXPECT_EQ((*rows)[0][2].str(), "pool");
  EXPECT_EQ(*pool.Remove(kItems, Query("=", {501})), 1u);
}

TEST(Account, login_by_hand_after_connecting) {
  REQUIRE_ACCOUNT();
  Result<Connection> conn = Connection::Connect(server.host, server.port);
  ASSERT_TRUE(conn.ok()) << conn.error().ToString();
  Status s = conn->Login(server.user, server.password);
  ASSERT_TRUE(s.ok()) << s.error().ToString();
  EXPECT_TRUE(conn->Find(kUsers, Query("=", {101})).ok());
}

TEST(Account, a_wrong_password_is_refused_with_unauth) {
  REQUIRE_ACCOUNT();
  ConnectOptions o = AccountOptions(server);
  o.password += "-wrong";
  Result<Connection> refused = Connection::Connect(server.host, server.port, o);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(refused.error().is_server()) << refused.error().ToString();
  EXPECT_EQ(refused.error().code(), 3);
  EXPECT_EQ(refused.error().message(), "unauth");
  o.user = "no-such-user";
  refused = Connection::Connect(server.host, server.port, o);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message(), "unauth");
}

TEST(Account, without_login_requests_are_refused) {
  REQUIRE_ACCOUNT();
  Result<Connection> anonymous = Connection::Connect(server.host, server.port);
  ASSERT_TRUE(anonymous.ok());
  Result<Rows> r = anonymous->Find(kUsers, Query("=", {101}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), 3);
}

TEST(ServerLoss, server_killed_mid_pipeline_fails_the_batch_with_io_errors) {
  REQUIRE_SERVER();
  const pid_t pid = static_cast<pid_t>(std::atoi(Env("ROWSOCKET_TEST_MARIADBD_PID").c_str()));
  if (pid <= 0) GTEST_SKIP() << "needs ROWSOCKET_TEST_MARIADBD_PID";
  Connection conn = Open(server, server.port);
  ASSERT_TRUE(conn.Find(kUsers, Query("=", {101})).ok());
  PoolOptions o;
  o.readers.push_back({server.host, server.port});
  Pool pool(o);
  ASSERT_TRUE(pool.Find(kUsers, Query("=", {101})).ok());

  // Stopped, the server reads nothing; killed while the batch waits, it goes away.
  ASSERT_EQ(::kill(pid, SIGSTOP), 0);
  for (int i = 0; i < 500 && !AllThreadsStopped(pid); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(AllThreadsStopped(pid));
  std::thread killer([pid] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::kill(pid, SIGKILL);
  });
  Batch batch;
  for (int i = 0; i < 500; ++i) batch.Find(kUsers, Query("=", {101}));
  BatchResult r = conn.Execute(batch);
  killer.join();
  EXPECT_LT(r.answered, batch.size());
  for (size_t i = r.answered; i < r.replies.size(); ++i) {
    ASSERT_FALSE(r.replies[i].ok());
    ASSERT_TRUE(r.replies[i].error().is_io()) << r.replies[i].error().ToString();
  }
  EXPECT_FALSE(conn.connected());
  EXPECT_EQ(conn.Find(kUsers, Query("=", {101})).error().message(), "not connected");

  // The pool drops the dead connection, cannot reconnect, then backs off.
  Result<Rows> first = pool.Find(kUsers, Query("=", {101}));
  ASSERT_FALSE(first.ok());
  EXPECT_TRUE(first.error().is_io());
  Result<Rows> second = pool.Find(kUsers, Query("=", {101}));
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().message().find("is down"), std::string::npos) << second.error().ToString();
}

}  // namespace
}  // namespace client
}  // namespace rowsocket
