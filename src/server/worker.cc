// Worker: the epoll event loop, batching and connection lifecycle.
// Everything here except Start/Stop/Join runs on the worker's thread.
#include "server/worker.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <system_error>
#include <thread>

#include "server/listener.h"
#include "server/log.h"

namespace rowsocket {
namespace {

// The loop never sleeps longer than this, so that DDL waiting for a table this
// worker holds gets it promptly, and shutdown and idle timeouts are noticed.
constexpr int kTickMs = 50;
constexpr int kMaxEvents = 256;

// epoll user data for the two non-connection fds.
void* const kListenerTag = reinterpret_cast<void*>(1);
void* const kWakeTag = reinterpret_cast<void*>(2);

uint64_t NowMs() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

uint64_t NowUs() {
  using namespace std::chrono;
  return duration_cast<microseconds>(steady_clock::now().time_since_epoch()).count();
}

std::atomic<uint64_t> g_next_connection_id{1};

std::string PeerName(const sockaddr_storage& addr) {
  char host[INET6_ADDRSTRLEN] = "?";
  uint16_t port = 0;
  if (addr.ss_family == AF_INET) {
    auto* in = reinterpret_cast<const sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    port = ntohs(in->sin_port);
    return std::string(host) + ":" + std::to_string(port);
  }
  if (addr.ss_family == AF_INET6) {
    auto* in6 = reinterpret_cast<const sockaddr_in6*>(&addr);
    inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
    port = ntohs(in6->sin6_port);
    return "[" + std::string(host) + "]:" + std::to_string(port);
  }
  return host;
}

}  // namespace

Worker::Worker(const WorkerInfo& info, Listener* listener, ExecutorFactory* factory,
               const ServerConfig& config, ServerTunables* tunables)
    : info_(WithWorker(info)),
      listener_(listener),
      factory_(factory),
      config_(config),
      tunables_(tunables),
      read_buffer_(config.readsize) {
  // Made here, not in Start: other workers may pass connections on (Adopt) as soon
  // as the first worker of the listener runs.
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

// The executor counts into this worker's stats and wakes it when a batch it holds
// answers for becomes durable.
WorkerInfo Worker::WithWorker(WorkerInfo info) {
  info.stats = &stats_;
  info.wake = [this] { Wake(); };
  return info;
}

Worker::~Worker() {
  Stop();
  Join();
  CloseInbox();  // connections passed on while it stopped
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

bool Worker::Start(std::string* error) {
  if (epoll_fd_ < 0 || wake_fd_ < 0) {
    *error = std::string("epoll/eventfd: ") + std::strerror(errno);
    return false;
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = kWakeTag;
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev);
  ev.events = EPOLLIN | EPOLLEXCLUSIVE;
  ev.data.ptr = kListenerTag;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listener_->fd(), &ev) != 0) {
    *error = std::string("epoll_ctl(listener): ") + std::strerror(errno);
    return false;
  }
  std::future<bool> started = started_.get_future();
  try {
    thread_ = std::thread(&Worker::Run, this);
  } catch (const std::system_error& e) {
    *error = std::string("cannot start worker thread: ") + e.what();
    return false;
  }
  if (!started.get()) {
    *error = std::string(info_.listener) + " worker could not set up its server thread";
    return false;
  }
  return true;
}

void Worker::Stop() {
  stop_.store(true);
  Wake();
}

void Worker::Wake() {
  if (wake_fd_ < 0) return;
  uint64_t one = 1;
  ssize_t ignored = ::write(wake_fd_, &one, sizeof one);
  (void)ignored;
}

void Worker::DrainWake() {
  uint64_t v;
  ssize_t ignored = ::read(wake_fd_, &v, sizeof v);
  (void)ignored;
}

void Worker::Join() {
  if (thread_.joinable()) thread_.join();
}

void Worker::Run() {
  std::unique_ptr<Executor> executor = factory_->Create(info_);
  started_.set_value(executor != nullptr);
  if (!executor) return;
  AdoptConnections(executor.get());  // passed on before this thread ran
  Loop(executor.get());
  // Answers of committed batches go out before their connections close.
  for (int i = 0; i < 1000 && !held_.empty(); ++i) {
    ReleaseDurable(executor.get());
    if (!held_.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  // Sessions hold engine state: drop them while the executor still exists.
  while (!connections_.empty()) CloseConnection(connections_.back().get());
  CloseInbox();
  executor.reset();
}

// Closes connections passed on to this worker that it never took over.
void Worker::CloseInbox() {
  std::lock_guard<std::mutex> lock(inbox_mutex_);
  for (const Adoptee& a : inbox_) {
    ::close(a.fd);
    listener_->connections.fetch_sub(1);
  }
  inbox_.clear();
  adopting_.store(0, std::memory_order_relaxed);
}

void Worker::Loop(Executor* executor) {
  epoll_event events[kMaxEvents];
  std::vector<Connection*> ready;
  while (!stop_.load(std::memory_order_relaxed) && !executor->ShouldStop()) {
    int n = epoll_wait(epoll_fd_, events, kMaxEvents, kTickMs);
    if (n < 0 && errno != EINTR) {
      Log(LogLevel::kError, "epoll_wait: %s", std::strerror(errno));
      break;
    }
    ready.clear();
    bool accept = false;
    for (int i = 0; i < n; ++i) {
      void* tag = events[i].data.ptr;
      if (tag == kWakeTag) {
        DrainWake();
        AdoptConnections(executor);
      } else if (tag == kListenerTag) {
        accept = true;
      } else {
        auto* c = static_cast<Connection*>(tag);
        if (c->parked) continue;  // waits for ReleaseDurable
        if (events[i].events & EPOLLOUT) {
          if (!SendAnswers(c) || c->parked) continue;
          if (!c->CanSend()) WatchOutput(c, false);
        }
        if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) ready.push_back(c);
      }
    }
    if (stop_.load(std::memory_order_relaxed)) break;
    if (!ready.empty()) ServeTurn(executor, ready.data(), ready.size());
    // After the turn: releasing may close connections, which `ready` and `events`
    // still point to until here.
    if (!held_.empty()) ReleaseDurable(executor);
    if (wake_pending_) {  // a wake-up that arrived while gathering
      wake_pending_ = false;
      AdoptConnections(executor);
    }
    if (accept) Accept(executor);
    executor->Tick();
    uint64_t now = NowMs();
    if (now - last_sweep_ms_ >= 1000) {
      SweepConnections(now);
      last_sweep_ms_ = now;
    }
  }
}

// Reads and parses every ready connection, executes all their requests as one
// batch, then writes the answers.
void Worker::ServeTurn(Executor* executor, Connection** ready, size_t count) {
  const uint32_t max_line = tunables_->max_line_length.load(std::memory_order_relaxed);
  const uint64_t start_us = NowUs();
  batch_.clear();
  answered_.clear();
  ++turn_;
  for (size_t i = 0; i < count; ++i) TakeRequests(ready[i], max_line, start_us / 1000);
  if (batch_.empty()) return;
  // Write workers take turns at log flushes (see GatherWhilePeerExecutes); reads
  // have none and skip the shared counter.
  const bool writes = !info_.read_only;
  if (writes) {
    // With log flushes left to the log flusher, a peer's batch costs this one no wait.
    if (!flushes_elsewhere_ && listener_->executing.load(std::memory_order_acquire) > 0)
      GatherWhilePeerExecutes(max_line);
    listener_->executing.fetch_add(1, std::memory_order_acq_rel);
  }
  const uint64_t ticket = executor->Execute(batch_.data(), batch_.size());
  if (writes) {
    flushes_elsewhere_ = ticket != 0;
    listener_->executing.fetch_sub(1, std::memory_order_acq_rel);
    WakeGatheringPeers();
  }
  const bool hold = ticket != 0 && ticket > executor->Durable();
  const uint64_t committed_us = hold ? NowUs() : 0;
  for (Connection* c : answered_) {
    c->CompactInput();
    if (hold) {
      if (!c->held()) held_.push_back(c);
      c->HoldOutput(ticket, c->turn_output, start_us, committed_us);  // counted on release
    } else {
      RecordLatency(c, NowUs() - start_us);
    }
    if (SendAnswers(c) && c->CanSend()) WatchOutput(c, true);
  }
}

// Writes what may leave of c's answers. Closes c, and returns false, on a socket
// error or when c is done: its peer stopped sending (or the stream broke) and
// nothing is left to write. A peer that stopped while answers wait for their
// batch's flush is parked: no more reading, released by ReleaseDurable.
bool Worker::SendAnswers(Connection* c) {
  if (!c->Flush()) {
    CloseConnection(c);
    return false;
  }
  if (!(c->closing() || c->eof()) || c->CanSend()) return true;
  if (!c->HasOutput()) {
    CloseConnection(c);
    return false;
  }
  if (!c->parked) {
    // Edge-triggered and interested in nothing: a hung-up socket stays quiet.
    epoll_event ev{};
    ev.events = EPOLLET;
    ev.data.ptr = c;
    epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, c->fd(), &ev);
    c->watching_output = false;
    c->parked = true;
  }
  return true;
}

// Sends the answers whose batches have become durable since they were held.
void Worker::ReleaseDurable(Executor* executor) {
  const uint64_t durable = executor->Durable();
  const uint64_t now_us = NowUs();
  released_.clear();
  for (size_t i = 0; i < held_.size();) {
    Connection* c = held_[i];
    if (!c->ReleaseOutput(durable, now_us)) {
      ++i;
      continue;
    }
    released_.push_back(c);
    if (c->held()) {
      ++i;
    } else {
      held_[i] = held_.back();
      held_.pop_back();
    }
  }
  for (Connection* c : released_) {
    if (!SendAnswers(c)) continue;
    if (c->CanSend()) WatchOutput(c, true);
  }
}

// Reads what a ready connection sent and adds its complete requests to the batch.
void Worker::TakeRequests(Connection* c, uint32_t max_line, uint64_t now_ms) {
  if (c->watching_output) return;  // slow reader: its answers must drain first
  if (!c->ReadOnce(read_buffer_.data(), read_buffer_.size())) {
    CloseConnection(c);
    return;
  }
  size_t n = c->ParseLines(max_line);
  if (n == 0) {
    if (c->eof()) SendAnswers(c);  // closes it, or parks it while answers are held
    return;
  }
  c->last_active_ms.store(now_ms, std::memory_order_relaxed);
  c->turn = turn_;
  c->turn_output = c->output()->size();
  for (size_t k = 0; k < n; ++k) batch_.push_back({c->session(), c->request(k), c->output()});
  answered_.push_back(c);
}

// Another write worker is executing its batch, and will commit next: a batch
// started now would only wait for that log flush. Meanwhile this worker keeps
// adding what its other connections send, so that each flush carries more.
void Worker::GatherWhilePeerExecutes(uint32_t max_line) {
  constexpr uint64_t kMaxGatherUs = 2000;
  const uint64_t deadline = NowUs() + kMaxGatherUs;
  epoll_event events[kMaxEvents];
  gathering_.store(true, std::memory_order_release);
  while (listener_->executing.load(std::memory_order_acquire) > 0 && NowUs() < deadline) {
    int n = epoll_wait(epoll_fd_, events, kMaxEvents, 1);
    if (n <= 0) continue;
    bool fresh = false;
    for (int i = 0; i < n; ++i) {
      void* tag = events[i].data.ptr;
      if (tag == kWakeTag) {
        DrainWake();
        wake_pending_ = true;  // may have been meant for the loop (stop, adoption)
        continue;
      }
      if (tag == kListenerTag) continue;  // accepted after the turn
      auto* c = static_cast<Connection*>(tag);
      if (c->turn == turn_ || !(events[i].events & EPOLLIN)) continue;
      TakeRequests(c, max_line, NowUs() / 1000);
      fresh = true;
    }
    if (!fresh) break;  // only connections already in the batch are ready
  }
  gathering_.store(false, std::memory_order_release);
}

void Worker::WakeGatheringPeers() {
  for (Worker* w : listener_->workers) {
    if (w != this && w->gathering_.load(std::memory_order_acquire)) {
      w->Wake();
    }
  }
}

// Every request of a turn waited from the turn's reads to its connection's write.
void Worker::RecordLatency(Connection* c, uint64_t micros) {
  for (size_t i = 0; i < c->parsed(); ++i) stats_.latency.Add(KindOf(*c->request(i)), micros);
}

void Worker::Accept(Executor* executor) {
  for (;;) {
    sockaddr_storage peer{};
    socklen_t peer_len = sizeof peer;
    int fd = accept4(listener_->fd(), reinterpret_cast<sockaddr*>(&peer), &peer_len,
                     SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK)
        Log(LogLevel::kWarning, "accept on %s port: %s", listener_->name(), std::strerror(errno));
      return;
    }
    if (listener_->connections.load() >= tunables_->max_connections.load()) {
      stats_.connections_refused.Add();
      Log(LogLevel::kNotice, "%s port: connection refused, limit of %u reached", listener_->name(),
          tunables_->max_connections.load());
      ::close(fd);
      continue;
    }
    listener_->connections.fetch_add(1);
    Worker* target = LeastLoaded();
    if (target == this) {
      AddConnection(fd, PeerName(peer), executor);
    } else {
      target->Adopt(fd, PeerName(peer));
    }
  }
}

