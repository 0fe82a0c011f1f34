// Listener: socket(), bind() and listen() for one port, non-blocking.
#include "server/listener.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rowsocket {

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
      port_ = port;
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
  return true;
}

void Listener::Close() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

}  // namespace rowsocket
