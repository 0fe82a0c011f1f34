// TLS over non-blocking sockets (tls.h): OpenSSL contexts and sessions whose socket
// BIO sends with MSG_NOSIGNAL. Runs on the caller's thread.
#include "util/tls.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace rowsocket {
namespace {

// The first error OpenSSL queued on this thread (then the queue is emptied), or the
// socket's errno.
std::string TakeError(int saved_errno) {
  const unsigned long e = ERR_peek_error();
  std::string text;
  if (e != 0) {
    char buffer[256];
    ERR_error_string_n(e, buffer, sizeof buffer);
    text = buffer;
  } else if (saved_errno != 0) {
    text = std::strerror(saved_errno);
  } else {
    text = "connection closed during the handshake";
  }
  ERR_clear_error();
  return text;
}

int SocketFd(BIO* bio) { return static_cast<int>(reinterpret_cast<intptr_t>(BIO_get_data(bio))); }

int BioWrite(BIO* bio, const char* data, int size) {
  BIO_clear_retry_flags(bio);
  ssize_t n;
  do {
    n = ::send(SocketFd(bio), data, static_cast<size_t>(size), MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) BIO_set_retry_write(bio);
  return static_cast<int>(n);
}

int BioRead(BIO* bio, char* data, int size) {
  BIO_clear_retry_flags(bio);
  ssize_t n;
  do {
    n = ::recv(SocketFd(bio), data, static_cast<size_t>(size), 0);
  } while (n < 0 && errno == EINTR);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) BIO_set_retry_read(bio);
  return static_cast<int>(n);
}

long BioCtrl(BIO*, int command, long, void*) { return command == BIO_CTRL_FLUSH ? 1 : 0; }

// A socket BIO that never raises SIGPIPE; made once, shared by every session.
BIO_METHOD* SocketMethod() {
  static BIO_METHOD* const method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "rowsocket socket");
    BIO_meth_set_write(m, BioWrite);
    BIO_meth_set_read(m, BioRead);
    BIO_meth_set_ctrl(m, BioCtrl);
    return m;
  }();
  return method;
}

// What both sides share: TLS 1.2 at least, no renegotiation, no session tickets
// (nothing resumes sessions, and a ticket would arrive as bytes nobody asked for),
// partial writes of a buffer that may move, read and write buffers given back while
// a connection is idle.
SSL_CTX* NewContext(const SSL_METHOD* method) {
  ERR_clear_error();
  SSL_CTX* ctx = SSL_CTX_new(method);
  if (ctx == nullptr) return nullptr;
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION |
                               SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_TICKET);
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                            SSL_MODE_RELEASE_BUFFERS);
  SSL_CTX_set_num_tickets(ctx, 0);
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
  return ctx;
}

}  // namespace

std::unique_ptr<TlsContext> TlsContext::ForServer(const std::string& cert, const std::string& key,
                                                  const std::string& ca, std::string* error) {
  SSL_CTX* ctx = NewContext(TLS_server_method());
  if (ctx == nullptr) {
    *error = "cannot make a TLS context: " + TakeError(0);
    return nullptr;
  }
  std::unique_ptr<TlsContext> context(new TlsContext(ctx));
  const std::string& key_file = key.empty() ? cert : key;
  if (SSL_CTX_use_certificate_chain_file(ctx, cert.c_str()) != 1) {
    *error = "certificate " + cert + ": " + TakeError(0);
    return nullptr;
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, key_file.c_str(), SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_check_private_key(ctx) != 1) {
    *error = "private key " + key_file + ": " + TakeError(0);
    return nullptr;
  }
  if (!ca.empty()) {
    // A client certificate is not required; one that is offered must verify.
    if (SSL_CTX_load_verify_locations(ctx, ca.c_str(), nullptr) != 1) {
      *error = "CA " + ca + ": " + TakeError(0);
      return nullptr;
    }
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
    context->verify_ = true;
  }
  return context;
}

