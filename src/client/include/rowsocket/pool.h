// Pool: connections to a set of read and write endpoints, shared by threads.
//
// Reads (Find) go to a read endpoint (a replica), writes (insert, update, ...) to a
// write endpoint (the primary, or the nodes of a Galera cluster). How the endpoints
// of one role share the calls is a Balance: in turn, or all to the first healthy one
// (the default for writes, so that a Galera cluster certifies no conflicts between
// its nodes). When no read endpoint is healthy, or there is none, reads use the
// write endpoints (the first case can be turned off). Each pooled Connection opens the Indexes it is asked for by itself
// and remembers them (see connection.h), so callers name indexes, never ids, and an
// idle connection keeps its open indexes for the next caller.
//
// Health, checked lazily on use (the Pool has no thread of its own): an endpoint
// that refuses a connection, or does not accept one within connect_timeout, is out.
// Calls skip it until a backoff has passed (min_backoff, doubling up to max_backoff,
// reset by the next success); then one call tries it again, and a connection made
// puts it back in. Meanwhile calls go to the next endpoint of the role; when every
// candidate is out they fail at once with an I/O error. A request that fails with
// an I/O error drops the idle connections of its endpoint, so that the next call
// connects afresh (and finds out whether the endpoint is still there).
//
// Retries: a call whose connect fails goes on to the next endpoint, writes too:
// nothing was sent. A read that fails with an I/O error after it was sent is retried
// once on a fresh connection (reads are idempotent); a write never is, because it
// may have been applied, except where every reply proves nothing applied: a batch
// that a Galera node not ready for clients refused whole (`1 1 1047` for each
// request) goes to the next endpoint of its role, writes too, and the node is out
// for a backoff as after a failed connect.
//
// Read-your-writes: a Pool::Session remembers where its writes went; for
// read_your_writes after each write its reads go to that write endpoint (then to
// the other write endpoints if it is out), never to a replica that may lag.
//
// Thread-safety: every method of Pool may be called from any thread at any time. A
// Lease or a Session is used by one thread at a time; destroying a Lease gives its
// connection back to the pool. The Pool must outlive its Leases and Sessions.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
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

// How the healthy endpoints of one role share the calls.
enum class Balance {
  kInTurn,        // each call takes the next endpoint (round robin)
  kFirstHealthy,  // every call takes the first healthy endpoint in list order
};

struct PoolOptions {
  std::vector<Endpoint> readers;  // read listeners (e.g. port 9998 of each replica)
  std::vector<Endpoint> writers;  // write listeners (port 9999 of the primary, or of
                                  // each Galera node)
  Balance read_balance = Balance::kInTurn;
  Balance write_balance = Balance::kFirstHealthy;
  // When there are readers but none is healthy, reads go to the writers (true) or
  // fail with the readers' I/O error (false). With no reader at all, reads always
  // use the writers.
  bool reads_fall_back_to_writers = true;
  // Timeouts, and the MariaDB account every new connection logs in to (user,
  // password: the pool keeps them to reconnect); the secret comes from each Endpoint.
  ConnectOptions connect;
  size_t max_idle_per_endpoint = 8;
  // How long an endpoint stays out after a failed connect: min_backoff after the
  // first, doubling with each failure in a row, at most max_backoff.
  std::chrono::milliseconds min_backoff{100};
  std::chrono::milliseconds max_backoff{10000};
  // How long a Session's reads go to the write endpoint of its last write.
  std::chrono::milliseconds read_your_writes{5000};
  // The time source for backoffs and read_your_writes (tests inject one); empty:
  // std::chrono::steady_clock::now.
  std::function<std::chrono::steady_clock::time_point()> clock;
};

enum class Role { kRead, kWrite };

// The request methods of Pool and Pool::Session: each is a one-request Batch run by
// Execute(), which routes it (a batch with writes to a write endpoint).
class Requester {
 public:
  virtual BatchResult Execute(const Batch& batch) = 0;

  Result<Rows> Find(const Index& index, const Query& query);
  Result<uint64_t> Update(const Index& index, const Query& query, Row values);
  Result<uint64_t> Increment(const Index& index, const Query& query, Row deltas);
  Result<uint64_t> Decrement(const Index& index, const Query& query, Row deltas);
  Result<uint64_t> Remove(const Index& index, const Query& query);
  Result<Rows> FindAndModify(const Index& index, const Query& query, const Modify& modify);
  Result<uint64_t> Insert(const Index& index, Row values);

 protected:
  ~Requester() = default;
};

// An endpoint as the health check sees it (Pool::endpoints()).
struct EndpointStatus {
  Endpoint endpoint;
  Role role;
  bool up;       // false while out (after a failed connect or a refused batch, until
                 // a connect succeeds)
  int failures;  // connects failed (or batches refused) in a row
};

class Pool final : public Requester {
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

  // A caller that reads its own writes: after a write through the Session, its
  // reads go to the write endpoint that write went to for options.read_your_writes
  // (each write starts the time again), then back to the read endpoints. A write
  // that failed with an I/O error counts (it may have been applied). Cheap to make;
  // one per user session or request flow.
  class Session final : public Requester {
   public:
    explicit Session(Pool& pool) : pool_(&pool) {}
    BatchResult Execute(const Batch& batch) override;
    // True while this Session's reads go to its last write's endpoint.
    bool reads_own_writes() const;

   private:
    friend class Pool;
    Pool* pool_;
    size_t writer_ = 0;                            // endpoint of the last write
    std::chrono::steady_clock::time_point until_;  // reads go there before this
    bool wrote_ = false;
  };

  // A connection to an endpoint of `role`, for several requests in a row (a read
  // lease may be on a write endpoint when no reader is healthy).
  Result<Lease> Acquire(Role role);

  // Runs `batch` on one connection: a write endpoint when it has writes, else a read
  // endpoint (and a batch without writes is retried like a read).
  BatchResult Execute(const Batch& batch) override;

  // Connections now idle in the pool (for tests and monitoring).
  size_t idle_connections() const;
  // Every endpoint, readers first, and whether it is in (for tests and monitoring).
  std::vector<EndpointStatus> endpoints() const;

 private:
  struct State;
  struct Route;
  Result<Lease> AcquireFrom(const Route& route);
  BatchResult Run(const Batch& batch, Session* session);
  void GiveBack(size_t endpoint, std::unique_ptr<Connection> conn);
  void DropIdle(size_t endpoint);
  void TakeOut(size_t endpoint);
  std::unique_ptr<State> state_;
};

}  // namespace client
}  // namespace rowsocket
