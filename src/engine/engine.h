// The engine's face towards the plugin layer: no MariaDB headers here, so the
// plugin's wiring code stays free of the server's internals.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "seam/config.h"
#include "seam/executor.h"

namespace rowsocket {

struct EngineOptions {
  ServerTunables* tunables = nullptr;
  // Comma-separated system schemas that open-index requests may name anyway.
  std::string allowed_system_schemas;
  // Tables unused this long are closed, releasing their metadata locks.
  uint64_t idle_table_close_ms = 60 * 1000;
  // SASL PLAIN logins on the memcached listener are taken over plain TCP too
  // (rowsocket_memcached_sasl_over_plain_tcp); otherwise over TLS only.
  bool memcached_sasl_over_plain_tcp = false;
  // The memcached listener runs (rowsocket_memcached_port): its first worker sweeps
  // the containers' expired items; where it does not, the Redis listener's does.
  bool memcached_listener = false;
};

// Makes executors that run batches through the handler API, each on its worker's
// own server thread.
std::unique_ptr<ExecutorFactory> NewEngineExecutorFactory(const EngineOptions& options);

// Log flushes made by rowsocket's log flusher since the plugin was loaded: each
// makes the write commits before it durable together (see log_flusher.h).
uint64_t LogFlushes();
// The time those flushes took, in microseconds.
uint64_t LogFlushMicroseconds();

// What rowsocket serves on this server as a Galera node (see docs/REPLICATION.md):
// "OFF" (not a Galera node), "READY" (a node ready for clients: reads, and writes as
// cluster transactions), "DIRTY_READS" (a node not ready, with wsrep_dirty_reads:
// reads; writes are refused) or "REFUSED" (a node not ready: reads and writes are
// refused). Any thread.
const char* GaleraState();

// The server's own certificate, key and CA files (ssl_cert, ssl_key, ssl_ca; empty
// when not set).
TlsConfig ServerTlsFiles();

// Routes the server layer's log messages to MariaDB's error log.
void LogToServerErrorLog();

// Whether the running server is the MariaDB release the plugin was built for (the
// plugin uses the server's classes directly: another release's layouts differ).
// False, with the reason in *error, when it is not.
bool ServerIsTheBuildTarget(std::string* error);

class ServerView;
// The server whose connections and statistics the information_schema tables show
// (null while none runs). Thread-safe.
void ExposeServer(const ServerView* server);
// Plugin init functions of information_schema.ROWSOCKET_CONNECTIONS and
// information_schema.ROWSOCKET_LATENCY.
// SQL's login of `user` from `host`/`ip` ended with `status` (0, or the error it
// answered): its wrong passwords (ER_ACCESS_DENIED_ERROR) count towards the account's
// max_password_errors here, its success clears the count, and its ER_USER_IS_BLOCKED
// blocks the account here too. Called by the plugin's audit hook on SQL's connection
// threads (any thread).
void NoteSqlLogin(const char* user, const char* host, const char* ip, int status);

int InitConnectionsTable(void* schema_table);
int InitLatencyTable(void* schema_table);

}  // namespace rowsocket