std::unique_ptr<TlsContext> TlsContext::ForClient(const std::string& ca, bool verify_host,
                                                  std::string* error) {
  SSL_CTX* ctx = NewContext(TLS_client_method());
  if (ctx == nullptr) {
    *error = "cannot make a TLS context: " + TakeError(0);
    return nullptr;
  }
  std::unique_ptr<TlsContext> context(new TlsContext(ctx));
  if (!ca.empty() || verify_host) {
    const int loaded = ca.empty() ? SSL_CTX_set_default_verify_paths(ctx)
                                  : SSL_CTX_load_verify_locations(ctx, ca.c_str(), nullptr);
    if (loaded != 1) {
      *error = "CA " + (ca.empty() ? std::string("(system default)") : ca) + ": " + TakeError(0);
      return nullptr;
    }
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
    context->verify_ = true;
    context->verify_host_ = verify_host;
  }
  return context;
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

TlsStream::TlsStream(const TlsContext& context, int fd, bool server, const std::string& host) {
  ERR_clear_error();
  ssl_ = SSL_new(context.get());
  BIO* bio = ssl_ != nullptr ? BIO_new(SocketMethod()) : nullptr;
  if (bio == nullptr) {
    error_ = "cannot make a TLS session: " + TakeError(ENOMEM);
    SSL_free(ssl_);
    ssl_ = nullptr;
    return;
  }
  BIO_set_data(bio, reinterpret_cast<void*>(static_cast<intptr_t>(fd)));
  BIO_set_init(bio, 1);
  SSL_set_bio(ssl_, bio, bio);
  if (server) {
    SSL_set_accept_state(ssl_);
  } else {
    SSL_set_connect_state(ssl_);
    if (!host.empty()) {
      SSL_set_tlsext_host_name(ssl_, host.c_str());
      if (context.verifies_host()) SSL_set1_host(ssl_, host.c_str());
    }
  }
}

TlsStream::~TlsStream() { SSL_free(ssl_); }

TlsIo TlsStream::Result(int rc, const char* what) {
  if (rc > 0) return TlsIo::kDone;
  const int saved_errno = errno;
  switch (SSL_get_error(ssl_, rc)) {
    case SSL_ERROR_WANT_READ: return TlsIo::kWantRead;
    case SSL_ERROR_WANT_WRITE: return TlsIo::kWantWrite;
    case SSL_ERROR_ZERO_RETURN: return TlsIo::kClosed;
    case SSL_ERROR_SYSCALL:
      // The peer's end without close_notify (IGNORE_UNEXPECTED_EOF) reads as an
      // end; so does a reset.
      if (ERR_peek_error() == 0 && (rc == 0 || saved_errno == ECONNRESET || saved_errno == 0)) {
        failed_ = true;
        error_ = std::string(what) + ": connection closed";
        return TlsIo::kClosed;
      }
      break;
    default: break;
  }
  failed_ = true;
  error_ = std::string(what) + ": " + TakeError(saved_errno);
  return TlsIo::kError;
}

TlsIo TlsStream::Handshake() {
  if (handshake_done_) return TlsIo::kDone;
  ERR_clear_error();
  errno = 0;
  const TlsIo io = Result(SSL_do_handshake(ssl_), "TLS handshake");
  if (io == TlsIo::kDone) handshake_done_ = true;
  return io;
}

TlsIo TlsStream::Read(char* buffer, size_t size, size_t* n) {
  ERR_clear_error();
  errno = 0;
  size_t got = 0;
  const int rc = SSL_read_ex(ssl_, buffer, size, &got);
  *n = got;
  return Result(rc, "TLS read");
}

TlsIo TlsStream::Write(const char* buffer, size_t size, size_t* n) {
  ERR_clear_error();
  errno = 0;
  size_t put = 0;
  const int rc = SSL_write_ex(ssl_, buffer, size, &put);
  *n = put;
  return Result(rc, "TLS write");
}

bool TlsStream::HasPending() const { return ssl_ != nullptr && SSL_pending(ssl_) > 0; }

void TlsStream::Shutdown() {
  if (ssl_ == nullptr || !handshake_done_ || failed_) return;
  ERR_clear_error();
  SSL_shutdown(ssl_);
  ERR_clear_error();
}

const char* TlsStream::version() const {
  return ssl_ != nullptr && handshake_done_ ? SSL_get_version(ssl_) : "";
}

}  // namespace rowsocket
