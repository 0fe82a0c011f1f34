// FakeServer: a scripted HandlerSocket listener for the client's unit tests.
//
// It listens on 127.0.0.1 on a free port and serves each connection on its own
// thread: every request line received is recorded and passed to the test's handler,
// whose returned bytes are written back. The handler can answer nothing (to test
// timeouts), several lines, or FakeServer::kClose to close the connection at that
// point (a server that goes away mid-pipeline). Lets tests pin the exact bytes the
// library sends and every way a server can fail, without MariaDB.
// Thread-safe: handlers run on server threads; lines() may be read from the test.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace rowsocket {
namespace client {
namespace testing {

class FakeServer {
 public:
  static constexpr const char* kClose = "\x7f<close>";
  // (request line without LF, connection number from 0) -> bytes to answer.
  using Handler = std::function<std::string(const std::string& line, int conn)>;

  // `port` 0: a free port; else that one (e.g. a ClosedPort() that comes to life).
  explicit FakeServer(Handler handler, uint16_t port = 0) : handler_(std::move(handler)) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(port);
    ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    socklen_t len = sizeof(addr);
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    ::listen(listen_fd_, 16);
    acceptor_ = std::thread([this] { AcceptLoop(); });
  }

  ~FakeServer() {
    stop_ = true;
    acceptor_.join();
    for (std::thread& t : workers_) t.join();
    ::close(listen_fd_);
  }

  uint16_t port() const { return port_; }
  int connections() const { return connections_.load(); }

  // Every line received so far, on every connection, in arrival order.
  std::vector<std::string> lines() const {
    std::lock_guard<std::mutex> lock(mu_);
    return lines_;
  }

 private:
  void AcceptLoop() {
    while (!stop_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) continue;
      const int conn = connections_++;
      workers_.emplace_back([this, fd, conn] { Serve(fd, conn); });
    }
  }

  void Serve(int fd, int conn) {
    std::string in;
    char buf[65536];
    while (!stop_) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
      if (n <= 0) break;
      in.append(buf, static_cast<size_t>(n));
      size_t lf;
      std::string out;
      bool close = false;
      while (!close && (lf = in.find('\n')) != std::string::npos) {
        std::string line = in.substr(0, lf);
        in.erase(0, lf + 1);
        {
          std::lock_guard<std::mutex> lock(mu_);
          lines_.push_back(line);
        }
        std::string answer = handler_(line, conn);
        if (answer == kClose) close = true; else out += answer;
      }
      if (!out.empty()) ::send(fd, out.data(), out.size(), MSG_NOSIGNAL);
      if (close) break;
    }
    ::close(fd);
  }

  Handler handler_;
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::thread acceptor_;
  std::vector<std::thread> workers_;  // touched by the acceptor thread only, then joined
  mutable std::mutex mu_;
  std::vector<std::string> lines_;
};

// A port nothing listens on (bound, then closed).
inline uint16_t ClosedPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

}  // namespace testing
}  // namespace client
}  // namespace rowsocket
