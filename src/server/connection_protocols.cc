// The protocols the server layer speaks: one ServerProtocol each, defined in its
// protocol's own file; a new protocol adds its declaration and its case here.
#include "server/connection_protocol.h"

namespace rowsocket {

extern const ServerProtocol kHandlerSocketServer;  // hs_connection.cc
extern const ServerProtocol kMemcachedServer;      // mc_connection.cc
extern const ServerProtocol kRedisServer;          // redis_connection.cc

const ServerProtocol& ServerProtocolOf(WireProtocol protocol) {
  switch (protocol) {
    case WireProtocol::kHandlerSocket: return kHandlerSocketServer;
    case WireProtocol::kMemcached: return kMemcachedServer;
    case WireProtocol::kRedis: return kRedisServer;
  }
  return kHandlerSocketServer;
}

}  // namespace rowsocket
