// Redis's side of a connection in the server layer (connection_protocol.h): the
// connection's commands framed by RedisParser (multibulk and inline, pipelined to
// any depth), each looked up in the command table (an unknown command or a wrong
// number of arguments is answered with Redis's error, and the connection goes on);
// a protocol error is answered and closes the connection once the answers before it
// are out, as Redis does; QUIT closes it after its +OK; TLS required is answered in
// Redis's words. What follows AUTH, HELLO and RESET (which change what the
// connection's later commands mean) is parsed next turn.
//
// Bounds: a bulk string longer than rowsocket_max_line_length is Redis's
// `invalid bulk length` protocol error (proto-max-bulk-len); a command still
// unfinished past that plus 64 KiB (or past what the listener's input budget leaves)
// answers `too big request` and closes.
#include <algorithm>
#include <memory>
#include <string_view>
#include <vector>

#include "protocol/redis.h"
#include "protocol/redis_commands.h"
#include "protocol/redis_reply.h"
#include "protocol/redis_request.h"
#include "server/connection_protocol.h"

namespace rowsocket {
namespace {

constexpr std::string_view kRedisTlsRequired =
    "ERR rowsocket: TLS required (rowsocket_require_secure_transport)";
constexpr std::string_view kRedisTooBigRequest = "ERR Protocol error: too big request";

class RedisConnection : public ConnectionProtocol {
 public:
  void Parse(ParseTurn* turn) override;
  void Trim() override;
  // A MULTI's queued commands, and the offsets of a command in progress (up to 16
  // bytes for each 6 of input: a command of many empty words).
  size_t held_bytes() const override {
    return queued_bytes_ + (parser_ ? parser_->held_bytes() : 0);
  }

 private:
  RedisParser* ParserFor(uint32_t max_line_length);
  // MULTI ... EXEC: what a command means inside a MULTI (false: it runs now).
  // `over_budget`: the listener's input is over rowsocket_max_input_memory.
  bool InMulti(RedisRequest* r, bool over_budget);

