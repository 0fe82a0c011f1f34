// MemcachedHandler::PrepareStats: memcached's `stats` for the memcached listener,
// gathered in a batch's first pass (where tables may be opened) and answered as
// written (protocol/memcached_stats.h). Connections, commands, bytes and threads are
// the listener's, summed over its workers (ListenerFigures); pid, rusage and the
// version are the server process's; curr_items and bytes are the storage engine's
// own estimate for the default container's table (handler::info with
// HA_STATUS_VARIABLE: `records` and `data_file_length`, as SHOW TABLE STATUS reads
// them: InnoDB's is an estimate); limit_maxbytes is what that table could grow to:
// its data_file_length and the free space of the file system of the server's data
// directory. Runs on the executor's worker thread.
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <ctime>

#include "engine/memcached/memcached_handler.h"
#include "engine/server_headers.h"
#include "protocol/memcached_stats.h"
#include "util/version.h"

namespace rowsocket {
namespace {

uint64_t Micros(const timeval& t) {
  return static_cast<uint64_t>(t.tv_sec) * 1000000 + static_cast<uint64_t>(t.tv_usec);
}

uint64_t FreeBytesOfDataDirectory() {
  struct statvfs fs;
  if (statvfs(mysql_real_data_home, &fs) != 0) return 0;
  return static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
}

}  // namespace

// The default container's rows and data bytes, as its storage engine estimates
// them; zeros when its table cannot be opened.
void MemcachedHandler::DefaultContainerSize(uint64_t* items, uint64_t* bytes) {
  *items = *bytes = 0;
  const KvContainer* container = ContainerNamed("default");
  if (container == nullptr) return;
  const Opened<TableEntry> table = engine_->tables().Get(container->db, container->table);
  if (!table.ok() || !engine_->tables().Reopen(table.value).ok()) return;
  handler* file = table.value->table->file;
  if (file->info(HA_STATUS_VARIABLE | HA_STATUS_NO_LOCK) != 0) return;
  *items = file->stats.records;
  *bytes = file->stats.data_file_length;
}

void MemcachedHandler::PrepareStats(const EngineSession& session, const McRequest& mc,
                                  std::string* answer) {
  const McStatsGroup group = McStatsGroupOf(mc.argument);
  McStatLines lines;
  const ServerTunables& tunables = *engine_->options().tunables;
  if (group == McStatsGroup::kReset && engine_->info().reset_listener_figures)
    engine_->info().reset_listener_figures();
  if (group == McStatsGroup::kGeneral || group == McStatsGroup::kSettings ||
      group == McStatsGroup::kConns) {
    const ListenerFigures f =
        engine_->info().listener_figures ? engine_->info().listener_figures(group == McStatsGroup::kConns)
                               : ListenerFigures();
    uint64_t items = 0, bytes = 0;
    if (group != McStatsGroup::kConns) DefaultContainerSize(&items, &bytes);
    const uint64_t maxbytes = bytes + FreeBytesOfDataDirectory();
    const int64_t now = static_cast<int64_t>(std::time(nullptr));
    if (group == McStatsGroup::kGeneral) {
      McGeneralStats s;
      s.pid = static_cast<int64_t>(getpid());
      s.time = now;
      s.uptime = f.opened_unix != 0 && now > static_cast<int64_t>(f.opened_unix)
                     ? static_cast<uint64_t>(now) - f.opened_unix
                     : 0;
      rusage usage{};
      if (getrusage(RUSAGE_SELF, &usage) == 0) {
        s.rusage_user_us = Micros(usage.ru_utime);
        s.rusage_system_us = Micros(usage.ru_stime);
      }
      s.max_connections = tunables.max_connections.load(std::memory_order_relaxed);
      s.curr_connections = f.open_connections;
      s.total_connections = f.sums.connections_total;
      s.rejected_connections = f.sums.connections_refused;
      s.connection_structures = f.open_connections;
      s.counts = f.memcached;
      s.bytes_read = f.sums.bytes_received;
      s.bytes_written = f.sums.bytes_sent;
      s.limit_maxbytes = maxbytes;
      s.accepting_conns = f.accepting;
      s.listen_disabled_num = f.sums.accept_pauses;
      s.threads = f.workers;
      s.bytes = bytes;
      s.curr_items = items;
      s.own = {{"rowsocket_version", ROWSOCKET_VERSION},
               {"rowsocket_batches", std::to_string(f.sums.batches)},
               {"rowsocket_commits", std::to_string(f.sums.commits)},
               {"rowsocket_lock_wait_timeouts", std::to_string(f.sums.lock_wait_timeouts)},
               {"rowsocket_deadlocks", std::to_string(f.sums.deadlocks)},
               {"rowsocket_items_expired", std::to_string(f.sums.memcached_items_expired)}};
      lines = McGeneralStatLines(s);
    } else if (group == McStatsGroup::kSettings) {
      McSettings s;
      s.maxbytes = maxbytes;
      s.maxconns = tunables.max_connections.load(std::memory_order_relaxed);
      s.tcpport = f.port;
      s.inter = f.address;
      s.num_threads = f.workers;
      s.auth_enabled_sasl = session.account_logins;
      s.item_size_max = tunables.max_line_length.load(std::memory_order_relaxed);
      s.flush_enabled = tunables.memcached_flush.load(std::memory_order_relaxed);
      s.idle_timeout = tunables.timeout_seconds.load(std::memory_order_relaxed);
      lines = McSettingsStatLines(s);
    } else {
      std::vector<McConnection> connections;
      for (const ConnectionInfo& c : f.connections)
        connections.push_back({c.id, c.peer, c.idle_ms / 1000});
      lines = McConnectionStatLines(connections);
    }
  }
  WriteMcStats(mc, group, lines, answer);
}

}  // namespace rowsocket
