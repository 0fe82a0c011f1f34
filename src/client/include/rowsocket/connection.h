// Connection: one TCP connection to a rowsocket (or HandlerSocket) listener.
//
// Every request method is a one-request Batch; Execute sends a whole Batch in one
// write and reads the answers in order (pipelining). A request on an Index opens it
// on this connection first when needed, in the same write, and the connection
// remembers the id it chose, so callers never handle index ids; a raw id (IndexRef
// from a number) is sent as is, for indexes opened with OpenIndex.
//
// Errors (see result.h): a server error leaves the connection usable; an I/O error
// (refused, lost, timed out, not an answer) closes it for good, and every later call
// fails with an I/O error at once. Make a new Connection, or let a Pool do it.
//
// A Connection is used by one thread at a time (it is movable, not copyable); use a
// Pool to share connections between threads.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rowsocket/batch.h"
#include "rowsocket/query.h"
#include "rowsocket/result.h"
#include "rowsocket/value.h"

namespace rowsocket {
namespace client {

struct ConnectOptions {
  // Longest wait for the TCP connection to be established.
  std::chrono::milliseconds connect_timeout{3000};
  // Longest wait for the socket to accept or deliver bytes while a request is in
  // flight; past it the connection is closed with an I/O error "timeout".
  std::chrono::milliseconds io_timeout{30000};
  // When not empty, Connect authenticates with `A 1 <secret>` before returning.
  std::string secret;
  // When `user` is not empty, Connect logs in to that MariaDB account (Login below)
  // before returning, after the secret when both are set. The Connection does not
  // keep the password once connected.
  std::string user;
  std::string password;
  // With `login_if_asked`, a listener that does not use account logins (it answers
  // `A 2` with `3 1 authtype`) is used without one instead of failing Connect: for
  // tools whose user name also serves elsewhere (rowsocket-cli's -u is its SQL
  // account too).
  bool login_if_asked = false;
  // TLS (the names of the mariadb client's options). `ssl`: speak TLS; the
  // handshake follows the TCP connection, within connect_timeout. `ssl_ca`: a PEM
  // file of the CA the server's certificate must be signed by (and implies `ssl`);
  // empty: the certificate is not verified, unless `ssl_verify_server_cert`, which
  // also checks that the certificate names the host connected to (against the
  // system's CAs when `ssl_ca` is empty).
  bool ssl = false;
  std::string ssl_ca;
  bool ssl_verify_server_cert = false;
};

class Connection {
 public:
  // Connects to host:port (a name or an address; every address is tried in turn).
  static Result<Connection> Connect(const std::string& host, uint16_t port,
                                    const ConnectOptions& options = ConnectOptions());

  Connection(Connection&&) noexcept;
  Connection& operator=(Connection&&) noexcept;
  ~Connection();

  // False once closed by Close() or by an I/O error.
  bool connected() const;
  void Close();
  const std::string& host() const;
  uint16_t port() const;

  // A 1 <secret>.
  Status Auth(std::string_view secret);
  // Logs in to a MariaDB account (user@host as the server sees this connection):
  // `A 2 <user>` fetches a single-use nonce, `A 3 <user> <response>` answers it with
  // mysql_native_password's scramble, so the password never travels. Two round
  // trips. Refusals are server errors of code 3: unauth (wrong user or password),
  // locked, expired, authplugin (the account uses another plugin), maxconn, blocked, authtype
  // (the listener does not use account login), ...
  Status Login(std::string_view user, std::string_view password);
  // P <id> ... with an id of the caller's choice (replaces what the id named).
  Status OpenIndex(uint32_t id, const Index& index);
  // Opens `index` unless this connection has it open already; returns its id.
  Result<uint32_t> Open(const Index& index);

  Result<Rows> Find(const IndexRef& index, const Query& query);
  // Return the number of rows changed.
  Result<uint64_t> Update(const IndexRef& index, const Query& query, Row values);
  Result<uint64_t> Increment(const IndexRef& index, const Query& query, Row deltas);
  Result<uint64_t> Decrement(const IndexRef& index, const Query& query, Row deltas);
  Result<uint64_t> Remove(const IndexRef& index, const Query& query);
  // Returns the rows as they were before `modify` changed (or deleted) them.
  Result<Rows> FindAndModify(const IndexRef& index, const Query& query, const Modify& modify);
  // Returns the AUTO_INCREMENT id the insert produced, or 0 when the table has none.
  Result<uint64_t> Insert(const IndexRef& index, Row values);

  // Sends every request of `batch` in one write; see batch.h for partial failures.
  BatchResult Execute(const Batch& batch);

  // For tools that speak the protocol by hand (rowsocket-cli's raw mode): sends
  // `bytes` as they are and returns one answer line (without LF) for every LF in
  // `bytes`. Lines sent this way bypass the index-id bookkeeping: do not mix them
  // with Index requests on the same connection.
  Result<std::vector<std::string>> ExchangeRaw(std::string_view bytes);

  // Cheap check without a round trip: false when the peer has closed or reset the
  // connection (what an idle connection suffers when the server times it out).
  bool LooksAlive();

 private:
  struct Impl;
  explicit Connection(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace client
}  // namespace rowsocket
