// Socket: non-blocking TCP with poll(), for the client side of the protocol.
//
// Connect resolves with getaddrinfo and connects each address non-blocking, waiting
// for completion with poll() up to the timeout. Exchange is the hot path of every
// request: one send of the whole batch (more only when the socket buffer fills),
// reads of up to 64 KiB, and a memchr per answer line (FindLineEnd, shared with the
// protocol layer). SIGPIPE is never raised (MSG_NOSIGNAL). Runs on the calling thread.
#include "socket.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "protocol/answer.h"

namespace rowsocket {
namespace client {

namespace {

constexpr size_t kReadChunk = 65536;

int Millis(std::chrono::milliseconds d) {
  const auto ms = d.count();
  if (ms < 0) return 0;
  return ms > 0x7fffffff ? 0x7fffffff : static_cast<int>(ms);
}

std::string Describe(int err) { return std::strerror(err); }

// Connects `fd` to `addr`; waits up to `timeout_ms`. Returns 0 or an errno value.
int ConnectOne(int fd, const addrinfo* addr, int timeout_ms) {
  if (::connect(fd, addr->ai_addr, addr->ai_addrlen) == 0) return 0;
  if (errno != EINPROGRESS) return errno;
  pollfd p{fd, POLLOUT, 0};
  int n;
  do {
    n = ::poll(&p, 1, timeout_ms);
  } while (n < 0 && errno == EINTR);
  if (n == 0) return ETIMEDOUT;
  if (n < 0) return errno;
  int err = 0;
  socklen_t len = sizeof(err);
  if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) return errno;
  return err;
}

}  // namespace

Status Socket::Connect(const std::string& host, uint16_t port, const ConnectOptions& options) {
  const std::chrono::milliseconds timeout = options.connect_timeout;
  Close();
  const std::string where = host + ":" + std::to_string(port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* addrs = nullptr;
  const std::string service = std::to_string(port);
  const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &addrs);
  if (rc != 0) return Error::Io("cannot resolve " + host + ": " + ::gai_strerror(rc));

  int last = ECONNREFUSED;
  for (const addrinfo* a = addrs; a != nullptr; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      last = errno;
      continue;
    }
    last = ConnectOne(fd, a, Millis(timeout));
    if (last == 0) {
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      fd_ = fd;
      break;
    }
    ::close(fd);
  }
  ::freeaddrinfo(addrs);
  if (fd_ < 0) {
    return Error::Io("cannot connect to " + where + ": " +
                     (last == ETIMEDOUT ? std::string("timeout") : Describe(last)));
  }
  in_.clear();
  start_ = 0;
  if (options.ssl || !options.ssl_ca.empty() || options.ssl_verify_server_cert)
    return StartTls(host, options);
  return Status();
}

