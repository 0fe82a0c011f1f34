// Worker: the per-thread epoll loop of rowsocket-bench, and the socket helpers the
// connections share. Each Worker runs on its own thread from StartThread to the end
// of the drain; the main thread only flips RunControl::phase and reads Stats.
#include "driver.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

namespace bench {

namespace {

constexpr int64_t kDrainBudgetNs = 2'000'000'000;  // in-flight requests after the run
constexpr int kMaxEvents = 256;

}  // namespace

int ConnectTcp(const std::string& host, int port, std::string* error) {
  addrinfo hints{}, *res = nullptr;
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  const std::string service = std::to_string(port);
  if (int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &res); rc != 0) {
    *error = "resolve " + host + ": " + gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) break;
    *error = "connect " + host + ":" + service + ": " + std::strerror(errno);
    close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  if (fd < 0) return -1;
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

namespace {

ssize_t TlsResult(rowsocket::TlsIo io, size_t n) {
  switch (io) {
    case rowsocket::TlsIo::kDone: return ssize_t(n);
    case rowsocket::TlsIo::kClosed: return 0;
    case rowsocket::TlsIo::kWantRead:
    case rowsocket::TlsIo::kWantWrite: errno = EAGAIN; return -1;
    default: errno = EPROTO; return -1;
  }
}

}  // namespace

ssize_t ReadSome(const Link& link, char* data, size_t size) {
  if (link.tls == nullptr) return read(link.fd, data, size);
  size_t n = 0;
  const rowsocket::TlsIo io = link.tls->Read(data, size, &n);
  return TlsResult(io, n);
}

ssize_t WriteSome(const Link& link, const char* data, size_t size) {
  if (link.tls == nullptr) return write(link.fd, data, size);
  size_t n = 0;
  const rowsocket::TlsIo io = link.tls->Write(data, size, &n);
  return TlsResult(io, n);
}

std::string ExchangeLines(const Link& link, const std::string& request, int lines,
                          int timeout_ms, std::string* reply) {
  const int fd = link.fd;
  const int64_t deadline = NowNs() + int64_t(timeout_ms) * 1'000'000;
  size_t sent = 0;
  int seen = 0;
  reply->clear();
  while (sent < request.size() || seen < lines) {
    const int64_t left_ms = (deadline - NowNs()) / 1'000'000;
    if (left_ms <= 0) return "no answer to the set-up requests within the timeout";
    pollfd p{fd, short(sent < request.size() ? POLLOUT : POLLIN), 0};
    const bool pending = link.tls != nullptr && link.tls->HasPending();
    if (!pending && poll(&p, 1, int(left_ms)) < 0 && errno != EINTR) return std::strerror(errno);
    if (sent < request.size()) {
      ssize_t n = WriteSome(link, request.data() + sent, request.size() - sent);
      if (n < 0 && errno != EAGAIN && errno != EINTR) return std::strerror(errno);
      if (n > 0) sent += size_t(n);
      continue;
    }
    char buf[4096];
    ssize_t n = ReadSome(link, buf, sizeof buf);
    if (n == 0) return "the server closed the connection during set-up";
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      return std::strerror(errno);
    }
    for (ssize_t i = 0; i < n; ++i) seen += buf[i] == '\n';
    reply->append(buf, size_t(n));
  }
  return "";
}

Worker::Worker(const Options& options, RunControl* control, const Zipf& zipf, KeyPool* pool,
               int index)
    : options_(options), control_(control), source_(options, zipf, pool,
                                                    options.seed * 7919 + uint64_t(index)) {}

Worker::~Worker() {
  Join();
  if (epoll_fd_ >= 0) close(epoll_fd_);
}

bool Worker::NextOp(Op* op) {
  if (control_->phase.load(std::memory_order_relaxed) >= kDrain) return false;
  return source_.Next(op);
}

void Worker::NoteError(const std::string& error) {
  if (stats_.first_error.empty()) stats_.first_error = error;
}

void Worker::Complete(const Op& op, int64_t now_ns, const std::string* error) {
  stats_.ops_total.Add(op.weight());
  if (error) {
    stats_.errors_total.Add();
    NoteError(*error);
  }
  if (control_->phase.load(std::memory_order_relaxed) != kMeasure) return;
  stats_.latency.Record(now_ns - op.sent_ns);
  stats_.ops.Add(op.weight());
  stats_.requests.Add();
  if (error) stats_.errors.Add();
}

void Worker::WantWrite(Connection* c, bool on) {
  epoll_event ev{};
  ev.events = uint32_t(EPOLLIN) | (on ? uint32_t(EPOLLOUT) : 0u);
  ev.data.ptr = c;
  epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, c->fd(), &ev);
}

void Worker::Kill(Connection* c, const std::string& why) {
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c->fd(), nullptr);
  c->dead = true;
  const uint64_t lost = c->in_flight() ? c->in_flight() : 1;
  stats_.errors_total.Add(lost);
  if (control_->phase.load(std::memory_order_relaxed) == kMeasure) stats_.errors.Add(lost);
  NoteError("connection lost: " + why);
}

void Worker::Run() {
  // Set-up: open every connection (blocking), then wait for the start signal.
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  for (auto& c : conns_) {
    std::string error = c->Open();
    if (!error.empty()) {
      stats_.setup_error = error;
      break;
    }
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = c.get();
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, c->fd(), &ev);
  }
  control_->ready.fetch_add(1);
  while (control_->phase.load() == kSetup) usleep(1000);
  if (control_->phase.load() == kAbort || !stats_.setup_error.empty()) return;
  for (auto& c : conns_) {
    std::string error = c->Start();
    if (!error.empty()) Kill(c.get(), error);
  }

  // The loop: until drained (or the drain budget is spent).
  epoll_event events[kMaxEvents];
  int64_t drain_deadline = 0;
  for (;;) {
    if (control_->phase.load(std::memory_order_relaxed) >= kDrain) {
      if (!drain_deadline) drain_deadline = NowNs() + kDrainBudgetNs;
      size_t in_flight = 0;
      for (auto& c : conns_) in_flight += c->dead ? 0 : c->in_flight();
      if (in_flight == 0) break;
      if (NowNs() > drain_deadline) {
        stats_.errors_total.Add(in_flight);
        NoteError("no reply within 2 s after the end of the run");
        break;
      }
    }
    const int n = epoll_wait(epoll_fd_, events, kMaxEvents, 10);
    for (int i = 0; i < n; ++i) {
      auto* c = static_cast<Connection*>(events[i].data.ptr);
      if (c->dead) continue;
      std::string error = c->OnEvents(events[i].events);
      if (!error.empty()) Kill(c, error);
    }
  }
}

}  // namespace bench
