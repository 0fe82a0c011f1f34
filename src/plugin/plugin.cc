// The rowsocket plugin: its declaration, its system variables, and the wiring
// that starts the server on INSTALL (or server start) and stops it on UNINSTALL
// (or shutdown). Runs on the thread that installs or uninstalls the plugin.
//
// Includes only MariaDB's public plugin API; everything that touches the server's
// internals sits behind engine/engine.h.
#include <mysql/plugin.h>
#include <mysql/plugin_audit.h>
#include <sys/resource.h>

#include <algorithm>
#include <memory>
#include <string>
#include <thread>

#include "engine/engine.h"
#include "server/server.h"
#include "seam/stats.h"
#include "util/log.h"
#include "util/version.h"
#include "protocol/memcached_stats.h"

// What the server reserves descriptors for, from which rowsocket_max_connections'
// default is derived (globals mariadbd exports; read-only here).
extern unsigned long open_files_limit;
extern unsigned long max_connections;        // SQL's
extern unsigned long extra_max_connections;
extern unsigned long tc_size;                // table_open_cache

namespace rowsocket {
namespace {

// --- System variables (read-only unless they have an update function) -------

char* opt_address = nullptr;
char* opt_port = nullptr;
char* opt_port_wr = nullptr;
char* opt_plain_secret = nullptr;
char* opt_plain_secret_wr = nullptr;
char* opt_memcached_port = nullptr;
uint opt_memcached_threads = 0;
my_bool opt_memcached_flush = 0;
my_bool opt_memcached_sasl_over_plain_tcp = 0;
uint opt_memcached_sweep_rate = 10000;
ulong opt_auth = 0;
ulong opt_memcached_auth = 0;
char* opt_redis_port = nullptr;
uint opt_redis_threads = 0;
ulong opt_redis_auth = 0;
ulong opt_auth_wr = 0;
char* opt_allowed_system_schemas = nullptr;
char* opt_ssl_cert = nullptr;
char* opt_ssl_key = nullptr;
char* opt_ssl_ca = nullptr;
my_bool opt_require_secure_transport = false;
uint opt_threads = 0;
uint opt_spare_threads = 30;
uint opt_threads_wr = 0;
uint opt_timeout = 300;
uint opt_connect_timeout = 10;
uint opt_backlog = 1024;
uint opt_sndbuf = 0;
uint opt_rcvbuf = 0;
uint opt_readsize = 65536;
ulong opt_io = 0;  // rowsocket_io: io_names
uint opt_accept_balance = 0;
uint opt_verbose = 1;
uint opt_max_line_length = 1 << 20;
uint opt_max_open_indexes = 1024;
uint opt_max_connections = 0;
uint opt_idle_table_close = 60;
uint opt_lock_wait_timeout = 5;
uint opt_max_answer_size = 16 << 20;
uint opt_max_rows_examined = 1000000;
uint opt_max_output_buffer = 1 << 20;
uint opt_max_input_memory = 64 << 20;

ServerTunables g_tunables;
std::unique_ptr<ExecutorFactory> g_factory;
std::unique_ptr<Server> g_server;

// Update functions for the variables SET GLOBAL may change while serving.
template <uint* Var, std::atomic<uint32_t> ServerTunables::*Field>
void UpdateTunable(MYSQL_THD, struct st_mysql_sys_var*, void*, const void* save) {
  *Var = *static_cast<const uint*>(save);
  (g_tunables.*Field).store(*Var);
}

// The descriptors the process may have: the limit open_files_limit asked for at
// start, or the higher one mariadbd inherited (it never lowers it).
unsigned long DescriptorLimit() {
  rlimit nofile{};
  if (getrlimit(RLIMIT_NOFILE, &nofile) != 0 || nofile.rlim_cur == RLIM_INFINITY)
    return open_files_limit;
  return std::max(open_files_limit, static_cast<unsigned long>(nofile.rlim_cur));
}

// rowsocket_max_connections = 0: each enabled listener gets an equal share of the
// descriptors the server leaves. The server keeps half of them, or more if its SQL
// connections and table cache need more (what it reserves for them at start: 30 +
// max_connections + extra_max_connections + table_open_cache); each listener gets
// at least 10.
uint32_t ConnectionLimit() {
  if (opt_max_connections != 0) return opt_max_connections;
  const unsigned long limit = DescriptorLimit();
  const unsigned long server =
      std::max(limit / 2, 30 + max_connections + extra_max_connections + tc_size);
  const unsigned long listeners =
      std::max(1, (opt_port != nullptr && *opt_port) + (opt_port_wr != nullptr && *opt_port_wr));
  const unsigned long share = limit > server ? (limit - server) / listeners : 0;
  return static_cast<uint32_t>(std::clamp(share, 10ul, 1ul << 24));
}

void UpdateMaxConnections(MYSQL_THD, struct st_mysql_sys_var*, void*, const void* save) {
  opt_max_connections = *static_cast<const uint*>(save);
  g_tunables.max_connections.store(ConnectionLimit());
}

void UpdateRequireSecureTransport(MYSQL_THD, struct st_mysql_sys_var*, void*, const void* save) {
  opt_require_secure_transport = *static_cast<const my_bool*>(save);
  g_tunables.require_secure_transport.store(opt_require_secure_transport);
}

void UpdateVerbose(MYSQL_THD, struct st_mysql_sys_var*, void*, const void* save) {
  opt_verbose = *static_cast<const uint*>(save);
  SetLogVerbosity(static_cast<int>(opt_verbose));
}

MYSQL_SYSVAR_STR(address, opt_address, PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY,
                 "Address both listeners bind to (default 127.0.0.1, like Debian's "
                 "MariaDB binds SQL); 0.0.0.0 or :: for every interface",
                 nullptr, nullptr, "127.0.0.1");
MYSQL_SYSVAR_STR(port, opt_port, PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY,
                 "Port of the read-only listener; empty disables it", nullptr, nullptr, "9998");
MYSQL_SYSVAR_STR(port_wr, opt_port_wr, PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY,
                 "Port of the read-write listener; empty disables it", nullptr, nullptr, "9999");
MYSQL_SYSVAR_STR(memcached_port, opt_memcached_port, PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY,
                 "Port of the memcached listener (memcached's protocol on MariaDB tables); "
                 "empty disables it", nullptr, nullptr, "");
MYSQL_SYSVAR_UINT(memcached_threads, opt_memcached_threads,
                  PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY,
                  "Worker threads of the memcached listener; 0 = half the CPU cores, at least 2",
                  nullptr, nullptr, 0, 0, 256, 0);
MYSQL_SYSVAR_STR(redis_port, opt_redis_port, PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY,
                 "Port of the Redis listener (Redis's protocol on MariaDB tables); empty or "
                 "0 disables it", nullptr, nullptr, "");
MYSQL_SYSVAR_UINT(redis_threads, opt_redis_threads, PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY,
                  "Worker threads of the Redis listener; 0 = half the CPU cores, at least 2",
                  nullptr, nullptr, 0, 0, 256, 0);
void UpdateMemcachedFlush(MYSQL_THD, struct st_mysql_sys_var*, void*, const void* save) {
  opt_memcached_flush = *static_cast<const my_bool*>(save);
  g_tunables.memcached_flush.store(opt_memcached_flush != 0);
}
MYSQL_SYSVAR_BOOL(memcached_flush, opt_memcached_flush, PLUGIN_VAR_RQCMDARG,
                  "Whether memcached's flush_all may empty the default container's table "
                  "(logged); OFF: it answers an error", nullptr, UpdateMemcachedFlush, 0);
MYSQL_SYSVAR_UINT(memcached_sweep_rate, opt_memcached_sweep_rate, PLUGIN_VAR_RQCMDARG,
                  "Rows per second the sweep of expired items (by the memcached listener, or "
                  "where none runs the Redis listener) examines in each container with an "
                  "expiry column (deleting those expired); 0 = no sweep: expired items are "
                  "misses until a write meets them",
                  nullptr, (UpdateTunable<&opt_memcached_sweep_rate, &ServerTunables::memcached_sweep_rate>),
                  10000, 0, 10000000, 0);
MYSQL_SYSVAR_UINT(threads, opt_threads, PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY,
                  "Worker threads of the read listener; 0 = one per CPU core", nullptr, nullptr,
                  0, 0, 256, 0);
MYSQL_SYSVAR_UINT(spare_threads, opt_spare_threads, PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY,
                  "Spare worker threads of each listener, beside rowsocket_threads and the "
                  "like: they serve only while other workers wait inside a batch (for a page "
                  "read from disk), so that on data larger than the buffer pool the reads of "
                  "many connections wait for the disk together; 0 = none. With "
                  "rowsocket_io=epoll only",
                  nullptr, nullptr, 30, 0, 256, 0);
MYSQL_SYSVAR_UINT(threads_wr, opt_threads_wr, PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY,
                  "Worker threads of the write listener; 0 = half the CPU cores, at least 2",
                  nullptr, nullptr, 0, 0, 256, 0);
MYSQL_SYSVAR_UINT(timeout, opt_timeout, PLUGIN_VAR_RQCMDARG,
                  "Seconds a client connection may stay idle before it is closed; 0 = never",
                  nullptr, (UpdateTunable<&opt_timeout, &ServerTunables::timeout_seconds>), 300,
                  0, 86400 * 365, 0);
MYSQL_SYSVAR_UINT(connect_timeout, opt_connect_timeout, PLUGIN_VAR_RQCMDARG,
                  "Seconds a new client connection has to finish its TLS handshake and, where "
                  "its listener asks for logins, its login, before it is closed whatever it "
                  "sends (as SQL's connect_timeout); 0 = no limit",
                  nullptr,
                  (UpdateTunable<&opt_connect_timeout, &ServerTunables::connect_timeout_seconds>),
                  10, 0, 86400 * 365, 0);
MYSQL_SYSVAR_UINT(backlog, opt_backlog, PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY,
                  "Listen backlog of each listener", nullptr, nullptr, 1024, 1, 65535, 0);
MYSQL_SYSVAR_UINT(sndbuf, opt_sndbuf, PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY,
                  "SO_SNDBUF of client sockets in bytes; 0 = the kernel's default", nullptr,
                  nullptr, 0, 0, 1 << 30, 0);
MYSQL_SYSVAR_UINT(rcvbuf, opt_rcvbuf, PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY,
                  "SO_RCVBUF of client sockets in bytes; 0 = the kernel's default", nullptr,
                  nullptr, 0, 0, 1 << 30, 0);
MYSQL_SYSVAR_UINT(readsize, opt_readsize, PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY,
                  "Bytes read from a client socket at a time", nullptr, nullptr, 65536, 4096,
                  1 << 24, 0);
const char* io_names[] = {"epoll", "io_uring", nullptr};
TYPELIB io_typelib = {std::size(io_names) - 1, "", io_names, nullptr};
MYSQL_SYSVAR_ENUM(io, opt_io, PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY,
                  "How workers wait for connections and move bytes: epoll, or io_uring "
                  "(multishot receives into provided buffers, a turn's answers in one "
                  "submission; falls back to epoll where the kernel refuses io_uring)",
                  nullptr, nullptr, 0, &io_typelib);
MYSQL_SYSVAR_UINT(accept_balance, opt_accept_balance, PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY,
                  "Accepted for compatibility with handlersocket_accept_balance; no effect: "
                  "whichever of its listener's workers is free serves a connection (epoll), "
                  "or the one serving the fewest takes it at accept (io_uring)",
                  nullptr, nullptr, 0, 0, 10000, 0);
MYSQL_SYSVAR_STR(plain_secret, opt_plain_secret,
                 PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY | PLUGIN_VAR_NOSYSVAR | PLUGIN_VAR_MEMALLOC,
                 "Shared secret a client of the read listener must send with `A 1 <secret>`; "
                 "empty = no authentication",
                 nullptr, nullptr, "");
MYSQL_SYSVAR_STR(plain_secret_wr, opt_plain_secret_wr,
                 PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY | PLUGIN_VAR_NOSYSVAR | PLUGIN_VAR_MEMALLOC,
                 "Shared secret for the write listener; empty = no authentication", nullptr,
                 nullptr, "");
// rowsocket_auth, rowsocket_auth_wr; `auto` is resolved by ResolveAuth.
const char* auth_names[] = {"auto", "none", "secret", "account", nullptr};
TYPELIB auth_typelib = {std::size(auth_names) - 1, "", auth_names, nullptr};
constexpr ulong kAuthAuto = 0;
MYSQL_SYSVAR_ENUM(auth, opt_auth, PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY,
                  "How clients of the read listener prove who they are: none; secret (A 1 "
                  "<rowsocket_plain_secret>); account (a MariaDB account logs in, its grants "
                  "apply); auto = secret when a secret is set, otherwise none on a loopback "
                  "address and account on any other",
                  nullptr, nullptr, kAuthAuto, &auth_typelib);
MYSQL_SYSVAR_ENUM(auth_wr, opt_auth_wr, PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY,
                  "As rowsocket_auth, for the write listener (its secret: "
                  "rowsocket_plain_secret_wr)",
                  nullptr, nullptr, kAuthAuto, &auth_typelib);
MYSQL_SYSVAR_ENUM(memcached_auth, opt_memcached_auth, PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY,
                  "How clients of the memcached listener prove who they are: none; account "
                  "(SASL PLAIN over TLS as a MariaDB account, its grants apply); auto = none "
                  "on a loopback address, account on any other (secret is not offered)",
                  nullptr, nullptr, kAuthAuto, &auth_typelib);
MYSQL_SYSVAR_ENUM(redis_auth, opt_redis_auth, PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY,
                  "How clients of the Redis listener prove who they are: none; account (AUTH "
                  "<user> <password> over TLS as a MariaDB account, its grants apply); auto = "
                  "none on a loopback address, account on any other (secret is not offered)",
                  nullptr, nullptr, kAuthAuto, &auth_typelib);
MYSQL_SYSVAR_BOOL(memcached_sasl_over_plain_tcp, opt_memcached_sasl_over_plain_tcp,
                  PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY,
                  "Whether memcached clients may log in with SASL PLAIN over plain TCP, "
                  "their passwords in clear (for private networks; logged at start); OFF: "
                  "over TLS only",
                  nullptr, nullptr, 0);
MYSQL_SYSVAR_STR(allowed_system_schemas, opt_allowed_system_schemas,
                 PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY,
                 "Comma-separated system schemas (mysql, information_schema, "
                 "performance_schema, sys) that clients may open anyway; empty = none",
                 nullptr, nullptr, "");
MYSQL_SYSVAR_STR(ssl_cert, opt_ssl_cert, PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY,
                 "Certificate (PEM) of both listeners for TLS clients; empty = the server's "
                 "ssl_cert, ssl_key and ssl_ca; no certificate at all = TLS is off",
                 nullptr, nullptr, "");
MYSQL_SYSVAR_STR(ssl_key, opt_ssl_key, PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY,
                 "Private key (PEM) of rowsocket_ssl_cert; empty = in the certificate's file",
                 nullptr, nullptr, "");
MYSQL_SYSVAR_STR(ssl_ca, opt_ssl_ca, PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY,
                 "CA (PEM) that client certificates, when a client offers one, must be "
                 "signed by; empty = not verified",
                 nullptr, nullptr, "");
MYSQL_SYSVAR_BOOL(require_secure_transport, opt_require_secure_transport, PLUGIN_VAR_OPCMDARG,
                  "Plain-text connections answer their first request `3 1 tlsrequired` and "
                  "are closed; only TLS clients are served",
                  nullptr, UpdateRequireSecureTransport, false);
MYSQL_SYSVAR_UINT(verbose, opt_verbose, PLUGIN_VAR_RQCMDARG,
                  "Error log detail: 0 errors, 1 warnings and start/stop, 2 notable events, "
                  "3 debug",
                  nullptr, UpdateVerbose, 1, 0, 3, 0);
MYSQL_SYSVAR_UINT(max_line_length, opt_max_line_length, PLUGIN_VAR_RQCMDARG,
                  "Longest request line in bytes; a longer one is answered `2 1 linelen` and "
                  "the connection is closed",
                  nullptr, (UpdateTunable<&opt_max_line_length, &ServerTunables::max_line_length>),
                  1 << 20, 64, 1 << 30, 0);
MYSQL_SYSVAR_UINT(max_open_indexes, opt_max_open_indexes, PLUGIN_VAR_RQCMDARG,
                  "Index ids a connection may use (0 .. this-1); larger ids answer `2 1 stmtnum`",
                  nullptr,
                  (UpdateTunable<&opt_max_open_indexes, &ServerTunables::max_open_indexes>), 1024,
                  1, 1 << 20, 0);
MYSQL_SYSVAR_UINT(max_connections, opt_max_connections, PLUGIN_VAR_RQCMDARG,
                  "Client connections per listener; further ones are closed at once. 0 = an "
                  "equal share of the descriptors the server leaves: it keeps half of its "
                  "descriptor limit (open_files_limit), or 30 + max_connections + "
                  "table_open_cache if that is more",
                  nullptr, UpdateMaxConnections, 0, 0, 1 << 24, 0);
MYSQL_SYSVAR_UINT(max_output_buffer, opt_max_output_buffer, PLUGIN_VAR_RQCMDARG,
                  "Bytes of answers a client has not read yet past which its connection's "
                  "further requests wait (are not executed, and nothing more is read from it) "
                  "until it reads; one answer may pass it by rowsocket_max_answer_size at most",
                  nullptr,
                  (UpdateTunable<&opt_max_output_buffer, &ServerTunables::max_output_buffer>),
                  1 << 20, 4096, 1 << 30, 0);
MYSQL_SYSVAR_UINT(max_input_memory, opt_max_input_memory, PLUGIN_VAR_RQCMDARG,
                  "Bytes of received input not yet executed (unfinished lines above all) that "
                  "the connections of one listener may hold together; past it, a connection "
                  "whose unfinished line is longer than one read (rowsocket_readsize) is "
                  "answered `2 1 linelen` and closed",
                  nullptr,
                  (UpdateTunable<&opt_max_input_memory, &ServerTunables::max_input_memory>),
                  64 << 20, 1 << 20, 1u << 31, 0);
MYSQL_SYSVAR_UINT(idle_table_close, opt_idle_table_close, PLUGIN_VAR_RQCMDARG | PLUGIN_VAR_READONLY,
                  "Seconds after which a worker closes a table it has not used, releasing its "
                  "metadata lock", nullptr, nullptr, 60, 1, 86400, 0);

MYSQL_SYSVAR_UINT(lock_wait_timeout, opt_lock_wait_timeout, PLUGIN_VAR_RQCMDARG,
                  "Seconds a rowsocket request waits for a row lock, a table lock or a "
                  "table's metadata lock before it answers an error, counted from when it "
                  "first met the lock; it waits apart, tried again every few milliseconds, "
                  "and no other connection waits with it",
                  nullptr,
                  (UpdateTunable<&opt_lock_wait_timeout, &ServerTunables::lock_wait_timeout>), 5,
                  1, 3600, 0);

MYSQL_SYSVAR_UINT(max_answer_size, opt_max_answer_size, PLUGIN_VAR_RQCMDARG,
                  "Largest answer to one request in bytes; a find whose rows would take more "
                  "answers `2 1 answersize` (and changes nothing); 0 = no limit",
                  nullptr,
                  (UpdateTunable<&opt_max_answer_size, &ServerTunables::max_answer_size>),
                  16 << 20, 0, 1u << 31, 0);
MYSQL_SYSVAR_UINT(max_rows_examined, opt_max_rows_examined, PLUGIN_VAR_RQCMDARG,
                  "Rows one request may read, counting those its filters and offset skip and "
                  "each key it looks up; past it the request answers `2 1 rowsexamined` (and "
                  "changes nothing); 0 = no limit",
                  nullptr,
                  (UpdateTunable<&opt_max_rows_examined, &ServerTunables::max_rows_examined>),
                  1000000, 0, 4294967295u, 0);

struct st_mysql_sys_var* system_variables[] = {
    MYSQL_SYSVAR(address), MYSQL_SYSVAR(port), MYSQL_SYSVAR(port_wr), MYSQL_SYSVAR(threads),
    MYSQL_SYSVAR(spare_threads),
    MYSQL_SYSVAR(threads_wr), MYSQL_SYSVAR(timeout), MYSQL_SYSVAR(connect_timeout), MYSQL_SYSVAR(backlog), MYSQL_SYSVAR(sndbuf),
    MYSQL_SYSVAR(rcvbuf), MYSQL_SYSVAR(readsize), MYSQL_SYSVAR(io), MYSQL_SYSVAR(accept_balance),
    MYSQL_SYSVAR(memcached_port), MYSQL_SYSVAR(memcached_threads), MYSQL_SYSVAR(memcached_flush),
    MYSQL_SYSVAR(memcached_sweep_rate),
    MYSQL_SYSVAR(memcached_auth), MYSQL_SYSVAR(memcached_sasl_over_plain_tcp),
    MYSQL_SYSVAR(redis_port), MYSQL_SYSVAR(redis_threads), MYSQL_SYSVAR(redis_auth),
    MYSQL_SYSVAR(plain_secret), MYSQL_SYSVAR(plain_secret_wr), MYSQL_SYSVAR(auth),
    MYSQL_SYSVAR(auth_wr),
    MYSQL_SYSVAR(allowed_system_schemas), MYSQL_SYSVAR(verbose), MYSQL_SYSVAR(max_line_length),
    MYSQL_SYSVAR(max_open_indexes), MYSQL_SYSVAR(max_connections),
    MYSQL_SYSVAR(idle_table_close), MYSQL_SYSVAR(lock_wait_timeout),
    MYSQL_SYSVAR(max_answer_size), MYSQL_SYSVAR(max_rows_examined),
    MYSQL_SYSVAR(max_output_buffer), MYSQL_SYSVAR(max_input_memory), MYSQL_SYSVAR(ssl_cert),
    MYSQL_SYSVAR(ssl_key), MYSQL_SYSVAR(ssl_ca), MYSQL_SYSVAR(require_secure_transport),
    nullptr};

// --- Status variables: SHOW GLOBAL STATUS LIKE 'rowsocket%' ------------------

// Filled on every read from the workers' counters. SHOW_LONGLONG values are read
// by the server right after ShowStatus returns; concurrent readers may interleave
// their refreshes, which only ever writes newer sums.
enum StatusIndex {
  kConnectionsRead,
  kConnectionsWrite,
  kConnectionsMemcached,
  kConnectionsRedis,
  kRedisConnectionsReceived,
  kRedisConnectionsRejected,
  kRedisBytesReceived,
  kRedisBytesSent,
#define ROWSOCKET_STATUS_INDEX(name, doc) k_##name,
  ROWSOCKET_STATS(ROWSOCKET_STATUS_INDEX)
#undef ROWSOCKET_STATUS_INDEX
  kLogFlushes,
  kLogFlushMicroseconds,
  kTlsConnections,
  kStatusCount
};
long long g_status_values[kStatusCount];

st_mysql_show_var g_status_array[] = {
    {"connections_read", reinterpret_cast<char*>(&g_status_values[kConnectionsRead]), SHOW_LONGLONG},
    {"connections_write", reinterpret_cast<char*>(&g_status_values[kConnectionsWrite]), SHOW_LONGLONG},
    {"connections_memcached", reinterpret_cast<char*>(&g_status_values[kConnectionsMemcached]),
     SHOW_LONGLONG},
    {"connections_redis", reinterpret_cast<char*>(&g_status_values[kConnectionsRedis]),
     SHOW_LONGLONG},
    {"redis_connections_received",
     reinterpret_cast<char*>(&g_status_values[kRedisConnectionsReceived]), SHOW_LONGLONG},
    {"redis_connections_rejected",
     reinterpret_cast<char*>(&g_status_values[kRedisConnectionsRejected]), SHOW_LONGLONG},
    {"redis_bytes_received", reinterpret_cast<char*>(&g_status_values[kRedisBytesReceived]),
     SHOW_LONGLONG},
    {"redis_bytes_sent", reinterpret_cast<char*>(&g_status_values[kRedisBytesSent]),
     SHOW_LONGLONG},
#define ROWSOCKET_STATUS_VAR(name, doc) \
  {#name, reinterpret_cast<char*>(&g_status_values[k_##name]), SHOW_LONGLONG},
    ROWSOCKET_STATS(ROWSOCKET_STATUS_VAR)
#undef ROWSOCKET_STATUS_VAR
    {"log_flushes", reinterpret_cast<char*>(&g_status_values[kLogFlushes]), SHOW_LONGLONG},
    {"log_flush_microseconds", reinterpret_cast<char*>(&g_status_values[kLogFlushMicroseconds]),
     SHOW_LONGLONG},
    {"tls_connections", reinterpret_cast<char*>(&g_status_values[kTlsConnections]), SHOW_LONGLONG},
    {"galera", nullptr, SHOW_CHAR},  // GaleraState(), set on every read
    {nullptr, nullptr, SHOW_UNDEF}};

int ShowStatus(MYSQL_THD, st_mysql_show_var* var, void*, struct system_status_var*, enum enum_var_type) {
  StatsSnapshot s;
  if (g_server) s = g_server->CollectStats();
  g_status_values[kConnectionsRead] = static_cast<long long>(s.connections_read);
  g_status_values[kConnectionsWrite] = static_cast<long long>(s.connections_write);
  g_status_values[kConnectionsMemcached] = static_cast<long long>(s.connections_memcached);
  g_status_values[kConnectionsRedis] = static_cast<long long>(s.connections_redis);
  g_status_values[kRedisConnectionsReceived] = static_cast<long long>(s.redis_connections_received);
  g_status_values[kRedisConnectionsRejected] = static_cast<long long>(s.redis_connections_rejected);
  g_status_values[kRedisBytesReceived] = static_cast<long long>(s.redis_bytes_received);
  g_status_values[kRedisBytesSent] = static_cast<long long>(s.redis_bytes_sent);
#define ROWSOCKET_STATUS_FILL(name, doc) g_status_values[k_##name] = static_cast<long long>(s.name);
  ROWSOCKET_STATS(ROWSOCKET_STATUS_FILL)
#undef ROWSOCKET_STATUS_FILL
  g_status_values[kLogFlushes] = static_cast<long long>(LogFlushes());
  g_status_values[kLogFlushMicroseconds] = static_cast<long long>(LogFlushMicroseconds());
  g_status_values[kTlsConnections] = static_cast<long long>(s.tls_connections);
  g_status_array[kStatusCount].value = const_cast<char*>(GaleraState());
  var->type = SHOW_ARRAY;
  var->value = reinterpret_cast<char*>(g_status_array);
  return 0;
}

st_mysql_show_var status_variables[] = {
    {"rowsocket", reinterpret_cast<char*>(&ShowStatus), SHOW_FUNC},
    {nullptr, nullptr, SHOW_UNDEF}};

std::string Str(const char* s) { return s ? s : ""; }

bool IsLoopbackAddress(const std::string& address) {
  return address == "localhost" || address == "::1" || address.compare(0, 4, "127.") == 0;
}

// A listener's AuthMode from rowsocket_auth(_wr) and its secret; false (with the
// reason in *error) when they contradict each other.
bool ResolveAuth(ulong option, const std::string& secret, const std::string& address,
                 const char* listener, AuthMode* mode, std::string* error) {
  switch (option) {
    case 1: *mode = AuthMode::kNone; break;
    case 2: *mode = AuthMode::kSecret; break;
    case 3: *mode = AuthMode::kAccount; break;
    default:
      *mode = !secret.empty()               ? AuthMode::kSecret
              : IsLoopbackAddress(address) ? AuthMode::kNone
                                           : AuthMode::kAccount;
  }
  if (*mode == AuthMode::kSecret && secret.empty()) {
    *error = std::string("the ") + listener + " listener's authentication is `secret` but no " +
             "secret is set";
    return false;
  }
  return true;
}

ServerConfig ConfigFromVariables() {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  ServerConfig c;
  c.address = Str(opt_address);
  c.read = {Str(opt_port), opt_threads ? static_cast<int>(opt_threads) : cores, true,
            AuthMode::kNone, Str(opt_plain_secret)};
  c.write = {Str(opt_port_wr),
             opt_threads_wr ? static_cast<int>(opt_threads_wr) : std::max(2, cores / 2), false,
             AuthMode::kNone, Str(opt_plain_secret_wr)};
  c.memcached = {Str(opt_memcached_port),
                 opt_memcached_threads ? static_cast<int>(opt_memcached_threads)
                                       : std::max(2, cores / 2),
                 false, AuthMode::kNone, "", WireProtocol::kMemcached};
  const std::string redis_port = Str(opt_redis_port);
  c.redis = {redis_port == "0" ? std::string() : redis_port,
             opt_redis_threads ? static_cast<int>(opt_redis_threads) : std::max(2, cores / 2),
             false, AuthMode::kNone, "", WireProtocol::kRedis};
  c.backlog = static_cast<int>(opt_backlog);
  c.sndbuf = static_cast<int>(opt_sndbuf);
  c.rcvbuf = static_cast<int>(opt_rcvbuf);
  c.readsize = opt_readsize;
  c.io = opt_io == 1 ? IoLoop::kIoUring : IoLoop::kEpoll;
  c.spare_threads = static_cast<int>(opt_spare_threads);
  // rowsocket's own files, or else all three of the server's (never a mix).
  if (opt_ssl_cert != nullptr && *opt_ssl_cert) {
    c.tls = {Str(opt_ssl_cert), Str(opt_ssl_key), Str(opt_ssl_ca)};
  } else {
    c.tls = ServerTlsFiles();
  }
  return c;
}

int PluginInit(void*) {
  LogToServerErrorLog();
  std::string wrong_server;
  if (!ServerIsTheBuildTarget(&wrong_server)) {
    Log(LogLevel::kError, "%s", wrong_server.c_str());
    return 1;
  }
  SetLogVerbosity(static_cast<int>(opt_verbose));
  Log(LogLevel::kInfo, "rowsocket " ROWSOCKET_VERSION " starting (its memcached listener "
                       "answers as memcached %.*s)",
      static_cast<int>(kMcCompatibleVersion.size()), kMcCompatibleVersion.data());
  g_tunables.timeout_seconds.store(opt_timeout);
  g_tunables.connect_timeout_seconds.store(opt_connect_timeout);
  g_tunables.max_line_length.store(opt_max_line_length);
  g_tunables.max_open_indexes.store(opt_max_open_indexes);
  g_tunables.max_connections.store(ConnectionLimit());
  g_tunables.lock_wait_timeout.store(opt_lock_wait_timeout);
  g_tunables.max_answer_size.store(opt_max_answer_size);
  g_tunables.max_rows_examined.store(opt_max_rows_examined);
  g_tunables.max_output_buffer.store(opt_max_output_buffer);
  g_tunables.max_input_memory.store(opt_max_input_memory);
  g_tunables.memcached_flush.store(opt_memcached_flush != 0);
  g_tunables.memcached_sweep_rate.store(opt_memcached_sweep_rate);
  g_tunables.require_secure_transport.store(opt_require_secure_transport);

  EngineOptions engine;
  engine.tunables = &g_tunables;
  engine.allowed_system_schemas = Str(opt_allowed_system_schemas);
  engine.idle_table_close_ms = uint64_t{opt_idle_table_close} * 1000;
  engine.memcached_sasl_over_plain_tcp = opt_memcached_sasl_over_plain_tcp != 0;
  ServerConfig config = ConfigFromVariables();
  engine.memcached_listener = !config.memcached.port.empty();
  g_factory = NewEngineExecutorFactory(engine);
  std::string error;
  if (!ResolveAuth(opt_auth, config.read.secret, config.address, "read", &config.read.auth,
                   &error) ||
      !ResolveAuth(opt_auth_wr, config.write.secret, config.address, "write",
                   &config.write.auth, &error)) {
    Log(LogLevel::kError, "cannot start: %s", error.c_str());
    g_factory.reset();
    return 1;
  }
  for (ListenerConfig* lc : {&config.read, &config.write})
    if (lc->auth != AuthMode::kSecret) lc->secret.clear();
  if (!ResolveAuth(opt_memcached_auth, "", config.address, "memcached", &config.memcached.auth,
                   &error)) {
    Log(LogLevel::kError, "cannot start: %s (memcached clients have no shared secret)",
        error.c_str());
    g_factory.reset();
    return 1;
  }
  if (!ResolveAuth(opt_redis_auth, "", config.address, "redis", &config.redis.auth, &error)) {
    Log(LogLevel::kError, "cannot start: %s (Redis clients have no shared secret)",
        error.c_str());
    g_factory.reset();
    return 1;
  }
  if (engine.memcached_sasl_over_plain_tcp && !config.memcached.port.empty() &&
      config.memcached.auth == AuthMode::kAccount)
    Log(LogLevel::kWarning,
        "rowsocket_memcached_sasl_over_plain_tcp=ON: memcached clients' SASL PLAIN "
        "passwords travel in clear over plain TCP connections");
  g_server = std::make_unique<Server>(config, &g_tunables, g_factory.get());
  if (!g_server->Start(&error)) {
    Log(LogLevel::kError, "cannot start: %s", error.c_str());
    g_server.reset();
    g_factory.reset();
    return 1;
  }
  ExposeServer(g_server.get());
  return 0;
}

int PluginDeinit(void*) {
  ExposeServer(nullptr);
  if (g_server) g_server->Stop();
  g_server.reset();
  g_factory.reset();
  Log(LogLevel::kInfo, "stopped");
  return 0;
}

struct st_mysql_daemon daemon_descriptor = {MYSQL_DAEMON_INTERFACE_VERSION};
struct st_mysql_information_schema info_schema_descriptor = {
    MYSQL_INFORMATION_SCHEMA_INTERFACE_VERSION};

// SQL's logins, seen for the account policy (max_password_errors counts them with
// rowsocket's own; engine.h, NoteSqlLogin). Connection events only: nothing per
// statement.
void NoteConnection(MYSQL_THD, unsigned int event_class, const void* event) {
  if (event_class != MYSQL_AUDIT_CONNECTION_CLASS) return;
  const auto* e = static_cast<const mysql_event_connection*>(event);
  if (e->event_subclass != MYSQL_AUDIT_CONNECTION_CONNECT) return;
  NoteSqlLogin(e->user, e->host, e->ip, e->status);
}

struct st_mysql_audit audit_descriptor = {
    MYSQL_AUDIT_INTERFACE_VERSION, nullptr, NoteConnection, {MYSQL_AUDIT_CONNECTION_CLASSMASK}};

}  // namespace
}  // namespace rowsocket

maria_declare_plugin(rowsocket){
    MYSQL_DAEMON_PLUGIN,
    &rowsocket::daemon_descriptor,
    "rowsocket",
    "rowsocket authors",
    "HandlerSocket-protocol NoSQL access to tables, straight through the handler API",
    PLUGIN_LICENSE_GPL,
    rowsocket::PluginInit,
    rowsocket::PluginDeinit,
    0x0001,
    rowsocket::status_variables,
    rowsocket::system_variables,
    ROWSOCKET_VERSION,
    MariaDB_PLUGIN_MATURITY_GAMMA},
{
    MYSQL_INFORMATION_SCHEMA_PLUGIN,
    &rowsocket::info_schema_descriptor,
    "ROWSOCKET_CONNECTIONS",
    "rowsocket authors",
    "rowsocket's client connections: listener, peer, worker, open indexes, traffic, idle time",
    PLUGIN_LICENSE_GPL,
    rowsocket::InitConnectionsTable,
    nullptr,
    0x0001,
    nullptr,
    nullptr,
    ROWSOCKET_VERSION,
    MariaDB_PLUGIN_MATURITY_GAMMA},
{
    MYSQL_INFORMATION_SCHEMA_PLUGIN,
    &rowsocket::info_schema_descriptor,
    "ROWSOCKET_LATENCY",
    "rowsocket authors",
    "rowsocket's request latency histogram, per request kind (microseconds, from read to answer)",
    PLUGIN_LICENSE_GPL,
    rowsocket::InitLatencyTable,
    nullptr,
    0x0001,
    nullptr,
    nullptr,
    ROWSOCKET_VERSION,
    MariaDB_PLUGIN_MATURITY_GAMMA},
{
    MYSQL_AUDIT_PLUGIN,
    &rowsocket::audit_descriptor,
    "rowsocket_logins",
    "rowsocket authors",
    "Counts SQL's failed logins with rowsocket's towards max_password_errors (connection "
    "events only)",
    PLUGIN_LICENSE_GPL,
    nullptr,
    nullptr,
    0x0001,
    nullptr,
    nullptr,
    ROWSOCKET_VERSION,
    MariaDB_PLUGIN_MATURITY_GAMMA} maria_declare_plugin_end;
