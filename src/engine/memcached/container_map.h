// What every key-value protocol (memcached, Redis) shares of the container mapping
// (key_value.h): reading a container's row of rowsocket.containers, and binding a
// connection's lookup and insert indexes of a container. Runs on a worker thread.
#pragma once

#include <string_view>

#include "engine/core/worker_engine.h"
#include "engine/memcached/key_value.h"

namespace rowsocket {

// The container `name` as rowsocket.containers maps it now (a read of its row in a
// transaction of its own, row_lookup.h): false if it names none. `default` is
// rowsocket.kv unless the mapping says otherwise.
bool ReadContainerMapping(THD* thd, std::string_view name, KvContainer* container);

// Binds `binding` to `container`: its lookup and insert indexes on the unique index
// of its key column (on a system-versioned table the server adds the end of the
// row's period to every unique key: a find of the key skips history rows). What the
// binding had opened before is retired (a step of this batch may still use it).
EngineStatus BindContainerIndexes(WorkerEngine* engine, ContainerBinding* binding,
                                  const KvContainer& container);

}  // namespace rowsocket
