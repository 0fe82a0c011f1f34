// The protocols the engine speaks: one registration each. A protocol is a folder
// of src/engine with a ProtocolModule (core/protocol_handler.h); adding one adds
// its line here and touches no file of the core.
#include "engine/core/protocol_handler.h"
#include "engine/handlersocket/hs_handler.h"
#include "engine/memcached/memcached_handler.h"
#include "engine/redis/redis_handler.h"

namespace rowsocket {

std::vector<std::unique_ptr<ProtocolModule>> RegisteredProtocols(const EngineOptions&) {
  std::vector<std::unique_ptr<ProtocolModule>> protocols;
  protocols.push_back(NewHandlerSocketModule());
  protocols.push_back(NewMemcachedModule());
  protocols.push_back(NewRedisModule());
  return protocols;
}

}  // namespace rowsocket
