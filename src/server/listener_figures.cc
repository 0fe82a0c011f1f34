// Listener::Figures: a listener's figures as a whole, for memcached's `stats`
// (seam/listener_figures.h). Runs on the asking worker's thread; every counter it
// reads is a single-writer Counter of one of the listener's workers.
#include "server/listener.h"
#include "util/clock.h"

namespace rowsocket {

ListenerFigures Listener::Figures(bool with_connections) const {
  ListenerFigures f;
  for (const WorkerStats* stats : worker_stats_) {
    f.sums.AddFrom(*stats);
    stats->memcached.AddTo(&f.memcached);
  }
  const uint64_t now_ms = NowMs();
  f.open_connections = connections_ ? connections_->open() : 0;
  f.opened_unix = opened_unix_;
  f.workers = static_cast<uint32_t>(workers_);
  f.accepting = !AcceptPaused(now_ms);
  f.address = address_;
  f.port = port_;
  if (with_connections && connections_) connections_->Describe(now_ms, &f.connections);
  return f;
}

}  // namespace rowsocket