// The kernel wakes one idle worker per new connection, often the same one: left
// there, connections that arrive together (a client's pool) would share a worker
// while the others idle. Each goes to the worker with the fewest, this one on a tie.
Worker* Worker::LeastLoaded() {
  Worker* best = this;
  size_t best_load = load();
  for (Worker* w : listener_->workers) {
    const size_t l = w->load();
    if (l < best_load) {
      best = w;
      best_load = l;
    }
  }
  return best;
}

void Worker::Adopt(int fd, std::string peer) {
  {
    std::lock_guard<std::mutex> lock(inbox_mutex_);
    inbox_.push_back({fd, std::move(peer)});
    adopting_.fetch_add(1, std::memory_order_relaxed);
  }
  Wake();
}

void Worker::AdoptConnections(Executor* executor) {
  std::vector<Adoptee> arrived;
  {
    std::lock_guard<std::mutex> lock(inbox_mutex_);
    arrived.swap(inbox_);
  }
  for (Adoptee& a : arrived) {
    AddConnection(a.fd, std::move(a.peer), executor);
    adopting_.fetch_sub(1, std::memory_order_relaxed);
  }
}

// Takes over an accepted connection (already counted on the listener).
void Worker::AddConnection(int fd, std::string peer, Executor* executor) {
  int on = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  if (config_.sndbuf > 0) setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &config_.sndbuf, sizeof(int));
  if (config_.rcvbuf > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &config_.rcvbuf, sizeof(int));
  auto c = std::make_unique<Connection>(fd, g_next_connection_id.fetch_add(1), std::move(peer),
                                        listener_, executor->NewSession(), &stats_, NowMs());
  c->index = connections_.size();
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP;
  ev.data.ptr = c.get();
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
    Log(LogLevel::kWarning, "epoll_ctl(add): %s", std::strerror(errno));
    ::close(fd);
    listener_->connections.fetch_sub(1);
    return;
  }
  stats_.connections_total.Add();
  std::lock_guard<std::mutex> lock(connections_mutex_);
  connections_.push_back(std::move(c));
  connection_count_.store(connections_.size(), std::memory_order_relaxed);
}

