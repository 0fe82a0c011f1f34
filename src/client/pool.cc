// Pool: idle connections per endpoint, the choice of endpoint for each call (balance,
// health, read-your-writes), backoff, and the read retry.
//
// One mutex guards everything shared: the endpoints' idle lists and health (out or
// in, failures, next attempt), and the round-robin cursors. It is never held across
// network I/O: a connect or a request runs unlocked, on the caller's thread, with
// the connection owned by the caller's Lease. The health check is lazy: an endpoint
// that is out is tried again by the first call after its backoff (one call at a
// time: `probing`), so there is no thread to stop. Called from any thread.
#include "rowsocket/pool.h"

#include <algorithm>
#include <mutex>
#include <optional>

namespace rowsocket {
namespace client {

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kNone = static_cast<size_t>(-1);

struct EndpointState {
  Endpoint endpoint;
  Role role;
  std::vector<std::unique_ptr<Connection>> idle;
  int failures = 0;            // connects failed in a row
  bool out = false;            // skipped by calls until retry_at
  bool probing = false;        // a call is trying it again (others still skip it)
  Clock::time_point retry_at;  // no connect attempt before this while out
};

std::string Where(const Endpoint& e) { return e.host + ":" + std::to_string(e.port); }

}  // namespace

struct Pool::State {
  PoolOptions options;
  mutable std::mutex mu;
  std::vector<EndpointState> endpoints;  // readers first, then writers
  std::vector<size_t> readers, writers;  // positions in endpoints
  size_t next_read = 0, next_write = 0;  // round-robin cursors

  Clock::time_point Now() const { return options.clock ? options.clock() : Clock::now(); }

  // Takes `e` out of use until its backoff (longer after each failure in a row) has
  // passed; its idle connections are dropped.
  void TakeOut(EndpointState& e) {
    ++e.failures;
    e.out = true;
    const auto backoff = options.min_backoff * (1LL << std::min(e.failures - 1, 20));
    e.retry_at = Now() + std::min<std::chrono::milliseconds>(backoff, options.max_backoff);
    e.idle.clear();
  }

  // Appends the endpoints of `list` to `order` in the order `balance` tries them.
  void AddInOrder(const std::vector<size_t>& list, Balance balance, size_t* cursor,
                  std::vector<size_t>* order) const {
    if (list.empty()) return;
    const size_t first = balance == Balance::kInTurn ? (*cursor)++ % list.size() : 0;
    for (size_t n = 0; n < list.size(); ++n) {
      const size_t at = list[(first + n) % list.size()];
      if (std::find(order->begin(), order->end(), at) == order->end()) order->push_back(at);
    }
  }
};

// What a call may use: a write (or a Session's read of its own writes) takes write
// endpoints only, `prefer` first when set; a read takes readers, then writers
// (unless options.reads_fall_back_to_writers is off and there are readers).
struct Pool::Route {
  bool write = false;
  bool fresh = false;     // no idle connection (the retry of a read)
  size_t prefer = kNone;  // the write endpoint of a Session's last write
};

Pool::Pool(PoolOptions options) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.options = std::move(options);
  for (const Endpoint& e : s.options.readers) {
    s.readers.push_back(s.endpoints.size());
    s.endpoints.push_back(EndpointState{e, Role::kRead, {}, 0, false, false, {}});
  }
  for (const Endpoint& e : s.options.writers) {
    s.writers.push_back(s.endpoints.size());
    s.endpoints.push_back(EndpointState{e, Role::kWrite, {}, 0, false, false, {}});
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
  if (!conn_) return;
  // A connection broken by an I/O error says its endpoint's idle ones may be too.
  if (conn_->connected()) {
    pool_->GiveBack(endpoint_, std::move(conn_));
  } else {
    pool_->DropIdle(endpoint_);
  }
  conn_.reset();
}

void Pool::GiveBack(size_t endpoint, std::unique_ptr<Connection> conn) {
  std::lock_guard<std::mutex> lock(state_->mu);
  EndpointState& e = state_->endpoints[endpoint];
  if (!e.out && e.idle.size() < state_->options.max_idle_per_endpoint) {
    e.idle.push_back(std::move(conn));
  }
}

void Pool::DropIdle(size_t endpoint) {
  std::vector<std::unique_ptr<Connection>> dropped;  // closed after the lock is let go
  std::lock_guard<std::mutex> lock(state_->mu);
  dropped.swap(state_->endpoints[endpoint].idle);
}

size_t Pool::idle_connections() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  size_t n = 0;
  for (const EndpointState& e : state_->endpoints) n += e.idle.size();
  return n;
}

