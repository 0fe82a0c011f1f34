// Socket: the byte-moving half of a client connection, knowing nothing of requests.
//
// It connects with a timeout, then runs exchanges: write a buffer of request lines
// while reading answer lines, handing each complete line to a LineSink, until the
// expected number of lines has arrived. Writing and reading are interleaved with
// poll(), so a pipeline larger than the socket buffers cannot deadlock against a
// server that answers as it reads. Any failure is an I/O error and closes the socket.
// With TLS, the handshake follows the connection and every byte passes the session.
// Internal to librowsocket. Used by one thread at a time.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "rowsocket/connection.h"
#include "rowsocket/result.h"
#include "util/tls.h"

namespace rowsocket {
namespace client {

// Receives answer lines; the line is only valid during the call.
class LineSink {
 public:
  virtual ~LineSink() = default;
  // `line` excludes the LF and may be modified (decoded in place). Returning false
  // aborts the exchange with an I/O error "malformed answer".
  virtual bool OnLine(char* line, size_t size) = 0;
};

class Socket {
 public:
  Socket() = default;
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket() { Close(); }

  // Connects to host:port, trying every address the name resolves to, then makes
  // the TLS handshake when `options` ask for TLS (all within connect_timeout).
  Status Connect(const std::string& host, uint16_t port, const ConnectOptions& options);

  // Sends `out`, then reads `lines` answer lines (while still sending). An inactivity
  // longer than `timeout` fails with "timeout". On failure the socket is closed and
  // the error says how many lines had arrived.
  Status Exchange(std::string_view out, size_t lines, LineSink* sink,
                  std::chrono::milliseconds timeout);

  bool is_open() const { return fd_ >= 0; }
  // False when the peer has closed or reset the connection, or sent bytes nobody
  // asked for (the stream would be out of step).
  bool LooksAlive();
  void Close();

 private:
  // Reads what is available into in_; false with `*error` set on EOF or error.
  bool Fill(std::string* error);
  Status Fail(std::string message);
  uint16_t Port() const;
  Status StartTls(const std::string& host, const ConnectOptions& options);
  // Sends what the socket takes of [data, data + size); false with `*error` set on
  // a failure.
  bool Send(const char* data, size_t size, size_t* sent, std::string* error);

  int fd_ = -1;
  std::unique_ptr<TlsContext> tls_context_;
  std::unique_ptr<TlsStream> tls_;
  std::string in_;    // bytes read and not yet handed out
  size_t start_ = 0;  // first byte of in_ not yet handed out
};

}  // namespace client
}  // namespace rowsocket
