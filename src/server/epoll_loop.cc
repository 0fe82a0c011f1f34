// The epoll loop (see event_loop.h): every worker of a listener waits on the
// listener's shared, edge-triggered epoll set; reads and writes are system calls in
// the turn. Runs on its worker's thread.
#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "server/client_connection.h"
#include "server/event_loop.h"
#include "server/listener.h"
#include "util/log.h"

namespace rowsocket {
namespace {

constexpr int kMaxEvents = 256;

class EpollLoop final : public EventLoop {
 public:
  EpollLoop(Listener* listener, uint32_t readsize)
      : listener_(listener), read_buffer_(readsize) {}

  bool Wait(int timeout_ms, LoopEvents* events, std::vector<ClientConnection*>* ready) override;
  bool Read(ClientConnection* c) override {
    return c->ReadOnce(read_buffer_.data(), read_buffer_.size());
  }
  bool Write(ClientConnection* c) override { return c->Flush(); }
  void Close(ClientConnection* c) override { listener_->connections().Close(c); }
  bool Watch(ClientConnection* c) override;
  bool Accept(Accepted* accepted, int* error) override;
  void ResumeAccept(uint64_t now_ms) override { listener_->ResumeAcceptIfDue(now_ms); }
  void Stop() override {}
  int home() const override { return -1; }

 private:
  int TurnShare() const;

  Listener* listener_;
  std::vector<char> read_buffer_;  // every read lands here first
  epoll_event events_[kMaxEvents];
};

// Connections one turn takes at most: its share when the listener's connections are
// spread over as many workers as there are cores, so that a turn does not take
// every ready connection while other cores idle (pipelined clients, each with a
// large batch, would otherwise run on one core). A worker that waits inside its
// batch (for the disk) leaves its core to another: it counts as one worker more,
// so that the reads of more connections wait for the disk together.
int EpollLoop::TurnShare() const {
  static const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const size_t workers = std::max<size_t>(
      1, std::min(listener_->workers(), cores + listener_->gate().waiting()));
  const size_t connections = listener_->connections().open();
  return static_cast<int>(std::clamp<size_t>((connections + workers - 1) / workers, 1, kMaxEvents));
}

bool EpollLoop::Wait(int timeout_ms, LoopEvents* events, std::vector<ClientConnection*>* ready) {
  const int n = epoll_wait(listener_->epoll_fd(), events_, TurnShare(), timeout_ms);
  if (n < 0) {
    if (errno == EINTR) return true;
    Log(LogLevel::kError, "epoll_wait: %s", std::strerror(errno));
    return false;
  }
  for (int i = 0; i < n; ++i) {
    void* tag = events_[i].data.ptr;
    if (tag == Listener::kStopTag) {
      events->stop = true;
    } else if (tag == Listener::kAcceptTag) {
      events->accept = true;
    } else if (tag == Listener::kDurableTag) {
      listener_->TakeDurableWake();
      events->durable = true;
    } else {
      auto* c = static_cast<ClientConnection*>(tag);
      if (events_[i].events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) c->NoteHangup();
      if (c->Acquire()) ready->push_back(c);  // else its owner serves it again
    }
  }
  return true;
}

// Edge-triggered for input, output and the peer's end.
bool EpollLoop::Watch(ClientConnection* c) {
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
  ev.data.ptr = c;
  if (epoll_ctl(listener_->epoll_fd(), EPOLL_CTL_ADD, c->fd(), &ev) == 0) return true;
  static LogLimit failed;
  LogLimited(&failed, LogLevel::kWarning, "epoll_ctl(add): %s", std::strerror(errno));
  return false;
}

// The listening socket is armed again once the backlog is empty, unless descriptors
// ran out (the caller pauses accepting, and ResumeAccept arms it after the pause).
bool EpollLoop::Accept(Accepted* accepted, int* error) {
  if (AcceptFrom(*listener_, accepted, error)) return true;
  if (*error == 0) listener_->ArmAccept();
  return false;
}

}  // namespace

bool AcceptFrom(const Listener& listener, Accepted* accepted, int* error) {
  static LogLimit accept_failed;
  *error = 0;
  for (;;) {
    socklen_t peer_len = sizeof accepted->peer;
    accepted->fd = accept4(listener.fd(), reinterpret_cast<sockaddr*>(&accepted->peer),
                           &peer_len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (accepted->fd >= 0) return true;
    const int e = errno;
    if (e == EINTR || e == ECONNABORTED) continue;
    if (e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM) {
      *error = e;
      return false;
    }
    if (e != EAGAIN && e != EWOULDBLOCK)
      LogLimited(&accept_failed, LogLevel::kWarning, "accept on %s port: %s", listener.name(),
                 std::strerror(e));
    return false;
  }
}

std::unique_ptr<EventLoop> NewEpollLoop(Listener* listener, uint32_t readsize) {
  return std::make_unique<EpollLoop>(listener, readsize);
}

}  // namespace rowsocket