std::vector<EndpointStatus> Pool::endpoints() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  std::vector<EndpointStatus> all;
  for (const EndpointState& e : state_->endpoints) {
    all.push_back(EndpointStatus{e.endpoint, e.role, !e.out, e.failures});
  }
  return all;
}

// -- choosing and connecting ---------------------------------------------------

Result<Pool::Lease> Pool::Acquire(Role role) {
  Route route;
  route.write = role == Role::kWrite;
  return AcquireFrom(route);
}

Result<Pool::Lease> Pool::AcquireFrom(const Route& route) {
  State& s = *state_;
  std::unique_lock<std::mutex> lock(s.mu);
  std::vector<size_t> order;
  if (route.prefer != kNone) order.push_back(route.prefer);
  if (!route.write) s.AddInOrder(s.readers, s.options.read_balance, &s.next_read, &order);
  if (route.write || s.readers.empty() || s.options.reads_fall_back_to_writers) {
    s.AddInOrder(s.writers, s.options.write_balance, &s.next_write, &order);
  }
  if (order.empty()) {
    return Error::Usage(route.write ? "the pool has no write endpoint"
                                    : "the pool has no endpoint");
  }
  std::optional<Error> last_error;

  for (const size_t at : order) {
    EndpointState& e = s.endpoints[at];
    // Guide: an idle connection that still looks alive.
    while (!route.fresh && !e.idle.empty()) {
      std::unique_ptr<Connection> conn = std::move(e.idle.back());
      e.idle.pop_back();
      if (conn->LooksAlive()) return Lease(this, at, std::move(conn));
    }
    // Guide: an endpoint that is out is skipped until its backoff has passed; then
    // this call tries it again, and calls meanwhile still skip it.
    const Clock::time_point now = s.Now();
    const bool probe = e.out;
    if (e.out && (now < e.retry_at || e.probing)) {
      const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(
          std::max(e.retry_at - now, Clock::duration::zero()));
      last_error = Error::Io(Where(e.endpoint) + " is down (" + std::to_string(e.failures) +
                             " failed connects); " +
                             (e.probing ? std::string("another call is trying it again")
                                        : "next attempt in " + std::to_string(wait.count()) +
                                              " ms"));
      continue;
    }
    if (probe) e.probing = true;
    // Guide: a new connection, made unlocked. Nothing of the call was sent before
    // it exists, so a failure here lets even a write go on to the next endpoint.
    const Endpoint endpoint = e.endpoint;
    ConnectOptions options = s.options.connect;
    options.secret = endpoint.secret;
    lock.unlock();
    Result<Connection> conn = Connection::Connect(endpoint.host, endpoint.port, options);
    lock.lock();
    EndpointState& after = s.endpoints[at];
    if (probe) after.probing = false;
    if (conn.ok()) {
      after.failures = 0;
      after.out = false;
      return Lease(this, at, std::make_unique<Connection>(std::move(conn.value())));
    }
    if (conn.error().is_io()) s.TakeOut(after);
    last_error = conn.error();
  }
  return *last_error;
}

// -- requests ------------------------------------------------------------------

