// Listener::Figures: a listener's figures as a whole, for memcached's `stats`
// (seam/listener_figures.h), counted from the last `stats reset`. Runs on the asking
// worker's thread; every counter it reads is a single-writer Counter of one of the
// listener's workers.
#include "server/listener.h"
#include "util/clock.h"

namespace rowsocket {
namespace {

uint64_t Since(uint64_t now, uint64_t base) { return now > base ? now - base : 0; }

// The counters `stats` shows, less what they held at the last reset.
void SubtractBase(const StatsSnapshot& base, const McCounts& mc_base, ListenerFigures* f) {
  StatsSnapshot& s = f->sums;
  for (uint64_t StatsSnapshot::*counter :
       {&StatsSnapshot::connections_total, &StatsSnapshot::connections_refused,
        &StatsSnapshot::bytes_received, &StatsSnapshot::bytes_sent,
        &StatsSnapshot::accept_pauses, &StatsSnapshot::batches, &StatsSnapshot::commits,
        &StatsSnapshot::lock_wait_timeouts, &StatsSnapshot::deadlocks,
        &StatsSnapshot::memcached_items_expired})
    s.*counter = Since(s.*counter, base.*counter);
#define ROWSOCKET_MC_SINCE(name) f->memcached.name = Since(f->memcached.name, mc_base.name);
  ROWSOCKET_MC_COUNTS(ROWSOCKET_MC_SINCE)
#undef ROWSOCKET_MC_SINCE
}

}  // namespace

ListenerFigures Listener::Figures(bool with_connections) const {
  ListenerFigures f;
  for (const WorkerStats* stats : worker_stats_) {
    f.sums.AddFrom(*stats);
    stats->memcached.AddTo(&f.memcached);
  }
  {
    std::lock_guard<std::mutex> lock(figures_mutex_);
    SubtractBase(figures_base_, memcached_base_, &f);
  }
  const uint64_t now_ms = NowMs();
  f.open_connections = connections_ ? connections_->open() : 0;
  f.opened_unix = opened_unix_;
  f.workers = static_cast<uint32_t>(workers_ - spares_);
  f.accepting = !AcceptPaused(now_ms);
  f.address = address_;
  f.port = port_;
  if (with_connections && connections_) connections_->Describe(now_ms, &f.connections);
  return f;
}

void Listener::ResetFigures() {
  StatsSnapshot sums;
  McCounts memcached;
  for (const WorkerStats* stats : worker_stats_) {
    sums.AddFrom(*stats);
    stats->memcached.AddTo(&memcached);
  }
  std::lock_guard<std::mutex> lock(figures_mutex_);
  figures_base_ = sums;
  memcached_base_ = memcached;
}

}  // namespace rowsocket
