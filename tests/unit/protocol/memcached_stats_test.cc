// Tests for memcached's `stats` answers (memcached_stats.h): which group an argument
// asks for, the general statistics in memcached 1.6's order, and their text and
// binary framing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "memcached_test_util.h"
#include "protocol/memcached_stats.h"

namespace rowsocket {
namespace {

using mc_test::ParseAll;

std::vector<std::string> Names(const McStatLines& lines) {
  std::vector<std::string> names;
  for (const auto& line : lines) names.push_back(line.first);
  return names;
}

TEST(MemcachedStats, groups_are_memcacheds_and_any_other_is_unknown) {
  EXPECT_EQ(McStatsGroupOf(""), McStatsGroup::kGeneral);
  EXPECT_EQ(McStatsGroupOf("settings"), McStatsGroup::kSettings);
  EXPECT_EQ(McStatsGroupOf("conns"), McStatsGroup::kConns);
  EXPECT_EQ(McStatsGroupOf("sizes"), McStatsGroup::kSizes);
  for (const char* empty : {"items", "slabs", "detail dump"})
    EXPECT_EQ(McStatsGroupOf(empty), McStatsGroup::kEmpty) << empty;
  for (const char* unknown : {"bogus", "resetx", "detailed", "cachedump 1 1"})
    EXPECT_EQ(McStatsGroupOf(unknown), McStatsGroup::kUnknown) << unknown;
  EXPECT_EQ(McStatsGroupOf("reset"), McStatsGroup::kReset);
  EXPECT_EQ(McStatsGroupOf("reset x"), McStatsGroup::kReset);  // memcached ignores the rest
  EXPECT_EQ(McStatsGroupOf("detail on"), McStatsGroup::kDetailSwitch);
  EXPECT_EQ(McStatsGroupOf("detail off"), McStatsGroup::kDetailSwitch);
  EXPECT_EQ(McStatsGroupOf("detail"), McStatsGroup::kDetailUsage);
  EXPECT_EQ(McStatsGroupOf("detail x"), McStatsGroup::kDetailUsage);
}

TEST(MemcachedStats, general_lines_follow_memcached_1_6s_order_then_rowsocket_own) {
  McGeneralStats s;
  s.pid = 42;
  s.rusage_user_us = 1500001;
  s.counts.get_hits = 7;
  s.counts.total_items = 3;
  s.curr_items = 9;
  s.own = {{"rowsocket_version", "0.1.0"}};
  const McStatLines lines = McGeneralStatLines(s);
  const std::vector<std::string> expected = {
      "pid", "uptime", "time", "version", "pointer_size", "rusage_user", "rusage_system",
      "max_connections", "curr_connections", "total_connections", "rejected_connections",
      "connection_structures", "cmd_get", "cmd_set", "cmd_flush", "cmd_touch", "cmd_meta",
      "get_hits", "get_misses", "get_expired", "get_flushed", "delete_misses", "delete_hits",
      "incr_misses", "incr_hits", "decr_misses", "decr_hits", "cas_misses", "cas_hits",
      "cas_badval", "touch_hits", "touch_misses", "store_too_large", "store_no_memory",
      "auth_cmds", "auth_errors", "bytes_read", "bytes_written", "limit_maxbytes",
      "accepting_conns", "listen_disabled_num", "threads", "conn_yields", "bytes", "curr_items",
      "total_items", "evictions", "rowsocket_version"};
  EXPECT_EQ(Names(lines), expected);
  auto value = [&lines](const std::string& name) {
    for (const auto& [n, v] : lines)
      if (n == name) return v;
    return std::string("?");
  };
  EXPECT_EQ(value("pid"), "42");
  EXPECT_EQ(value("version"), std::string(kMcCompatibleVersion));
  EXPECT_EQ(value("rusage_user"), "1.500001");
  EXPECT_EQ(value("rusage_system"), "0.000000");
  EXPECT_EQ(value("get_hits"), "7");
  EXPECT_EQ(value("total_items"), "3");
  EXPECT_EQ(value("curr_items"), "9");
  EXPECT_EQ(value("pointer_size"), std::to_string(sizeof(void*) * 8));
}

TEST(MemcachedStats, text_answer_is_stat_lines_and_end_unknown_is_error) {
  McRequest mc;
  mc.command = McCommand::kStats;
  mc.framing = McFraming::kText;
  std::string out;
  WriteMcStats(mc, McStatsGroup::kGeneral, {{"pid", "1"}, {"uptime", "2"}}, &out);
  EXPECT_EQ(out, "STAT pid 1\r\nSTAT uptime 2\r\nEND\r\n");
  out.clear();
  WriteMcStats(mc, McStatsGroup::kEmpty, {}, &out);
  EXPECT_EQ(out, "END\r\n");
  out.clear();
  WriteMcStats(mc, McStatsGroup::kSizes, {}, &out);
  EXPECT_EQ(out, "STAT sizes_status disabled\r\nEND\r\n");
  out.clear();
  WriteMcStats(mc, McStatsGroup::kUnknown, {{"x", "1"}}, &out);
  EXPECT_EQ(out, "ERROR\r\n");
  out.clear();
  WriteMcStats(mc, McStatsGroup::kReset, {}, &out);
  EXPECT_EQ(out, "RESET\r\n");
  out.clear();
  WriteMcStats(mc, McStatsGroup::kDetailSwitch, {}, &out);
  EXPECT_EQ(out, "OK\r\n");
  out.clear();
  WriteMcStats(mc, McStatsGroup::kDetailUsage, {}, &out);
  EXPECT_EQ(out, "CLIENT_ERROR usage: stats detail on|off|dump\r\n");
}

TEST(MemcachedStats, binary_answer_is_a_packet_per_stat_then_an_empty_key) {
  // A binary Stat request (opcode 0x10) with opaque 9.
  std::string request(24, '\0');
  request[0] = '\x80';
  request[1] = '\x10';
  request[15] = '\x09';
  const mc_test::Parsed p = ParseAll(request, McProtocol::kBinary);
  ASSERT_EQ(p.request.command, McCommand::kStats);
  std::string out;
  WriteMcStats(p.request, McStatsGroup::kGeneral, {{"pid", "12"}}, &out);
  ASSERT_EQ(out.size(), 24u + 3 + 2 + 24u);
  EXPECT_EQ(static_cast<unsigned char>(out[0]), 0x81);
  EXPECT_EQ(out[1], '\x10');
  EXPECT_EQ(out[3], '\x03');               // key length
  EXPECT_EQ(out[11], '\x05');              // body length
  EXPECT_EQ(out[15], '\x09');              // opaque echoed
  EXPECT_EQ(out.substr(24, 5), "pid12");
  EXPECT_EQ(out[24 + 5 + 3], '\x00');      // the terminator's key length
  EXPECT_EQ(out[24 + 5 + 11], '\x00');     // and body length
}

}  // namespace
}  // namespace rowsocket