void Worker::CloseConnection(Connection* c) {
  if (c->held()) held_.erase(std::find(held_.begin(), held_.end(), c));
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c->fd(), nullptr);
  ::close(c->fd());
  listener_->connections.fetch_sub(1);
  std::lock_guard<std::mutex> lock(connections_mutex_);
  size_t i = c->index;
  if (i + 1 != connections_.size()) {
    connections_[i] = std::move(connections_.back());
    connections_[i]->index = i;
  }
  connections_.pop_back();  // destroys the connection and its session
  connection_count_.store(connections_.size(), std::memory_order_relaxed);
}

void Worker::WatchOutput(Connection* c, bool on) {
  epoll_event ev{};
  // While answers are waiting for a slow reader, stop reading its requests: its
  // memory stays bounded by what one turn can produce.
  ev.events = on ? EPOLLOUT : (EPOLLIN | EPOLLRDHUP);
  ev.data.ptr = c;
  epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, c->fd(), &ev);
  c->watching_output = on;
  c->parked = false;  // re-armed
}

// Once a second: trims the buffers of connections that went quiet and closes
// those idle longer than rowsocket_timeout.
void Worker::SweepConnections(uint64_t now_ms) {
  uint64_t timeout_ms = uint64_t{tunables_->timeout_seconds.load()} * 1000;
  for (size_t i = connections_.size(); i-- > 0;) {
    Connection* c = connections_[i].get();
    const uint64_t idle_ms = now_ms - c->last_active_ms.load(std::memory_order_relaxed);
    if (idle_ms >= 1000 && idle_ms < 2000) c->Trim();  // quiet for about a second
    if (timeout_ms != 0 && idle_ms > timeout_ms && !c->HasOutput()) {
      stats_.connections_timed_out.Add();
      CloseConnection(c);
    }
  }
}

void Worker::DescribeConnections(std::vector<ConnectionInfo>* out) const {
  const uint64_t now = NowMs();
  std::lock_guard<std::mutex> lock(connections_mutex_);
  for (const auto& c : connections_) {
    out->emplace_back();
    c->Describe(now, &out->back());
    out->back().worker = info_.index;
  }
}

}  // namespace rowsocket
