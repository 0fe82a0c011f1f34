// Tests for ParseMcRequest on the text protocol: every classic command, noreply,
// data blocks, line limits, pipelining, and memcached's error answers. Every request
// is also fed one byte at a time (ParseByteByByte), which must never parse a prefix.
#include <gtest/gtest.h>

#include <string>

#include "memcached_test_util.h"
#include "protocol/memcached.h"

namespace rowsocket {
namespace {

using mc_test::ParseByteByByte;
using mc_test::Parsed;
using mc_test::Strings;
using Strs = std::vector<std::string>;

Parsed Text(std::string_view input, const McLimits& limits = {}) {
  return ParseByteByByte(input, McProtocol::kText, limits);
}

// The error line of a text input that parses to kInvalid, or "" when it did not.
std::string ErrorOf(std::string_view input) {
  const Parsed p = Text(input);
  EXPECT_EQ(p.result.status, McParseStatus::kRequest);
  if (p.request.command != McCommand::kInvalid) return "";
  return std::string(p.request.error);
}

TEST(MemcachedDetect, first_byte_0x80_is_binary_anything_else_text) {
  EXPECT_EQ(McDetectProtocol(0x80), McProtocol::kBinary);
  EXPECT_EQ(McDetectProtocol('g'), McProtocol::kText);
  EXPECT_EQ(McDetectProtocol('m'), McProtocol::kText);
  EXPECT_EQ(McDetectProtocol(0x81), McProtocol::kText);
}

// --- retrieval -----------------------------------------------------------------------

TEST(MemcachedText, get_takes_every_key_of_the_line) {
  const Parsed p = Text("get a bb ccc\r\n");
  ASSERT_EQ(p.result.status, McParseStatus::kRequest);
  EXPECT_EQ(p.result.consumed, 14u);
  EXPECT_EQ(p.request.command, McCommand::kGet);
  EXPECT_EQ(p.request.framing, McFraming::kText);
  EXPECT_EQ(Strings(p.request.keys), (Strs{"a", "bb", "ccc"}));
}

TEST(MemcachedText, gets_gat_gats_and_a_bare_lf) {
  EXPECT_EQ(Text("gets k\n").request.command, McCommand::kGets);
  const Parsed gat = Text("gat 30 a b\r\n");
  EXPECT_EQ(gat.request.command, McCommand::kGat);
  EXPECT_EQ(gat.request.exptime, 30);
  EXPECT_EQ(Strings(gat.request.keys), (Strs{"a", "b"}));
  const Parsed gats = Text("gats -1 a\r\n");
  EXPECT_EQ(gats.request.command, McCommand::kGats);
  EXPECT_EQ(gats.request.exptime, -1);
}

TEST(MemcachedText, gat_without_keys_is_answered_end_as_memcached) {
  const Parsed p = Text("gat 10\r\n");
  EXPECT_EQ(p.request.command, McCommand::kGat);
  EXPECT_TRUE(p.request.keys.empty());
}

TEST(MemcachedText, extra_spaces_between_tokens_are_ignored) {
  const Parsed p = Text("  get   a    b  \r\n");
  EXPECT_EQ(p.request.command, McCommand::kGet);
  EXPECT_EQ(Strings(p.request.keys), (Strs{"a", "b"}));
}

TEST(MemcachedText, get_of_more_than_23_keys_takes_them_all) {
  std::string line = "get";
  for (int i = 0; i < 100; ++i) line += " k" + std::to_string(i);
  const Parsed p = Text(line + "\r\n");
  ASSERT_EQ(p.request.command, McCommand::kGet);
  EXPECT_EQ(p.request.keys.size(), 100u);
  EXPECT_EQ(p.request.keys[99], "k99");
}

TEST(MemcachedText, retrieval_errors) {
  EXPECT_EQ(ErrorOf("get\r\n"), "ERROR");
  EXPECT_EQ(ErrorOf("gat\r\n"), "ERROR");
  EXPECT_EQ(ErrorOf("gat x a\r\n"), "CLIENT_ERROR invalid exptime argument");
  EXPECT_EQ(ErrorOf("get " + std::string(251, 'k') + "\r\n"),
            "CLIENT_ERROR bad command line format");
  EXPECT_EQ(ErrorOf(std::string("get ok bad\0key\r\n", 16)), "CLIENT_ERROR bad command line format");
  EXPECT_EQ(ErrorOf("get ok ctl\x01key\r\n"), "");
  EXPECT_EQ(ErrorOf("get " + std::string(250, 'k') + "\r\n"), "");
  EXPECT_EQ(ErrorOf("getx a\r\n"), "ERROR");
}

// --- storage -------------------------------------------------------------------------

TEST(MemcachedText, set_reads_its_data_block) {
  const Parsed p = Text("set k 5 100 3\r\nabc\r\n");
  ASSERT_EQ(p.result.status, McParseStatus::kRequest);
  EXPECT_EQ(p.result.consumed, 20u);
  EXPECT_EQ(p.request.command, McCommand::kStore);
  EXPECT_EQ(p.request.store, McStoreMode::kSet);
  EXPECT_EQ(Strings(p.request.keys), (Strs{"k"}));
  EXPECT_EQ(p.request.flags, 5u);
  EXPECT_EQ(p.request.exptime, 100);
  EXPECT_EQ(p.request.value, "abc");
  EXPECT_FALSE(p.request.noreply);
}

TEST(MemcachedText, every_storage_command_has_its_mode) {
  EXPECT_EQ(Text("add k 0 0 1\r\nx\r\n").request.store, McStoreMode::kAdd);
  EXPECT_EQ(Text("replace k 0 0 1\r\nx\r\n").request.store, McStoreMode::kReplace);
  EXPECT_EQ(Text("append k 0 0 1\r\nx\r\n").request.store, McStoreMode::kAppend);
  EXPECT_EQ(Text("prepend k 0 0 1\r\nx\r\n").request.store, McStoreMode::kPrepend);
  const Parsed cas = Text("cas k 1 2 1 99 noreply\r\nx\r\n");
  EXPECT_EQ(cas.request.store, McStoreMode::kCas);
  EXPECT_EQ(cas.request.cas, 99u);
  EXPECT_TRUE(cas.request.noreply);
}

TEST(MemcachedText, data_may_hold_any_byte_including_crlf) {
  const std::string data("a\r\nb\0c\n", 7);
  const Parsed p = Text("set k 0 0 7\r\n" + data + "\r\n");
  EXPECT_EQ(p.request.value, data);
}

TEST(MemcachedText, empty_value_and_limits_of_the_numbers) {
  EXPECT_EQ(Text("set k 0 0 0\r\n\r\n").request.value, "");
  EXPECT_EQ(Text("set k 4294967295 -2147483648 0\r\n\r\n").request.flags, 4294967295u);
  EXPECT_EQ(ErrorOf("set k 4294967296 0 0\r\n"), "CLIENT_ERROR bad command line format");
  EXPECT_EQ(ErrorOf("set k 0 2147483648 0\r\n"), "CLIENT_ERROR bad command line format");
  EXPECT_EQ(ErrorOf("set k 0 0 -1\r\n"), "CLIENT_ERROR bad command line format");
  EXPECT_EQ(ErrorOf("set k x 0 1\r\n"), "CLIENT_ERROR bad command line format");
  EXPECT_EQ(ErrorOf("set k 0 0 1x\r\n"), "CLIENT_ERROR bad command line format");
  EXPECT_EQ(ErrorOf("cas k 0 0 1 -5\r\n"), "CLIENT_ERROR bad command line format");
  EXPECT_EQ(ErrorOf("set " + std::string(251, 'k') + " 0 0 1\r\n"),
            "CLIENT_ERROR bad command line format");
}

TEST(MemcachedText, wrong_token_counts_are_error) {
  EXPECT_EQ(ErrorOf("set k 0 0\r\n"), "ERROR");
  EXPECT_EQ(ErrorOf("set k 0 0 1 noreply extra\r\n"), "ERROR");
  EXPECT_EQ(ErrorOf("cas k 0 0 1\r\n"), "ERROR");
  EXPECT_EQ(ErrorOf("incr k\r\n"), "ERROR");
  EXPECT_EQ(ErrorOf("touch k\r\n"), "ERROR");
  EXPECT_EQ(ErrorOf("delete\r\n"), "ERROR");
  EXPECT_EQ(ErrorOf("verbosity\r\n"), "ERROR");
  EXPECT_EQ(ErrorOf("flush_all 1 noreply x\r\n"), "ERROR");
  EXPECT_EQ(ErrorOf("\r\n"), "ERROR");
  EXPECT_EQ(ErrorOf("x\r\n"), "ERROR");
  EXPECT_EQ(ErrorOf("bogus command\r\n"), "ERROR");
}

TEST(MemcachedText, a_sixth_token_that_is_not_noreply_is_ignored_as_memcached_does) {
  const Parsed p = Text("set k 0 0 1 whatever\r\nx\r\n");
  EXPECT_EQ(p.request.command, McCommand::kStore);
  EXPECT_FALSE(p.request.noreply);
}

TEST(MemcachedText, bad_data_chunk_takes_the_block_and_is_answered) {
  const Parsed p = Text("set k 0 0 3\r\nabcXY");
  EXPECT_EQ(p.request.command, McCommand::kInvalid);
  EXPECT_EQ(p.request.error, "CLIENT_ERROR bad data chunk");
  EXPECT_EQ(p.result.consumed, 18u);
  EXPECT_TRUE(p.request.WantsAnswer(McOutcome::kError));
  const Parsed quiet = Text("set k 0 0 3 noreply\r\nabc\n\n");
  EXPECT_EQ(quiet.request.error, "CLIENT_ERROR bad data chunk");
  EXPECT_FALSE(quiet.request.WantsAnswer(McOutcome::kError));
}

TEST(MemcachedText, value_over_the_limit_is_refused_and_its_block_discarded) {
  McLimits limits;
  limits.max_value_size = 10;
  const Parsed p = Text("set k 0 0 11\r\n", limits);
  ASSERT_EQ(p.result.status, McParseStatus::kRequest);
  EXPECT_EQ(p.request.command, McCommand::kInvalid);
  EXPECT_EQ(p.request.error, "SERVER_ERROR object too large for cache");
  EXPECT_EQ(p.request.error_status, McStatus::kValueTooLarge);  // counted as store_too_large
  EXPECT_EQ(p.request.store, McStoreMode::kSet);
  EXPECT_EQ(Strings(p.request.keys), (Strs{"k"}));
  EXPECT_EQ(p.result.consumed, 14u);
  EXPECT_EQ(p.result.discard, 13u);
  EXPECT_EQ(Text("set k 0 0 10\r\n0123456789\r\n", limits).request.command, McCommand::kStore);
}

TEST(MemcachedText, keys_hold_any_byte_but_space_cr_lf_and_nul_as_memcached_stores_them) {
  // memcaslap's keys begin with 0x10; memcached 1.6 takes tabs and DEL too.
  const std::string control("set \x10" "abc\x01\t\x7f\xff 0 0 1\r\nx\r\n");
  const Parsed set = Text(control);
  ASSERT_EQ(set.request.command, McCommand::kStore);
  EXPECT_EQ(Strings(set.request.keys), (Strs{"\x10" "abc\x01\t\x7f\xff"}));
  EXPECT_EQ(set.request.value, "x");
  const Parsed get = Text("get \x10k a\tb\r\n");
  EXPECT_EQ(Strings(get.request.keys), (Strs{"\x10k", "a\tb"}));
  EXPECT_EQ(Text("incr \x1bk 1\r\n").request.command, McCommand::kIncr);
  EXPECT_EQ(Text("mg \x10k v\r\n").request.command, McCommand::kMetaGet);
  EXPECT_EQ(ErrorOf(std::string("get a\0b\r\n", 10)), "CLIENT_ERROR bad command line format");
  EXPECT_EQ(ErrorOf("get a\rb\r\n"), "CLIENT_ERROR bad command line format");
}

TEST(MemcachedText, a_refused_key_of_a_storage_command_skips_its_data_block) {
  const std::string long_key(251, 'k');
  const Parsed p = Text("set " + long_key + " 0 0 3\r\nabc\r\n");
  ASSERT_EQ(p.result.status, McParseStatus::kRequest);
  EXPECT_EQ(p.request.error, "CLIENT_ERROR bad command line format");
  EXPECT_EQ(p.result.consumed, 4 + long_key.size() + 8);
  EXPECT_EQ(p.result.discard, 5u);
  const Parsed nul = Text(std::string("set a\0b 0 0 1 noreply\r\n", 23));
  EXPECT_EQ(nul.request.command, McCommand::kInvalid);
  EXPECT_EQ(nul.result.discard, 3u);
  // Without a data length there is no block to skip.
  EXPECT_EQ(Text("set " + long_key + " 0 0 x\r\n").result.discard, 0u);
}

// --- other commands ------------------------------------------------------------------

TEST(MemcachedText, incr_decr_take_a_64_bit_delta) {
  const Parsed incr = Text("incr n 18446744073709551615\r\n");
  EXPECT_EQ(incr.request.command, McCommand::kIncr);
  EXPECT_EQ(incr.request.delta, UINT64_MAX);
  EXPECT_FALSE(incr.request.decrement);
  const Parsed decr = Text("decr n 2 noreply\r\n");
  EXPECT_EQ(decr.request.command, McCommand::kDecr);
  EXPECT_TRUE(decr.request.decrement);
  EXPECT_TRUE(decr.request.noreply);
  EXPECT_EQ(ErrorOf("incr n -1\r\n"), "CLIENT_ERROR invalid numeric delta argument");
  EXPECT_EQ(ErrorOf("incr n 18446744073709551616\r\n"),
            "CLIENT_ERROR invalid numeric delta argument");
}

TEST(MemcachedText, touch_delete_verbosity_flush_all) {
  const Parsed touch = Text("touch k 60\r\n");
  EXPECT_EQ(touch.request.command, McCommand::kTouch);
  EXPECT_EQ(touch.request.exptime, 60);
  EXPECT_EQ(ErrorOf("touch k soon\r\n"), "CLIENT_ERROR invalid exptime argument");

  EXPECT_EQ(Text("delete k\r\n").request.command, McCommand::kDelete);
  EXPECT_EQ(Text("delete k 0\r\n").request.command, McCommand::kDelete);
  EXPECT_TRUE(Text("delete k noreply\r\n").request.noreply);
  EXPECT_TRUE(Text("delete k 0 noreply\r\n").request.noreply);
  EXPECT_EQ(ErrorOf("delete k 10\r\n"),
            "CLIENT_ERROR bad command line format.  Usage: delete <key> [noreply]");

  const Parsed verbosity = Text("verbosity 1 noreply\r\n");
  EXPECT_EQ(verbosity.request.command, McCommand::kVerbosity);
  EXPECT_EQ(verbosity.request.verbosity, 1u);
  EXPECT_EQ(ErrorOf("verbosity x\r\n"), "CLIENT_ERROR bad command line format");

  const Parsed flush = Text("flush_all\r\n");
  EXPECT_EQ(flush.request.command, McCommand::kFlushAll);
  EXPECT_FALSE(flush.request.has_exptime);
  const Parsed delayed = Text("flush_all 30 noreply\r\n");
  EXPECT_TRUE(delayed.request.has_exptime);
  EXPECT_EQ(delayed.request.exptime, 30);
  EXPECT_TRUE(delayed.request.noreply);
  EXPECT_FALSE(Text("flush_all noreply\r\n").request.has_exptime);
  EXPECT_EQ(ErrorOf("flush_all soon\r\n"), "CLIENT_ERROR invalid exptime argument");
}

TEST(MemcachedText, stats_version_quit) {
  const Parsed stats = Text("stats\r\n");
  EXPECT_EQ(stats.request.command, McCommand::kStats);
  EXPECT_EQ(stats.request.argument, "");
  EXPECT_EQ(Text("stats  items  x \r\n").request.argument, "items  x");
  EXPECT_EQ(Text("version\r\n").request.command, McCommand::kVersion);
  EXPECT_EQ(Text("quit\r\n").request.command, McCommand::kQuit);
}

// --- noreply -------------------------------------------------------------------------

TEST(MemcachedText, noreply_silences_every_answer_once_it_was_read) {
  const Parsed set = Text("set k 0 0 1 noreply\r\nx\r\n");
  EXPECT_FALSE(set.request.WantsAnswer(McOutcome::kSuccess));
  EXPECT_FALSE(set.request.WantsAnswer(McOutcome::kNotStored));
  // memcached had read noreply before it found the bad number: no answer.
  const Parsed bad = Text("set k x 0 1 noreply\r\n");
  EXPECT_EQ(bad.request.command, McCommand::kInvalid);
  EXPECT_FALSE(bad.request.WantsAnswer(McOutcome::kError));
  // A wrong token count is answered: noreply was never read.
  const Parsed count = Text("set k 0 noreply\r\n");
  EXPECT_EQ(count.request.error, "ERROR");
  EXPECT_TRUE(count.request.WantsAnswer(McOutcome::kError));
  EXPECT_TRUE(Text("get k\r\n").request.WantsAnswer(McOutcome::kMiss));
}

// --- framing -------------------------------------------------------------------------

TEST(MemcachedText, pipelined_requests_parse_one_after_another) {
  const std::string input =
      "set a 0 0 2\r\nxy\r\nget a b\r\nincr n 5\r\nbogus\r\ndelete a noreply\r\nmn\r\n";
  std::vector<McCommand> commands;
  for (const McRequest& r : mc_test::ParsePipeline(input, McProtocol::kText)) {
    commands.push_back(r.command);
  }
  EXPECT_EQ(commands, (std::vector<McCommand>{McCommand::kStore, McCommand::kGet,
                                              McCommand::kIncr, McCommand::kInvalid,
                                              McCommand::kDelete, McCommand::kMetaNoop}));
}

TEST(MemcachedText, a_reused_request_forgets_the_previous_one) {
  McRequest request;
  McLimits limits;
  ParseMcRequest("cas k 7 8 1 9 noreply\r\nx\r\n", McProtocol::kText, limits, &request);
  ParseMcRequest("get z\r\n", McProtocol::kText, limits, &request);
  EXPECT_EQ(Strings(request.keys), (Strs{"z"}));
  EXPECT_EQ(request.cas, 0u);
  EXPECT_EQ(request.flags, 0u);
  EXPECT_FALSE(request.noreply);
  EXPECT_EQ(request.value, "");
}

TEST(MemcachedText, a_line_over_the_limit_closes_the_connection) {
  const std::string long_line(2049, 'a');
  EXPECT_EQ(mc_test::ParseAll(long_line, McProtocol::kText).result.status, McParseStatus::kClose);
  EXPECT_EQ(mc_test::ParseAll(long_line + "\r\n", McProtocol::kText).result.status,
            McParseStatus::kClose);
  EXPECT_EQ(mc_test::ParseAll(std::string(2048, 'a'), McProtocol::kText).result.status,
            McParseStatus::kNeedMore);
  EXPECT_EQ(Text(std::string(2048, 'a') + "\n").request.error, "ERROR");
}

TEST(MemcachedText, a_long_multiget_is_allowed_up_to_its_own_limit) {
  std::string line = "get";
  while (line.size() < 5000) line += " key" + std::to_string(line.size());
  EXPECT_EQ(mc_test::ParseAll(line, McProtocol::kText).result.status, McParseStatus::kNeedMore);
  const Parsed p = mc_test::ParseAll(line + "\r\n", McProtocol::kText);
  EXPECT_EQ(p.request.command, McCommand::kGet);
  McLimits limits;
  limits.max_retrieval_line = 4096;
  EXPECT_EQ(mc_test::ParseAll(line, McProtocol::kText, limits).result.status,
            McParseStatus::kClose);
  EXPECT_EQ(mc_test::ParseAll(line + "\r\n", McProtocol::kText, limits).result.status,
            McParseStatus::kClose);
}

TEST(MemcachedText, a_long_set_line_is_closed_even_with_its_lf) {
  const std::string line = "set " + std::string(3000, 'k') + " 0 0 1\r\n";
  EXPECT_EQ(mc_test::ParseAll(line, McProtocol::kText).result.status, McParseStatus::kClose);
}

}  // namespace
}  // namespace rowsocket
