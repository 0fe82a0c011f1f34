// ClientConnection: reading, line framing, per-connection request rules, writing.
// Runs on the thread of the worker that owns the connection (see connection.h).
#include "server/client_connection.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "protocol/wire_errors.h"
#include "server/listener.h"

namespace rowsocket {
namespace {

// Output buffers bigger than this are released once drained, so that a burst of
// large answers does not pin memory on an idle connection.
constexpr size_t kKeepOutputCapacity = 64 * 1024;
constexpr size_t kKeepInputCapacity = 64 * 1024;
// Parsed-request slots an idle connection keeps (see Trim).
constexpr size_t kKeepRequests = 64;

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

size_t ClientConnection::ParseLines(uint32_t max_line_length, uint32_t max_unfinished) {
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
        AnswerLineTooLong(count++);
        consumed_ = in_.size();
      }
      break;
    }
    size_t len = static_cast<size_t>(lf - begin);
    consumed_ += len + 1;
    if (len + 1 > max_line_length) {
      AnswerLineTooLong(count++);
      break;
    }
    if (len > 0 && begin[len - 1] == '\r') --len;
    if (requests_.size() <= count) requests_.emplace_back();
    Request* r = &requests_[count++];
    ParseOne(begin, len, r);
    if (r->type == RequestType::kAuth && bindings_->account_logins && r->auth_type != "2") {
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

void ClientConnection::Describe(uint64_t now_ms, ConnectionInfo* info) const {
  info->id = id_;
  info->listener = listener_->name();
  info->peer = peer_;
  info->authenticated = listener_->auth() == AuthMode::kAccount
                            ? bindings_->logged_in()
                            : authenticated_.load(std::memory_order_relaxed);
  info->account = bindings_->account();
  info->open_indexes = static_cast<uint32_t>(bindings_->open_indexes.Get());
  info->requests = requests_total_.Get();
  info->bytes_received = bytes_received_.Get();
  info->bytes_sent = bytes_sent_.Get();
  info->connected_ms = now_ms - connected_ms_;
  info->idle_ms = idle_ms(now_ms);
  info->worker = worker_.load(std::memory_order_relaxed);
}

// Queues `2 1 linelen` as request `slot` and ends the connection: it closes once it
// has been answered.
void ClientConnection::AnswerLineTooLong(size_t slot) {
  if (requests_.size() <= slot) requests_.emplace_back();
  requests_[slot].Clear();
  MakeError(&requests_[slot], ErrorStatus(WireError::kLineLen));
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
    bindings_->tls = tls();
    return;
  }
  if (!bindings_->logged_in()) {
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
  const size_t end = SendableEnd();
  while (out_sent_ < end) {
    ssize_t n = ::send(fd_, out_.data() + out_sent_, end - out_sent_, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
      return false;
    }
    out_sent_ += static_cast<size_t>(n);
    stats_->bytes_sent.Add(static_cast<uint64_t>(n));
    bytes_sent_.Add(static_cast<uint64_t>(n));
  }
  if (end != out_.size()) return true;  // the rest is held
  out_.clear();
  out_sent_ = 0;
  if (out_.capacity() > kKeepOutputCapacity) std::string().swap(out_);
  return true;
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
