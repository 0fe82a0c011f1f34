// Tests for RedisParser (redis.h): redis-server's own answers to a corpus of raw
// inputs (data/redis_framing.tsv) replayed through the parser, fed at once and in
// small pieces; then zero copy, resumption over a moved buffer, the limits, and the
// helpers (RedisSplitArgs, RedisStringToInt64).
#include <gtest/gtest.h>

#include <string>

#include "protocol/redis.h"
#include "protocol/redis_commands.h"
#include "protocol/redis_reply.h"
#include "redis_test_data.h"

namespace rowsocket {
namespace {

using redis_test::Frame;
using redis_test::Framed;
using Words = std::vector<std::string>;

// What redis-server answers to the framed commands of the corpus, which are PING,
// ECHO and unknown commands only, and then to the protocol error, if any.
std::string Answers(const Framed& framed, bool authenticated = true) {
  std::string out;
  RedisReplyWriter w(&out, RespVersion::kResp2);
  for (const Words& words : framed.commands) {
    std::vector<std::string_view> argv(words.begin(), words.end());
    std::string error;
    const RedisCommandInfo* info = RedisFindCommand(argv.data(), argv.size(), &error);
    if (info == nullptr) {
      w.Error(error);
    } else if (!authenticated && !(info->flags & kRedisNoAuth)) {
      w.Error(kRedisErrNoAuth);  // Redis: lookup and arity first, then the login
    } else if (info->id == RedisCommandId::kPing && argv.size() > 2) {
      w.Error(RedisErrWrongArity("ping"));  // PING's own check (its arity is -1)
    } else if (info->id == RedisCommandId::kPing && argv.size() == 1) {
      w.SimpleString("PONG");
    } else if (info->id == RedisCommandId::kPing || info->id == RedisCommandId::kEcho) {
      w.Bulk(argv[1]);
    } else {
      ADD_FAILURE() << "the corpus holds only PING, ECHO and unknown commands";
    }
  }
  if (!framed.error.empty()) w.Error(framed.error);
  return out;
}

TEST(RedisFraming, answers_as_redis_server_did_to_every_input_of_the_corpus) {
  const auto rows = redis_test::ReadData("redis_framing.tsv");
  ASSERT_GT(rows.size(), 50u);
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 3u);
    SCOPED_TRACE(row[0]);
    const std::string input = redis_test::Unescape(row[1]);
    const std::string expected = redis_test::Unescape(row[2]);
    EXPECT_EQ(Answers(Frame(input)), expected);
    // The same, the input arriving in pieces (one byte at a time when it is short).
    for (size_t step : {size_t{1}, size_t{7}}) {
      const size_t s = input.size() > 4096 ? 4096 : step;
      const Framed pieces = Frame(input, s);
      EXPECT_EQ(Answers(pieces), expected) << "fed " << s << " bytes at a time";
    }
  }
}

TEST(RedisFraming, answers_as_redis_server_did_before_auth) {
  const auto rows = redis_test::ReadData("redis_framing_unauthenticated.tsv");
  ASSERT_GT(rows.size(), 4u);
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 3u);
    SCOPED_TRACE(row[0]);
    const std::string input = redis_test::Unescape(row[1]);
    const std::string expected = redis_test::Unescape(row[2]);
    EXPECT_EQ(Answers(Frame(input, 0, false), false), expected);
    EXPECT_EQ(Answers(Frame(input, 4096, false), false), expected);
  }
}

TEST(RedisFraming, multibulk_words_are_views_into_the_input) {
  const std::string input("*2\r\n$3\r\nGET\r\n$3\r\nk\0y\r\n*1\r\n$4\r\nPING\r\n", 36);
  RedisParser parser;
  RedisCommand c;
  const RedisParseResult r = parser.Parse(input, true, &c);
  ASSERT_EQ(r.status, RedisParseStatus::kCommand);
  EXPECT_EQ(r.consumed, 22u);
  ASSERT_EQ(c.argv.size(), 2u);
  EXPECT_EQ(c.argv[0].data(), input.data() + 8);
  EXPECT_EQ(c.argv[1], std::string_view("k\0y", 3));
  EXPECT_FALSE(c.inline_form);
}

TEST(RedisFraming, inline_words_without_quotes_point_into_the_input) {
  const std::string input = "SET k \"a b\"\r\n";
  RedisParser parser;
  RedisCommand c;
  ASSERT_EQ(parser.Parse(input, true, &c).status, RedisParseStatus::kCommand);
  ASSERT_EQ(c.argv.size(), 3u);
  EXPECT_TRUE(c.inline_form);
  EXPECT_EQ(c.argv[0].data(), input.data());
  EXPECT_EQ(c.argv[1].data(), input.data() + 4);
  EXPECT_EQ(c.argv[2], "a b");
  EXPECT_EQ(c.argv[2].data(), c.storage.data());
}