namespace {

// Every request of the batch was refused by the node's state before it ran: a
// Galera node not ready for clients (`1 1 1047`, as SQL's ER_UNKNOWN_COM_ERROR).
// Nothing of the batch applied there.
bool RefusedByTheNode(const BatchResult& r) {
  if (r.replies.empty() || r.answered != r.replies.size()) return false;
  for (const Result<Reply>& reply : r.replies) {
    if (reply.ok() || !reply.error().is_server() || reply.error().message() != "1047")
      return false;
  }
  return true;
}

}  // namespace

void Pool::TakeOut(size_t endpoint) {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->TakeOut(state_->endpoints[endpoint]);
}

BatchResult Pool::Run(const Batch& batch, Session* session) {
  Route route;
  route.write = batch.has_writes();
  if (!route.write && session != nullptr && session->reads_own_writes()) {
    route.write = true;  // write endpoints only, the session's first
    route.prefer = session->writer_;
  }
  const bool retry_allowed = !batch.has_writes();
  std::optional<BatchResult> refused;  // a node's refusal of it all, while another is tried
  for (int attempt = 0;; ++attempt) {
    route.fresh = attempt > 0;
    Result<Lease> lease = AcquireFrom(route);
    if (!lease.ok()) {
      // No other node took it: the refusal says what happened (nothing applied).
      if (refused) return std::move(*refused);
      BatchResult failed;
      failed.answered = 0;
      for (size_t i = 0; i < batch.size(); ++i) failed.replies.push_back(lease.error());
      return failed;
    }
    BatchResult r = (*lease)->Execute(batch);
    // A node that refused the whole batch is taken out for a while, and the batch,
    // writes included, goes to the next endpoint that can take it.
    if (RefusedByTheNode(r) && attempt + 1 < static_cast<int>(state_->endpoints.size())) {
      TakeOut(lease->endpoint_);
      refused = std::move(r);
      continue;
    }
    if (batch.has_writes() && session != nullptr && !RefusedByTheNode(r)) {
      session->writer_ = lease->endpoint_;
      session->until_ = state_->Now() + state_->options.read_your_writes;
      session->wrote_ = true;
    }
    // A read that met a broken connection runs again, once, on a fresh one.
    if (!retry_allowed || attempt > 0 || r.answered == r.replies.size()) return r;
  }
}

BatchResult Pool::Execute(const Batch& batch) { return Run(batch, nullptr); }

BatchResult Pool::Session::Execute(const Batch& batch) { return pool_->Run(batch, this); }

bool Pool::Session::reads_own_writes() const {
  return wrote_ && pool_->state_->Now() < until_;
}

// -- Requester: one-request batches --------------------------------------------

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

Result<Rows> Requester::Find(const Index& index, const Query& query) {
  Batch b;
  b.Find(index, query);
  return TakeRows(First(Execute(b)));
}

Result<uint64_t> Requester::Update(const Index& index, const Query& query, Row values) {
  Batch b;
  b.Update(index, query, std::move(values));
  return TakeCount(First(Execute(b)));
}

Result<uint64_t> Requester::Increment(const Index& index, const Query& query, Row deltas) {
  Batch b;
  b.Increment(index, query, std::move(deltas));
  return TakeCount(First(Execute(b)));
}

Result<uint64_t> Requester::Decrement(const Index& index, const Query& query, Row deltas) {
  Batch b;
  b.Decrement(index, query, std::move(deltas));
  return TakeCount(First(Execute(b)));
}

Result<uint64_t> Requester::Remove(const Index& index, const Query& query) {
  Batch b;
  b.Remove(index, query);
  return TakeCount(First(Execute(b)));
}

Result<Rows> Requester::FindAndModify(const Index& index, const Query& query,
                                      const Modify& modify) {
  Batch b;
  b.FindAndModify(index, query, modify);
  return TakeRows(First(Execute(b)));
}

Result<uint64_t> Requester::Insert(const Index& index, Row values) {
  Batch b;
  b.Insert(index, std::move(values));
  return TakeCount(First(Execute(b)));  // count() and insert_id() are the same number
}

}  // namespace client
}  // namespace rowsocket
