// ConnectionInfo: a copy of what is known about one client connection, for
// information_schema.ROWSOCKET_CONNECTIONS. Made by Server::SnapshotConnections on
// any thread.
#pragma once

#include <cstdint>
#include <string>

namespace rowsocket {

struct ConnectionInfo {
  uint64_t id = 0;              // unique since the plugin started
  std::string listener;         // "read" or "write"
  std::string peer;             // client address:port
  int worker = 0;               // worker index (as in SHOW PROCESSLIST order)
  bool authenticated = false;   // a secret was given and matched, or an account logged in
  std::string account;          // the account logged in (user@host), if any
  std::string tls;              // the TLS version ("TLSv1.3"); empty: plain text
  uint32_t open_indexes = 0;
  uint64_t requests = 0;
  uint64_t bytes_received = 0;
  uint64_t bytes_sent = 0;
  uint64_t connected_ms = 0;    // how long ago it connected
  uint64_t idle_ms = 0;         // how long ago its last request arrived
};

}  // namespace rowsocket
