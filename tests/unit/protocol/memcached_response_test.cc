// Tests for the memcached answer writers (exact bytes of every shape), McApplyDelta
// and McValidKey.
#include "protocol/memcached_response.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <string>

#include "memcached_test_util.h"
#include "protocol/memcached.h"

namespace rowsocket {
namespace {

using mc_test::Big;
using mc_test::Packet;

// Parses one request; the inputs live as long as the test program, since the
// request points into them.
McRequest ParseOne(std::string input, McProtocol protocol) {
  static std::deque<std::string> inputs;
  inputs.push_back(std::move(input));
  McRequest request;
  const McParseResult r = ParseMcRequest(inputs.back(), protocol, McLimits(), &request);
  EXPECT_EQ(r.status, McParseStatus::kRequest);
  return request;
}

TEST(MemcachedTextWriter, fixed_replies) {
  std::string out;
  McTextWriter w(&out);
  for (McTextReply r : {McTextReply::kStored, McTextReply::kNotStored, McTextReply::kExists,
                        McTextReply::kNotFound, McTextReply::kDeleted, McTextReply::kTouched,
                        McTextReply::kOk, McTextReply::kEnd, McTextReply::kError}) {
    w.Reply(r);
  }
  EXPECT_EQ(out,
            "STORED\r\nNOT_STORED\r\nEXISTS\r\nNOT_FOUND\r\nDELETED\r\nTOUCHED\r\nOK\r\nEND\r\n"
            "ERROR\r\n");
}

TEST(MemcachedTextWriter, values_numbers_stats_errors) {
  std::string out;
  McTextWriter w(&out);
  w.Value("k", 5, std::string("a\r\n\0", 4));
  w.ValueWithCas("k2", 4294967295u, "", 18446744073709551615ull);
  w.Reply(McTextReply::kEnd);
  w.Number(0);
  w.Number(18446744073709551615ull);
  w.Version("1.6.21-rowsocket");
  w.Stat("pid", "42");
  w.Reply(McTextReply::kEnd);
  w.ClientError("bad data chunk");
  w.ServerError("out of memory");
  w.Line("CLIENT_ERROR bad command line format");
  EXPECT_EQ(out, std::string("VALUE k 5 4\r\na\r\n\0\r\n", 19) +
                     "VALUE k2 4294967295 0 18446744073709551615\r\n\r\nEND\r\n"
                     "0\r\n18446744073709551615\r\nVERSION 1.6.21-rowsocket\r\n"
                     "STAT pid 42\r\nEND\r\nCLIENT_ERROR bad data chunk\r\n"
                     "SERVER_ERROR out of memory\r\nCLIENT_ERROR bad command line format\r\n");
}

TEST(MemcachedTextWriter, a_value_line_holds_the_longest_key_and_the_largest_numbers) {
  std::string out = "END\r\n";  // (appended to what the buffer holds)
  McTextWriter w(&out);
  const std::string key(kMcMaxKeyLength, 'k');
  w.ValueWithCas(key, 4294967295u, "v", 18446744073709551615ull);
  EXPECT_EQ(out, "END\r\nVALUE " + key + " 4294967295 1 18446744073709551615\r\nv\r\n");
  out.clear();
  const std::string longer(kMcMaxKeyLength + 50, 'x');
  w.Value(longer, 1, "ab");
  EXPECT_EQ(out, "VALUE " + longer + " 1 2\r\nab\r\n");
}

TEST(MemcachedTextWriter, get_answer_reads_back_as_memcached_framing) {
  // Round trip: the data block of a VALUE is exactly what a set carried.
  const std::string data("\0\r\nEND\r\n", 8);
  const McRequest set = ParseOne("set k 9 0 8\r\n" + data + "\r\n", McProtocol::kText);
  std::string out;
  McTextWriter(&out).Value(set.keys[0], set.flags, set.value);
  const std::string header = "VALUE k 9 8\r\n";
  ASSERT_EQ(out.substr(0, header.size()), header);
  EXPECT_EQ(out.substr(header.size(), 8), data);
  EXPECT_EQ(out.substr(header.size() + 8), "\r\n");
}

TEST(MemcachedTextWriter, meta_answers_echo_the_asked_flags_in_order) {
  const McRequest mg = ParseOne("mg foo k v c Oop f t s h l q\r\n", McProtocol::kText);
  McMetaItem item;
  item.flags = 3;
  item.cas = 99;
  item.ttl = -1;
  item.size = 3;
  item.last_access = 7;
  item.fetched = true;
  item.won = true;
  std::string out;
  McTextWriter w(&out);
  w.MetaValue(mg, item, "bar");
  w.MetaStatus("EN", mg, nullptr);
  w.MetaNoop();
  EXPECT_EQ(out,
            "VA 3 kfoo c99 Oop f3 t-1 s3 h1 l7 W\r\nbar\r\n"
            "EN kfoo Oop\r\nMN\r\n");
}

TEST(MemcachedTextWriter, meta_set_delete_arithmetic_echo_their_own_flags) {
  McMetaItem item;
  item.cas = 5;
  item.ttl = 30;
  std::string out;
  McTextWriter w(&out);
  w.MetaStatus("HD", ParseOne("ms foo 1 c k T9 O1\r\nx\r\n", McProtocol::kText), &item);
  w.MetaStatus("NS", ParseOne("ms foo 1 c k\r\nx\r\n", McProtocol::kText), nullptr);
  w.MetaStatus("HD", ParseOne("md foo c O2\r\n", McProtocol::kText), &item);
  w.MetaValue(ParseOne("ma foo v t c\r\n", McProtocol::kText), item, "6");
  w.MetaDebug(ParseOne("me foo\r\n", McProtocol::kText), "exp=-1 la=1 cas=5 fetch=no cls=1 size=63");
  EXPECT_EQ(out,
            "HD c5 kfoo O1\r\nNS kfoo\r\nHD O2\r\nVA 1 t30 c5\r\n6\r\n"
            "ME foo exp=-1 la=1 cas=5 fetch=no cls=1 size=63\r\n");
}

TEST(MemcachedTextWriter, base64_keys_are_echoed_in_base64_with_b) {
  McMetaItem item;
  std::string out;
  McTextWriter w(&out);
  w.MetaStatus("HD", ParseOne("mg AAF+/w== b k\r\n", McProtocol::kText), &item);
  w.MetaStatus("HD", ParseOne("mg AAF+/w== k b\r\n", McProtocol::kText), &item);
  w.MetaDebug(ParseOne("me Zm9v b\r\n", McProtocol::kText), "exp=-1");
  EXPECT_EQ(out, "HD kAAF+/w== b\r\nHD kAAF+/w== b\r\nME Zm9v exp=-1\r\n");
}

// The fields of a binary response header.
struct Header {
  uint8_t magic, opcode, extras;
  uint16_t key, status;
  uint32_t body, opaque;
  uint64_t cas;
};

Header ReadHeader(std::string_view p) {
  auto u = [p](size_t i) { return static_cast<uint64_t>(static_cast<uint8_t>(p[i])); };
  auto be = [&u](size_t i, int n) {
    uint64_t v = 0;
    for (int k = 0; k < n; ++k) v = (v << 8) | u(i + k);
    return v;
  };
  return Header{static_cast<uint8_t>(u(0)), static_cast<uint8_t>(u(1)),
                static_cast<uint8_t>(u(4)), static_cast<uint16_t>(be(2, 2)),
                static_cast<uint16_t>(be(6, 2)), static_cast<uint32_t>(be(8, 4)),
                static_cast<uint32_t>(be(12, 4)), be(16, 8)};
}

TEST(MemcachedBinaryWriter, hit_with_and_without_key) {
  const McRequest getk = ParseOne(Packet(0x0c, "", "foo", "", 77), McProtocol::kBinary);
  std::string out;
  McBinaryWriter(&out).Hit(getk, 0x01020304, 12, "bar");
  ASSERT_EQ(out.size(), 24u + 4 + 3 + 3);
  const Header h = ReadHeader(out);
  EXPECT_EQ(h.magic, 0x81);
  EXPECT_EQ(h.opcode, 0x0c);
  EXPECT_EQ(h.key, 3);
  EXPECT_EQ(h.extras, 4);
  EXPECT_EQ(h.status, 0);
  EXPECT_EQ(h.body, 10u);
  EXPECT_EQ(h.opaque, 77u);
  EXPECT_EQ(h.cas, 12u);
  EXPECT_EQ(out.substr(24), "\x01\x02\x03\x04" "foobar");

  const McRequest get = ParseOne(Packet(0x00, "", "foo", "", 1), McProtocol::kBinary);
  out.clear();
  McBinaryWriter(&out).Hit(get, 0, 0, "v");
  EXPECT_EQ(ReadHeader(out).key, 0);
  EXPECT_EQ(out.substr(24), std::string("\0\0\0\0v", 5));
}

TEST(MemcachedBinaryWriter, miss_error_counter_version_stat_success) {
  const McRequest get = ParseOne(Packet(0x00, "", "foo", "", 5), McProtocol::kBinary);
  const McRequest getk = ParseOne(Packet(0x0c, "", "foo", "", 6), McProtocol::kBinary);
  std::string out;
  McBinaryWriter w(&out);
  w.Miss(get);
  EXPECT_EQ(ReadHeader(out).status, 1);
  EXPECT_EQ(out.substr(24), "Not found");
  out.clear();
  w.Miss(getk);
  EXPECT_EQ(ReadHeader(out).key, 3);
  EXPECT_EQ(out.substr(24), "foo");
  out.clear();
  w.Error(get, McStatus::kNonNumeric);
  EXPECT_EQ(ReadHeader(out).status, 6);
  EXPECT_EQ(out.substr(24), "Non-numeric server-side value for incr or decr");
  out.clear();
  w.Counter(get, 0x0102030405060708ull, 3);
  EXPECT_EQ(out.substr(24), "\x01\x02\x03\x04\x05\x06\x07\x08");
  EXPECT_EQ(ReadHeader(out).cas, 3u);
  out.clear();
  w.Version(get, "1.6");
  EXPECT_EQ(out.substr(24), "1.6");
  out.clear();
  w.Stat(get, "pid", "1");
  w.StatEnd(get);
  EXPECT_EQ(ReadHeader(out).key, 3);
  EXPECT_EQ(out.substr(24, 4), "pid1");
  EXPECT_EQ(out.size(), 24u + 4 + 24);
  out.clear();
  w.Success(get, 9);
  EXPECT_EQ(out.size(), 24u);
  EXPECT_EQ(ReadHeader(out).cas, 9u);
  EXPECT_EQ(ReadHeader(out).opaque, 5u);
}

TEST(MemcachedBinaryWriter, every_status_has_memcached_message) {
  EXPECT_EQ(McBinaryWriter::MessageFor(McStatus::kKeyExists), "Data exists for key.");
  EXPECT_EQ(McBinaryWriter::MessageFor(McStatus::kValueTooLarge), "Too large.");
  EXPECT_EQ(McBinaryWriter::MessageFor(McStatus::kInvalidArguments), "Invalid arguments");
  EXPECT_EQ(McBinaryWriter::MessageFor(McStatus::kNotStored), "Not stored.");
  EXPECT_EQ(McBinaryWriter::MessageFor(McStatus::kAuthError), "Auth failure.");
  EXPECT_EQ(McBinaryWriter::MessageFor(McStatus::kUnknownCommand), "Unknown command");
  EXPECT_EQ(McBinaryWriter::MessageFor(McStatus::kOutOfMemory), "Out of memory");
}

// --- incr/decr and keys --------------------------------------------------------------

TEST(MemcachedDelta, incr_wraps_and_decr_stops_at_zero) {
  EXPECT_EQ(McApplyDelta("10", false, 5).text(), "15");
  EXPECT_EQ(McApplyDelta("18446744073709551615", false, 2).text(), "1");
  EXPECT_EQ(McApplyDelta("10", true, 3).text(), "7");
  EXPECT_EQ(McApplyDelta("10", true, 11).text(), "0");
  EXPECT_EQ(McApplyDelta("0", true, 1).value, 0u);
  EXPECT_EQ(McApplyDelta("007", false, 0).text(), "7");
  EXPECT_EQ(McApplyDelta("9  ", false, 1).text(), "10");  // memcached's decr padding
}

TEST(MemcachedDelta, non_numeric_values_are_refused) {
  for (std::string_view bad : {"", " ", "abc", "-1", "+1", " 1", "1a", "1 2",
                               "18446744073709551616", "1.5"}) {
    EXPECT_FALSE(McApplyDelta(bad, false, 1).numeric) << bad;
  }
}

constexpr uint64_t kMax = UINT64_MAX;

TEST(MemcachedDelta, incr_past_the_largest_value_wraps_modulo_two_to_the_64) {
  EXPECT_EQ(McApplyDelta("18446744073709551615", false, 1).value, 0u);
  EXPECT_EQ(McApplyDelta("18446744073709551615", false, kMax).value, kMax - 1);
  EXPECT_EQ(McApplyDelta("1", false, kMax).value, 0u);
  EXPECT_EQ(McApplyDelta("18446744073709551615", false, 0).value, kMax);
}

TEST(MemcachedDelta, decr_by_more_than_the_value_stops_at_zero_never_wraps) {
  EXPECT_EQ(McApplyDelta("5", true, kMax).value, 0u);
  EXPECT_EQ(McApplyDelta("5", true, 5).value, 0u);
  EXPECT_EQ(McApplyDelta("5", true, 4).value, 1u);
  EXPECT_EQ(McApplyDelta("18446744073709551615", true, kMax).value, 0u);
}

TEST(MemcachedDelta, the_stored_text_has_exactly_the_digits_of_the_new_value) {
  struct Case {
    const char* stored;
    bool decrement;
    uint64_t delta;
    const char* text;
  };
  for (const Case& c : {Case{"100", true, 1, "99"}, Case{"99", false, 1, "100"},
                        Case{"1", true, 1, "0"}, Case{"0", false, 0, "0"},
                        Case{"18446744073709551614", false, 1, "18446744073709551615"},
                        Case{"10   ", false, 0, "10"}, Case{"000123", false, 0, "123"}}) {
    const McDeltaResult r = McApplyDelta(c.stored, c.decrement, c.delta);
    ASSERT_TRUE(r.numeric) << c.stored;
    EXPECT_EQ(r.text(), c.text) << c.stored;
    EXPECT_EQ(r.size, std::string_view(c.text).size()) << c.stored;
    EXPECT_EQ(std::to_string(r.value), c.text) << c.stored;
  }
}

TEST(MemcachedDelta, values_over_twenty_digits_of_worth_are_not_numeric) {
  EXPECT_TRUE(McApplyDelta("18446744073709551615", false, 0).numeric);
  EXPECT_FALSE(McApplyDelta("18446744073709551616", false, 0).numeric);
  EXPECT_FALSE(McApplyDelta("99999999999999999999", false, 0).numeric);
  EXPECT_FALSE(McApplyDelta("184467440737095516150", false, 0).numeric);
}

TEST(MemcachedDelta, a_refused_value_yields_no_digits) {
  for (std::string_view bad : {"", "x", "1x", "0x10"}) {
    const McDeltaResult r = McApplyDelta(bad, false, 1);
    EXPECT_FALSE(r.numeric) << bad;
    EXPECT_EQ(r.size, 0u) << bad;
    EXPECT_EQ(r.value, 0u) << bad;
  }
}

TEST(MemcachedKey, text_keys_have_no_space_cr_lf_or_nul_binary_keys_any) {
  EXPECT_TRUE(McValidKey("a", McFraming::kText));
  EXPECT_TRUE(McValidKey(std::string(250, 'k'), McFraming::kMeta));
  EXPECT_TRUE(McValidKey("\xc3\xa9t\xc3\xa9", McFraming::kText));
  EXPECT_FALSE(McValidKey("", McFraming::kText));
  EXPECT_FALSE(McValidKey(std::string(251, 'k'), McFraming::kText));
  EXPECT_FALSE(McValidKey("a b", McFraming::kText));
  EXPECT_TRUE(McValidKey("a\tb", McFraming::kText));
  EXPECT_TRUE(McValidKey("a\x7f", McFraming::kText));
  EXPECT_TRUE(McValidKey("\x10" "abc\x01\x1b", McFraming::kText));
  EXPECT_FALSE(McValidKey("a\rb", McFraming::kText));
  EXPECT_FALSE(McValidKey("a\nb", McFraming::kText));
  EXPECT_FALSE(McValidKey(std::string("a\0b", 3), McFraming::kText));
  EXPECT_TRUE(McValidKey("a b\n", McFraming::kBinary));
  EXPECT_FALSE(McValidKey(std::string(251, 'k'), McFraming::kBinary));
  EXPECT_FALSE(McValidKey("", McFraming::kBinary));
}

}  // namespace
}  // namespace rowsocket