// The handshake, waiting with poll() for what the session asks, within
// connect_timeout.
Status Socket::StartTls(const std::string& host, const ConnectOptions& options) {
  const std::string where = host + ":" + std::to_string(Port());
  std::string error;
  tls_context_ = TlsContext::ForClient(options.ssl_ca, options.ssl_verify_server_cert, &error);
  if (!tls_context_) return Fail("TLS with " + where + ": " + error);
  tls_ = std::make_unique<TlsStream>(*tls_context_, fd_, /*server=*/false, host);
  if (!tls_->ok()) return Fail("TLS with " + where + ": " + tls_->error());
  const auto deadline = std::chrono::steady_clock::now() + options.connect_timeout;
  for (;;) {
    const TlsIo io = tls_->Handshake();
    if (io == TlsIo::kDone) return Status();
    if (io == TlsIo::kClosed || io == TlsIo::kError) {
      return Fail("TLS handshake with " + where + " failed: " +
                  (io == TlsIo::kClosed ? std::string("the server closed the connection "
                                                      "(is TLS on there?)")
                                        : tls_->error()));
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{fd_, static_cast<short>(io == TlsIo::kWantRead ? POLLIN : POLLOUT), 0};
    int n;
    do {
      n = ::poll(&p, 1, Millis(left));
    } while (n < 0 && errno == EINTR);
    if (n == 0) return Fail("TLS handshake with " + where + ": timeout");
    if (n < 0) return Fail(Describe(errno));
  }
}

// The peer's port, for messages.
uint16_t Socket::Port() const {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (fd_ < 0 || ::getpeername(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return 0;
  if (addr.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  if (addr.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
  return 0;
}

void Socket::Close() {
  if (tls_) tls_->Shutdown();
  tls_.reset();
  tls_context_.reset();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  in_.clear();
  start_ = 0;
}

Status Socket::Fail(std::string message) {
  Close();
  return Error::Io(std::move(message));
}

bool Socket::Fill(std::string* error) {
  // Keep the buffer small: drop the lines already handed out before growing it.
  if (start_ > 0 && (start_ == in_.size() || start_ > in_.size() / 2)) {
    in_.erase(0, start_);
    start_ = 0;
  }
  const size_t old = in_.size();
  in_.resize(old + kReadChunk);
  if (tls_) {
    // Until the chunk is full or the session wants the socket (a TLS read gives
    // one record at most).
    size_t got = 0;
    for (;;) {
      size_t n = 0;
      const TlsIo io = tls_->Read(&in_[old + got], kReadChunk - got, &n);
      if (io == TlsIo::kDone) {
        got += n;
        if (got < kReadChunk) continue;
      }
      in_.resize(old + got);
      if (io == TlsIo::kClosed && got == 0) *error = "connection closed by the server";
      if (io == TlsIo::kError && got == 0) *error = tls_->error();
      return got > 0 || io == TlsIo::kDone || io == TlsIo::kWantRead || io == TlsIo::kWantWrite;
    }
  }
  ssize_t n;
  do {
    n = ::recv(fd_, &in_[old], kReadChunk, 0);
  } while (n < 0 && errno == EINTR);
  in_.resize(old + (n > 0 ? static_cast<size_t>(n) : 0));
  if (n > 0) return true;
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
  *error = n == 0 ? "connection closed by the server" : Describe(errno);
  return false;
}

Status Socket::Exchange(std::string_view out, size_t lines, LineSink* sink,
                        std::chrono::milliseconds timeout) {
  if (fd_ < 0) return Error::Io("not connected");
  size_t written = 0;
  size_t got = 0;
  std::string send_error;  // set when sending failed; answers may still be readable
  for (;;) {
    // Guide: hand out the complete lines already buffered.
    while (got < lines) {
      const size_t avail = in_.size() - start_;
      const size_t len = FindLineEnd(in_.data() + start_, avail);
      if (len == avail) break;
      char* line = &in_[start_];
      start_ += len + 1;
      ++got;
      if (!sink->OnLine(line, len)) return Fail("malformed answer");
    }
    if (got == lines && written == out.size()) break;

    // Guide: bytes the TLS session decrypted already are read without waiting.
    if (tls_ && tls_->HasPending()) {
      std::string error;
      if (!Fill(&error)) return Fail(error);
      continue;
    }

    // Guide: wait until the socket can take more bytes or has some to give.
    const bool sending = written < out.size() && send_error.empty();
    pollfd p{fd_, static_cast<short>(POLLIN | (sending ? POLLOUT : 0)), 0};
    int n;
    do {
      n = ::poll(&p, 1, Millis(timeout));
    } while (n < 0 && errno == EINTR);
    if (n == 0) return Fail("timeout after " + std::to_string(got) + " of " +
                            std::to_string(lines) + " answers");
    if (n < 0) return Fail(Describe(errno));

    // A TLS write may wait for the socket to be readable (the session's own
    // traffic), so it is tried on either readiness.
    if (sending && (p.revents & (tls_ ? (POLLOUT | POLLIN) : POLLOUT))) {
      size_t w = 0;
      // On failure, what was answered before is still read before giving up.
      if (Send(out.data() + written, out.size() - written, &w, &send_error)) written += w;
    }
    if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
      std::string error;
      if (!Fill(&error)) {
        if (!send_error.empty()) error += " (" + send_error + ")";
        return Fail(error);
      }
    }
  }
  // More bytes than answers: the stream is out of step; do not reuse it.
  if (start_ != in_.size()) {
    Close();
  } else {
    in_.clear();
    start_ = 0;
  }
  return Status();
}

bool Socket::Send(const char* data, size_t size, size_t* sent, std::string* error) {
  *sent = 0;
  if (tls_) {
    const TlsIo io = tls_->Write(data, size, sent);
    if (io == TlsIo::kDone || io == TlsIo::kWantRead || io == TlsIo::kWantWrite) return true;
    *error = io == TlsIo::kClosed ? "connection closed by the server" : tls_->error();
    return false;
  }
  const ssize_t w = ::send(fd_, data, size, MSG_NOSIGNAL);
  if (w > 0) {
    *sent = static_cast<size_t>(w);
    return true;
  }
  if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
    *error = Describe(errno);
    return false;
  }
  return true;
}

// With TLS too: the server sends nothing unasked (no session tickets), so any byte
// waiting (close_notify above all) means the stream is over.
bool Socket::LooksAlive() {
  if (fd_ < 0) return false;
  pollfd p{fd_, POLLIN, 0};
  if (::poll(&p, 1, 0) == 0) return true;
  char c;
  const ssize_t n = ::recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
  Close();
  return false;
}

}  // namespace client
}  // namespace rowsocket
