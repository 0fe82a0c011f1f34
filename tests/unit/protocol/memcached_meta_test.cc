// Tests for ParseMcRequest on meta commands (mg ms md ma mn me): flags and their
// arguments, modes, q semantics, and memcached's error answers.
#include <gtest/gtest.h>

#include <string>

#include "memcached_test_util.h"
#include "protocol/memcached.h"

namespace rowsocket {
namespace {

using mc_test::Parsed;
using mc_test::Strings;
using Strs = std::vector<std::string>;

Parsed Meta(std::string_view input) {
  return mc_test::ParseByteByByte(input, McProtocol::kText);
}

std::string ErrorOf(std::string_view input) {
  const Parsed p = Meta(input);
  return p.request.command == McCommand::kInvalid ? std::string(p.request.error) : "";
}

TEST(MemcachedMeta, mg_with_return_flags_keeps_their_order) {
  const Parsed p = Meta("mg foo s v t f c k Oab12 q\r\n");
  ASSERT_EQ(p.request.command, McCommand::kMetaGet);
  EXPECT_EQ(p.request.framing, McFraming::kMeta);
  EXPECT_EQ(Strings(p.request.keys), (Strs{"foo"}));
  EXPECT_EQ(std::string(p.request.meta.order, p.request.meta.count), "svtfckOq");
  EXPECT_TRUE(p.request.meta.Has('v'));
  EXPECT_FALSE(p.request.meta.Has('h'));
  EXPECT_EQ(p.request.meta.opaque, "Oab12");
  EXPECT_TRUE(p.request.return_key);
  EXPECT_TRUE(p.request.noreply);
}

TEST(MemcachedMeta, mg_flags_with_arguments) {
  const Parsed p = Meta("mg foo T30 N60 R10 E77\r\n");
  EXPECT_EQ(p.request.exptime, 30);
  EXPECT_TRUE(p.request.has_exptime);
  EXPECT_TRUE(p.request.vivify);
  EXPECT_EQ(p.request.vivify_exptime, 60);
  EXPECT_EQ(p.request.recache_exptime, 10);
  EXPECT_EQ(p.request.new_cas, 77u);
}

TEST(MemcachedMeta, ms_reads_its_data_block_and_modes) {
  const Parsed p = Meta("ms foo 3 F5 T60 c\r\nbar\r\n");
  ASSERT_EQ(p.request.command, McCommand::kMetaSet);
  EXPECT_EQ(p.request.store, McStoreMode::kSet);
  EXPECT_EQ(p.request.value, "bar");
  EXPECT_EQ(p.request.flags, 5u);
  EXPECT_EQ(p.request.exptime, 60);
  EXPECT_EQ(p.result.consumed, 24u);
  EXPECT_EQ(Meta("ms k 1 ME\r\nx\r\n").request.store, McStoreMode::kAdd);
  EXPECT_EQ(Meta("ms k 1 MA\r\nx\r\n").request.store, McStoreMode::kAppend);
  EXPECT_EQ(Meta("ms k 1 MP\r\nx\r\n").request.store, McStoreMode::kPrepend);
  EXPECT_EQ(Meta("ms k 1 MR\r\nx\r\n").request.store, McStoreMode::kReplace);
  EXPECT_EQ(Meta("ms k 1 MS\r\nx\r\n").request.store, McStoreMode::kSet);
  const Parsed cas = Meta("ms k 1 C42\r\nx\r\n");
  EXPECT_EQ(cas.request.store, McStoreMode::kCas);
  EXPECT_EQ(cas.request.cas, 42u);
  EXPECT_EQ(Meta("ms k 1 MA C42\r\nx\r\n").request.store, McStoreMode::kAppend);
}

TEST(MemcachedMeta, ms_errors_after_the_length_skip_the_data_block) {
  const Parsed mode = Meta("ms k 3 MX\r\n");
  EXPECT_EQ(mode.request.error, "CLIENT_ERROR invalid mode for ms M token");
  EXPECT_EQ(mode.result.consumed, 11u);
  EXPECT_EQ(mode.result.discard, 5u);
  const Parsed flag = Meta("ms k 3 Z\r\n");
  EXPECT_EQ(flag.request.error, "CLIENT_ERROR invalid flag");
  EXPECT_EQ(flag.result.discard, 5u);
  const Parsed chunk = Meta("ms k 3 q\r\nabcde");
  EXPECT_EQ(chunk.request.error, "CLIENT_ERROR bad data chunk");
  EXPECT_TRUE(chunk.request.WantsAnswer(McOutcome::kError));  // meta errors always go out
  EXPECT_EQ(ErrorOf("ms k\r\n"), "CLIENT_ERROR bad command line format");
  EXPECT_EQ(ErrorOf("ms k x\r\n"), "CLIENT_ERROR bad command line format");
  EXPECT_EQ(Meta("ms k x\r\n").result.discard, 0u);
}

TEST(MemcachedMeta, md_and_ma) {
  const Parsed md = Meta("md foo C9 q k\r\n");
  EXPECT_EQ(md.request.command, McCommand::kMetaDelete);
  EXPECT_EQ(md.request.cas, 9u);
  const Parsed ma = Meta("ma n D5 J10 N0 MD v\r\n");
  EXPECT_EQ(ma.request.command, McCommand::kMetaArithmetic);
  EXPECT_TRUE(ma.request.decrement);
  EXPECT_EQ(ma.request.delta, 5u);
  EXPECT_EQ(ma.request.initial, 10u);
  EXPECT_TRUE(ma.request.vivify);
  const Parsed plain = Meta("ma n\r\n");
  EXPECT_FALSE(plain.request.decrement);
  EXPECT_EQ(plain.request.delta, 1u);
  EXPECT_TRUE(Meta("ma n M-\r\n").request.decrement);
  EXPECT_FALSE(Meta("ma n M+\r\n").request.decrement);
  EXPECT_EQ(ErrorOf("ma n MX\r\n"), "CLIENT_ERROR invalid mode for ma M token");
  EXPECT_EQ(ErrorOf("ma n Dx\r\n"), "CLIENT_ERROR invalid or duplicate flag");
  EXPECT_EQ(ErrorOf("md n v v\r\n"), "CLIENT_ERROR invalid or duplicate flag");
}

TEST(MemcachedMeta, mn_and_me) {
  EXPECT_EQ(Meta("mn\r\n").request.command, McCommand::kMetaNoop);
  const Parsed me = Meta("me foo\r\n");
  EXPECT_EQ(me.request.command, McCommand::kMetaDebug);
  EXPECT_EQ(Strings(me.request.keys), (Strs{"foo"}));
}

TEST(MemcachedMeta, base64_keys_stand_for_any_bytes) {
  const Parsed mg = Meta("mg AAF+/w== b v\r\n");
  EXPECT_EQ(mg.request.command, McCommand::kMetaGet);
  EXPECT_EQ(Strings(mg.request.keys), (Strs{std::string("\0\x01\x7e\xff", 4)}));
  const Parsed ms = Meta("ms Zm9vYg== 2 b T0\r\nhi\r\n");
  EXPECT_EQ(ms.request.command, McCommand::kMetaSet);
  EXPECT_EQ(Strings(ms.request.keys), (Strs{"foob"}));
  EXPECT_EQ(ms.request.value, "hi");
  Parsed me = Meta("me Zm9vYmE= b\r\n");
  EXPECT_EQ(me.request.command, McCommand::kMetaDebug);
  EXPECT_EQ(Strings(me.request.keys), (Strs{"fooba"}));
  // The key's bytes stay where keys[0] points when the request moves.
  McRequest moved = std::move(me.request);
  EXPECT_EQ(moved.keys[0], "fooba");
  // A bad key in ms still skips its data block.
  EXPECT_EQ(ErrorOf("ms %%%% 2 b\r\nhi\r\n"), "CLIENT_ERROR error decoding key");
}

TEST(MemcachedMeta, base64_round_trips_every_length) {
  std::string bytes;
  for (int n = 0; n < 300; ++n) {
    std::string text, back;
    McBase64Encode(bytes, &text);
    EXPECT_EQ(text.size() % 4, 0u);
    ASSERT_TRUE(McBase64Decode(text, &back)) << text;
    EXPECT_EQ(back, bytes);
    bytes.push_back(static_cast<char>(n * 37));
  }
  std::string out = "x";
  EXPECT_FALSE(McBase64Decode("Zm9", &out));
  EXPECT_FALSE(McBase64Decode("Zm=v", &out));
  EXPECT_FALSE(McBase64Decode("Z===", &out));
  EXPECT_FALSE(McBase64Decode("Zm9v\n", &out));
  EXPECT_EQ(out, "x");
}

TEST(MemcachedMeta, flag_errors) {
  EXPECT_EQ(ErrorOf("mg\r\n"), "ERROR");
  EXPECT_EQ(ErrorOf("mz foo\r\n"), "ERROR");
  EXPECT_EQ(ErrorOf("mg foo v v\r\n"), "CLIENT_ERROR duplicate flag");
  EXPECT_EQ(ErrorOf("mg foo Z\r\n"), "CLIENT_ERROR invalid flag");
  EXPECT_EQ(ErrorOf("mg foo Tx\r\n"), "CLIENT_ERROR bad token in command line format");
  EXPECT_EQ(ErrorOf("mg foo N\r\n"), "CLIENT_ERROR bad token in command line format");
  EXPECT_EQ(ErrorOf("ms foo 1 Fx\r\n"), "CLIENT_ERROR bad command line format");
  EXPECT_EQ(ErrorOf("ma foo MDD\r\n"), "CLIENT_ERROR invalid or duplicate flag");
  EXPECT_EQ(ErrorOf("mg foo O" + std::string(32, 'o') + "\r\n"),
            "CLIENT_ERROR opaque token too long");
  EXPECT_EQ(ErrorOf("mg foo O" + std::string(31, 'o') + "\r\n"), "");
  EXPECT_EQ(ErrorOf("mg " + std::string(251, 'k') + " v\r\n"),
            "CLIENT_ERROR bad command line format");
  EXPECT_EQ(ErrorOf("mg foo b\r\n"), "CLIENT_ERROR error decoding key");
  EXPECT_EQ(ErrorOf("mg Zm9v= b\r\n"), "CLIENT_ERROR error decoding key");
  EXPECT_EQ(ErrorOf("mg Zm9v bx\r\n"), "CLIENT_ERROR bad token in command line format");
  EXPECT_EQ(ErrorOf("mg foo s t v c f h l k u q O1 T1 N1 R1 E1 I x P\r\n"),
            "CLIENT_ERROR options flags are too long");
  EXPECT_EQ(ErrorOf("mg foo s t v c f h l k u q O1 T1 N1 R1 E1 I x\r\n"), "");
}

TEST(MemcachedMeta, q_silences_en_for_mg_and_success_for_the_others) {
  const Parsed mg = Meta("mg foo v q\r\n");
  EXPECT_FALSE(mg.request.WantsAnswer(McOutcome::kMiss));
  EXPECT_TRUE(mg.request.WantsAnswer(McOutcome::kSuccess));
  const Parsed ms = Meta("ms foo 1 q\r\nx\r\n");
  EXPECT_FALSE(ms.request.WantsAnswer(McOutcome::kSuccess));
  EXPECT_TRUE(ms.request.WantsAnswer(McOutcome::kNotStored));
  EXPECT_TRUE(ms.request.WantsAnswer(McOutcome::kExists));
  const Parsed md = Meta("md foo q\r\n");
  EXPECT_FALSE(md.request.WantsAnswer(McOutcome::kSuccess));
  EXPECT_TRUE(md.request.WantsAnswer(McOutcome::kMiss));
  EXPECT_TRUE(Meta("mg foo v\r\n").request.WantsAnswer(McOutcome::kMiss));
}

}  // namespace
}  // namespace rowsocket
