// TLS over a non-blocking socket, shared by the server's connections and the clients
// (librowsocket, the benchmark): an OpenSSL context for either side and TlsStream,
// one TLS session on one socket. Nothing here blocks or waits: every call says what
// the socket must become (readable, writable) before it is worth calling again, so
// the caller's own loop (epoll, poll) does the waiting.
//
// Writes never raise SIGPIPE (the session's socket BIO sends with MSG_NOSIGNAL).
// Partial writes are on, and a write retried after kWantWrite may pass a buffer that
// moved or grew, as long as it starts with the same bytes.
//
// Thread-safety: a context may be shared by any threads; a TlsStream is used by one
// thread at a time.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;

namespace rowsocket {

// An OpenSSL context, freed with its owner.
class TlsContext {
 public:
  // A server's context: certificate chain `cert`, its private key `key` (empty: the
  // key is in `cert`'s file), and, when `ca` is not empty, the CAs whose client
  // certificates are asked for (not required). Null with *error set on failure.
  static std::unique_ptr<TlsContext> ForServer(const std::string& cert, const std::string& key,
                                               const std::string& ca, std::string* error);
  // A client's context. `ca` not empty: the server's certificate must be signed by
  // it; `verify_host` too: and name the host connected to (TlsStream's `host`).
  // Without `ca`, the server is not verified.
  static std::unique_ptr<TlsContext> ForClient(const std::string& ca, bool verify_host,
                                               std::string* error);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  SSL_CTX* get() const { return ctx_; }
  bool verifies() const { return verify_; }
  bool verifies_host() const { return verify_host_; }

 private:
  explicit TlsContext(SSL_CTX* ctx) : ctx_(ctx) {}
  SSL_CTX* ctx_;
  bool verify_ = false;
  bool verify_host_ = false;
};

// What a TlsStream call achieved.
enum class TlsIo {
  kDone,       // done (for Read and Write: *n bytes moved, at least one)
  kWantRead,   // call again once the socket is readable
  kWantWrite,  // call again once the socket is writable
  kClosed,     // the peer closed the stream (close_notify, or the TCP end)
  kError,      // a protocol or socket error; see error(); the stream is unusable
};

class TlsStream {
 public:
  // A session on socket `fd` (not owned), on the server side or the client side.
  // `host`: the name a client verifies the certificate against (and sends as SNI).
  TlsStream(const TlsContext& context, int fd, bool server, const std::string& host = "");
  ~TlsStream();
  TlsStream(const TlsStream&) = delete;
  TlsStream& operator=(const TlsStream&) = delete;

  // False if the session could not even be made (out of memory); see error().
  bool ok() const { return ssl_ != nullptr; }
  // Advances the handshake; kDone once it is complete.
  TlsIo Handshake();
  bool handshake_done() const { return handshake_done_; }
  // Reads up to `size` bytes of application data.
  TlsIo Read(char* buffer, size_t size, size_t* n);
  // Writes up to `size` bytes; *n may be less than `size` (partial write).
  TlsIo Write(const char* buffer, size_t size, size_t* n);
  // Decrypted bytes that wait inside the session: readable without the socket.
  bool HasPending() const;
  // Sends close_notify, best effort and without waiting, unless the stream failed.
  void Shutdown();
  // "TLSv1.3" and the like (a static string), or "" before the handshake.
  const char* version() const;
  // Why the last call answered kError.
  const std::string& error() const { return error_; }

 private:
  TlsIo Result(int rc, const char* what);

  SSL* ssl_ = nullptr;
  bool handshake_done_ = false;
  bool failed_ = false;
  std::string error_;
};

}  // namespace rowsocket
