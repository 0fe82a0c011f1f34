// memcached's `stats` answers (memcached_stats.h): the lines, then their framing.
#include "protocol/memcached_stats.h"

#include <cstdio>

#include "protocol/memcached_response.h"

namespace rowsocket {
namespace {

std::string Seconds(uint64_t micros) {
  char text[32];
  std::snprintf(text, sizeof text, "%llu.%06llu", static_cast<unsigned long long>(micros / 1000000),
                static_cast<unsigned long long>(micros % 1000000));
  return text;
}

void Add(McStatLines* lines, std::string name, uint64_t value) {
  lines->emplace_back(std::move(name), std::to_string(value));
}

}  // namespace

McStatsGroup McStatsGroupOf(std::string_view argument) {
  if (argument.empty()) return McStatsGroup::kGeneral;
  if (argument == "settings") return McStatsGroup::kSettings;
  if (argument == "conns") return McStatsGroup::kConns;
  if (argument == "sizes") return McStatsGroup::kSizes;
  if (argument == "items" || argument == "slabs" || argument == "detail dump")
    return McStatsGroup::kEmpty;
  if (argument == "reset" || argument.substr(0, 6) == "reset ") return McStatsGroup::kReset;
  if (argument == "detail on" || argument == "detail off") return McStatsGroup::kDetailSwitch;
  if (argument == "detail" || argument.substr(0, 7) == "detail ") return McStatsGroup::kDetailUsage;
  return McStatsGroup::kUnknown;
}

McStatLines McGeneralStatLines(const McGeneralStats& s) {
  McStatLines lines;
  lines.emplace_back("pid", std::to_string(s.pid));
  Add(&lines, "uptime", s.uptime);
  lines.emplace_back("time", std::to_string(s.time));
  lines.emplace_back("version", std::string(s.version));
  Add(&lines, "pointer_size", sizeof(void*) * 8);
  lines.emplace_back("rusage_user", Seconds(s.rusage_user_us));
  lines.emplace_back("rusage_system", Seconds(s.rusage_system_us));
  Add(&lines, "max_connections", s.max_connections);
  Add(&lines, "curr_connections", s.curr_connections);
  Add(&lines, "total_connections", s.total_connections);
  Add(&lines, "rejected_connections", s.rejected_connections);
  Add(&lines, "connection_structures", s.connection_structures);
#define ROWSOCKET_MC_COUNT_LINE(name) \
  if (std::string_view(#name) != "total_items") Add(&lines, #name, s.counts.name);
  ROWSOCKET_MC_COUNTS(ROWSOCKET_MC_COUNT_LINE)
#undef ROWSOCKET_MC_COUNT_LINE
  Add(&lines, "bytes_read", s.bytes_read);
  Add(&lines, "bytes_written", s.bytes_written);
  Add(&lines, "limit_maxbytes", s.limit_maxbytes);
  Add(&lines, "accepting_conns", s.accepting_conns ? 1 : 0);
  Add(&lines, "listen_disabled_num", s.listen_disabled_num);
  Add(&lines, "threads", s.threads);
  Add(&lines, "conn_yields", s.conn_yields);
  Add(&lines, "bytes", s.bytes);
  Add(&lines, "curr_items", s.curr_items);
  Add(&lines, "total_items", s.counts.total_items);
  Add(&lines, "evictions", s.evictions);
  for (const auto& own : s.own) lines.push_back(own);
  return lines;
}

McStatLines McSettingsStatLines(const McSettings& s) {
  McStatLines lines;
  Add(&lines, "maxbytes", s.maxbytes);
  Add(&lines, "maxconns", s.maxconns);
  lines.emplace_back("tcpport", s.tcpport);
  lines.emplace_back("udpport", "0");
  lines.emplace_back("inter", s.inter);
  lines.emplace_back("evictions", "off");
  Add(&lines, "num_threads", s.num_threads);
  lines.emplace_back("cas_enabled", "yes");
  Add(&lines, "tcp_backlog", s.tcp_backlog);
  lines.emplace_back("binding_protocol", "auto-negotiate");
  lines.emplace_back("auth_enabled_sasl", s.auth_enabled_sasl ? "yes" : "no");
  lines.emplace_back("auth_enabled_ascii", "no");
  Add(&lines, "item_size_max", s.item_size_max);
  lines.emplace_back("flush_enabled", s.flush_enabled ? "yes" : "no");
  Add(&lines, "idle_timeout", s.idle_timeout);
  return lines;
}

McStatLines McConnectionStatLines(const std::vector<McConnection>& connections) {
  McStatLines lines;
  for (const McConnection& c : connections) {
    const std::string id = std::to_string(c.id) + ":";
    lines.emplace_back(id + "addr", "tcp:" + c.peer);
    lines.emplace_back(id + "state", "conn_parse_cmd");
    Add(&lines, id + "secs_since_last_cmd", c.idle_seconds);
  }
  return lines;
}

void WriteMcStats(const McRequest& mc, McStatsGroup group, const McStatLines& lines,
                  std::string* out) {
  const bool binary = mc.framing == McFraming::kBinary;
  if (group == McStatsGroup::kUnknown || group == McStatsGroup::kDetailUsage) {
    if (binary) return McBinaryWriter(out).Error(mc, McStatus::kKeyNotFound);
    if (group == McStatsGroup::kDetailUsage)
      return McTextWriter(out).ClientError("usage: stats detail on|off|dump");
    return McTextWriter(out).Reply(McTextReply::kError);
  }
  McTextWriter text(out);
  McBinaryWriter packet(out);
  if (group == McStatsGroup::kReset && !binary) return text.Line("RESET");
  if (group == McStatsGroup::kDetailSwitch && !binary) return text.Reply(McTextReply::kOk);
  for (const auto& [name, value] : lines)
    binary ? packet.Stat(mc, name, value) : text.Stat(name, value);
  if (group == McStatsGroup::kSizes)
    binary ? packet.Stat(mc, "sizes_status", "disabled") : text.Stat("sizes_status", "disabled");
  binary ? packet.StatEnd(mc) : text.Reply(McTextReply::kEnd);
}

}  // namespace rowsocket
