// Pool: connections to a set of read and write endpoints, shared by threads.
//
// Reads (Find) go to a read endpoint, writes (insert, update, ...) to a write
// endpoint; with no read endpoint, reads use the write endpoints. Endpoints of one
// role are used in turn. Each pooled Connection opens the Indexes it is asked for
// by itself and remembers them (see connection.h), so callers name indexes, never
// ids, and an idle connection keeps its open indexes for the next caller.
//
// Failures: a connection that fails with an I/O error is dropped, never reused. An
// endpoint that refuses connections is not tried again until a backoff has passed
// (min_backoff, doubling up to max_backoff, reset by the next success); meanwhile
// calls for it fail at once with an I/O error. A read that fails with an I/O error is
// retried once on a fresh connection (reads are idempotent); a write is not, because
// it may have been applied.
//
// Thread-safety: every method may be called from any thread at any time. A Lease is
// owned by one thread; destroying it gives its connection back to the pool.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "rowsocket/batch.h"
#include "rowsocket/connection.h"
#include "rowsocket/query.h"
#include "rowsocket/result.h"

namespace rowsocket {
namespace client {

struct Endpoint {
  Endpoint() = default;
  Endpoint(std::string host_name, uint16_t tcp_port, std::string plain_secret = {})
      : host(std::move(host_name)), port(tcp_port), secret(std::move(plain_secret)) {}

  std::string host;
  uint16_t port = 0;
  std::string secret;  // sent as `A 1 <secret>` on every new connection when set
};

struct PoolOptions {
  std::vector<Endpoint> readers;  // read listeners (e.g. port 9998 of each replica)
  std::vector<Endpoint> writers;  // write listeners (e.g. port 9999 of the primary)
  // Timeouts, and the MariaDB account every new connection logs in to (user,
  // password: the pool keeps them to reconnect); the secret comes from each Endpoint.
  ConnectOptions connect;
  size_t max_idle_per_endpoint = 8;
  std::chrono::milliseconds min_backoff{100};
  std::chrono::milliseconds max_backoff{10000};
};

enum class Role { kRead, kWrite };

class Pool {
 public:
  explicit Pool(PoolOptions options);
  ~Pool();
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  // One connection, taken from the pool until the Lease is destroyed.
  class Lease {
   public:
    Lease(Lease&&) noexcept;
    Lease& operator=(Lease&&) noexcept;
    ~Lease();
    Connection& operator*() { return *conn_; }
    Connection* operator->() { return conn_.get(); }

   private:
    friend class Pool;
    Lease(Pool* pool, size_t endpoint, std::unique_ptr<Connection> conn);
    void Release();
    Pool* pool_;
    size_t endpoint_;
    std::unique_ptr<Connection> conn_;
  };

  // A connection to an endpoint of `role`, for several requests in a row (e.g. to
  // read your own writes on the write endpoint).
  Result<Lease> Acquire(Role role);

  Result<Rows> Find(const Index& index, const Query& query);
  Result<uint64_t> Update(const Index& index, const Query& query, Row values);
  Result<uint64_t> Increment(const Index& index, const Query& query, Row deltas);
  Result<uint64_t> Decrement(const Index& index, const Query& query, Row deltas);
  Result<uint64_t> Remove(const Index& index, const Query& query);
  Result<Rows> FindAndModify(const Index& index, const Query& query, const Modify& modify);
  Result<uint64_t> Insert(const Index& index, Row values);
  // Runs `batch` on one connection: a write endpoint when it has writes, else a read
  // endpoint (and a batch without writes is retried like a read).
  BatchResult Execute(const Batch& batch);

  // Connections now idle in the pool (for tests and monitoring).
  size_t idle_connections() const;

 private:
  struct State;
  Result<Lease> AcquireFrom(Role role, bool fresh);
  BatchResult Run(const Batch& batch, bool write);
  void GiveBack(size_t endpoint, std::unique_ptr<Connection> conn);
  std::unique_ptr<State> state_;
};

}  // namespace client
}  // namespace rowsocket
