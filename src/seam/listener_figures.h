// ListenerFigures: what a worker may learn of its listener as a whole (its workers'
// counters summed, its connections), for memcached's `stats`, which memcached answers
// for the whole daemon and rowsocket for the listener. Made by the server layer on
// the asking worker's thread (WorkerInfo::listener_figures) from counters every
// worker keeps on its own.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/memcached_stats.h"
#include "seam/connection_info.h"
#include "seam/stats.h"

namespace rowsocket {

struct ListenerFigures {
  StatsSnapshot sums;             // its workers' counters, summed
  McCounts memcached;             // and their memcached command counts
  uint64_t open_connections = 0;  // open now
  uint64_t opened_unix = 0;       // when the listener began to listen (unix time)
  uint32_t workers = 0;           // its workers, spares not counted
  bool accepting = true;          // false while accepting is paused (no descriptor left)
  std::string address, port;      // where it listens
  std::vector<ConnectionInfo> connections;  // only when asked for
};

}  // namespace rowsocket
