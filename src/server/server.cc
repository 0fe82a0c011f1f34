// Server: opens listeners and starts and stops their workers.
#include "server/server.h"

#include <chrono>
#include <thread>

#include "server/connection_protocol.h"
#include "util/clock.h"
#include "util/log.h"

namespace rowsocket {

Server::Server(const ServerConfig& config, ServerTunables* tunables, ExecutorFactory* factory)
    : config_(config), tunables_(tunables), factory_(factory) {}

Server::~Server() { Stop(); }

bool Server::Start(std::string* error) {
  ChooseIoLoop();
  SetUpTls();
  if (!StartListener(config_.read, "read", error) ||
      !StartListener(config_.write, "write", error) ||
      !StartListener(config_.memcached, "memcached", error) ||
      !StartListener(config_.redis, "redis", error)) {
    Stop();
    return false;
  }
  return true;
}

// An old kernel, kernel.io_uring_disabled or a seccomp filter refuses io_uring; the
// epoll loop serves the same then.
void Server::ChooseIoLoop() {
  if (config_.io == IoLoop::kEpoll) return;
  std::string why;
  if (UringAvailable(&why)) {
    Log(LogLevel::kInfo, "event loop: io_uring");
    return;
  }
  config_.io = IoLoop::kEpoll;
  Log(LogLevel::kWarning, "rowsocket_io=io_uring is unavailable (%s); using epoll", why.c_str());
}

// A certificate that cannot be used leaves TLS off rather than the listeners down,
// as the server's own ssl_cert does for SQL.
void Server::SetUpTls() {
  const TlsConfig& t = config_.tls;
  if (t.cert.empty()) {
    Log(LogLevel::kInfo, "TLS is off: no certificate (rowsocket_ssl_cert and the server's "
                         "ssl_cert are empty)");
    return;
  }
  std::string error;
  tls_ = TlsContext::ForServer(t.cert, t.key, t.ca, &error);
  if (!tls_) {
    Log(LogLevel::kError, "TLS is off: %s", error.c_str());
    return;
  }
  Log(LogLevel::kInfo, "TLS on both listeners with certificate %s%s", t.cert.c_str(),
      t.ca.empty() ? "" : ", client certificates verified against the CA");
}

bool Server::StartListener(const ListenerConfig& lc, const char* name, std::string* error) {
  if (lc.port.empty()) return true;  // disabled
  const int spares = config_.io == IoLoop::kEpoll ? config_.spare_threads : 0;
  auto listener = std::make_unique<Listener>(name, lc.read_only, lc.auth, lc.secret,
                                             static_cast<size_t>(lc.threads + spares),
                                             lc.protocol, config_.io, static_cast<size_t>(spares));
  if (!listener->Open(config_.address, lc.port, config_.backlog, error)) return false;
  listener->UseTls(tls_.get(), tunables_);
  Listener* l = listener.get();
  listeners_.push_back(std::move(listener));  // outlives its workers (Stop joins first)
  const size_t first = workers_.size();
  for (int i = 0; i < lc.threads + spares; ++i) {
    WorkerInfo info{static_cast<int>(workers_.size()), i, lc.read_only, name, nullptr, {}, {}, {}};
    info.spare = i >= lc.threads;
    workers_.push_back(std::make_unique<Worker>(info, l, static_cast<size_t>(i), factory_,
                                                config_, tunables_));
  }
  for (size_t i = first; i < workers_.size(); ++i) {
    if (!workers_[i]->Start(error)) return false;
  }
  static const char* const kAuthNames[] = {"none", "secret", "account"};
  Log(LogLevel::kInfo,
      "%s listener on %s:%s with %d worker%s (and %d spare%s), at most %u connections, "
      "authentication: %s",
      name, config_.address.c_str(), lc.port.c_str(), lc.threads, lc.threads == 1 ? "" : "s",
      spares, spares == 1 ? "" : "s", tunables_->max_connections.load(),
      kAuthNames[static_cast<int>(lc.auth)]);
  return true;
}

// Each worker ends its running batch (a request waiting for a lock stops waiting),
// sends the answers that become durable (up to a second) and exits; the last one of
// a listener closes its connections. A request may begin to wait for a lock just
// after its batch was interrupted (the storage engine only ends waits in progress),
// so workers are interrupted again until each has let go of its executor.
void Server::Stop() {
  constexpr auto kInterruptAgain = std::chrono::milliseconds(20);
  for (auto& l : listeners_) l->RequestStop();
  for (;;) {
    bool running = false;
    for (auto& w : workers_) running = w->Interrupt() || running;
    if (!running) break;
    std::this_thread::sleep_for(kInterruptAgain);
  }
  for (auto& w : workers_) w->Join();
  workers_.clear();
  listeners_.clear();
}

std::vector<ConnectionInfo> Server::DescribeConnections() const {
  std::vector<ConnectionInfo> all;
  const uint64_t now_ms = NowMs();
  for (auto& l : listeners_) l->connections().Describe(now_ms, &all);
  return all;
}

StatsSnapshot Server::CollectStats() const {
  StatsSnapshot s;
  for (auto& w : workers_) s.AddFrom(w->stats());
  for (auto& l : listeners_) {
    const ServerProtocol& protocol = ServerProtocolOf(l->protocol());
    s.*(l->read_only() ? protocol.open_connections_read_only : protocol.open_connections) +=
        l->connections().open();
    s.tls_connections += l->tls_open();
    if (l->protocol() == WireProtocol::kRedis) {
      const StatsSnapshot redis = l->Figures(false).sums;
      s.redis_connections_received += redis.connections_total;
      s.redis_connections_rejected += redis.connections_refused;
      s.redis_bytes_received += redis.bytes_received;
      s.redis_bytes_sent += redis.bytes_sent;
    }
  }
  return s;
}

}  // namespace rowsocket
