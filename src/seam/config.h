// ServerConfig: everything the server layer needs to know, as plain values.
// Filled by the plugin layer from system variables; copied into the Server at
// start. Fields that may change at run time are read through ServerTunables.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace rowsocket {

// Values an administrator may change with SET GLOBAL while the server runs.
// Workers read them with relaxed loads on every use.
struct ServerTunables {
  std::atomic<uint32_t> timeout_seconds{300};        // idle connection timeout, 0 = none
  // Seconds a connection has to finish its TLS handshake and its login, 0 = none.
  std::atomic<uint32_t> connect_timeout_seconds{10};
  std::atomic<uint32_t> max_line_length{1 << 20};    // bytes, LF included
  std::atomic<uint32_t> max_open_indexes{1024};      // index ids per connection
  std::atomic<uint32_t> max_connections{10000};      // per listener (the plugin derives it)
  std::atomic<uint32_t> lock_wait_timeout{5};        // seconds a request waits (apart) for a lock
  std::atomic<uint32_t> max_answer_size{16 << 20};   // bytes of one answer; 0 = no limit
  std::atomic<uint32_t> max_rows_examined{1000000};  // rows one request may read; 0 = no limit
  // A connection's unsent answers past which its further requests wait (bytes).
  std::atomic<uint32_t> max_output_buffer{1 << 20};
  // Received, unanswered input of all of a listener's connections past which
  // unfinished lines longer than one read are refused (bytes).
  std::atomic<uint32_t> max_input_memory{64 << 20};
  // memcached's flush_all may empty the default container's table.
  std::atomic<bool> memcached_flush{false};
  // Rows per second the sweep of expired memcached items examines in each
  // container; 0 = no sweep.
  std::atomic<uint32_t> memcached_sweep_rate{10000};
  // Plain-text connections answer their first request `3 1 tlsrequired` and close.
  std::atomic<bool> require_secure_transport{false};
};

// How a listener's clients prove who they are (rowsocket_auth, rowsocket_auth_wr).
enum class AuthMode : uint8_t {
  kNone,     // nobody is asked
  kSecret,   // `A 1 <secret>`: the original plugin's shared secret
  kAccount,  // a MariaDB account logs in (A 2 and A 3, or A 4 over TLS); its grants apply
};

// What a listener's clients speak.
enum class WireProtocol : uint8_t { kHandlerSocket, kMemcached, kRedis };

// How workers wait for their connections and move bytes (rowsocket_io; event_loop.h).
enum class IoLoop : uint8_t { kEpoll, kIoUring };

struct ListenerConfig {
  std::string port;        // empty: this listener is disabled
  int threads = 1;
  bool read_only = true;
  AuthMode auth = AuthMode::kNone;
  std::string secret;      // for AuthMode::kSecret
  WireProtocol protocol = WireProtocol::kHandlerSocket;
};

// Where the listeners' certificate comes from (PEM files). No certificate: TLS is
// off, and a connection that begins a TLS handshake is closed.
struct TlsConfig {
  std::string cert;
  std::string key;  // empty: the key is in `cert`'s file
  std::string ca;   // empty: client certificates are not verified
};

struct ServerConfig {
  std::string address = "127.0.0.1";
  ListenerConfig read;
  ListenerConfig write;
  ListenerConfig memcached;    // memcached's protocol on MariaDB tables
  ListenerConfig redis;        // Redis's protocol on MariaDB tables
  int backlog = 1024;
  int sndbuf = 0;              // 0: the kernel's default
  int rcvbuf = 0;
  uint32_t readsize = 65536;   // bytes asked from the socket per read
  IoLoop io = IoLoop::kEpoll;  // io_uring falls back to epoll where the kernel refuses it
  // Spare workers of each listener (RunGate): they take turns only while others
  // wait inside a batch. The epoll loop's alone (io_uring's connections stay with
  // the worker that accepted them).
  int spare_threads = 0;
  TlsConfig tls;
};

}  // namespace rowsocket
