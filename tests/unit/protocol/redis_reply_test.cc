// Tests for RedisReplyWriter (redis_reply.h): every reply type in RESP2 and RESP3 as
// Redis 7.0 writes it, its formatting of doubles and long doubles, and its error
// words.
#include "protocol/redis_reply.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace rowsocket {
namespace {

template <typename F>
std::string Write(RespVersion v, F f) {
  std::string out;
  RedisReplyWriter w(&out, v);
  f(w);
  return out;
}

constexpr RespVersion k2 = RespVersion::kResp2;
constexpr RespVersion k3 = RespVersion::kResp3;

TEST(RedisReply, scalars_are_the_same_in_both_versions) {
  for (RespVersion v : {k2, k3}) {
    EXPECT_EQ(Write(v, [](auto& w) { w.Ok(); }), "+OK\r\n");
    EXPECT_EQ(Write(v, [](auto& w) { w.SimpleString("PONG"); }), "+PONG\r\n");
    EXPECT_EQ(Write(v, [](auto& w) { w.Integer(-42); }), ":-42\r\n");
    EXPECT_EQ(Write(v, [](auto& w) { w.Integer(INT64_MIN); }), ":-9223372036854775808\r\n");
    EXPECT_EQ(Write(v, [](auto& w) { w.Bulk(std::string_view("a\0\r\n", 4)); }),
              std::string("$4\r\na\0\r\n\r\n", 10));
    EXPECT_EQ(Write(v, [](auto& w) { w.Bulk(""); }), "$0\r\n\r\n");
    EXPECT_EQ(Write(v, [](auto& w) { w.ArrayHeader(3); }), "*3\r\n");
  }
}

TEST(RedisReply, bulk_strings_short_and_long_are_framed_alike) {
  for (size_t n : {size_t{9}, size_t{10}, size_t{99}, size_t{100}, size_t{128}, size_t{129},
                   size_t{100000}}) {
    const std::string bytes(n, 'v');
    std::string out = "+OK\r\n";  // (appended to what the buffer holds)
    RedisReplyWriter(&out, k2).Bulk(bytes);
    EXPECT_EQ(out, "+OK\r\n$" + std::to_string(n) + "\r\n" + bytes + "\r\n") << n;
  }
}

TEST(RedisReply, errors_and_statuses_turn_cr_and_lf_into_spaces) {
  EXPECT_EQ(Write(k2, [](auto& w) { w.Error("ERR a\r\nb"); }), "-ERR a  b\r\n");
  EXPECT_EQ(Write(k3, [](auto& w) { w.SimpleString("x\ny"); }), "+x y\r\n");
}

TEST(RedisReply, null_map_set_boolean_verbatim_differ_by_version) {
  EXPECT_EQ(Write(k2, [](auto& w) { w.Null(); }), "$-1\r\n");
  EXPECT_EQ(Write(k3, [](auto& w) { w.Null(); }), "_\r\n");
  EXPECT_EQ(Write(k2, [](auto& w) { w.NullArray(); }), "*-1\r\n");
  EXPECT_EQ(Write(k3, [](auto& w) { w.NullArray(); }), "_\r\n");
  EXPECT_EQ(Write(k2, [](auto& w) { w.MapHeader(2); }), "*4\r\n");
  EXPECT_EQ(Write(k3, [](auto& w) { w.MapHeader(2); }), "%2\r\n");
  EXPECT_EQ(Write(k2, [](auto& w) { w.SetHeader(2); }), "*2\r\n");
  EXPECT_EQ(Write(k3, [](auto& w) { w.SetHeader(2); }), "~2\r\n");
  EXPECT_EQ(Write(k2, [](auto& w) { w.Boolean(true); }), ":1\r\n");
  EXPECT_EQ(Write(k3, [](auto& w) { w.Boolean(false); }), "#f\r\n");
  EXPECT_EQ(Write(k2, [](auto& w) { w.Verbatim("a\r\nb"); }), "$4\r\na\r\nb\r\n");
  EXPECT_EQ(Write(k3, [](auto& w) { w.Verbatim("a\r\nb"); }), "=8\r\ntxt:a\r\nb\r\n");
}

TEST(RedisReply, doubles_as_redis_7_0_writes_them) {
  // ZSCORE of 1.1 in redis-server 7.0: "1.1000000000000001" (%.17g).
  EXPECT_EQ(Write(k2, [](auto& w) { w.Double(1.1); }), "$18\r\n1.1000000000000001\r\n");
  EXPECT_EQ(Write(k3, [](auto& w) { w.Double(1.1); }), ",1.1000000000000001\r\n");
  EXPECT_EQ(Write(k2, [](auto& w) { w.Double(3); }), "$1\r\n3\r\n");
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(Write(k2, [&](auto& w) { w.Double(inf); }), "$3\r\ninf\r\n");
  EXPECT_EQ(Write(k3, [&](auto& w) { w.Double(-inf); }), ",-inf\r\n");
  EXPECT_EQ(Write(k3, [](auto& w) { w.Double(1e300); }), ",1.0000000000000001e+300\r\n");
}

TEST(RedisReply, long_doubles_in_the_human_form_of_incrbyfloat) {
  auto f = [](long double v) {
    std::string s;
    RedisFormatLongDouble(v, &s);
    return s;
  };
  EXPECT_EQ(f(1.1L), "1.1");
  EXPECT_EQ(f(10.5L), "10.5");
  EXPECT_EQ(f(3.0L), "3");
  EXPECT_EQ(f(-0.0L), "0");
  EXPECT_EQ(f(5000.0L), "5000");
  EXPECT_EQ(f(std::numeric_limits<long double>::infinity()), "inf");
  EXPECT_EQ(f(1e20L), "100000000000000000000");
}

TEST(RedisReply, error_words_of_redis_7_0) {
  EXPECT_EQ(RedisErrWrongArity("client|setname"),
            "ERR wrong number of arguments for 'client|setname' command");
  EXPECT_EQ(RedisErrUnknownSubcommand("CLIENT", "foo"), "ERR unknown subcommand 'foo'. Try CLIENT HELP.");
  EXPECT_EQ(RedisErrInvalidExpire("set"), "ERR invalid expire time in 'set' command");
  EXPECT_EQ(RedisErrNoPermCommand("set"), "NOPERM this user has no permissions to run the 'set' command");
  const std::string_view argv[] = {"foo", "a", "bb"};
  EXPECT_EQ(RedisErrUnknownCommand(argv, 3), "ERR unknown command 'foo', with args beginning with: 'a' 'bb' ");
}

}  // namespace
}  // namespace rowsocket
