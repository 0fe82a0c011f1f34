// memcached's side of a connection in the server layer (connection_protocol.h): the
// connection's framing (text or binary, decided by its first byte), every complete
// command parsed into an McRequest, the value-size limit (a longer value is
// answered with an error and its bytes dropped), TLS required (answered in
// memcached's words), `quit` and lost framing (the connection closes), and
// account-login gating (what follows a SASL login waits for its answer).
#include <algorithm>
#include <memory>
#include <string_view>
#include <vector>

#include "protocol/memcached.h"
#include "protocol/memcached_commands.h"
#include "server/connection_protocol.h"

namespace rowsocket {
namespace {

// The answer to plain text while require_secure_transport is on.
constexpr std::string_view kMcTlsRequired =
    "SERVER_ERROR TLS required (rowsocket_require_secure_transport)";

class McConnection : public ConnectionProtocol {
 public:
  void Parse(ParseTurn* turn) override;
  void Trim() override { TrimRequestSlots(&requests_); }

 private:
  std::vector<McRequest> requests_;  // reused across batches
  McProtocol protocol_ = McProtocol::kText;
  bool protocol_known_ = false;
  uint64_t discard_ = 0;  // input bytes still to drop (the rest of a value too large)
};

// Values up to max_line_length bytes (and multi-get lines as long) are taken. An
// unfinished command of `max_unfinished` bytes or more (the listener's input is
// over its budget) closes the connection, as an unfinished HandlerSocket line does.
void McConnection::Parse(ParseTurn* turn) {
  turn->session->tls = turn->tls;
  const uint32_t max_value_size = turn->max_line_length;
  const uint32_t max_unfinished = std::min(turn->max_unfinished, max_value_size);
  McLimits limits;
  limits.max_value_size = max_value_size;
  limits.max_retrieval_line = max_value_size;
  size_t count = 0;
  while (!turn->end) {
    if (discard_ > 0) {
      const uint64_t drop = std::min<uint64_t>(discard_, turn->size - turn->consumed);
      turn->consumed += static_cast<size_t>(drop);
      discard_ -= drop;
      if (discard_ > 0) break;
    }
    if (turn->consumed == turn->size) break;
    const std::string_view input(turn->input + turn->consumed, turn->size - turn->consumed);
    if (!protocol_known_) {
      protocol_ = McDetectProtocol(static_cast<uint8_t>(input[0]));
      protocol_known_ = true;
    }
    if (requests_.size() <= count) requests_.emplace_back();
    McRequest* mc = &requests_[count];
    const McParseResult result = ParseMcRequest(input, protocol_, limits, mc);
    if (result.status == McParseStatus::kNeedMore) {
      if (max_unfinished < max_value_size && input.size() >= max_unfinished) {
        turn->stats->connections_input_limited.Add();
        turn->end = true;
      }
      break;
    }
    if (result.status == McParseStatus::kClose) {
      turn->end = true;
      break;
    }
    turn->consumed += result.consumed;
    discard_ = result.discard;
    ++count;
    if (turn->refuse_plain) {
      // As on the HandlerSocket ports: the first request is refused, in memcached's
      // words, and the connection closes once that answer is out.
      mc->command = McCommand::kInvalid;
      mc->error = kMcTlsRequired;
      mc->error_status = McStatus::kAuthError;
      mc->noreply = false;
      mc->writes = false;
      turn->end = true;
      break;
    }
    mc->writes = McWritesRows(*mc);
    if (mc->command == McCommand::kQuit || mc->close_after) {
      turn->end = true;  // closes once the answers before it (and its own, if any) are out
      break;
    }
    if (McCommandProperties(mc->command).logs_in && turn->session->account_logins) {
      // As after `A 3`: what follows a login is parsed next turn, once its answer
      // (and a refusal's delay, login_policy.h) is known.
      turn->next_turn = true;
      break;
    }
  }
  // (Pointers are taken last: the slots may have grown while parsing.)
  for (size_t i = 0; i < count; ++i) {
    requests_[i].category = McCategoryOf(requests_[i]);
    turn->requests->push_back(&requests_[i]);
  }
}

std::unique_ptr<ConnectionProtocol> NewMcConnection() { return std::make_unique<McConnection>(); }

}  // namespace

extern const ServerProtocol kMemcachedServer = {
    NewMcConnection, &StatsSnapshot::connections_memcached, &StatsSnapshot::connections_memcached};

}  // namespace rowsocket
