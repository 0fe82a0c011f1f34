// Tests for ParseMcRequest on the binary protocol: every opcode, quiet variants,
// extras, and headers whose lengths lie.
#include <gtest/gtest.h>

#include <string>

#include "memcached_test_util.h"
#include "protocol/memcached.h"

namespace rowsocket {
namespace {

using mc_test::Big;
using mc_test::Packet;
using mc_test::Parsed;
using mc_test::Strings;
using Strs = std::vector<std::string>;

Parsed Binary(std::string_view input, const McLimits& limits = {}) {
  return mc_test::ParseByteByByte(input, McProtocol::kBinary, limits);
}

TEST(MemcachedBinary, get_family) {
  const Parsed get = Binary(Packet(0x00, "", "foo", "", 0xdeadbeef));
  ASSERT_EQ(get.result.status, McParseStatus::kRequest);
  EXPECT_EQ(get.result.consumed, 27u);
  EXPECT_EQ(get.request.command, McCommand::kGet);
  EXPECT_EQ(get.request.framing, McFraming::kBinary);
  EXPECT_EQ(get.request.opaque, 0xdeadbeefu);
  EXPECT_EQ(get.request.opcode, 0x00);
  EXPECT_EQ(Strings(get.request.keys), (Strs{"foo"}));
  EXPECT_FALSE(get.request.noreply);
  EXPECT_FALSE(get.request.return_key);

  const Parsed getq = Binary(Packet(0x09, "", "k", ""));
  EXPECT_TRUE(getq.request.noreply);
  EXPECT_FALSE(getq.request.WantsAnswer(McOutcome::kMiss));
  EXPECT_TRUE(getq.request.WantsAnswer(McOutcome::kSuccess));
  EXPECT_TRUE(Binary(Packet(0x0c, "", "k", "")).request.return_key);
  const Parsed getkq = Binary(Packet(0x0d, "", "k", ""));
  EXPECT_TRUE(getkq.request.return_key && getkq.request.noreply);
}

TEST(MemcachedBinary, gat_and_touch_read_the_exptime_extras) {
  const Parsed gat = Binary(Packet(0x1d, Big(100, 4), "k", ""));
  EXPECT_EQ(gat.request.command, McCommand::kGat);
  EXPECT_EQ(gat.request.exptime, 100);
  EXPECT_TRUE(Binary(Packet(0x1e, Big(1, 4), "k", "")).request.noreply);
  EXPECT_TRUE(Binary(Packet(0x23, Big(1, 4), "k", "")).request.return_key);
  const Parsed touch = Binary(Packet(0x1c, Big(0xffffffff, 4), "k", ""));
  EXPECT_EQ(touch.request.command, McCommand::kTouch);
  EXPECT_EQ(touch.request.exptime, -1);
}

TEST(MemcachedBinary, storage_opcodes) {
  const Parsed set = Binary(Packet(0x01, Big(7, 4) + Big(60, 4), "key", "value", 1));
  ASSERT_EQ(set.request.command, McCommand::kStore);
  EXPECT_EQ(set.request.store, McStoreMode::kSet);
  EXPECT_EQ(set.request.flags, 7u);
  EXPECT_EQ(set.request.exptime, 60);
  EXPECT_EQ(set.request.value, "value");
  EXPECT_EQ(Strings(set.request.keys), (Strs{"key"}));
  const std::string extras = Big(0, 8);
  EXPECT_EQ(Binary(Packet(0x02, extras, "k", "v")).request.store, McStoreMode::kAdd);
  EXPECT_EQ(Binary(Packet(0x03, extras, "k", "v")).request.store, McStoreMode::kReplace);
  EXPECT_EQ(Binary(Packet(0x0e, "", "k", "v")).request.store, McStoreMode::kAppend);
  EXPECT_EQ(Binary(Packet(0x0f, "", "k", "v")).request.store, McStoreMode::kPrepend);
  for (uint8_t quiet : {0x11, 0x12, 0x13, 0x19, 0x1a}) {
    const bool has_extras = quiet <= 0x13;
    const Parsed q = Binary(Packet(quiet, has_extras ? extras : "", "k", "v"));
    EXPECT_EQ(q.request.command, McCommand::kStore) << int(quiet);
    EXPECT_FALSE(q.request.WantsAnswer(McOutcome::kSuccess));
    EXPECT_TRUE(q.request.WantsAnswer(McOutcome::kNotStored));
  }
  EXPECT_EQ(Binary(Packet(0x01, extras, "k", "", 0, 5)).request.store, McStoreMode::kCas);
  EXPECT_EQ(Binary(Packet(0x02, extras, "k", "", 0, 5)).request.store, McStoreMode::kCas);
  EXPECT_EQ(Binary(Packet(0x0e, "", "k", "", 0, 5)).request.store, McStoreMode::kAppend);
  EXPECT_EQ(Binary(Packet(0x01, extras, "k", "", 0, 5)).request.cas, 5u);
}

TEST(MemcachedBinary, delete_incr_decr) {
  EXPECT_EQ(Binary(Packet(0x04, "", "k", "")).request.command, McCommand::kDelete);
  EXPECT_TRUE(Binary(Packet(0x14, "", "k", "")).request.noreply);
  const Parsed incr = Binary(Packet(0x05, Big(3, 8) + Big(10, 8) + Big(0, 4), "n", ""));
  EXPECT_EQ(incr.request.command, McCommand::kIncr);
  EXPECT_EQ(incr.request.delta, 3u);
  EXPECT_EQ(incr.request.initial, 10u);
  EXPECT_TRUE(incr.request.vivify);
  const Parsed decr = Binary(Packet(0x16, Big(1, 8) + Big(0, 8) + Big(0xffffffff, 4), "n", ""));
  EXPECT_EQ(decr.request.command, McCommand::kDecr);
  EXPECT_TRUE(decr.request.decrement);
  EXPECT_FALSE(decr.request.vivify);
  EXPECT_TRUE(decr.request.noreply);
}

TEST(MemcachedBinary, keyless_opcodes) {
  EXPECT_EQ(Binary(Packet(0x07, "", "", "")).request.command, McCommand::kQuit);
  EXPECT_TRUE(Binary(Packet(0x17, "", "", "")).request.noreply);
  const Parsed flush = Binary(Packet(0x08, "", "", ""));
  EXPECT_EQ(flush.request.command, McCommand::kFlushAll);
  EXPECT_FALSE(flush.request.has_exptime);
  const Parsed delayed = Binary(Packet(0x18, Big(10, 4), "", ""));
  EXPECT_TRUE(delayed.request.has_exptime);
  EXPECT_EQ(delayed.request.exptime, 10);
  EXPECT_TRUE(delayed.request.noreply);
  EXPECT_EQ(Binary(Packet(0x0a, "", "", "")).request.command, McCommand::kNoop);
  EXPECT_EQ(Binary(Packet(0x0b, "", "", "")).request.command, McCommand::kVersion);
  const Parsed stat = Binary(Packet(0x10, "", "items", ""));
  EXPECT_EQ(stat.request.command, McCommand::kStats);
  EXPECT_EQ(stat.request.argument, "items");
  EXPECT_TRUE(stat.request.keys.empty());
  EXPECT_EQ(Binary(Packet(0x10, "", "", "")).request.argument, "");
  const Parsed verbosity = Binary(Packet(0x1b, Big(2, 4), "", ""));
  EXPECT_EQ(verbosity.request.command, McCommand::kVerbosity);
  EXPECT_EQ(verbosity.request.verbosity, 2u);
}

TEST(MemcachedBinary, sasl) {
  EXPECT_EQ(Binary(Packet(0x20, "", "", "")).request.command, McCommand::kSaslListMechs);
  const Parsed auth = Binary(Packet(0x21, "", "PLAIN", std::string("\0u\0p", 4)));
  EXPECT_EQ(auth.request.command, McCommand::kSaslAuth);
  EXPECT_EQ(auth.request.argument, "PLAIN");
  EXPECT_EQ(auth.request.value, std::string("\0u\0p", 4));
  EXPECT_EQ(Binary(Packet(0x22, "", "PLAIN", "x")).request.command, McCommand::kSaslStep);
  const Parsed big = Binary(Packet(0x21, "", "PLAIN", std::string(5000, 'x')));
  EXPECT_EQ(big.request.error_status, McStatus::kInvalidArguments);
  EXPECT_FALSE(big.request.close_after);
  EXPECT_EQ(big.result.consumed, 24u);
  EXPECT_EQ(big.result.discard, 5005u);
}

TEST(MemcachedBinary, unknown_opcode_is_answered_and_its_body_skipped) {
  const Parsed p = Binary(Packet(0x42, "ab", "key", "value", 9));
  ASSERT_EQ(p.result.status, McParseStatus::kRequest);
  EXPECT_EQ(p.request.command, McCommand::kInvalid);
  EXPECT_EQ(p.request.error_status, McStatus::kUnknownCommand);
  EXPECT_EQ(p.request.opcode, 0x42);
  EXPECT_EQ(p.request.opaque, 9u);
  EXPECT_FALSE(p.request.close_after);
  EXPECT_EQ(p.result.consumed, 24u);
  EXPECT_EQ(p.result.discard, 10u);
}

TEST(MemcachedBinary, wrong_magic_closes) {
  std::string p = Packet(0x00, "", "k", "");
  p[0] = static_cast<char>(0x81);
  EXPECT_EQ(mc_test::ParseAll(p, McProtocol::kBinary).result.status, McParseStatus::kClose);
}

// Lengths that do not fit the opcode: kInvalidArguments, then close.
void ExpectProtocolError(const std::string& packet) {
  const Parsed p = Binary(packet);
  ASSERT_EQ(p.result.status, McParseStatus::kRequest);
  EXPECT_EQ(p.request.command, McCommand::kInvalid);
  EXPECT_EQ(p.request.error_status, McStatus::kInvalidArguments);
  EXPECT_TRUE(p.request.close_after);
  EXPECT_TRUE(p.request.WantsAnswer(McOutcome::kError));
  EXPECT_EQ(p.result.consumed, 24u);
}

TEST(MemcachedBinary, header_lengths_that_lie) {
  ExpectProtocolError(Packet(0x00, "", "", ""));           // get without a key
  ExpectProtocolError(Packet(0x00, "", "k", "v"));         // get with a value
  ExpectProtocolError(Packet(0x00, "x", "k", ""));         // get with extras
  ExpectProtocolError(Packet(0x01, Big(0, 4), "k", "v"));  // set with short extras
  ExpectProtocolError(Packet(0x01, Big(0, 8), "", "v"));   // set without a key
  ExpectProtocolError(Packet(0x05, Big(0, 8), "n", ""));   // incr with short extras
  ExpectProtocolError(Packet(0x0a, "", "", "x"));          // noop with a body
  ExpectProtocolError(Packet(0x08, Big(0, 2), "", ""));    // flush with 2 extras
  ExpectProtocolError(Packet(0x1c, "", "k", ""));          // touch without extras
  ExpectProtocolError(Packet(0x09, "", std::string(251, 'k'), ""));  // key too long
  ExpectProtocolError(Packet(0x21, "", "", "x"));          // SASL without a mechanism
  // A body shorter than its key and extras.
  std::string lying = Packet(0x00, "", "key", "");
  lying[11] = 2;  // body length 2 < key length 3
  ExpectProtocolError(lying);
  std::string huge_key = Packet(0x00, "", "k", "");
  huge_key[2] = static_cast<char>(0xff);
  ExpectProtocolError(huge_key);
}

TEST(MemcachedBinary, a_value_over_the_limit_is_refused_after_its_key) {
  McLimits limits;
  limits.max_value_size = 4;
  const Parsed p = Binary(Packet(0x11, Big(0, 8), "key", "12345"), limits);
  ASSERT_EQ(p.result.status, McParseStatus::kRequest);
  EXPECT_EQ(p.request.error_status, McStatus::kValueTooLarge);
  EXPECT_EQ(Strings(p.request.keys), (Strs{"key"}));
  EXPECT_EQ(p.request.store, McStoreMode::kSet);
  EXPECT_EQ(p.result.consumed, 24u + 8 + 3);
  EXPECT_EQ(p.result.discard, 5u);
  EXPECT_TRUE(p.request.WantsAnswer(McOutcome::kError));  // quiet, but an error
  EXPECT_EQ(Binary(Packet(0x01, Big(0, 8), "key", "1234"), limits).request.command,
            McCommand::kStore);
}

TEST(MemcachedBinary, key_may_hold_any_byte) {
  const std::string key("a b\0\r\n", 6);
  EXPECT_EQ(Binary(Packet(0x00, "", key, "")).request.keys.at(0), key);
}

TEST(MemcachedBinary, pipelined_quiet_gets_end_with_noop) {
  const std::string input = Packet(0x0d, "", "a", "", 1) + Packet(0x0d, "", "bb", "", 2) +
                            Packet(0x0a, "", "", "", 3);
  std::vector<uint32_t> opaques;
  for (const McRequest& r : mc_test::ParsePipeline(input, McProtocol::kBinary)) {
    opaques.push_back(r.opaque);
  }
  EXPECT_EQ(opaques, (std::vector<uint32_t>{1, 2, 3}));
}

}  // namespace
}  // namespace rowsocket
