// Pool: idle connections per endpoint, round-robin choice, backoff, read retry.
//
// One mutex guards everything shared: the endpoints' idle lists, failure counts and
// next-attempt times, and the round-robin cursors. It is never held across network
// I/O: a connect or a request runs unlocked, on the caller's thread, with the
// connection owned by the caller's Lease. Called from any thread.
#include "rowsocket/pool.h"

#include <algorithm>
#include <mutex>
#include <optional>

namespace rowsocket {
namespace client {

namespace {

using Clock = std::chrono::steady_clock;

struct EndpointState {
  Endpoint endpoint;
  std::vector<std::unique_ptr<Connection>> idle;
  int failures = 0;             // connects failed in a row
  Clock::time_point retry_at;   // no connect attempt before this
};

std::string Where(const Endpoint& e) { return e.host + ":" + std::to_string(e.port); }

}  // namespace

struct Pool::State {
  PoolOptions options;
  mutable std::mutex mu;
  std::vector<EndpointState> endpoints;  // readers first, then writers
  std::vector<size_t> readers, writers;  // positions in endpoints
  size_t next_read = 0, next_write = 0;  // round-robin cursors
};

Pool::Pool(PoolOptions options) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.options = std::move(options);
  for (const Endpoint& e : s.options.readers) {
    s.readers.push_back(s.endpoints.size());
    s.endpoints.push_back(EndpointState{e, {}, 0, {}});
  }
  for (const Endpoint& e : s.options.writers) {
    s.writers.push_back(s.endpoints.size());
    s.endpoints.push_back(EndpointState{e, {}, 0, {}});
  }
}

Pool::~Pool() = default;

// -- Lease ---------------------------------------------------------------------

Pool::Lease::Lease(Pool* pool, size_t endpoint, std::unique_ptr<Connection> conn)
    : pool_(pool), endpoint_(endpoint), conn_(std::move(conn)) {}

Pool::Lease::Lease(Lease&& o) noexcept
    : pool_(o.pool_), endpoint_(o.endpoint_), conn_(std::move(o.conn_)) {}

Pool::Lease& Pool::Lease::operator=(Lease&& o) noexcept {
  if (this != &o) {
    Release();
    pool_ = o.pool_;
    endpoint_ = o.endpoint_;
    conn_ = std::move(o.conn_);
  }
  return *this;
}

Pool::Lease::~Lease() { Release(); }

void Pool::Lease::Release() {
  if (conn_ && conn_->connected()) pool_->GiveBack(endpoint_, std::move(conn_));
  conn_.reset();
}

void Pool::GiveBack(size_t endpoint, std::unique_ptr<Connection> conn) {
  std::lock_guard<std::mutex> lock(state_->mu);
  auto& idle = state_->endpoints[endpoint].idle;
  if (idle.size() < state_->options.max_idle_per_endpoint) idle.push_back(std::move(conn));
}

size_t Pool::idle_connections() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  size_t n = 0;
  for (const EndpointState& e : state_->endpoints) n += e.idle.size();
  return n;
}

// -- choosing and connecting ---------------------------------------------------

Result<Pool::Lease> Pool::Acquire(Role role) { return AcquireFrom(role, false); }

