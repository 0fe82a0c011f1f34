// Counters a worker keeps about its own work, summed across workers for
// SHOW GLOBAL STATUS LIKE 'rowsocket%'.
//
// Each WorkerStats is written only by its worker's thread (a relaxed load and
// store, no read-modify-write bus lock on the hot path) and read by any thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "protocol/parsed_request.h"
#include "seam/memcached_counters.h"
#include "util/counter.h"

namespace rowsocket {

// The counters, in the order they are reported. Names are the status variable
// names without the `Rowsocket_` prefix.
#define ROWSOCKET_STATS(X)                                                          \
  X(connections_total, "connections accepted since start")                          \
  X(connections_refused, "connections closed at once: rowsocket_max_connections")   \
  X(connections_timed_out, "connections closed after rowsocket_timeout idle")      \
  X(connections_connect_timed_out,                                                 \
    "connections closed after rowsocket_connect_timeout without a finished TLS "    \
    "handshake or login")                                                           \
  X(logins_delayed, "refused logins whose answer was held back (a delay doubling each time)") \
  X(connections_login_closed, "connections closed after 3 refused logins")         \
  X(connections_input_limited,                                                     \
    "connections answered linelen and closed: an unfinished line while their "      \
    "listener's input was over rowsocket_max_input_memory")                         \
  X(accept_pauses, "times a listener stopped accepting for a while: no descriptor left") \
  X(requests_deferred,                                                             \
    "requests that waited for their client to read its answers (rowsocket_max_output_buffer)") \
  X(bytes_received, "bytes read from clients")                                     \
  X(bytes_sent, "bytes written to clients")                                        \
  X(requests_open, "P requests")                                                   \
  X(requests_find, "find requests without a modify part")                          \
  X(requests_insert, "insert requests")                                            \
  X(requests_update, "find-and-modify requests with U, + or -")                     \
  X(requests_delete, "find-and-modify requests with D")                            \
  X(requests_auth, "A requests")                                                   \
  X(errors_storage, "answers with error code 1 (table or storage engine)")         \
  X(errors_request, "answers with error code 2 (bad request)")                     \
  X(errors_auth, "answers with error code 3 (authentication)")                     \
  X(rows_read, "rows returned or matched by finds")                                \
  X(rows_inserted, "rows inserted")                                                \
  X(rows_updated, "rows updated")                                                  \
  X(rows_deleted, "rows deleted")                                                  \
  X(batches, "batches executed (one statement or transaction each)")               \
  X(batch_requests, "requests executed in batches (batch_requests / batches = mean size)") \
  X(commits, "write transactions committed")                                       \
  X(rollbacks, "write batches rolled back (a deadlock, or a Galera conflict) and retried") \
  X(lock_wait_timeouts, "requests answered with a lock wait timeout")              \
  X(lock_waits, "requests that met a lock and waited apart (each wait counted once)") \
  X(deadlocks, "requests answered with a deadlock error")                          \
  X(worker_waits,                                                                  \
    "times a worker waited inside a batch (a page read from disk, a log write): "   \
    "each lets a spare worker serve meanwhile (rowsocket_spare_threads)")           \
  X(spare_turns, "loop turns with requests that spare workers served")             \
  X(galera_writes_refused,                                                         \
    "writes answered `1 1 1047`: the Galera node is not ready for clients (or "     \
    "`1 1 1213`: a table without a primary key while wsrep_certify_nonPK is OFF)")  \
  X(galera_reads_refused,                                                          \
    "finds answered `1 1 1047`: the Galera node is not ready for clients")          \
  X(galera_conflicts,                                                              \
    "write batches a Galera cluster aborted (certification failure or brute-force " \
    "abort): rolled back, run again or answered `1 1 149`")                         \
  X(galera_causal_waits,                                                           \
    "batches that first waited until the Galera node had applied what the cluster " \
    "had committed (wsrep_sync_wait)")                                              \
  X(logins, "account logins that succeeded (rowsocket_auth=account)")              \
  X(logins_failed, "account logins refused: unknown account, wrong password, locked, ...") \
  X(requests_denied, "requests answered `3 1 denied`: the account lacks a privilege") \
  X(tls_handshakes_failed,                                                         \
    "connections that began a TLS handshake and were closed before it completed, "   \
    "TLS being off included")                                                       \
  X(memcached_items_expired,                                                       \
    "expired memcached items the sweep deleted (rowsocket_memcached_sweep_rate)")   \
  X(memcached_containers_cached,                                                   \
    "containers whose mapping the memcached workers keep now, summed over workers " \
    "(one for each container a worker served)")                                     \
  X(memcached_names_cached,                                                        \
    "container names other than the mapping's own that the memcached workers "      \
    "remember now (other spellings, unknown names; at most 256 a worker)")          \
  X(redis_commands_processed,                                                      \
    "commands the Redis listener ran or answered (INFO's total_commands_processed)") \
  X(redis_keyspace_hits, "keys Redis commands found (INFO's keyspace_hits)")        \
  X(redis_keyspace_misses,                                                         \
    "keys Redis commands looked for and did not find (INFO's keyspace_misses)")     \
  X(redis_errors,                                                                  \
    "Redis replies that were errors, protocol errors included (INFO's "             \
    "total_error_replies)")                                                         \
  X(log_flush_wait_microseconds,                                                   \
    "summed over requests: how long answers of committed writes waited for the log flush")

// RequestCategory (parsed_request.h) as ROWSOCKET_LATENCY.KIND names it.
const char* RequestCategoryName(RequestCategory category);

// Upper bounds of the latency buckets in microseconds; the last bucket is unbounded.
constexpr uint64_t kLatencyBoundsUs[] = {10,    20,    50,     100,    200,    500,
                                         1000,  2000,  5000,   10000,  20000,  50000,
                                         100000, 200000, 500000, 1000000};
constexpr size_t kLatencyBuckets = sizeof(kLatencyBoundsUs) / sizeof(kLatencyBoundsUs[0]) + 1;
size_t LatencyBucket(uint64_t micros);

// Request latency, as the server sees it: from the read that brought a request in
// to the write that sent its answer (batching included), per request category.
struct LatencyHistogram {
  Counter buckets[kRequestCategories][kLatencyBuckets];
  void Add(RequestCategory category, uint64_t micros, uint64_t n = 1) {
    buckets[static_cast<size_t>(category)][LatencyBucket(micros)].Add(n);
  }
};

struct WorkerStats {
#define ROWSOCKET_DECLARE_COUNTER(name, doc) Counter name;
  ROWSOCKET_STATS(ROWSOCKET_DECLARE_COUNTER)
#undef ROWSOCKET_DECLARE_COUNTER
  LatencyHistogram latency;
  McCounters memcached;  // memcached's own command counts (its listener's `stats`)
};

// A plain snapshot of summed counters, for reporting.
struct StatsSnapshot {
#define ROWSOCKET_DECLARE_VALUE(name, doc) uint64_t name = 0;
  ROWSOCKET_STATS(ROWSOCKET_DECLARE_VALUE)
#undef ROWSOCKET_DECLARE_VALUE
  uint64_t connections_read = 0;   // open now, read listener
  uint64_t connections_write = 0;  // open now, write listener
  uint64_t connections_memcached = 0;  // open now, memcached listener
  uint64_t connections_redis = 0;      // open now, Redis listener
  // The Redis listener's workers' connections_total, connections_refused,
  // bytes_received and bytes_sent (INFO's total_connections_received, ...).
  uint64_t redis_connections_received = 0;
  uint64_t redis_connections_rejected = 0;
  uint64_t redis_bytes_received = 0;
  uint64_t redis_bytes_sent = 0;
  uint64_t tls_connections = 0;    // open now over TLS, both listeners
  uint64_t latency[kRequestCategories][kLatencyBuckets] = {};

  void AddFrom(const WorkerStats& s) {
#define ROWSOCKET_ADD_VALUE(name, doc) name += s.name.Get();
    ROWSOCKET_STATS(ROWSOCKET_ADD_VALUE)
#undef ROWSOCKET_ADD_VALUE
    for (size_t k = 0; k < kRequestCategories; ++k)
      for (size_t b = 0; b < kLatencyBuckets; ++b) latency[k][b] += s.latency.buckets[k][b].Get();
  }
};

}  // namespace rowsocket
