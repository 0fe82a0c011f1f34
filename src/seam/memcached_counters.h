// McCounters: a worker's counts of memcached's commands (cmd_get, get_hits, ...), as
// memcached 1.6 counts them, for the memcached listener's `stats`. Counted by the
// worker that runs the command (single writer, see util/counter.h), summed over a
// listener's workers by ListenerFigures (listener_figures.h).
#pragma once

#include "protocol/memcached_stats.h"
#include "util/counter.h"

namespace rowsocket {

struct McCounters {
#define ROWSOCKET_MC_COUNTER(name) Counter name;
  ROWSOCKET_MC_COUNTS(ROWSOCKET_MC_COUNTER)
#undef ROWSOCKET_MC_COUNTER

  void AddTo(McCounts* sums) const {
#define ROWSOCKET_MC_ADD(name) sums->name += name.Get();
    ROWSOCKET_MC_COUNTS(ROWSOCKET_MC_ADD)
#undef ROWSOCKET_MC_ADD
  }
};

}  // namespace rowsocket