Result<Pool::Lease> Pool::AcquireFrom(Role role, bool fresh) {
  State& s = *state_;
  std::unique_lock<std::mutex> lock(s.mu);
  const bool use_readers = role == Role::kRead && !s.readers.empty();
  const std::vector<size_t>& candidates = use_readers ? s.readers : s.writers;
  if (candidates.empty()) {
    return Error::Usage(role == Role::kRead ? "the pool has no endpoint" : "the pool has no write endpoint");
  }
  size_t& cursor = use_readers ? s.next_read : s.next_write;
  const size_t first = cursor++ % candidates.size();
  std::optional<Error> last_error;

  for (size_t n = 0; n < candidates.size(); ++n) {
    const size_t at = candidates[(first + n) % candidates.size()];
    EndpointState& e = s.endpoints[at];
    // Guide: an idle connection that still looks alive.
    while (!fresh && !e.idle.empty()) {
      std::unique_ptr<Connection> conn = std::move(e.idle.back());
      e.idle.pop_back();
      if (conn->LooksAlive()) return Lease(this, at, std::move(conn));
    }
    // Guide: a new connection, unless the endpoint is backing off.
    const Clock::time_point now = Clock::now();
    if (now < e.retry_at) {
      const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(e.retry_at - now);
      last_error = Error::Io(Where(e.endpoint) + " is down (" + std::to_string(e.failures) +
                             " failed connects); next attempt in " +
                             std::to_string(wait.count()) + " ms");
      continue;
    }
    const Endpoint endpoint = e.endpoint;
    ConnectOptions options = s.options.connect;
    options.secret = endpoint.secret;
    lock.unlock();
    Result<Connection> conn = Connection::Connect(endpoint.host, endpoint.port, options);
    lock.lock();
    EndpointState& after = s.endpoints[at];
    if (conn.ok()) {
      after.failures = 0;
      after.retry_at = {};
      return Lease(this, at, std::make_unique<Connection>(std::move(conn.value())));
    }
    if (conn.error().is_io()) {
      ++after.failures;
      auto backoff = s.options.min_backoff * (1LL << std::min(after.failures - 1, 20));
      after.retry_at = Clock::now() + std::min<std::chrono::milliseconds>(
                                          backoff, s.options.max_backoff);
    }
    last_error = conn.error();
  }
  return *last_error;
}

// -- requests ------------------------------------------------------------------

BatchResult Pool::Run(const Batch& batch, bool write) {
  const Role role = write ? Role::kWrite : Role::kRead;
  for (int attempt = 0;; ++attempt) {
    Result<Lease> lease = AcquireFrom(role, attempt > 0);
    if (!lease.ok()) {
      BatchResult failed;
      failed.answered = 0;
      for (size_t i = 0; i < batch.size(); ++i) failed.replies.push_back(lease.error());
      return failed;
    }
    BatchResult r = (*lease)->Execute(batch);
    // A read that met a broken connection runs again, once, on a fresh one.
    if (write || attempt > 0 || r.answered == r.replies.size()) return r;
  }
}

BatchResult Pool::Execute(const Batch& batch) { return Run(batch, batch.has_writes()); }

namespace {

Result<Reply> First(BatchResult&& r) { return std::move(r.replies[0]); }

Result<Rows> TakeRows(Result<Reply>&& r) {
  if (!r.ok()) return r.error();
  return std::move(r.value().rows());
}

Result<uint64_t> TakeCount(Result<Reply>&& r) {
  if (!r.ok()) return r.error();
  return r.value().count();
}

}  // namespace

Result<Rows> Pool::Find(const Index& index, const Query& query) {
  Batch b;
  b.Find(index, query);
  return TakeRows(First(Run(b, false)));
}

Result<uint64_t> Pool::Update(const Index& index, const Query& query, Row values) {
  Batch b;
  b.Update(index, query, std::move(values));
  return TakeCount(First(Run(b, true)));
}

Result<uint64_t> Pool::Increment(const Index& index, const Query& query, Row deltas) {
  Batch b;
  b.Increment(index, query, std::move(deltas));
  return TakeCount(First(Run(b, true)));
}

Result<uint64_t> Pool::Decrement(const Index& index, const Query& query, Row deltas) {
  Batch b;
  b.Decrement(index, query, std::move(deltas));
  return TakeCount(First(Run(b, true)));
}

Result<uint64_t> Pool::Remove(const Index& index, const Query& query) {
  Batch b;
  b.Remove(index, query);
  return TakeCount(First(Run(b, true)));
}

Result<Rows> Pool::FindAndModify(const Index& index, const Query& query, const Modify& modify) {
  Batch b;
  b.FindAndModify(index, query, modify);
  return TakeRows(First(Run(b, true)));
}

Result<uint64_t> Pool::Insert(const Index& index, Row values) {
  Batch b;
  b.Insert(index, std::move(values));
  return TakeCount(First(Run(b, true)));  // count() and insert_id() are the same number
}

}  // namespace client
}  // namespace rowsocket
