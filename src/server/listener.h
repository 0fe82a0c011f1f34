// Listener: one listening TCP socket (the read or the write port) and the facts
// every connection accepted on it shares: read-only or not, its secret, its limit.
//
// Opened and closed by Server on the plugin's thread; its fd is watched by all of
// the listener's workers at once (EPOLLEXCLUSIVE wakes one of them per event; that
// one accepts and passes each connection on to the least loaded worker).
// `connections` is updated by the workers; everything else is immutable while
// workers run.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace rowsocket {

class Worker;

class Listener {
 public:
  Listener(const char* name, bool read_only, std::string secret)
      : name_(name), read_only_(read_only), secret_(std::move(secret)) {}
  ~Listener() { Close(); }
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  // Binds and listens on address:port (numeric or service name; IPv4 or IPv6).
  // Returns false and sets *error on failure.
  bool Open(const std::string& address, const std::string& port, int backlog,
            std::string* error);
  void Close();

  int fd() const { return fd_; }
  const char* name() const { return name_; }
  bool read_only() const { return read_only_; }
  const std::string& secret() const { return secret_; }
  const std::string& port() const { return port_; }

  // Connections currently open on this listener (for the per-listener limit),
  // counted from the moment they are accepted.
  std::atomic<uint32_t> connections{0};

  // The listener's workers, set by Server before any of them starts; a worker that
  // accepts a connection hands it to the least loaded of them.
  std::vector<Worker*> workers;
  // Write workers of this listener executing a batch right now.
  std::atomic<int> executing{0};

 private:
  const char* name_;
  bool read_only_;
  std::string secret_;
  std::string port_;
  int fd_ = -1;
};

}  // namespace rowsocket
