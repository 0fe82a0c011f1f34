// Tests for Redis's shared argument readers (redis_args.h) against redis-server's own
// replies (data/redis_arguments.tsv): INCRBY n <x> after SET n 5, INCRBYFLOAT f <x>
// after SET f 5, SET k v <options> on an empty database, GETEX k <options> after
// SET k v, and SCAN <arguments> on an empty database. Each case's reply is rebuilt
// from what the readers say and compared byte for byte.
#include "protocol/redis_args.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "protocol/redis.h"
#include "protocol/redis_reply.h"
#include "redis_test_data.h"

namespace rowsocket {
namespace {

// An expiry time of the 2020s, far from every overflow the cases probe.
constexpr int64_t kNowMs = 1700000000000;

std::vector<std::string> Split(const std::string& words) {
  std::vector<std::string> argv;
  size_t start = 0;
  for (;;) {
    const size_t space = words.find(' ', start);
    argv.push_back(redis_test::Unescape(words.substr(start, space - start)));
    if (space == std::string::npos) return argv;
    start = space + 1;
  }
}

std::string Reply(const std::vector<std::string_view>& argv) {
  std::string out;
  RedisReplyWriter w(&out, RespVersion::kResp2);
  const std::string_view name = argv[0];
  if (name == "INCRBY") {
    int64_t x = 0;
    if (!RedisStringToInt64(argv[2], &x)) {
      w.Error(kRedisErrNotInteger);
    } else if (x > 0 && x > INT64_MAX - 5) {
      w.Error(kRedisErrOverflow);
    } else {
      w.Integer(5 + x);
    }
  } else if (name == "INCRBYFLOAT") {
    long double x = 0;
    if (!RedisStringToLongDouble(argv[2], &x)) return w.Error(kRedisErrNotFloat), out;
    const long double sum = 5 + x;
    if (std::isnan(sum) || std::isinf(sum)) return w.Error(kRedisErrNanOrInfinity), out;
    std::string text;
    RedisFormatLongDouble(sum, &text);
    w.Bulk(text);
  } else if (name == "SET" || name == "GETEX") {
    const bool set = name == "SET";
    RedisSetOptions o;
    std::string error = RedisParseSetOptions(argv.data(), argv.size(), set ? 3 : 2,
                                             set ? RedisSetCommand::kSet : RedisSetCommand::kGetex, &o);
    int64_t at = 0;
    if (error.empty() && o.expire != RedisExpireKind::kNone) {
      error = RedisExpireAt(o, kNowMs, set ? "set" : "getex", &at);
    }
    if (!error.empty()) return w.Error(error), out;
    if (!set) return w.Bulk("v"), out;           // GETEX answers the value
    if (o.xx || o.get) return w.Null(), out;     // no key: XX does nothing, GET finds nil
    w.Ok();
  } else if (name == "SCAN") {
    RedisScanOptions o;
    const std::string error = RedisParseScan(argv.data(), argv.size(), &o);
    if (!error.empty()) return w.Error(error), out;
    w.ArrayHeader(2);  // an empty database: cursor 0, no keys
    w.Bulk("0");
    w.ArrayHeader(0);
  } else {
    ADD_FAILURE() << "no model for " << name;
  }
  return out;
}

TEST(RedisArguments, replies_as_redis_server_did) {
  const auto rows = redis_test::ReadData("redis_arguments.tsv");
  ASSERT_GT(rows.size(), 100u);
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 3u);
    SCOPED_TRACE(row[0] + ": " + row[1]);
    const std::vector<std::string> words = Split(row[1]);
    const std::vector<std::string_view> argv(words.begin(), words.end());
    EXPECT_EQ(Reply(argv), redis_test::Unescape(row[2]));
  }
}

TEST(RedisArguments, set_options_say_what_was_asked) {
  const std::string_view argv[] = {"SET", "k", "v", "nx", "GET", "px", "250"};
  RedisSetOptions o;
  EXPECT_EQ(RedisParseSetOptions(argv, 7, 3, RedisSetCommand::kSet, &o), "");
  EXPECT_TRUE(o.nx && o.get && !o.xx && !o.keepttl);
  EXPECT_EQ(o.expire, RedisExpireKind::kPx);
  int64_t at = 0;
  EXPECT_EQ(RedisExpireAt(o, 1000, "set", &at), "");
  EXPECT_EQ(at, 1250);
}

TEST(RedisArguments, scan_options_say_what_was_asked) {
  const std::string_view argv[] = {"SCAN", "17", "MATCH", "user:*", "COUNT", "100", "TYPE", "hash"};
  RedisScanOptions o;
  EXPECT_EQ(RedisParseScan(argv, 8, &o), "");
  EXPECT_EQ(o.cursor, 17u);
  EXPECT_TRUE(o.has_match);
  EXPECT_EQ(o.match, "user:*");
  EXPECT_EQ(o.count, 100);
  EXPECT_EQ(o.type, "hash");
  const std::string_view star[] = {"SCAN", "0", "MATCH", "*"};
  RedisScanOptions all;
  EXPECT_EQ(RedisParseScan(star, 4, &all), "");
  EXPECT_FALSE(all.has_match);
}

}  // namespace
}  // namespace rowsocket
