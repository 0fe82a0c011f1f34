// ClientConnection: reading, parsing through the connection's protocol, writing.
// Runs on the thread of the worker that owns the connection (see connection.h).
#include "server/client_connection.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "server/listener.h"
#include "util/log.h"
#include "util/clock.h"

namespace rowsocket {
namespace {

// Output buffers bigger than this are released once drained, so that a burst of
// large answers does not pin memory on an idle connection.
constexpr size_t kKeepOutputCapacity = 64 * 1024;
constexpr size_t kKeepInputCapacity = 64 * 1024;
// The first byte of a TLS handshake record; no request begins with it.
constexpr unsigned char kTlsHandshakeRecord = 0x16;

}  // namespace

ClientConnection::ClientConnection(int fd, uint64_t id, std::string peer, Listener* listener,
                                   std::unique_ptr<ConnectionSession> session,
                                   WorkerStats* stats, uint64_t now_ms)
    : fd_(fd), id_(id), peer_(std::move(peer)), connected_ms_(now_ms), listener_(listener),
      session_(std::move(session)), stats_(stats),
      protocol_(ServerProtocolOf(listener->protocol()).new_connection()) {
  last_active_ms_.store(now_ms, std::memory_order_relaxed);
  CheckAdmitted();
}

WireProtocol ClientConnection::protocol() const { return listener_->protocol(); }

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
  requests_.clear();
  if (!ending()) {
    ParseTurn turn;
    turn.input = &in_[0] + consumed_;
    turn.size = in_.size() - consumed_;
    turn.max_line_length = max_line_length;
    turn.max_unfinished = max_unfinished;
    turn.listener = listener_;
    turn.session = session_.get();
    turn.stats = stats_;
    turn.tls = tls();
    turn.refuse_plain = refuse_plain_;
    turn.requests = &requests_;
    protocol_->Parse(&turn);
    consumed_ += turn.consumed;
    if (turn.next_turn) read_more_ = true;
    if (turn.end) End();
  }
  const size_t count = requests_.size();
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
    stats_->latency.Add(requests_[i]->category, micros);
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
      admitted = listener_->secret().empty() || protocol_->secret_accepted();
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
                            : protocol_->secret_accepted();
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

void ClientConnection::FreeClosed() {
  requests_ = {};
  parsed_ = answered_ = turn_first_ = 0;
  protocol_.reset();
  in_ = {};
  consumed_ = 0;
  out_ = {};
  out_sent_ = answers_begin_ = 0;
  holds_ = {};
  tls_.reset();
}

void ClientConnection::Trim() {
  if (has_unanswered()) return;  // their requests point into the input
  requests_.clear();  // (every one is answered: nothing reads them any more)
  parsed_ = answered_ = turn_first_ = 0;
  protocol_->Trim();
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
    ++hold.requests[static_cast<size_t>(requests_[i]->category)];
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