TEST(RedisFraming, a_command_in_progress_resumes_over_a_moved_buffer) {
  const std::string whole = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nvalue\r\n";
  RedisParser parser;
  RedisCommand c;
  std::string first(whole.substr(0, 20));
  RedisParseResult r = parser.Parse(first, true, &c);
  ASSERT_EQ(r.status, RedisParseStatus::kNeedMore);
  first.assign(20, 'X');  // the old bytes are gone; the parser kept offsets only
  const std::string moved(whole);
  r = parser.Parse(moved, true, &c);
  ASSERT_EQ(r.status, RedisParseStatus::kCommand);
  EXPECT_EQ(r.consumed, whole.size());
  EXPECT_EQ(Words(c.argv.begin(), c.argv.end()), (Words{"SET", "k", "value"}));
}

TEST(RedisFraming, need_more_says_how_many_bytes_a_bulk_string_needs) {
  RedisParser parser;
  RedisCommand c;
  const RedisParseResult r = parser.Parse("*1\r\n$100\r\nab", true, &c);
  ASSERT_EQ(r.status, RedisParseStatus::kNeedMore);
  EXPECT_EQ(r.need_at_least, 4u + 6u + 100u + 2u);
}

TEST(RedisFraming, a_shorter_input_than_before_starts_again) {
  RedisParser parser;
  RedisCommand c;
  ASSERT_EQ(parser.Parse("*2\r\n$4\r\nECHO\r\n$3\r\nab", true, &c).status,
            RedisParseStatus::kNeedMore);
  const RedisParseResult r = parser.Parse("*1\r\n$4\r\nPING\r\n", true, &c);
  ASSERT_EQ(r.status, RedisParseStatus::kCommand);
  EXPECT_EQ(Words(c.argv.begin(), c.argv.end()), (Words{"PING"}));
}

TEST(RedisLimits, the_bounds_are_the_callers) {
  RedisLimits limits;
  limits.max_arguments = 3;
  limits.max_bulk = 5;
  limits.max_inline = 10;
  EXPECT_EQ(Frame("*4\r\n", 0, true, limits).error, "ERR Protocol error: invalid multibulk length");
  EXPECT_EQ(Frame("*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n", 0, true, limits).commands.size(), 1u);
  EXPECT_EQ(Frame("*1\r\n$6\r\n", 0, true, limits).error, "ERR Protocol error: invalid bulk length");
  EXPECT_EQ(Frame("*1\r\n$5\r\nhello\r\n", 0, true, limits).commands.size(), 1u);
  EXPECT_EQ(Frame("0123456789\nPING\n", 0, true, limits).commands.size(), 2u);
  EXPECT_EQ(Frame("0123456789A\n", 0, true, limits).error, "ERR Protocol error: too big inline request");
  EXPECT_EQ(Frame("0123456789A", 0, true, limits).error, "ERR Protocol error: too big inline request");
  EXPECT_EQ(Frame("0123456789", 0, true, limits).error, "");
}

TEST(RedisLimits, an_unauthenticated_connection_sends_small_requests_only) {
  // Redis 7.0: more than 10 arguments or a bulk string over 16 KiB before AUTH.
  EXPECT_EQ(Frame("*11\r\n", 0, false).error, "ERR Protocol error: unauthenticated multibulk length");
  EXPECT_EQ(Frame("*10\r\n", 0, false).error, "");
  EXPECT_EQ(Frame("*1\r\n$16385\r\n", 0, false).error, "ERR Protocol error: unauthenticated bulk length");
  EXPECT_EQ(Frame("*1\r\n$16384\r\n", 0, false).error, "");
  EXPECT_EQ(Frame("*11\r\n", 0, true).error, "");
}

TEST(RedisSplitArgs, splits_as_sdssplitargs) {
  auto split = [](std::string_view line, bool* ok) {
    std::vector<std::string_view> words;
    std::string storage;
    *ok = RedisSplitArgs(line, &words, &storage);
    return Words(words.begin(), words.end());
  };
  bool ok = false;
  EXPECT_EQ(split("  a  b\tc ", &ok), (Words{"a", "b", "c"}));
  EXPECT_TRUE(ok);
  EXPECT_EQ(split("\"\\x41\\x4a\\x4\" '\\'x\\n'", &ok), (Words{"AJx4", "'x\\n"}));
  EXPECT_TRUE(ok);
  EXPECT_EQ(split("a\"b c\"d", &ok), Words{});
  EXPECT_FALSE(ok);
  EXPECT_EQ(split("", &ok), Words{});
  EXPECT_TRUE(ok);
  EXPECT_EQ(split("\"\" ''", &ok), (Words{"", ""}));
  EXPECT_TRUE(ok);
}

TEST(RedisStringToInt64, accepts_what_string2ll_accepts) {
  int64_t v = 7;
  EXPECT_TRUE(RedisStringToInt64("0", &v));
  EXPECT_EQ(v, 0);
  EXPECT_TRUE(RedisStringToInt64("-9223372036854775808", &v));
  EXPECT_EQ(v, INT64_MIN);
  EXPECT_TRUE(RedisStringToInt64("9223372036854775807", &v));
  EXPECT_EQ(v, INT64_MAX);
  for (const char* bad : {"", "-", "-0", "+1", "01", " 1", "1 ", "9223372036854775808",
                          "-9223372036854775809", "1.0", "0x1", "000000000000000000001"}) {
    EXPECT_FALSE(RedisStringToInt64(bad, &v)) << bad;
  }
}

}  // namespace
}  // namespace rowsocket
