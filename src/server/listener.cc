// Listener: socket(), bind() and listen() for one port, non-blocking, the epoll set
// its workers share (epoll loop) and its wake-ups.
#include "server/listener.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>


namespace rowsocket {
namespace {

bool Watch(int epoll_fd, int fd, uint32_t events, void* tag) {
  epoll_event ev{};
  ev.events = events;
  ev.data.ptr = tag;
  return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev) == 0;
}

void CloseFd(int* fd) {
  if (*fd >= 0) ::close(*fd);
  *fd = -1;
}

}  // namespace

void* const Listener::kAcceptTag = reinterpret_cast<void*>(1);
void* const Listener::kStopTag = reinterpret_cast<void*>(2);
void* const Listener::kDurableTag = reinterpret_cast<void*>(3);

Listener::Listener(const char* name, bool read_only, AuthMode auth, std::string secret,
                   size_t workers, WireProtocol protocol, IoLoop io, size_t spares)
    : name_(name), read_only_(read_only), auth_(auth), secret_(std::move(secret)),
      protocol_(protocol), workers_(workers), spares_(spares), io_(io) {}

// Workers have gone (Server joins them first); their last one closed the connections
// unless it never started.
Listener::~Listener() {
  connections_.reset();  // before the epoll set it uses
  Close();
}

bool Listener::Open(const std::string& address, const std::string& port, int backlog,
                    std::string* error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* result = nullptr;
  int rc = getaddrinfo(address.empty() ? nullptr : address.c_str(), port.c_str(), &hints, &result);
  if (rc != 0) {
    *error = "cannot resolve " + address + ":" + port + ": " + gai_strerror(rc);
    return false;
  }
  std::string last_error = "no usable address";
  for (addrinfo* ai = result; ai != nullptr; ai = ai->ai_next) {
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      last_error = std::strerror(errno);
      continue;
    }
    int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, backlog) == 0) {
      fd_ = fd;
      break;
    }
    last_error = std::strerror(errno);
    ::close(fd);
  }
  freeaddrinfo(result);
  if (fd_ < 0) {
    *error = "cannot listen on " + address + ":" + port + ": " + last_error;
    return false;
  }
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  stop_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  durable_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (epoll_fd_ < 0 || stop_fd_ < 0 || durable_fd_ < 0 ||
      !Watch(epoll_fd_, fd_, EPOLLIN | EPOLLONESHOT, kAcceptTag) ||
      !Watch(epoll_fd_, stop_fd_, EPOLLIN, kStopTag) ||
      !Watch(epoll_fd_, durable_fd_, EPOLLIN | EPOLLONESHOT, kDurableTag)) {
    *error = std::string("epoll set for ") + name_ + " port: " + std::strerror(errno);
    Close();
    return false;
  }
  if (io_ == IoLoop::kIoUring) {
    inboxes_ = std::make_unique<Inbox[]>(workers_);
    for (size_t i = 0; i < workers_; ++i) {
      wake_fds_.push_back(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
      if (wake_fds_.back() < 0) {
        *error = std::string("eventfd for ") + name_ + " port: " + std::strerror(errno);
        Close();
        return false;
      }
    }
  }
  connections_ = std::make_unique<ConnectionTable>(workers_);
  address_ = address;
  port_ = port;
  opened_unix_ = static_cast<uint64_t>(std::time(nullptr));
  return true;
}

void Listener::Close() {
  CloseFd(&fd_);
  CloseFd(&epoll_fd_);
  CloseFd(&stop_fd_);
  CloseFd(&durable_fd_);
  for (int& fd : wake_fds_) CloseFd(&fd);
  wake_fds_.clear();
  for (size_t i = 0; inboxes_ && i < workers_; ++i) {
    for (Accepted& a : inboxes_[i].accepted) CloseFd(&a.fd);  // never taken
  }
  inboxes_.reset();
}

void Listener::HandOff(size_t slot, const Accepted& accepted) {
  Inbox& inbox = inboxes_[slot];
  {
    std::lock_guard<std::mutex> lock(inbox.mutex);
    inbox.accepted.push_back(accepted);
    inbox.size.store(static_cast<uint32_t>(inbox.accepted.size()), std::memory_order_relaxed);
  }
  uint64_t one = 1;
  ssize_t ignored = ::write(wake_fds_[slot], &one, sizeof one);
  (void)ignored;
}

bool Listener::TakeHandedOff(size_t slot, Accepted* accepted) {
  Inbox& inbox = inboxes_[slot];
  if (inbox.size.load(std::memory_order_relaxed) == 0) return false;
  std::lock_guard<std::mutex> lock(inbox.mutex);
  if (inbox.accepted.empty()) return false;
  *accepted = inbox.accepted.back();
  inbox.accepted.pop_back();
  inbox.size.store(static_cast<uint32_t>(inbox.accepted.size()), std::memory_order_relaxed);
  return true;
}

void Listener::ArmAccept() {
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLONESHOT;
  ev.data.ptr = kAcceptTag;
  epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd_, &ev);
}

uint64_t Listener::PauseAccept(uint64_t now_ms) {
  constexpr uint64_t kFirstPauseMs = 100;
  constexpr uint64_t kLongestPauseMs = 3200;
  // Several workers may meet the same shortage at once (each io_uring ring polls
  // the listening socket): one pause for all of them, not one doubling each.
  if (accept_resume_ms_.load(std::memory_order_acquire) > now_ms) return 0;
  const uint64_t last = accept_pause_ms_.load(std::memory_order_relaxed);
  const uint64_t pause = last == 0 ? kFirstPauseMs : std::min(last * 2, kLongestPauseMs);
  accept_pause_ms_.store(pause, std::memory_order_relaxed);
  accept_resume_ms_.store(now_ms + pause, std::memory_order_release);
  return pause;
}

void Listener::ResumeAcceptIfDue(uint64_t now_ms) {
  uint64_t at = accept_resume_ms_.load(std::memory_order_acquire);
  if (at != 0 && now_ms >= at && accept_resume_ms_.compare_exchange_strong(at, 0)) ArmAccept();
}

void Listener::RequestStop() {
  uint64_t one = 1;
  ssize_t ignored = ::write(stop_fd_, &one, sizeof one);
  (void)ignored;
  gate_.Stop();
}

void Listener::WakeForDurable() {
  const bool waited = connections_->NoteDurable();
  uint64_t one = 1;
  if (io_ == IoLoop::kIoUring) {
    // Held connections are their home worker's: each ring reads its own counter.
    for (int fd : wake_fds_) {
      ssize_t ignored = ::write(fd, &one, sizeof one);
      (void)ignored;
    }
    return;
  }
  // Any worker may release an epoll loop's held connections: one that waited for
  // this flush does, so no other is woken for it.
  if (waited) return;
  if (durable_wake_pending_.exchange(true, std::memory_order_acq_rel)) return;
  ssize_t ignored = ::write(durable_fd_, &one, sizeof one);
  (void)ignored;
}

// Cleared before the release it leads to, so a batch that becomes durable during
// that release wakes a worker again.
void Listener::TakeDurableWake() {
  uint64_t value;
  ssize_t ignored = ::read(durable_fd_, &value, sizeof value);
  (void)ignored;
  durable_wake_pending_.store(false, std::memory_order_release);
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLONESHOT;
  ev.data.ptr = kDurableTag;
  epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, durable_fd_, &ev);
}

}  // namespace rowsocket
