// ServerView: what the engine may ask of the running server layer, for the
// information_schema tables (ROWSOCKET_CONNECTIONS, ROWSOCKET_LATENCY). The server
// layer implements it; the engine sees only this, so neither layer includes the other.
#pragma once

#include <vector>

#include "seam/connection_info.h"
#include "seam/stats.h"

namespace rowsocket {

class ServerView {
 public:
  virtual ~ServerView() = default;
  // Sums every worker's counters (any thread).
  virtual StatsSnapshot CollectStats() const = 0;
  // Describes every open client connection (any thread).
  virtual std::vector<ConnectionInfo> DescribeConnections() const = 0;
};

}  // namespace rowsocket
