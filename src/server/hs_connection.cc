// HandlerSocket's side of a connection in the server layer (connection_protocol.h):
// LF-framed lines parsed in place into Requests, the line-length limit, the
// listener's shared secret (`A 1`), account-login gating, the read-only listener's
// refusals and TLS required, each answered as an invalid request.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <vector>

#include "protocol/request.h"
#include "protocol/wire_errors.h"
#include "server/connection_protocol.h"
#include "server/listener.h"

namespace rowsocket {
namespace {

void MakeError(Request* r, WireStatus status) {
  r->type = RequestType::kInvalid;
  r->error = status;
}

class HsConnection : public ConnectionProtocol {
 public:
  void Parse(ParseTurn* turn) override;
  void Trim() override { TrimRequestSlots(&requests_); }
  bool secret_accepted() const override {
    return authenticated_.load(std::memory_order_relaxed);
  }

 private:
  Request* Slot(size_t i) {
    if (requests_.size() <= i) requests_.emplace_back();
    return &requests_[i];
  }
  // Request `slot` answers `error`, and the connection ends.
  void AnswerErrorAndEnd(ParseTurn* turn, size_t slot, WireError error);
  // Turns one line into a request, applying per-connection rules.
  void ParseOne(const ParseTurn& turn, char* line, size_t size, Request* r);
  void ParseForAccount(const ParseTurn& turn, Request* r);

  std::vector<Request> requests_;  // reused across batches
  std::atomic<bool> authenticated_{false};  // `A 1` with the listener's secret
};

void HsConnection::Parse(ParseTurn* turn) {
  size_t count = 0;
  const uint32_t max_line_length = turn->max_line_length;
  const uint32_t max_unfinished = std::min(turn->max_unfinished, max_line_length);
  while (!turn->end) {
    char* begin = turn->input + turn->consumed;
    const size_t avail = turn->size - turn->consumed;
    char* lf = avail ? static_cast<char*>(std::memchr(begin, '\n', avail)) : nullptr;
    if (lf == nullptr) {
      if (avail >= max_unfinished) {
        // No end in sight (or none the listener's input budget can wait for): the
        // rest of the stream cannot be framed reliably.
        if (avail < max_line_length) turn->stats->connections_input_limited.Add();
        AnswerErrorAndEnd(turn, count++, WireError::kLineLen);
        turn->consumed = turn->size;
      }
      break;
    }
    size_t len = static_cast<size_t>(lf - begin);
    turn->consumed += len + 1;
    if (len + 1 > max_line_length) {
      AnswerErrorAndEnd(turn, count++, WireError::kLineLen);
      break;
    }
    if (turn->refuse_plain) {
      AnswerErrorAndEnd(turn, count++, WireError::kTlsRequired);
      break;
    }
    if (len > 0 && begin[len - 1] == '\r') --len;
    Request* r = Slot(count++);
    const uint32_t failed_logins = turn->session->failed_logins;
    ParseOne(*turn, begin, len, r);
    r->category = CategoryOf(*r);
    if (turn->session->failed_logins != failed_logins) {
      turn->next_turn = true;  // a wrong secret ends the turn's lines, as a login does below
      break;
    }
    if (r->type == RequestType::kAuth && turn->session->account_logins && r->auth_type != "2") {
      // Whether the requests after an account login (A 3, A 4) may run depends on
      // how the executor answers it: they are parsed next turn.
      turn->next_turn = true;
      break;
    }
  }
  // (Pointers are taken last: the slots may have grown while parsing.)
  for (size_t i = 0; i < count; ++i) turn->requests->push_back(&requests_[i]);
}

// The connection closes once the answer has left.
void HsConnection::AnswerErrorAndEnd(ParseTurn* turn, size_t slot, WireError error) {
  Request* r = Slot(slot);
  r->Clear();
  MakeError(r, ErrorStatus(error));
  turn->end = true;
}

void HsConnection::ParseOne(const ParseTurn& turn, char* line, size_t size, Request* r) {
  ParseRequest(line, size, r);
  const Listener& listener = *turn.listener;
  if (listener.auth() == AuthMode::kAccount) return ParseForAccount(turn, r);
  const std::string& secret = listener.secret();
  if (r->type == RequestType::kInvalid) {
    // A malformed line that asks for a change: the read listener refuses the
    // change first, as the original plugin does.
    if (listener.read_only() && r->asks_to_write && (secret.empty() || authenticated_))
      MakeError(r, ErrorStatus(WireError::kReadOnly));
    return;
  }
  if (r->type == RequestType::kAuth) {
    // A listener without a secret accepts no key (clients keep working
    // unauthenticated), as the original plugin does.
    if (r->auth_type != "1") {
      MakeError(r, ErrorStatus(WireError::kAuthType));
    } else if (secret.empty() || r->auth_key != secret) {
      authenticated_ = false;
      MakeError(r, ErrorStatus(WireError::kUnauth));
      // A wrong secret is a refused login (login_policy.h); on a listener without
      // one, `A 1` is a no-op the original's clients send, not a guess.
      if (!secret.empty()) ++turn.session->failed_logins;
    } else {
      authenticated_ = true;
    }
    return;
  }
  if (!secret.empty() && !authenticated_) {
    MakeError(r, ErrorStatus(WireError::kUnauth));
    return;
  }
  if (listener.read_only() && r->IsWrite()) MakeError(r, ErrorStatus(WireError::kReadOnly));
}

// On a listener with account logins, `A` types 2 to 4 go to the executor, which
// checks the account; every other request needs a connection logged in.
void HsConnection::ParseForAccount(const ParseTurn& turn, Request* r) {
  if (r->type == RequestType::kAuth) {
    const std::string_view type = r->auth_type;
    if (type != "2" && type != "3" && type != "4") MakeError(r, ErrorStatus(WireError::kAuthType));
    turn.session->tls = turn.tls;
    return;
  }
  if (!turn.session->logged_in()) {
    MakeError(r, ErrorStatus(WireError::kUnauth));
    return;
  }
  if (turn.listener->read_only() &&
      (r->IsWrite() || (r->type == RequestType::kInvalid && r->asks_to_write)))
    MakeError(r, ErrorStatus(WireError::kReadOnly));
}

std::unique_ptr<ConnectionProtocol> NewHsConnection() { return std::make_unique<HsConnection>(); }

}  // namespace

extern const ServerProtocol kHandlerSocketServer = {
    NewHsConnection, &StatsSnapshot::connections_read, &StatsSnapshot::connections_write};

}  // namespace rowsocket
