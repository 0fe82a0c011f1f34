// ClientConnection: reading, line framing, per-connection request rules, writing.
// Runs on the thread of the worker that owns the connection (see connection.h).
#include "server/client_connection.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "protocol/memcached_commands.h"
#include "protocol/wire_errors.h"
#include "server/listener.h"
#include "util/log.h"
#include "util/clock.h"

namespace rowsocket {
namespace {

// Output buffers bigger than this are released once drained, so that a burst of
// large answers does not pin memory on an idle connection.
constexpr size_t kKeepOutputCapacity = 64 * 1024;
constexpr size_t kKeepInputCapacity = 64 * 1024;
// Parsed-request slots an idle connection keeps (see Trim).
constexpr size_t kKeepRequests = 64;
// The first byte of a TLS handshake record; no request begins with it.
constexpr unsigned char kTlsHandshakeRecord = 0x16;
// The memcached listener's answer to plain text while require_secure_transport is on.
constexpr std::string_view kMcTlsRequired =
    "SERVER_ERROR TLS required (rowsocket_require_secure_transport)";

void MakeError(Request* r, WireStatus status) {
  r->type = RequestType::kInvalid;
  r->error = status;
}

}  // namespace

bool ClientConnection::Acquire() {
  uint8_t state = owner_.load(std::memory_order_acquire);
  for (;;) {
    switch (state) {
      case kFree:
        if (owner_.compare_exchange_weak(state, kOwned, std::memory_order_acq_rel)) return true;
        break;
      case kOwned:
        if (owner_.compare_exchange_weak(state, kOwnedAgain, std::memory_order_acq_rel))
          return false;
        break;
      case kOwnedAgain:
        return false;
      default:  // kSwept: the sweep is trimming it, for microseconds
        std::this_thread::yield();
        state = owner_.load(std::memory_order_acquire);
    }
  }
}

bool ClientConnection::Release() {
  uint8_t owned = kOwned;
  if (owner_.compare_exchange_strong(owned, kFree, std::memory_order_acq_rel)) return true;
  owner_.store(kOwned, std::memory_order_relaxed);  // was kOwnedAgain
  return false;
}

bool ClientConnection::ReadOnce(char* scratch, size_t size) {
  if (transport_ == Transport::kUnknown) {
    switch (ChooseTransport()) {
      case Choice::kChosen: break;
      case Choice::kWait: read_more_ = false; return true;
      case Choice::kUnusable: return false;
    }
  }
  if (tls_) return ReadTls(scratch, size);
  ssize_t n;
  do {
    n = ::recv(fd_, scratch, size, 0);
  } while (n < 0 && errno == EINTR);
  if (n == 0) End();  // the peer closed its side
  read_more_ = n == static_cast<ssize_t>(size);
  if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK;
  if (n > 0) {
    // Only what arrived is kept: an idle connection holds no read-sized buffer.
    in_.append(scratch, static_cast<size_t>(n));
    stats_->bytes_received.Add(static_cast<uint64_t>(n));
    bytes_received_.Add(static_cast<uint64_t>(n));
  }
  return true;
}

void ClientConnection::ReadReceived(std::string* received, bool peer_closed) {
  read_more_ = false;
  if (received->empty()) {
    if (peer_closed) End();
    return;
  }
  const size_t n = received->size();
  if (in_.empty()) {
    in_.swap(*received);  // the common case: no copy
  } else {
    in_.append(*received);
  }
  received->clear();
  stats_->bytes_received.Add(n);
  bytes_received_.Add(n);
}

ClientConnection::Choice ClientConnection::ChooseTransport() {
  static LogLimit tls_off;
  unsigned char first;
  ssize_t n;
  do {
    n = ::recv(fd_, &first, 1, MSG_PEEK);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK ? Choice::kWait : Choice::kUnusable;
  if (n == 0) {
    End();  // the peer closed its side without a word
    return Choice::kWait;
  }
  if (first != kTlsHandshakeRecord) {
    transport_ = Transport::kPlain;
    refuse_plain_ = listener_->requires_tls();
    return Choice::kChosen;
  }
  if (listener_->tls() == nullptr) {
    stats_->tls_handshakes_failed.Add();
    LogLimited(&tls_off, LogLevel::kNotice, "%s port: %s began a TLS handshake, but TLS is off",
               listener_->name(), peer_.c_str());
    return Choice::kUnusable;
  }
  tls_ = std::make_unique<TlsStream>(*listener_->tls(), fd_, /*server=*/true);
  transport_ = Transport::kTls;
  admitted_.store(false, std::memory_order_release);  // until the handshake is done
  return tls_->ok() ? Choice::kChosen : Choice::kUnusable;
}

// The handshake first (each step when the socket is ready: it never waits), then
// application data until the scratch buffer is full or the session wants the socket
// again: on an edge-triggered socket a short read is not proof it is drained, since
// a TLS read returns one record at most.
bool ClientConnection::ReadTls(char* scratch, size_t size) {
  static LogLimit failed;
  read_more_ = false;
  if (!tls_->handshake_done()) {
    switch (tls_->Handshake()) {
      case TlsIo::kDone:
        listener_->TlsOpened();
        tls_counted_ = true;
        tls_version_.store(tls_->version(), std::memory_order_relaxed);
        break;
      case TlsIo::kWantRead:
      case TlsIo::kWantWrite:
        return true;
      case TlsIo::kClosed:
      case TlsIo::kError:
        stats_->tls_handshakes_failed.Add();
        LogLimited(&failed, LogLevel::kNotice, "%s port: TLS handshake with %s failed: %s",
                   listener_->name(), peer_.c_str(), tls_->error().c_str());
        return false;
    }
  }
  size_t filled = 0;
  bool more = true;
  while (more && filled < size) {
    size_t n = 0;
    switch (tls_->Read(scratch + filled, size - filled, &n)) {
      case TlsIo::kDone: filled += n; break;
      case TlsIo::kClosed: End(); more = false; break;
      case TlsIo::kError: return false;
      default: more = false; break;  // wants the socket: drained for now
    }
  }
  read_more_ = filled == size;
  if (filled > 0) {
    in_.append(scratch, filled);
    stats_->bytes_received.Add(filled);
    bytes_received_.Add(filled);
  }
  return true;
}

size_t ClientConnection::ParseLines(uint32_t max_line_length, uint32_t max_unfinished) {
  if (listener_->protocol() == WireProtocol::kMemcached)
    return ParseMemcached(max_line_length, std::min(max_unfinished, max_line_length));
  size_t count = 0;
  max_unfinished = std::min(max_unfinished, max_line_length);
  while (!ending()) {
    char* begin = &in_[0] + consumed_;
    size_t avail = in_.size() - consumed_;
    char* lf = avail ? static_cast<char*>(std::memchr(begin, '\n', avail)) : nullptr;
    if (lf == nullptr) {
      if (avail >= max_unfinished) {
        // No end in sight (or none the listener's input budget can wait for): the
        // rest of the stream cannot be framed reliably.
        if (avail < max_line_length) stats_->connections_input_limited.Add();
        AnswerErrorAndEnd(count++, WireError::kLineLen);
        consumed_ = in_.size();
      }
      break;
    }
    size_t len = static_cast<size_t>(lf - begin);
    consumed_ += len + 1;
    if (len + 1 > max_line_length) {
      AnswerErrorAndEnd(count++, WireError::kLineLen);
      break;
    }
    if (refuse_plain_) {
      AnswerErrorAndEnd(count++, WireError::kTlsRequired);
      break;
    }
    if (len > 0 && begin[len - 1] == '\r') --len;
    if (requests_.size() <= count) requests_.emplace_back();
    Request* r = &requests_[count++];
    const uint32_t failed_logins = session_->failed_logins;
    ParseOne(begin, len, r);
    if (session_->failed_logins != failed_logins) {
      read_more_ = true;  // a wrong secret ends the turn's lines, as a login does below
      break;
    }
    if (r->type == RequestType::kAuth && session_->account_logins && r->auth_type != "2") {
      // Whether the requests after an account login (A 3, A 4) may run depends on
      // how the executor answers it: they are parsed next turn.
      read_more_ = true;
      break;
    }
  }
  parsed_ = count;
  answered_ = 0;
  requests_total_.Add(count);
  return count;
}

// The memcached listener: every complete command in the input, each carried by a
// request of type kMemcached. Values up to `max_value_size` bytes (and multi-get lines
// as long) are taken; a longer value is answered with an error and its bytes dropped.
// An unfinished command of `max_unfinished` bytes or more (the listener's input is
// over its budget) closes the connection, as an unfinished HandlerSocket line does.
size_t ClientConnection::ParseMemcached(uint32_t max_value_size, uint32_t max_unfinished) {
  session_->tls = tls();
  McLimits limits;
  limits.max_value_size = max_value_size;
  limits.max_retrieval_line = max_value_size;
  size_t count = 0;
  while (!ending()) {
    if (mc_discard_ > 0) {
      const uint64_t drop = std::min<uint64_t>(mc_discard_, in_.size() - consumed_);
      consumed_ += static_cast<size_t>(drop);
      mc_discard_ -= drop;
      if (mc_discard_ > 0) break;
    }
    if (consumed_ == in_.size()) break;
    if (!mc_protocol_known_) {
      mc_protocol_ = McDetectProtocol(static_cast<uint8_t>(in_[consumed_]));
      mc_protocol_known_ = true;
    }
    if (mc_requests_.size() <= count) mc_requests_.emplace_back();
    if (requests_.size() <= count) requests_.emplace_back();
    McRequest* mc = &mc_requests_[count];
    const McParseResult result = ParseMcRequest(
        std::string_view(in_).substr(consumed_), mc_protocol_, limits, mc);
    if (result.status == McParseStatus::kNeedMore) {
      if (max_unfinished < max_value_size && in_.size() - consumed_ >= max_unfinished) {
        stats_->connections_input_limited.Add();
        End();
      }
      break;
    }
    if (result.status == McParseStatus::kClose) {
      End();
      break;
    }
    consumed_ += result.consumed;
    mc_discard_ = result.discard;
    Request* r = &requests_[count++];
    r->Clear();
    r->type = RequestType::kMemcached;
    if (refuse_plain_) {
      // As on the HandlerSocket ports: the first request is refused, in memcached's
      // words, and the connection closes once that answer is out.
      mc->command = McCommand::kInvalid;
      mc->error = kMcTlsRequired;
      mc->error_status = McStatus::kAuthError;
      mc->noreply = false;
      End();
      break;
    }
    r->memcached_writes = McWritesRows(*mc);
    if (mc->command == McCommand::kQuit || mc->close_after) {
      End();  // closes once the answers before it (and its own, if any) are out
      break;
    }
    if (McCommandProperties(mc->command).logs_in && session_->account_logins) {
      // As after `A 3`: what follows a login is parsed next turn, once its answer
      // (and a refusal's delay, login_policy.h) is known.
      read_more_ = true;
      break;
    }
  }
  // (Pointers are set last: the vector may have grown while parsing.)
  for (size_t i = 0; i < count; ++i) requests_[i].memcached = &mc_requests_[i];
  parsed_ = count;
  answered_ = 0;
  requests_total_.Add(count);
  return count;
}

size_t ClientConnection::BeginTurn() {
  answers_begin_ = out_.size();
  turn_first_ = answered_;
  return answered_;
}

void ClientConnection::EndTurn(size_t answered) { answered_ += answered; }

void ClientConnection::CountLatency(uint64_t micros) {
  for (size_t i = turn_first_; i < answered_; ++i)
    stats_->latency.Add(CategoryOf(requests_[i]), micros);
}

void ClientConnection::CheckAdmitted() {
  if (admitted()) return;
  if (tls_ && !tls_->handshake_done()) return;
  bool admitted = true;
  switch (listener_->auth()) {
    case AuthMode::kAccount:
      admitted = session_->logged_in();
      break;
    case AuthMode::kSecret:
      admitted = listener_->secret().empty() || authenticated_.load(std::memory_order_relaxed);
      break;
    case AuthMode::kNone:
      // Plain text (or nothing sent yet) needs nothing more; only a TLS handshake
      // that has begun must finish.
      break;
  }
  if (admitted) admitted_.store(true, std::memory_order_release);
}

void ClientConnection::Describe(uint64_t now_ms, ConnectionInfo* info) const {
  info->id = id_;
  info->listener = listener_->name();
  info->peer = peer_;
  info->authenticated = listener_->auth() == AuthMode::kAccount
                            ? session_->logged_in()
                            : authenticated_.load(std::memory_order_relaxed);
  info->account = session_->account();
  info->tls = tls_version_.load(std::memory_order_relaxed);
  info->open_indexes = static_cast<uint32_t>(session_->open_indexes.Get());
  info->requests = requests_total_.Get();
  info->bytes_received = bytes_received_.Get();
  info->bytes_sent = bytes_sent_.Get();
  info->connected_ms = now_ms - connected_ms_;
  info->idle_ms = idle_ms(now_ms);
  info->worker = worker_.load(std::memory_order_relaxed);
}

// The connection closes once the answer has left.
void ClientConnection::AnswerErrorAndEnd(size_t slot, WireError error) {
  if (requests_.size() <= slot) requests_.emplace_back();
  requests_[slot].Clear();
  MakeError(&requests_[slot], ErrorStatus(error));
  End();
}

void ClientConnection::ParseOne(char* line, size_t size, Request* r) {
  ParseRequest(line, size, r);
  if (listener_->auth() == AuthMode::kAccount) return ParseForAccount(r);
  const std::string& secret = listener_->secret();
  if (r->type == RequestType::kInvalid) {
    // A malformed line that asks for a change: the read listener refuses the
    // change first, as the original plugin does.
    if (listener_->read_only() && r->asks_to_write && (secret.empty() || authenticated_))
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
      if (!secret.empty()) ++session_->failed_logins;
    } else {
      authenticated_ = true;
    }
    return;
  }
  if (!secret.empty() && !authenticated_) {
    MakeError(r, ErrorStatus(WireError::kUnauth));
    return;
  }
  if (listener_->read_only() && r->IsWrite()) MakeError(r, ErrorStatus(WireError::kReadOnly));
}

// On a listener with account logins, `A` types 2 to 4 go to the executor, which
// checks the account; every other request needs a connection logged in.
void ClientConnection::ParseForAccount(Request* r) {
  if (r->type == RequestType::kAuth) {
    const std::string_view type = r->auth_type;
    if (type != "2" && type != "3" && type != "4") MakeError(r, ErrorStatus(WireError::kAuthType));
    session_->tls = tls();
    return;
  }
  if (!session_->logged_in()) {
    MakeError(r, ErrorStatus(WireError::kUnauth));
    return;
  }
  if (listener_->read_only() && (r->IsWrite() || (r->type == RequestType::kInvalid && r->asks_to_write)))
    MakeError(r, ErrorStatus(WireError::kReadOnly));
}

void ClientConnection::Trim() {
  if (has_unanswered()) return;  // their requests point into the input
  if (requests_.size() > kKeepRequests) {
    requests_.resize(kKeepRequests);
    requests_.shrink_to_fit();
  }
  if (in_.empty()) std::string().swap(in_);
  if (!HasOutput()) std::string().swap(out_);
}

void ClientConnection::CompactInput() {
  if (has_unanswered()) return;
  if (consumed_ == in_.size()) {
    in_.clear();
    if (in_.capacity() > kKeepInputCapacity) std::string().swap(in_);
  } else if (consumed_ > 0) {
    in_.erase(0, consumed_);
  }
  consumed_ = 0;
}

bool ClientConnection::Flush() {
  if (tls_) return SendTls();
  while (CanSend()) {
    const std::string_view unsent = Unsent();
    ssize_t n = ::send(fd_, unsent.data(), unsent.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno == EAGAIN || errno == EWOULDBLOCK;  // the socket is full
    }
    Sent(static_cast<size_t>(n));
  }
  return true;
}

// Once everything, held answers included, has left, the buffer starts over.
void ClientConnection::Sent(size_t n) {
  out_sent_ += n;
  stats_->bytes_sent.Add(n);
  bytes_sent_.Add(n);
  if (out_sent_ != out_.size()) return;  // the socket is full, or the rest is held
  out_.clear();
  out_sent_ = 0;
  if (out_.capacity() > kKeepOutputCapacity) std::string().swap(out_);
}

// What the session took has left (partial writes); a write it could not finish
// waits inside it for the socket, like unsent bytes for EAGAIN, and is retried with
// the same bytes first.
bool ClientConnection::SendTls() {
  while (CanSend()) {
    const std::string_view unsent = Unsent();
    size_t n = 0;
    switch (tls_->Write(unsent.data(), unsent.size(), &n)) {
      case TlsIo::kDone: break;
      case TlsIo::kWantRead:
      case TlsIo::kWantWrite: return true;
      default: return false;
    }
    Sent(n);
  }
  return true;
}

void ClientConnection::CloseSocket() {
  if (tls_) {
    if (!HasOutput()) tls_->Shutdown();
    if (tls_counted_) listener_->TlsClosed();
    tls_counted_ = false;
  }
  ::close(fd_);
}

void ClientConnection::HoldOutput(uint64_t ticket, size_t begin, uint64_t since_us,
                            uint64_t committed_us) {
  Hold hold{ticket, begin, since_us, committed_us, {}};
  for (size_t i = turn_first_; i < answered_; ++i)
    ++hold.requests[static_cast<size_t>(CategoryOf(requests_[i]))];
  holds_.push_back(hold);
}

bool ClientConnection::ReleaseOutput(uint64_t durable, uint64_t now_us) {
  size_t n = 0;
  for (; n < holds_.size() && holds_[n].ticket <= durable; ++n) {
    const Hold& hold = holds_[n];
    uint64_t requests = 0;
    for (size_t k = 0; k < kRequestCategories; ++k) {
      if (hold.requests[k] == 0) continue;
      stats_->latency.Add(static_cast<RequestCategory>(k), now_us - hold.since_us, hold.requests[k]);
      requests += hold.requests[k];
    }
    if (now_us > hold.committed_us)
      stats_->log_flush_wait_microseconds.Add((now_us - hold.committed_us) * requests);
  }
  holds_.erase(holds_.begin(), holds_.begin() + static_cast<std::ptrdiff_t>(n));
  return n > 0;
}

}  // namespace rowsocket
