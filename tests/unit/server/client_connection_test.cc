// Unit tests of the server layer's per-connection rules: line framing (LF, CR LF,
// partial lines, pipelines), the line-length limit, authentication and the
// read-only listener. A socketpair stands in for the client; no MariaDB involved.
#include "server/client_connection.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "protocol/memcached.h"
#include "protocol/redis_request.h"
#include "protocol/request.h"
#include "server/listener.h"

namespace rowsocket {
namespace {

class ClientConnectionTest : public ::testing::Test {
 protected:
  void Open(bool read_only, std::string secret = "", bool accounts = false) {
    const AuthMode auth = accounts          ? AuthMode::kAccount
                          : secret.empty() ? AuthMode::kNone
                                           : AuthMode::kSecret;
    listener_ = std::make_unique<Listener>(read_only ? "read" : "write", read_only, auth, secret, 1);
    int fds[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    client_ = fds[0];
    auto session = std::make_unique<ConnectionSession>();
    session->account_logins = accounts;
    session_ = session.get();
    conn_ = std::make_unique<ClientConnection>(fds[1], 1, "test", listener_.get(),
                                         std::move(session), &stats_, 0);
  }
  // A memcached listener's connection (no login, no TLS).
  void OpenMemcached() { OpenListener("memcached", WireProtocol::kMemcached); }
  // A listener's connection of `protocol` (no login, no TLS).
  void OpenListener(const char* name, WireProtocol protocol) {
    listener_ = std::make_unique<Listener>(name, false, AuthMode::kNone, "", 1, protocol);
    int fds[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    client_ = fds[0];
    auto session = std::make_unique<ConnectionSession>();
    session_ = session.get();
    conn_ = std::make_unique<ClientConnection>(fds[1], 1, "test", listener_.get(),
                                               std::move(session), &stats_, 0);
  }
  void TearDown() override {
    if (conn_) ::close(conn_->fd());
    if (client_ >= 0) ::close(client_);
  }

  // Sends `bytes` from the client and lets the connection read and parse them, as a
  // turn that answers every request does.
  size_t Feed(const std::string& bytes, uint32_t max_line = 1024,
              uint32_t max_unfinished = 1024) {
    Send(bytes);
    size_t n = conn_->ParseLines(max_line, max_unfinished);
    conn_->BeginTurn();
    conn_->EndTurn(n);
    conn_->CompactInput();
    return n;
  }
  void Send(const std::string& bytes) {
    EXPECT_EQ(::write(client_, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
    char scratch[4096];
    EXPECT_TRUE(conn_->ReadOnce(scratch, sizeof scratch));
  }

  // Request `i` of the last parse (a HandlerSocket listener's: a Request).
  Request* Hs(size_t i) { return static_cast<Request*>(conn_->request(i)); }
  // The same on a memcached listener: an McRequest.
  McRequest* Mc(size_t i) { return static_cast<McRequest*>(conn_->request(i)); }
  // And on a Redis listener: a RedisRequest.
  RedisRequest* Redis(size_t i) { return static_cast<RedisRequest*>(conn_->request(i)); }

  WorkerStats stats_;
  ConnectionSession* session_ = nullptr;
  std::unique_ptr<Listener> listener_;
  std::unique_ptr<ClientConnection> conn_;
  int client_ = -1;
};

TEST_F(ClientConnectionTest, pipelined_lines_parse_in_order_and_cr_lf_is_accepted) {
  Open(false);
  ASSERT_EQ(Feed("0\t=\t1\t5\r\nA\t1\tx\n1\t+\t1\tv\n"), 3u);
  EXPECT_EQ(Hs(0)->type, RequestType::kFind);
  EXPECT_EQ(Hs(0)->key[0].view(), "5");  // no CR left on the last token
  EXPECT_EQ(Hs(1)->type, RequestType::kInvalid);  // no secret: A is refused
  EXPECT_EQ(Hs(1)->error, WireStatus::Unauthorized("unauth"));
  EXPECT_EQ(Hs(2)->type, RequestType::kInsert);
}

TEST_F(ClientConnectionTest, a_partial_line_waits_for_the_rest) {
  Open(false);
  EXPECT_EQ(Feed("0\t=\t1"), 0u);
  ASSERT_EQ(Feed("\t42\n"), 1u);
  EXPECT_EQ(Hs(0)->key[0].view(), "42");
}

TEST_F(ClientConnectionTest, a_line_over_the_limit_answers_linelen_and_closes) {
  Open(false);
  ASSERT_EQ(Feed(std::string(100, 'x') + "\n", 64), 1u);
  EXPECT_EQ(Hs(0)->error, WireStatus::BadRequest("linelen"));
  EXPECT_TRUE(conn_->ending());
}

TEST_F(ClientConnectionTest, a_tls_handshake_while_tls_is_off_closes_and_is_counted) {
  Open(false);
  ASSERT_EQ(::write(client_, "\x16\x03\x01", 3), 3);
  char scratch[4096];
  EXPECT_FALSE(conn_->ReadOnce(scratch, sizeof scratch));
  EXPECT_FALSE(conn_->tls());
  EXPECT_EQ(stats_.tls_handshakes_failed.Get(), 1u);
}

TEST_F(ClientConnectionTest, plain_text_answers_tlsrequired_once_and_ends_when_tls_is_required) {
  ServerTunables tunables;
  tunables.require_secure_transport = true;
  Open(false);
  listener_->UseTls(nullptr, &tunables);
  ASSERT_EQ(Feed("0\t=\t1\t5\n0\t=\t1\t6\n"), 1u);
  EXPECT_EQ(Hs(0)->error, WireStatus::Unauthorized("tlsrequired"));
  EXPECT_TRUE(conn_->ending());
  EXPECT_FALSE(conn_->tls());
}

TEST_F(ClientConnectionTest, plain_text_is_served_when_tls_is_not_required) {
  ServerTunables tunables;
  Open(false);
  listener_->UseTls(nullptr, &tunables);
  ASSERT_EQ(Feed("0\t=\t1\t5\n"), 1u);
  EXPECT_EQ(Hs(0)->type, RequestType::kFind);
  EXPECT_FALSE(conn_->ending());
}

TEST_F(ClientConnectionTest, an_endless_line_answers_linelen_once_it_passes_the_limit) {
  Open(false);
  EXPECT_EQ(Feed(std::string(40, 'x'), 64), 0u);
  ASSERT_EQ(Feed(std::string(40, 'x'), 64), 1u);
  EXPECT_EQ(Hs(0)->error, WireStatus::BadRequest("linelen"));
  EXPECT_TRUE(conn_->ending());
}

// While the listener's input is over its budget, an unfinished line may take one read
// at most (max_unfinished); complete lines are parsed as ever.
TEST_F(ClientConnectionTest, an_unfinished_line_past_the_listeners_budget_answers_linelen) {
  Open(false);
  ASSERT_EQ(Feed("0\t=\t1\t5\n" + std::string(40, 'x'), 1024, 32), 2u);
  EXPECT_EQ(Hs(0)->type, RequestType::kFind);
  EXPECT_EQ(Hs(1)->error, WireStatus::BadRequest("linelen"));
  EXPECT_TRUE(conn_->ending());
  EXPECT_EQ(stats_.connections_input_limited.Get(), 1u);
}

// Requests the executor deferred stay parsed, in order, and no input is compacted
// (their tokens point into it) until every one has its answer.
TEST_F(ClientConnectionTest, deferred_requests_wait_parsed_for_a_later_turn) {
  Open(false);
  Send("0\t=\t1\t5\n0\t=\t1\t6\n0\t=\t1\t7\n");
  ASSERT_EQ(conn_->ParseLines(1024, 1024), 3u);
  EXPECT_EQ(conn_->BeginTurn(), 0u);
  conn_->output()->append("0\t1\t5\n");
  conn_->EndTurn(1);
  EXPECT_TRUE(conn_->has_unanswered());
  conn_->CompactInput();
  conn_->Trim();
  EXPECT_EQ(conn_->BeginTurn(), 1u);
  EXPECT_EQ(conn_->answers_begin(), 6u);
  EXPECT_EQ(Hs(1)->key[0].view(), "6");
  EXPECT_EQ(Hs(2)->key[0].view(), "7");
  conn_->EndTurn(2);
  EXPECT_FALSE(conn_->has_unanswered());
  conn_->CompactInput();
  ASSERT_EQ(Feed("0\t=\t1\t8\n"), 1u);  // the next turn reads and parses anew
  EXPECT_EQ(Hs(0)->key[0].view(), "8");
}

TEST_F(ClientConnectionTest, requests_before_a_matching_secret_are_unauthorized) {
  Open(false, "s3cret");
  ASSERT_EQ(Feed("0\t=\t1\t1\nA\t2\ts3cret\nA\t1\ts3cret\n0\t=\t1\t1\n"), 4u);
  EXPECT_EQ(Hs(0)->error, WireStatus::Unauthorized("unauth"));
  EXPECT_EQ(Hs(1)->error, WireStatus::Unauthorized("authtype"));
  EXPECT_EQ(Hs(2)->type, RequestType::kAuth);
  EXPECT_EQ(Hs(3)->type, RequestType::kFind);
  EXPECT_EQ(session_->failed_logins, 0u);
}

// A wrong secret is a refused login (login_policy.h): counted, and the last line of
// its turn, so that what follows waits for its (delayed) answer.
TEST_F(ClientConnectionTest, a_wrong_secret_is_counted_and_ends_the_parse) {
  Open(false, "s3cret");
  ASSERT_EQ(Feed("A\t1\twrong\nA\t1\ts3cret\n0\t=\t1\t1\n"), 1u);
  EXPECT_EQ(Hs(0)->error, WireStatus::Unauthorized("unauth"));
  EXPECT_EQ(session_->failed_logins, 1u);
  EXPECT_TRUE(conn_->read_more());
  ASSERT_EQ(conn_->ParseLines(1024, 1024), 2u);
  EXPECT_EQ(Hs(0)->type, RequestType::kAuth);
  EXPECT_EQ(Hs(1)->type, RequestType::kFind);
  EXPECT_EQ(session_->failed_logins, 1u);
}

TEST_F(ClientConnectionTest, account_logins_go_to_the_executor_and_end_the_parse) {
  Open(true, "", true);
  ASSERT_EQ(Feed("0\t=\t1\t1\nA\t1\ts\nA\t2\tapp\nA\t3\tapp\tff\n0\t=\t1\t1\n"), 4u);
  EXPECT_EQ(Hs(0)->error, WireStatus::Unauthorized("unauth"));
  EXPECT_EQ(Hs(1)->error, WireStatus::Unauthorized("authtype"));
  EXPECT_EQ(Hs(2)->type, RequestType::kAuth);
  EXPECT_EQ(Hs(2)->auth_key, "app");
  EXPECT_EQ(Hs(3)->type, RequestType::kAuth);
  EXPECT_EQ(Hs(3)->auth_arg, "ff");
  // The find after the login waits until the executor has answered the login; the
  // connection wants another turn for it.
  EXPECT_TRUE(conn_->read_more());
  session_->SetAccount("app@localhost");
  ASSERT_EQ(conn_->ParseLines(1024, 1024), 1u);
  EXPECT_EQ(Hs(0)->type, RequestType::kFind);
  // A write on the read listener is still refused after a login.
  ASSERT_EQ(Feed("0\t+\t1\tv\n"), 1u);
  EXPECT_EQ(Hs(0)->error, WireStatus::BadRequest("readonly"));
}

TEST_F(ClientConnectionTest, writes_on_the_read_listener_answer_readonly) {
  Open(true);
  ASSERT_EQ(Feed("0\t+\t1\tv\n0\t=\t1\t1\t1\t0\tD\n0\t=\t1\t1\n"), 3u);
  EXPECT_EQ(Hs(0)->error, WireStatus::BadRequest("readonly"));
  EXPECT_EQ(Hs(1)->error, WireStatus::BadRequest("readonly"));
  EXPECT_EQ(Hs(2)->type, RequestType::kFind);
}

TEST_F(ClientConnectionTest, malformed_writes_on_the_read_listener_answer_readonly_too) {
  Open(true);
  ASSERT_EQ(Feed("0\t+\t2\tv\n0\t=\t1\t1\tZ\n0\t=\t1\t1\tD\tx\n0\t=\t0\n"), 4u);
  EXPECT_EQ(Hs(0)->error, WireStatus::BadRequest("readonly"));
  EXPECT_EQ(Hs(1)->error, WireStatus::BadRequest("readonly"));
  EXPECT_EQ(Hs(2)->error, WireStatus::BadRequest("readonly"));
  EXPECT_EQ(Hs(3)->error, WireStatus::BadRequest("klen"));  // a read, malformed
}

TEST_F(ClientConnectionTest, answers_are_flushed_to_the_client) {
  Open(false);
  conn_->output()->append("0\t1\n");
  ASSERT_TRUE(conn_->Flush());
  EXPECT_FALSE(conn_->HasOutput());
  char buf[16];
  ASSERT_EQ(::read(client_, buf, sizeof buf), 4);
  EXPECT_EQ(std::string(buf, 4), "0\t1\n");
  EXPECT_EQ(stats_.bytes_sent.Get(), 4u);
}

// One worker at a time owns a connection: readiness that reaches another worker
// meanwhile is noted, and the owner serves the connection again instead of letting
// go; the sweep claims only a free connection.
TEST_F(ClientConnectionTest, readiness_that_arrives_while_owned_makes_the_owner_serve_again) {
  Open(false);
  // Made owned by the worker that accepted it.
  EXPECT_FALSE(conn_->Claim());
  EXPECT_FALSE(conn_->Acquire());  // readiness on another worker: noted
  EXPECT_FALSE(conn_->Acquire());
  EXPECT_FALSE(conn_->Release());  // the owner keeps it, to serve it again
  EXPECT_TRUE(conn_->Release());   // nothing arrived since: free

  EXPECT_TRUE(conn_->Claim());     // the sweep, while it is free
  conn_->Unclaim();
  EXPECT_TRUE(conn_->Acquire());   // the next readiness makes its worker the owner
  EXPECT_FALSE(conn_->Claim());
  EXPECT_TRUE(conn_->Release());
}

// The phase: answers the socket did not take make the connection wait for it, and
// once it is ending it stays so, whatever happens to its answers.
TEST_F(ClientConnectionTest, phase_moves_only_along_its_named_transitions) {
  Open(false);
  EXPECT_TRUE(conn_->serving());
  EXPECT_FALSE(conn_->AnswersSent());  // nothing was waiting
  conn_->WaitForSocket();
  EXPECT_FALSE(conn_->serving());
  EXPECT_TRUE(conn_->AnswersSent());
  EXPECT_TRUE(conn_->serving());
  EXPECT_TRUE(conn_->End());
  EXPECT_FALSE(conn_->End());           // ended once (the sweep counts a time-out once)
  conn_->WaitForSocket();
  EXPECT_FALSE(conn_->AnswersSent());
  EXPECT_TRUE(conn_->ending());
}

TEST_F(ClientConnectionTest, the_peer_closing_its_side_ends_the_connection) {
  Open(false);
  ::shutdown(client_, SHUT_WR);
  char scratch[64];
  ASSERT_TRUE(conn_->ReadOnce(scratch, sizeof scratch));
  EXPECT_TRUE(conn_->ending());
  EXPECT_EQ(conn_->ParseLines(1024, 1024), 0u);
}

// Answers of a batch that is committed but not yet durable stay in the buffer, and
// so does everything appended after them, until their ticket is released.
TEST_F(ClientConnectionTest, held_answers_leave_only_once_their_batch_is_durable) {
  Open(false);
  conn_->output()->append("0\t1\n");        // an earlier answer, free to go
  size_t begin = conn_->output()->size();
  conn_->output()->append("0\t1\t5\n");     // a write batch's answer, ticket 7
  conn_->HoldOutput(7, begin, 0, 0);
  begin = conn_->output()->size();
  conn_->output()->append("0\t1\t6\n");     // the next write batch's, ticket 9
  conn_->HoldOutput(9, begin, 0, 0);
  conn_->output()->append("0\t0\n");        // a later answer without a ticket
  ASSERT_TRUE(conn_->Flush());
  EXPECT_TRUE(conn_->HasOutput());
  EXPECT_FALSE(conn_->CanSend());
  char buf[64];
  ASSERT_EQ(::read(client_, buf, sizeof buf), 4);
  EXPECT_EQ(std::string(buf, 4), "0\t1\n");

  EXPECT_FALSE(conn_->ReleaseOutput(6, 0));  // an older ticket releases nothing
  EXPECT_TRUE(conn_->ReleaseOutput(8, 0));   // 7 is durable, 9 is not
  EXPECT_TRUE(conn_->held());
  ASSERT_TRUE(conn_->Flush());
  ASSERT_EQ(::read(client_, buf, sizeof buf), 6);
  EXPECT_EQ(std::string(buf, 6), "0\t1\t5\n");

  EXPECT_TRUE(conn_->ReleaseOutput(9, 0));
  EXPECT_FALSE(conn_->held());
  ASSERT_TRUE(conn_->Flush());
  EXPECT_FALSE(conn_->HasOutput());
  ASSERT_EQ(::read(client_, buf, sizeof buf), 10);
  EXPECT_EQ(std::string(buf, 10), "0\t1\t6\n0\t0\n");
}

// Held answers' latency runs until they are released, counted per request kind;
// their wait for the log flush runs from the commit, summed over the requests.
TEST_F(ClientConnectionTest, held_answers_count_their_latency_until_released) {
  Open(false);
  ASSERT_EQ(Feed("1\t+\t1\tv\n1\t+\t1\tw\n1\t=\t1\t5\n"), 3u);
  conn_->output()->append("0\t1\n0\t1\n0\t0\n");
  conn_->HoldOutput(3, 0, 1000, 1200);
  EXPECT_FALSE(conn_->ReleaseOutput(2, 1500));
  EXPECT_TRUE(conn_->ReleaseOutput(3, 1700));
  const size_t at_700us = LatencyBucket(700);
  EXPECT_EQ(stats_.latency.buckets[static_cast<size_t>(RequestCategory::kInsert)][at_700us].Get(),
            2u);
  EXPECT_EQ(stats_.latency.buckets[static_cast<size_t>(RequestCategory::kFind)][at_700us].Get(),
            1u);
  EXPECT_EQ(
      stats_.latency.buckets[static_cast<size_t>(RequestCategory::kInsert)][LatencyBucket(500)]
          .Get(),
      0u);
  EXPECT_EQ(stats_.log_flush_wait_microseconds.Get(), 3u * 500);
}

// What the layers that know no protocol read of a request (ParsedRequest) is set
// once the connection's rules have decided it: a refused `A` counts as invalid.
TEST_F(ClientConnectionTest, each_request_carries_its_category_once_its_rules_have_run) {
  Open(false);
  EXPECT_EQ(conn_->protocol(), WireProtocol::kHandlerSocket);
  ASSERT_EQ(Feed("0\t=\t1\t5\nA\t1\tx\n1\t+\t1\tv\n0\t=\t1\t5\t1\t0\tD\n"), 4u);
  EXPECT_EQ(conn_->request(0)->category, RequestCategory::kFind);
  EXPECT_EQ(conn_->request(1)->category, RequestCategory::kInvalid);
  EXPECT_EQ(conn_->request(2)->category, RequestCategory::kInsert);
  EXPECT_EQ(conn_->request(3)->category, RequestCategory::kDelete);
}

// A memcached listener's connection parses memcached commands, each its own
// McRequest, with what it writes and counts as.
TEST_F(ClientConnectionTest, a_memcached_listener_parses_commands_into_mc_requests) {
  OpenMemcached();
  EXPECT_EQ(conn_->protocol(), WireProtocol::kMemcached);
  ASSERT_EQ(Feed("get a b\r\nset k 0 0 1\r\nv\r\ndelete k\r\nversion\r\n"), 4u);
  EXPECT_EQ(Mc(0)->command, McCommand::kGet);
  EXPECT_EQ(Mc(0)->keys.size(), 2u);
  EXPECT_FALSE(Mc(0)->writes);
  EXPECT_EQ(Mc(0)->category, RequestCategory::kFind);
  EXPECT_EQ(Mc(1)->value, "v");
  EXPECT_TRUE(Mc(1)->writes);
  EXPECT_TRUE(Mc(2)->writes);
  EXPECT_EQ(Mc(2)->category, RequestCategory::kDelete);
  EXPECT_FALSE(Mc(3)->writes);
  EXPECT_FALSE(conn_->ending());
  ASSERT_EQ(Feed("get a\r\nquit\r\nget b\r\n"), 2u);  // nothing after quit is read
  EXPECT_TRUE(conn_->ending());
}

// A Redis listener's connection frames pipelined commands (multibulk and inline),
// each looked up in the command table; an unknown one carries Redis's error, a
// protocol error closes after its answer, QUIT closes, and what follows AUTH waits.
TEST_F(ClientConnectionTest, a_redis_listener_frames_commands_into_redis_requests) {
  OpenListener("redis", WireProtocol::kRedis);
  EXPECT_EQ(conn_->protocol(), WireProtocol::kRedis);
  ASSERT_EQ(Feed("*1\r\n$4\r\nPING\r\n*0\r\n\r\nset k \"a b\"\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"
                 "NOSUCH x\r\n"),
            4u);
  EXPECT_EQ(Redis(0)->info->id, RedisCommandId::kPing);
  EXPECT_EQ(Redis(0)->category, RequestCategory::kOpen);
  EXPECT_EQ(Redis(1)->info->id, RedisCommandId::kSet);
  EXPECT_EQ(Redis(1)->command.argv[2], "a b");
  EXPECT_TRUE(Redis(1)->writes());
  EXPECT_EQ(Redis(2)->category, RequestCategory::kFind);
  EXPECT_FALSE(Redis(2)->writes());
  EXPECT_EQ(Redis(3)->info, nullptr);
  EXPECT_EQ(Redis(3)->error, "ERR unknown command 'NOSUCH', with args beginning with: 'x' ");
  EXPECT_EQ(Redis(3)->category, RequestCategory::kInvalid);
  EXPECT_FALSE(conn_->ending());
  ASSERT_EQ(Feed("AUTH u p\r\nPING\r\n"), 1u);  // what follows a login waits a turn
  const size_t next = conn_->ParseLines(1024, 1024);  // the PING, next turn
  conn_->BeginTurn();
  conn_->EndTurn(next);
  conn_->CompactInput();
  ASSERT_EQ(next, 1u);
  ASSERT_EQ(Feed("PING\r\n*1\r\n$-5\r\nPING\r\n"), 2u);
  EXPECT_EQ(Redis(1)->error, "ERR Protocol error: invalid bulk length");
  EXPECT_TRUE(Redis(1)->close_after);
  EXPECT_TRUE(conn_->ending());
}

// MULTI queues the commands that follow (their words copied) until EXEC, which
// carries them; a command refused while queuing makes the EXEC abort.
TEST_F(ClientConnectionTest, a_redis_multi_queues_commands_for_its_exec) {
  OpenListener("redis", WireProtocol::kRedis);
  ASSERT_EQ(Feed("EXEC\r\nMULTI\r\nSET k v\r\nINCR n\r\nEXEC\r\nGET k\r\n"), 6u);
  EXPECT_EQ(Redis(0)->info, nullptr);
  EXPECT_EQ(Redis(0)->error, "ERR EXEC without MULTI");
  EXPECT_EQ(Redis(1)->info->id, RedisCommandId::kMulti);
  EXPECT_TRUE(Redis(2)->queued);
  EXPECT_EQ(Redis(2)->category, RequestCategory::kOpen);
  EXPECT_FALSE(Redis(2)->writes());
  EXPECT_TRUE(Redis(3)->queued);
  ASSERT_EQ(Redis(4)->info->id, RedisCommandId::kExec);
  ASSERT_EQ(Redis(4)->transaction.size(), 2u);
  EXPECT_EQ(Redis(4)->transaction[0].words, (std::vector<std::string>{"SET", "k", "v"}));
  EXPECT_EQ(Redis(4)->transaction[1].info->id, RedisCommandId::kIncr);
  EXPECT_FALSE(Redis(4)->exec_abort);
  EXPECT_TRUE(Redis(4)->writes());
  EXPECT_FALSE(Redis(5)->queued);
  ASSERT_EQ(Feed("MULTI\r\nNOSUCH\r\nMULTI\r\nGET k\r\nEXEC\r\nMULTI\r\nDISCARD\r\nDISCARD\r\n"),
            8u);
  EXPECT_EQ(Redis(1)->info, nullptr);
  EXPECT_EQ(Redis(2)->error, "ERR MULTI calls can not be nested");
  EXPECT_TRUE(Redis(3)->queued);
  EXPECT_TRUE(Redis(4)->exec_abort);
  EXPECT_EQ(Redis(4)->transaction.size(), 1u);
  EXPECT_EQ(Redis(6)->info->id, RedisCommandId::kDiscard);
  EXPECT_EQ(Redis(7)->error, "ERR DISCARD without MULTI");
}

TEST_F(ClientConnectionTest, a_redis_quit_ends_the_connection) {
  OpenListener("redis", WireProtocol::kRedis);
  ASSERT_EQ(Feed("PING\r\nQUIT\r\nPING\r\n"), 2u);
  EXPECT_EQ(Redis(1)->info->id, RedisCommandId::kQuit);
  EXPECT_TRUE(conn_->ending());
}

// Every protocol a listener may speak has its server side registered
// (connection_protocols.cc), and its listeners count their open connections where
// SHOW STATUS reads them.
TEST(ServerProtocols, every_protocol_is_registered_with_its_connection_counts) {
  for (WireProtocol protocol :
       {WireProtocol::kHandlerSocket, WireProtocol::kMemcached, WireProtocol::kRedis}) {
    const ServerProtocol& registered = ServerProtocolOf(protocol);
    ASSERT_NE(registered.new_connection, nullptr);
    EXPECT_NE(registered.new_connection(), nullptr);
  }
  StatsSnapshot s;
  const ServerProtocol& hs = ServerProtocolOf(WireProtocol::kHandlerSocket);
  s.*hs.open_connections_read_only += 1;
  s.*hs.open_connections += 2;
  s.*ServerProtocolOf(WireProtocol::kMemcached).open_connections += 4;
  s.*ServerProtocolOf(WireProtocol::kRedis).open_connections += 8;
  EXPECT_EQ(s.connections_read, 1u);
  EXPECT_EQ(s.connections_write, 2u);
  EXPECT_EQ(s.connections_memcached, 4u);
  EXPECT_EQ(s.connections_redis, 8u);
}

}  // namespace
}  // namespace rowsocket