  // Reused across batches; on the heap, as an inline command's words point into its
  // own storage, which must not move when the slots grow.
  std::vector<std::unique_ptr<RedisRequest>> requests_;
  std::unique_ptr<RedisParser> parser_;
  uint32_t parser_max_line_ = 0;  // the max_line_length parser_ was made for
  // A MULTI in progress: the commands queued so far and their bytes, and whether
  // one was refused (its EXEC then aborts).
  bool in_multi_ = false;
  bool multi_refused_ = false;
  std::vector<RedisQueued> queued_;
  size_t queued_bytes_ = 0;
};

// What one MULTI may queue: commands and their bytes (as much as one connection's
// input may hold while rowsocket_max_input_memory's default allows).
constexpr size_t kMaxQueuedCommands = 100000;
constexpr size_t kMaxQueuedBytes = 64u << 20;

// A quiet connection keeps a few small slots: a command of many words (a huge
// MGET, a long inline line) leaves its words' vector and storage reserved in its
// slot, and its offsets in the parser, which would otherwise stay with every
// connection that ever sent one.
void RedisConnection::Trim() {
  constexpr size_t kKeptWords = 64, kKeptStorage = 4096;
  TrimRequestSlots(&requests_);
  for (std::unique_ptr<RedisRequest>& r : requests_) {
    if (r->command.argv.capacity() > kKeptWords || r->command.storage.capacity() > kKeptStorage ||
        r->transaction.capacity() > kKeptWords)
      r = std::make_unique<RedisRequest>();
    else
      r->Clear();  // (an EXEC's copied words)
  }
  if (parser_) parser_->Trim();
  if (!in_multi_) std::vector<RedisQueued>().swap(queued_);
}

// The parser, made again for a new rowsocket_max_line_length between commands.
RedisParser* RedisConnection::ParserFor(uint32_t max_line_length) {
  if (!parser_ || parser_max_line_ != max_line_length) {
    RedisLimits limits;
    limits.max_bulk = std::min<int64_t>(kRedisMaxBulk, max_line_length);
    limits.max_inline = std::min<size_t>(kRedisInlineMax, max_line_length);
    parser_ = std::make_unique<RedisParser>(limits);
    parser_max_line_ = max_line_length;
  }
  return parser_.get();
}

void RedisConnection::Parse(ParseTurn* turn) {
  ConnectionSession* session = turn->session;
  session->tls = turn->tls;
  size_t count = 0;
  auto next_slot = [&]() -> RedisRequest* {
    if (requests_.size() <= count) requests_.push_back(std::make_unique<RedisRequest>());
    RedisRequest* r = requests_[count].get();
    r->Clear();
    return r;
  };
  // A command may take a value of max_line_length bytes and its headers.
  const uint64_t max_command = uint64_t{turn->max_line_length} + kRedisInlineMax;
  const bool over_budget = turn->max_unfinished < turn->max_line_length;
  while (!turn->end && turn->consumed < turn->size) {
    const std::string_view input(turn->input + turn->consumed, turn->size - turn->consumed);
    const bool authenticated = !session->account_logins || session->logged_in();
    RedisRequest* r = next_slot();
    RedisParser* parser = ParserFor(turn->max_line_length);
    const RedisParseResult result = parser->Parse(input, authenticated, &r->command);
    if (result.status == RedisParseStatus::kNeedMore) {
      if (input.size() >= max_command || (over_budget && input.size() >= turn->max_unfinished)) {
        if (over_budget) turn->stats->connections_input_limited.Add();
        r->Clear();
        r->error = kRedisTooBigRequest;
        r->close_after = true;
        parser->Reset();
        turn->consumed = turn->size;
        ++count;
        turn->end = true;
      }
      break;
    }
    if (result.status == RedisParseStatus::kError) {
      r->Clear();
      r->error = result.error;
      r->close_after = true;
      ++count;
      turn->consumed = turn->size;
      turn->end = true;
      break;
    }
    turn->consumed += result.consumed;
    if (r->command.argv.empty()) continue;  // `*0`, `*-1`, a blank line: nothing to run
    ++count;
    if (turn->refuse_plain) {
      r->Clear();
      r->error = kRedisTlsRequired;
      r->close_after = true;
      turn->end = true;
      break;
    }
    const std::vector<std::string_view>& argv = r->command.argv;
    r->info = RedisFindCommand(argv.data(), argv.size(), &r->error);
    r->unknown = r->info == nullptr;
    if (InMulti(r, over_budget)) continue;
    if (r->info == nullptr) continue;
    const RedisCommandId id = r->info->id;
    if (id == RedisCommandId::kQuit) {
      turn->end = true;  // closes once the answers before it and its +OK are out
      break;
    }
    if (id == RedisCommandId::kAuth || id == RedisCommandId::kHello ||
        id == RedisCommandId::kReset) {
      turn->next_turn = true;
      break;
    }
  }
  for (size_t i = 0; i < count; ++i) {
    requests_[i]->category = RedisCategoryOf(*requests_[i]);
    turn->requests->push_back(requests_[i].get());
  }
}

// As Redis 7.0's processCommand and multi.c: inside a MULTI every command but EXEC,
// DISCARD, MULTI, WATCH, QUIT and RESET is queued (+QUEUED), an unknown one or one of
// the wrong arity is answered and makes the EXEC abort; outside, EXEC and DISCARD
// are errors. AUTH and HELLO are not queued here (rowsocket runs logins at once).
bool RedisConnection::InMulti(RedisRequest* r, bool over_budget) {
  using I = RedisCommandId;
  if (r->info == nullptr) {
    if (in_multi_) multi_refused_ = true;
    return false;
  }
  const I id = r->info->id;
  auto refuse = [r](std::string_view error) {
    r->info = nullptr;
    r->error = error;
    return true;
  };
  if (!in_multi_) {
    if (id == I::kMulti) in_multi_ = true;  // answered +OK
    if (id == I::kExec) return refuse(kRedisErrExecWithoutMulti);
    if (id == I::kDiscard) return refuse(kRedisErrDiscardWithoutMulti);
    return false;
  }
  switch (id) {
    case I::kMulti: return refuse(kRedisErrNestedMulti);
    case I::kWatch: return refuse(kRedisErrWatchInMulti);
    case I::kAuth:
    case I::kHello:
    case I::kFlushdb:
      multi_refused_ = true;
      return refuse("ERR rowsocket: AUTH, HELLO and FLUSHDB are not served inside MULTI");
    case I::kDiscard:
    case I::kReset:
    case I::kQuit:
      in_multi_ = multi_refused_ = false;
      queued_.clear();
      queued_bytes_ = 0;
      return false;
    case I::kExec:
      in_multi_ = false;
      r->transaction.swap(queued_);
      r->exec_abort = multi_refused_;
      multi_refused_ = false;
      queued_.clear();
      queued_bytes_ = 0;
      return true;
    default:
      break;
  }
  size_t bytes = 0;
  for (std::string_view word : r->command.argv) bytes += word.size() + sizeof(std::string);
  // (The queued bytes count in the listener's input budget: while it is spent, a
  // MULTI queues nothing more.)
  if (queued_.size() >= kMaxQueuedCommands || queued_bytes_ + bytes > kMaxQueuedBytes ||
      over_budget) {
    multi_refused_ = true;
    return refuse("ERR rowsocket: the transaction is too large");
  }
  RedisQueued q;
  q.info = r->info;
  q.words.assign(r->command.argv.begin(), r->command.argv.end());
  queued_.push_back(std::move(q));
  queued_bytes_ += bytes;
  r->queued = true;
  return true;
}

std::unique_ptr<ConnectionProtocol> NewRedisConnection() {
  return std::make_unique<RedisConnection>();
}

}  // namespace

extern const ServerProtocol kRedisServer = {
    NewRedisConnection, &StatsSnapshot::connections_redis, &StatsSnapshot::connections_redis};

}  // namespace rowsocket
