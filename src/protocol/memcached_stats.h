// memcached's `stats` answers, written from figures the engine gathers: the general
// statistics in memcached 1.6's order and names, `stats settings` and `stats conns`
// as far as rowsocket has them, and the groups it has nothing for (items, slabs,
// sizes, detail dump) as memcached answers them when it holds nothing. Pure: no
// sockets, no MariaDB; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "protocol/memcached.h"

namespace rowsocket {

// The memcached release whose behaviour the listener follows (Debian 12's), answered
// to `version` and in `stats`: clients parse it as digits.
constexpr std::string_view kMcCompatibleVersion = "1.6.18";

// memcached's command counters, in its `stats` order (names as it prints them).
#define ROWSOCKET_MC_COUNTS(X)                                                   \
  X(cmd_get) X(cmd_set) X(cmd_flush) X(cmd_touch) X(cmd_meta) X(get_hits)         \
  X(get_misses) X(get_expired) X(get_flushed) X(delete_misses) X(delete_hits)     \
  X(incr_misses) X(incr_hits) X(decr_misses) X(decr_hits) X(cas_misses)           \
  X(cas_hits) X(cas_badval) X(touch_hits) X(touch_misses) X(store_too_large)      \
  X(store_no_memory) X(auth_cmds) X(auth_errors) X(total_items)

struct McCounts {
#define ROWSOCKET_MC_COUNT_FIELD(name) uint64_t name = 0;
  ROWSOCKET_MC_COUNTS(ROWSOCKET_MC_COUNT_FIELD)
#undef ROWSOCKET_MC_COUNT_FIELD
};

// Which group a `stats <argument>` asks for.
enum class McStatsGroup : uint8_t {
  kGeneral,     // no argument
  kSettings,
  kConns,
  kSizes,       // `STAT sizes_status disabled`, as memcached without -o track_sizes
  kEmpty,       // items, slabs, detail dump: nothing held, an empty END
  kReset,       // `reset` (words after it ignored, as memcached does): the counters
                // restart from zero; `RESET` (binary: the empty-key packet)
  kDetailSwitch,  // `detail on`, `detail off`: `OK`; no per-prefix figures are kept
  kDetailUsage,   // any other `detail ...`: memcached's usage CLIENT_ERROR
  kUnknown,     // memcached answers `ERROR` (binary: not found)
};
McStatsGroup McStatsGroupOf(std::string_view argument);

// The general statistics, each as memcached 1.6 means it (docs/MEMCACHED.md says
// where each of rowsocket's comes from).
struct McGeneralStats {
  int64_t pid = 0;
  uint64_t uptime = 0;          // seconds
  int64_t time = 0;             // unix time
  std::string_view version = kMcCompatibleVersion;
  uint64_t rusage_user_us = 0;  // the server process's CPU time
  uint64_t rusage_system_us = 0;
  uint64_t max_connections = 0;
  uint64_t curr_connections = 0;
  uint64_t total_connections = 0;
  uint64_t rejected_connections = 0;
  uint64_t connection_structures = 0;
  McCounts counts;              // total_items goes to its own place
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;
  uint64_t limit_maxbytes = 0;
  bool accepting_conns = true;
  uint64_t listen_disabled_num = 0;
  uint64_t threads = 0;
  uint64_t conn_yields = 0;
  uint64_t bytes = 0;
  uint64_t curr_items = 0;
  uint64_t evictions = 0;
  // Figures of rowsocket's own, after memcached's (names begin `rowsocket_`).
  std::vector<std::pair<std::string, std::string>> own;
};

// `stats settings`: the settings rowsocket has, under memcached's names.
struct McSettings {
  uint64_t maxbytes = 0;
  uint64_t maxconns = 0;
  std::string tcpport;
  std::string inter;
  uint64_t num_threads = 0;
  uint64_t tcp_backlog = 0;
  bool auth_enabled_sasl = false;
  uint64_t item_size_max = 0;
  bool flush_enabled = false;
  uint64_t idle_timeout = 0;
};

// One client connection, for `stats conns`.
struct McConnection {
  uint64_t id = 0;           // stands where memcached prints its file descriptor
  std::string peer;          // address:port
  uint64_t idle_seconds = 0;
};

using McStatLines = std::vector<std::pair<std::string, std::string>>;

McStatLines McGeneralStatLines(const McGeneralStats& stats);
McStatLines McSettingsStatLines(const McSettings& settings);
McStatLines McConnectionStatLines(const std::vector<McConnection>& connections);

// The answer to `mc` (a stats request) of the group it asks for: `lines` then END in
// text, one packet each then the empty-key packet in binary; `ERROR` (binary: key not
// found) for an unknown group.
void WriteMcStats(const McRequest& mc, McStatsGroup group, const McStatLines& lines,
                  std::string* out);

}  // namespace rowsocket
