// Tests for memcached's answers, command by command: for each command of each framing
// (text, meta, binary), parsed from its wire bytes, the exact bytes McTextWriter and
// McBinaryWriter write for every outcome it can have (hit, miss, stored, not stored,
// exists, not found, deleted, touched, a number, an error), and which outcomes its
// noreply, meta q or quiet opcode silences (McRequest::WantsAnswer).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "memcached_test_util.h"
#include "protocol/memcached.h"
#include "protocol/memcached_response.h"

namespace rowsocket {
namespace {

using mc_test::Big;
using mc_test::Packet;
using mc_test::Parsed;

constexpr McOutcome kEveryOutcome[] = {McOutcome::kSuccess, McOutcome::kMiss,
                                       McOutcome::kNotStored, McOutcome::kExists,
                                       McOutcome::kError};

Parsed Text(std::string_view wire) {
  Parsed p = mc_test::ParseAll(wire, McProtocol::kText);
  EXPECT_EQ(p.result.status, McParseStatus::kRequest) << wire;
  return p;
}

Parsed Binary(std::string_view wire) {
  Parsed p = mc_test::ParseAll(wire, McProtocol::kBinary);
  EXPECT_EQ(p.result.status, McParseStatus::kRequest);
  EXPECT_EQ(p.request.framing, McFraming::kBinary);
  return p;
}

// A binary response packet, built field by field from the protocol's header layout.
std::string Response(uint8_t opcode, McStatus status, uint32_t opaque, uint64_t cas,
                     std::string_view extras, std::string_view key, std::string_view value) {
  std::string p;
  p.push_back(static_cast<char>(0x81));
  p.push_back(static_cast<char>(opcode));
  p += Big(key.size(), 2);
  p.push_back(static_cast<char>(extras.size()));
  p.push_back('\0');
  p += Big(static_cast<uint16_t>(status), 2);
  p += Big(extras.size() + key.size() + value.size(), 4);
  p += Big(opaque, 4);
  p += Big(cas, 8);
  p.append(extras);
  p.append(key);
  p.append(value);
  return p;
}

template <typename Write>
std::string TextAnswer(Write write) {
  std::string out;
  McTextWriter w(&out);
  write(w);
  return out;
}

template <typename Write>
std::string BinaryAnswer(Write write) {
  std::string out;
  McBinaryWriter w(&out);
  write(w);
  return out;
}

// --- text ----------------------------------------------------------------------------

TEST(MemcachedTextAnswers, get_hit_is_value_then_end_and_miss_is_end_alone) {
  const Parsed get = Text("get a b\r\n");
  ASSERT_EQ(get.request.command, McCommand::kGet);
  EXPECT_EQ(TextAnswer([&](McTextWriter& w) {
              w.Value(get.request.keys[1], 7, "xyz");
              w.Reply(McTextReply::kEnd);
            }),
            "VALUE b 7 3\r\nxyz\r\nEND\r\n");
  EXPECT_EQ(TextAnswer([](McTextWriter& w) { w.Reply(McTextReply::kEnd); }), "END\r\n");
  for (McOutcome outcome : kEveryOutcome) EXPECT_TRUE(get.request.WantsAnswer(outcome));
}

TEST(MemcachedTextAnswers, gets_gat_and_gats_hits_carry_the_cas_only_for_gets_and_gats) {
  const Parsed gets = Text("gets k\r\n");
  const Parsed gat = Text("gat 30 k\r\n");
  const Parsed gats = Text("gats 30 k\r\n");
  EXPECT_EQ(gets.request.command, McCommand::kGets);
  EXPECT_EQ(gat.request.command, McCommand::kGat);
  EXPECT_EQ(gats.request.command, McCommand::kGats);
  EXPECT_EQ(TextAnswer([&](McTextWriter& w) { w.ValueWithCas(gets.request.keys[0], 0, "v", 42); }),
            "VALUE k 0 1 42\r\nv\r\n");
  EXPECT_EQ(TextAnswer([&](McTextWriter& w) { w.Value(gat.request.keys[0], 1, "v"); }),
            "VALUE k 1 1\r\nv\r\n");
  EXPECT_EQ(TextAnswer([&](McTextWriter& w) { w.ValueWithCas(gats.request.keys[0], 1, "", 7); }),
            "VALUE k 1 0 7\r\n\r\n");
}

TEST(MemcachedTextAnswers, storage_commands_answer_stored_not_stored_exists_not_found) {
  struct Case {
    const char* wire;
    McStoreMode mode;
  };
  for (const Case& c : {Case{"set k 0 0 1\r\nx\r\n", McStoreMode::kSet},
                        Case{"add k 0 0 1\r\nx\r\n", McStoreMode::kAdd},
                        Case{"replace k 0 0 1\r\nx\r\n", McStoreMode::kReplace},
                        Case{"append k 0 0 1\r\nx\r\n", McStoreMode::kAppend},
                        Case{"prepend k 0 0 1\r\nx\r\n", McStoreMode::kPrepend},
                        Case{"cas k 0 0 1 9\r\nx\r\n", McStoreMode::kCas}}) {
    const Parsed p = Text(c.wire);
    EXPECT_EQ(p.request.command, McCommand::kStore) << c.wire;
    EXPECT_EQ(p.request.store, c.mode) << c.wire;
    for (McOutcome outcome : kEveryOutcome) EXPECT_TRUE(p.request.WantsAnswer(outcome)) << c.wire;
  }
  EXPECT_EQ(TextAnswer([](McTextWriter& w) { w.Reply(McTextReply::kStored); }), "STORED\r\n");
  EXPECT_EQ(TextAnswer([](McTextWriter& w) { w.Reply(McTextReply::kNotStored); }),
            "NOT_STORED\r\n");
  EXPECT_EQ(TextAnswer([](McTextWriter& w) { w.Reply(McTextReply::kExists); }), "EXISTS\r\n");
  EXPECT_EQ(TextAnswer([](McTextWriter& w) { w.Reply(McTextReply::kNotFound); }),
            "NOT_FOUND\r\n");
}

TEST(MemcachedTextAnswers, delete_answers_deleted_or_not_found) {
  EXPECT_EQ(Text("delete k\r\n").request.command, McCommand::kDelete);
  EXPECT_EQ(TextAnswer([](McTextWriter& w) { w.Reply(McTextReply::kDeleted); }), "DELETED\r\n");
  EXPECT_EQ(TextAnswer([](McTextWriter& w) { w.Reply(McTextReply::kNotFound); }),
            "NOT_FOUND\r\n");
}

TEST(MemcachedTextAnswers, touch_answers_touched_or_not_found) {
  const Parsed touch = Text("touch k 10\r\n");
  EXPECT_EQ(touch.request.command, McCommand::kTouch);
  EXPECT_EQ(touch.request.exptime, 10);
  EXPECT_EQ(TextAnswer([](McTextWriter& w) { w.Reply(McTextReply::kTouched); }), "TOUCHED\r\n");
  EXPECT_EQ(TextAnswer([](McTextWriter& w) { w.Reply(McTextReply::kNotFound); }),
            "NOT_FOUND\r\n");
}

TEST(MemcachedTextAnswers, incr_decr_answer_the_new_number_not_found_or_non_numeric_error) {
  const Parsed incr = Text("incr k 5\r\n");
  const Parsed decr = Text("decr k 5\r\n");
  EXPECT_EQ(incr.request.command, McCommand::kIncr);
  EXPECT_EQ(decr.request.command, McCommand::kDecr);
  EXPECT_EQ(incr.request.delta, 5u);
  const McDeltaResult sum = McApplyDelta("10", false, incr.request.delta);
  const McDeltaResult difference = McApplyDelta("3", true, decr.request.delta);
  EXPECT_EQ(TextAnswer([&](McTextWriter& w) { w.Number(sum.value); }), "15\r\n");
  EXPECT_EQ(TextAnswer([&](McTextWriter& w) { w.Number(difference.value); }), "0\r\n");
  EXPECT_EQ(TextAnswer([](McTextWriter& w) { w.Reply(McTextReply::kNotFound); }),
            "NOT_FOUND\r\n");
  EXPECT_FALSE(McApplyDelta("abc", false, 1).numeric);
  EXPECT_EQ(TextAnswer([](McTextWriter& w) { w.Line(kMcNonNumericError); }),
            "CLIENT_ERROR cannot increment or decrement non-numeric value\r\n");
}

TEST(MemcachedTextAnswers, noreply_silences_every_outcome_of_every_command_errors_included) {
  for (const char* wire :
       {"set k 0 0 1 noreply\r\nx\r\n", "add k 0 0 1 noreply\r\nx\r\n",
        "replace k 0 0 1 noreply\r\nx\r\n", "append k 0 0 1 noreply\r\nx\r\n",
        "prepend k 0 0 1 noreply\r\nx\r\n", "cas k 0 0 1 9 noreply\r\nx\r\n",
        "delete k noreply\r\n", "incr k 1 noreply\r\n", "decr k 1 noreply\r\n",
        "touch k 10 noreply\r\n"}) {
    const Parsed p = Text(wire);
    EXPECT_NE(p.request.command, McCommand::kInvalid) << wire;
    EXPECT_TRUE(p.request.noreply) << wire;
    for (McOutcome outcome : kEveryOutcome) EXPECT_FALSE(p.request.WantsAnswer(outcome)) << wire;
  }
}

TEST(MemcachedTextAnswers, malformed_requests_answer_their_error_line) {
  struct Case {
    const char* wire;
    const char* answer;
  };
  for (const Case& c :
       {Case{"bogus\r\n", "ERROR\r\n"},
        Case{"set k 0 0 x\r\n", "CLIENT_ERROR bad command line format\r\n"},
        Case{"incr k x\r\n", "CLIENT_ERROR invalid numeric delta argument\r\n"}}) {
    const Parsed p = Text(c.wire);
    ASSERT_EQ(p.request.command, McCommand::kInvalid) << c.wire;
    EXPECT_TRUE(p.request.WantsAnswer(McOutcome::kError)) << c.wire;
    EXPECT_EQ(TextAnswer([&](McTextWriter& w) { w.Line(p.request.error); }), c.answer);
  }
  EXPECT_EQ(TextAnswer([](McTextWriter& w) { w.ServerError("out of memory"); }),
            "SERVER_ERROR out of memory\r\n");
}

// --- meta ----------------------------------------------------------------------------

TEST(MemcachedMetaAnswers, mg_hit_with_v_is_va_without_v_is_hd_and_miss_is_en) {
  const Parsed with_value = Text("mg k v f\r\n");
  const Parsed without_value = Text("mg k f\r\n");
  ASSERT_EQ(with_value.request.framing, McFraming::kMeta);
  McMetaItem item;
  item.flags = 4;
  EXPECT_EQ(TextAnswer([&](McTextWriter& w) { w.MetaValue(with_value.request, item, "abc"); }),
            "VA 3 f4\r\nabc\r\n");
  EXPECT_EQ(TextAnswer([&](McTextWriter& w) { w.MetaStatus("HD", without_value.request, &item); }),
            "HD f4\r\n");
  EXPECT_EQ(TextAnswer([&](McTextWriter& w) { w.MetaStatus("EN", with_value.request, nullptr); }),
            "EN\r\n");
}

TEST(MemcachedMetaAnswers, mg_q_silences_the_miss_but_not_the_hit_or_an_error) {
  const Parsed quiet = Text("mg k v q\r\n");
  EXPECT_FALSE(quiet.request.WantsAnswer(McOutcome::kMiss));
  EXPECT_TRUE(quiet.request.WantsAnswer(McOutcome::kSuccess));
  EXPECT_TRUE(quiet.request.WantsAnswer(McOutcome::kError));
}

TEST(MemcachedMetaAnswers, ms_answers_hd_ns_ex_nf_and_q_silences_only_hd) {
  const Parsed ms = Text("ms k 1 c\r\nx\r\n");
  const Parsed cas = Text("ms k 1 C5 q\r\nx\r\n");
  ASSERT_EQ(ms.request.command, McCommand::kMetaSet);
  EXPECT_EQ(cas.request.store, McStoreMode::kCas);
  McMetaItem item;
  item.cas = 11;
  EXPECT_EQ(TextAnswer([&](McTextWriter& w) { w.MetaStatus("HD", ms.request, &item); }),
            "HD c11\r\n");
  EXPECT_EQ(TextAnswer([&](McTextWriter& w) {
              w.MetaStatus("NS", ms.request, nullptr);
              w.MetaStatus("EX", cas.request, nullptr);
              w.MetaStatus("NF", cas.request, nullptr);
            }),
            "NS\r\nEX\r\nNF\r\n");
  EXPECT_FALSE(cas.request.WantsAnswer(McOutcome::kSuccess));
  EXPECT_TRUE(cas.request.WantsAnswer(McOutcome::kNotStored));
  EXPECT_TRUE(cas.request.WantsAnswer(McOutcome::kExists));
  EXPECT_TRUE(cas.request.WantsAnswer(McOutcome::kMiss));
  EXPECT_TRUE(cas.request.WantsAnswer(McOutcome::kError));
}

TEST(MemcachedMetaAnswers, md_answers_hd_nf_ex_and_q_silences_only_hd) {
  const Parsed md = Text("md k q k\r\n");
  ASSERT_EQ(md.request.command, McCommand::kMetaDelete);
  EXPECT_EQ(TextAnswer([&](McTextWriter& w) {
              McMetaItem item;
              w.MetaStatus("HD", md.request, &item);
              w.MetaStatus("NF", md.request, nullptr);
              w.MetaStatus("EX", md.request, nullptr);
            }),
            "HD kk\r\nNF kk\r\nEX kk\r\n");
  EXPECT_FALSE(md.request.WantsAnswer(McOutcome::kSuccess));
  EXPECT_TRUE(md.request.WantsAnswer(McOutcome::kMiss));
  EXPECT_TRUE(md.request.WantsAnswer(McOutcome::kExists));
}

TEST(MemcachedMetaAnswers, ma_answers_hd_or_the_number_as_va_nf_ns_ex_and_q_silences_only_hd) {
  const Parsed ma = Text("ma k\r\n");
  const Parsed with_value = Text("ma k v MD D2 q\r\n");
  ASSERT_EQ(ma.request.command, McCommand::kMetaArithmetic);
  EXPECT_TRUE(with_value.request.decrement);
  EXPECT_EQ(with_value.request.delta, 2u);
  const McDeltaResult result = McApplyDelta("10", true, with_value.request.delta);
  McMetaItem item;
  EXPECT_EQ(TextAnswer([&](McTextWriter& w) {
              w.MetaStatus("HD", ma.request, &item);
              w.MetaValue(with_value.request, item, result.text());
              w.MetaStatus("NF", ma.request, nullptr);
              w.MetaStatus("NS", ma.request, nullptr);
              w.MetaStatus("EX", ma.request, nullptr);
            }),
            "HD\r\nVA 1\r\n8\r\nNF\r\nNS\r\nEX\r\n");
  EXPECT_FALSE(with_value.request.WantsAnswer(McOutcome::kSuccess));
  EXPECT_TRUE(with_value.request.WantsAnswer(McOutcome::kMiss));
  EXPECT_TRUE(with_value.request.WantsAnswer(McOutcome::kError));
}

TEST(MemcachedMetaAnswers, mn_is_mn_and_me_hit_is_me_miss_is_en) {
  EXPECT_EQ(Text("mn\r\n").request.command, McCommand::kMetaNoop);
  const Parsed me = Text("me k\r\n");
  ASSERT_EQ(me.request.command, McCommand::kMetaDebug);
  EXPECT_EQ(TextAnswer([](McTextWriter& w) { w.MetaNoop(); }), "MN\r\n");
  EXPECT_EQ(TextAnswer([&](McTextWriter& w) { w.MetaDebug(me.request, "exp=-1 la=0"); }),
            "ME k exp=-1 la=0\r\n");
  EXPECT_EQ(TextAnswer([&](McTextWriter& w) { w.MetaStatus("EN", me.request, nullptr); }),
            "EN\r\n");
}

TEST(MemcachedMetaAnswers, a_malformed_meta_request_with_q_still_answers_its_error) {
  const Parsed bad = Text("mg k q T9x\r\n");
  ASSERT_EQ(bad.request.command, McCommand::kInvalid);
  EXPECT_TRUE(bad.request.noreply);
  EXPECT_TRUE(bad.request.WantsAnswer(McOutcome::kError));
  EXPECT_EQ(TextAnswer([&](McTextWriter& w) { w.Line(bad.request.error); }),
            "CLIENT_ERROR bad token in command line format\r\n");
}

// --- binary --------------------------------------------------------------------------

TEST(MemcachedBinaryAnswers, get_family_hits_carry_flags_and_key_only_for_the_k_opcodes) {
  struct Case {
    uint8_t opcode;
    bool with_key;
  };
  for (const Case& c : {Case{0x00, false}, Case{0x09, false}, Case{0x0c, true},
                        Case{0x0d, true}}) {
    const Parsed p = Binary(Packet(c.opcode, "", "key", "", 21));
    EXPECT_EQ(p.request.command, McCommand::kGet);
    EXPECT_EQ(BinaryAnswer([&](McBinaryWriter& w) { w.Hit(p.request, 0x0a0b0c0d, 99, "val"); }),
              Response(c.opcode, McStatus::kOk, 21, 99, "\x0a\x0b\x0c\x0d",
                       c.with_key ? "key" : "", "val"))
        << int{c.opcode};
  }
}

TEST(MemcachedBinaryAnswers, get_family_misses_say_not_found_or_echo_the_key) {
  const Parsed get = Binary(Packet(0x00, "", "key", "", 3));
  const Parsed getk = Binary(Packet(0x0c, "", "key", "", 4));
  EXPECT_EQ(BinaryAnswer([&](McBinaryWriter& w) { w.Miss(get.request); }),
            Response(0x00, McStatus::kKeyNotFound, 3, 0, "", "", "Not found"));
  EXPECT_EQ(BinaryAnswer([&](McBinaryWriter& w) { w.Miss(getk.request); }),
            Response(0x0c, McStatus::kKeyNotFound, 4, 0, "", "key", ""));
}

TEST(MemcachedBinaryAnswers, quiet_gets_silence_the_miss_but_not_the_hit_or_an_error) {
  for (uint8_t opcode : {0x09, 0x0d}) {
    const Parsed p = Binary(Packet(opcode, "", "key", ""));
    EXPECT_FALSE(p.request.WantsAnswer(McOutcome::kMiss)) << int{opcode};
    EXPECT_TRUE(p.request.WantsAnswer(McOutcome::kSuccess)) << int{opcode};
    EXPECT_TRUE(p.request.WantsAnswer(McOutcome::kError)) << int{opcode};
  }
  for (uint8_t opcode : {0x00, 0x0c}) {
    const Parsed p = Binary(Packet(opcode, "", "key", ""));
    for (McOutcome outcome : kEveryOutcome) EXPECT_TRUE(p.request.WantsAnswer(outcome));
  }
}

TEST(MemcachedBinaryAnswers, gat_hits_answer_as_gets_do_and_gatq_silences_the_miss) {
  const Parsed gat = Binary(Packet(0x1d, Big(30, 4), "key", "", 8));
  const Parsed gatk = Binary(Packet(0x23, Big(30, 4), "key", "", 9));
  const Parsed gatq = Binary(Packet(0x1e, Big(30, 4), "key", ""));
  EXPECT_EQ(gat.request.command, McCommand::kGat);
  EXPECT_EQ(gat.request.exptime, 30);
  EXPECT_EQ(BinaryAnswer([&](McBinaryWriter& w) { w.Hit(gat.request, 1, 2, "v"); }),
            Response(0x1d, McStatus::kOk, 8, 2, Big(1, 4), "", "v"));
  EXPECT_EQ(BinaryAnswer([&](McBinaryWriter& w) { w.Hit(gatk.request, 1, 2, "v"); }),
            Response(0x23, McStatus::kOk, 9, 2, Big(1, 4), "key", "v"));
  EXPECT_FALSE(gatq.request.WantsAnswer(McOutcome::kMiss));
  EXPECT_TRUE(gatq.request.WantsAnswer(McOutcome::kSuccess));
}

TEST(MemcachedBinaryAnswers, storage_success_carries_the_new_cas_and_failures_their_status) {
  const std::string extras = Big(5, 4) + Big(0, 4);  // flags, exptime
  struct Case {
    uint8_t opcode;
    McStoreMode mode;
  };
  for (const Case& c : {Case{0x01, McStoreMode::kSet}, Case{0x02, McStoreMode::kAdd},
                        Case{0x03, McStoreMode::kReplace}, Case{0x0e, McStoreMode::kAppend},
                        Case{0x0f, McStoreMode::kPrepend}}) {
    const bool has_extras = c.mode != McStoreMode::kAppend && c.mode != McStoreMode::kPrepend;
    const Parsed p = Binary(Packet(c.opcode, has_extras ? extras : "", "key", "v", 6));
    EXPECT_EQ(p.request.command, McCommand::kStore) << int{c.opcode};
    EXPECT_EQ(p.request.store, c.mode) << int{c.opcode};
    EXPECT_EQ(BinaryAnswer([&](McBinaryWriter& w) { w.Success(p.request, 77); }),
              Response(c.opcode, McStatus::kOk, 6, 77, "", "", ""));
  }
  const Parsed add = Binary(Packet(0x02, extras, "key", "v", 1));
  const Parsed replace = Binary(Packet(0x03, extras, "key", "v", 2));
  const Parsed append = Binary(Packet(0x0e, "", "key", "v", 3));
  const Parsed set_with_cas = Binary(Packet(0x01, extras, "key", "v", 4, 123));
  EXPECT_EQ(set_with_cas.request.store, McStoreMode::kCas);
  EXPECT_EQ(BinaryAnswer([&](McBinaryWriter& w) { w.Error(add.request, McStatus::kKeyExists); }),
            Response(0x02, McStatus::kKeyExists, 1, 0, "", "", "Data exists for key."));
  EXPECT_EQ(
      BinaryAnswer([&](McBinaryWriter& w) { w.Error(replace.request, McStatus::kKeyNotFound); }),
      Response(0x03, McStatus::kKeyNotFound, 2, 0, "", "", "Not found"));
  EXPECT_EQ(
      BinaryAnswer([&](McBinaryWriter& w) { w.Error(append.request, McStatus::kNotStored); }),
      Response(0x0e, McStatus::kNotStored, 3, 0, "", "", "Not stored."));
  EXPECT_EQ(BinaryAnswer([&](McBinaryWriter& w) {
              w.Error(set_with_cas.request, McStatus::kKeyExists);
            }),
            Response(0x01, McStatus::kKeyExists, 4, 0, "", "", "Data exists for key."));
}

TEST(MemcachedBinaryAnswers, delete_and_touch_answer_success_or_not_found) {
  const Parsed del = Binary(Packet(0x04, "", "key", "", 10));
  const Parsed touch = Binary(Packet(0x1c, Big(60, 4), "key", "", 11));
  EXPECT_EQ(del.request.command, McCommand::kDelete);
  EXPECT_EQ(touch.request.command, McCommand::kTouch);
  EXPECT_EQ(BinaryAnswer([&](McBinaryWriter& w) { w.Success(del.request); }),
            Response(0x04, McStatus::kOk, 10, 0, "", "", ""));
  EXPECT_EQ(BinaryAnswer([&](McBinaryWriter& w) { w.Error(del.request, McStatus::kKeyNotFound); }),
            Response(0x04, McStatus::kKeyNotFound, 10, 0, "", "", "Not found"));
  EXPECT_EQ(BinaryAnswer([&](McBinaryWriter& w) { w.Success(touch.request, 5); }),
            Response(0x1c, McStatus::kOk, 11, 5, "", "", ""));
  EXPECT_EQ(
      BinaryAnswer([&](McBinaryWriter& w) { w.Error(touch.request, McStatus::kKeyNotFound); }),
      Response(0x1c, McStatus::kKeyNotFound, 11, 0, "", "", "Not found"));
}

TEST(MemcachedBinaryAnswers, incr_decr_answer_the_counter_big_endian_or_not_found_or_non_numeric) {
  const std::string extras = Big(3, 8) + Big(0, 8) + Big(0, 4);  // delta, initial, exptime
  const Parsed incr = Binary(Packet(0x05, extras, "key", "", 12));
  const Parsed decr = Binary(Packet(0x06, extras, "key", "", 13));
  EXPECT_EQ(incr.request.command, McCommand::kIncr);
  EXPECT_TRUE(decr.request.decrement);
  EXPECT_EQ(incr.request.delta, 3u);
  const McDeltaResult wrapped = McApplyDelta("18446744073709551615", false, incr.request.delta);
  EXPECT_EQ(BinaryAnswer([&](McBinaryWriter& w) { w.Counter(incr.request, wrapped.value, 8); }),
            Response(0x05, McStatus::kOk, 12, 8, "", "", Big(2, 8)));
  EXPECT_EQ(BinaryAnswer([&](McBinaryWriter& w) { w.Counter(decr.request, 0, 9); }),
            Response(0x06, McStatus::kOk, 13, 9, "", "", Big(0, 8)));
  EXPECT_EQ(
      BinaryAnswer([&](McBinaryWriter& w) { w.Error(incr.request, McStatus::kKeyNotFound); }),
      Response(0x05, McStatus::kKeyNotFound, 12, 0, "", "", "Not found"));
  EXPECT_EQ(BinaryAnswer([&](McBinaryWriter& w) { w.Error(decr.request, McStatus::kNonNumeric); }),
            Response(0x06, McStatus::kNonNumeric, 13, 0, "", "",
                     "Non-numeric server-side value for incr or decr"));
}

TEST(MemcachedBinaryAnswers, quiet_writes_silence_only_their_success) {
  const std::string store_extras = Big(0, 8);
  const std::string counter_extras = Big(1, 8) + Big(0, 8) + Big(0, 4);
  for (const std::string& packet :
       {Packet(0x11, store_extras, "key", "v"), Packet(0x12, store_extras, "key", "v"),
        Packet(0x13, store_extras, "key", "v"), Packet(0x19, "", "key", "v"),
        Packet(0x1a, "", "key", "v"), Packet(0x14, "", "key", ""),
        Packet(0x15, counter_extras, "key", ""), Packet(0x16, counter_extras, "key", "")}) {
    const Parsed p = Binary(packet);
    EXPECT_TRUE(p.request.noreply) << int{p.request.opcode};
    EXPECT_FALSE(p.request.WantsAnswer(McOutcome::kSuccess)) << int{p.request.opcode};
    for (McOutcome failure :
         {McOutcome::kMiss, McOutcome::kNotStored, McOutcome::kExists, McOutcome::kError}) {
      EXPECT_TRUE(p.request.WantsAnswer(failure)) << int{p.request.opcode};
    }
  }
}

TEST(MemcachedBinaryAnswers, requests_the_parser_refuses_answer_their_status_and_message) {
  const Parsed unknown = Binary(Packet(0x50, "", "", "", 14));
  ASSERT_EQ(unknown.request.command, McCommand::kInvalid);
  EXPECT_EQ(BinaryAnswer([&](McBinaryWriter& w) {
              w.Error(unknown.request, unknown.request.error_status);
            }),
            Response(0x50, McStatus::kUnknownCommand, 14, 0, "", "", "Unknown command"));
  const Parsed keyless_get = Binary(Packet(0x00, "", "", "", 15));
  ASSERT_EQ(keyless_get.request.command, McCommand::kInvalid);
  EXPECT_EQ(BinaryAnswer([&](McBinaryWriter& w) {
              w.Error(keyless_get.request, keyless_get.request.error_status);
            }),
            Response(0x00, McStatus::kInvalidArguments, 15, 0, "", "", "Invalid arguments"));
}

TEST(MemcachedBinaryAnswers, success_statuses_carry_no_message) {
  EXPECT_EQ(McBinaryWriter::MessageFor(McStatus::kOk), "");
  EXPECT_EQ(McBinaryWriter::MessageFor(McStatus::kAuthContinue), "");
  EXPECT_EQ(McBinaryWriter::MessageFor(McStatus::kKeyNotFound), "Not found");
  EXPECT_EQ(McBinaryWriter::MessageFor(McStatus::kNonNumeric),
            "Non-numeric server-side value for incr or decr");
}

}  // namespace
}  // namespace rowsocket
