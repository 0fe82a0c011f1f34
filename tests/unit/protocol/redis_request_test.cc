// RedisRequest's category, RedisStatusError, RedisGlobMatch, RedisValidClientName
// and RedisParseHello (protocol/redis_request.h).
#include "protocol/redis_request.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rowsocket {
namespace {

RedisRequest Looked(std::vector<std::string_view> argv) {
  RedisRequest r;
  r.command.argv = argv;
  std::string error;
  r.info = RedisFindCommand(r.command.argv.data(), r.command.argv.size(), &error);
  return r;
}

TEST(RedisRequestTest, CategoriesFollowTheCommandTable) {
  EXPECT_EQ(RedisCategoryOf(Looked({"GET", "k"})), RequestCategory::kFind);
  EXPECT_EQ(RedisCategoryOf(Looked({"set", "k", "v"})), RequestCategory::kInsert);
  EXPECT_EQ(RedisCategoryOf(Looked({"DEL", "k"})), RequestCategory::kDelete);
  EXPECT_EQ(RedisCategoryOf(Looked({"EXPIRE", "k", "1"})), RequestCategory::kUpdate);
  EXPECT_EQ(RedisCategoryOf(Looked({"AUTH", "u", "p"})), RequestCategory::kAuth);
  EXPECT_EQ(RedisCategoryOf(Looked({"HELLO", "3"})), RequestCategory::kAuth);
  EXPECT_EQ(RedisCategoryOf(Looked({"PING"})), RequestCategory::kOpen);
  EXPECT_EQ(RedisCategoryOf(Looked({"NOSUCH"})), RequestCategory::kInvalid);
  EXPECT_EQ(RedisCategoryOf(Looked({"GET"})), RequestCategory::kInvalid);  // wrong arity
  EXPECT_TRUE(Looked({"SET", "k", "v"}).writes());
  EXPECT_FALSE(Looked({"GET", "k"}).writes());
}

TEST(RedisRequestTest, StatusesInRedisWords) {
  EXPECT_EQ(RedisStatusError(EngineStatus::Unauthenticated()), "NOAUTH Authentication required.");
  EXPECT_EQ(RedisStatusError(EngineStatus::AccountLocked()),
            "WRONGPASS invalid username-password pair or user is disabled.");
  EXPECT_EQ(RedisStatusError(EngineStatus::Denied()),
            "NOPERM this user has no permissions to access one of the keys used as arguments");
  EXPECT_EQ(RedisStatusError(EngineStatus::StorageError(1406)),
            "ERR rowsocket: the value is too long for its column");
  const std::string lock = RedisStatusError(EngineStatus::LockWaitTimeout(146));
  EXPECT_EQ(lock.rfind("ERR rowsocket: ", 0), 0u) << lock;
  EXPECT_NE(lock.find("(146)"), std::string::npos) << lock;
  // Every kind is one line that starts with a code word.
  for (int k = 1; k < EngineStatus::kKinds; ++k) {
    const std::string e = RedisStatusError(EngineStatus::Of(static_cast<EngineStatus::Kind>(k), 5));
    EXPECT_FALSE(e.empty());
    EXPECT_EQ(e.find_first_of("\r\n"), std::string::npos) << e;
    EXPECT_TRUE(e.rfind("ERR ", 0) == 0 || e.rfind("NOAUTH ", 0) == 0 ||
                e.rfind("WRONGPASS ", 0) == 0 || e.rfind("NOPERM ", 0) == 0)
        << e;
  }
}

TEST(RedisRequestTest, GlobMatchesAsRedis) {
  EXPECT_TRUE(RedisGlobMatch("*", "", false));
  EXPECT_TRUE(RedisGlobMatch("max*", "maxmemory", false));
  EXPECT_FALSE(RedisGlobMatch("max*", "xmaxmemory", false));
  EXPECT_TRUE(RedisGlobMatch("MAX*", "maxclients", true));
  EXPECT_FALSE(RedisGlobMatch("MAX*", "maxclients", false));
  EXPECT_TRUE(RedisGlobMatch("h?llo", "hello", false));
  EXPECT_FALSE(RedisGlobMatch("h?llo", "hllo", false));
  EXPECT_TRUE(RedisGlobMatch("h[ae]llo", "hallo", false));
  EXPECT_FALSE(RedisGlobMatch("h[ae]llo", "hillo", false));
  EXPECT_TRUE(RedisGlobMatch("h[^e]llo", "hallo", false));
  EXPECT_FALSE(RedisGlobMatch("h[^e]llo", "hello", false));
  EXPECT_TRUE(RedisGlobMatch("h[a-c]llo", "hbllo", false));
  EXPECT_TRUE(RedisGlobMatch("h[c-a]llo", "hbllo", false));
  EXPECT_TRUE(RedisGlobMatch("a\\*b", "a*b", false));
  EXPECT_FALSE(RedisGlobMatch("a\\*b", "axb", false));
  EXPECT_TRUE(RedisGlobMatch("a**b", "ab", false));
  EXPECT_TRUE(RedisGlobMatch("*b*", "abc", false));
  EXPECT_FALSE(RedisGlobMatch("", "a", false));
  EXPECT_TRUE(RedisGlobMatch("a[b", "ab", false));  // an unclosed set ends the pattern
  EXPECT_TRUE(RedisGlobMatch(std::string_view("a\0b", 3), std::string_view("a\0b", 3), false));
}

TEST(RedisRequestTest, ClientNames) {
  EXPECT_TRUE(RedisValidClientName(""));
  EXPECT_TRUE(RedisValidClientName("worker-1!~"));
  EXPECT_FALSE(RedisValidClientName("a b"));
  EXPECT_FALSE(RedisValidClientName("a\nb"));
  EXPECT_FALSE(RedisValidClientName("\x7f"));
  EXPECT_FALSE(RedisValidClientName("\xc3\xa9"));
}

TEST(RedisRequestTest, HelloAsRedisReadsIt) {
  RedisHello h;
  EXPECT_EQ(RedisParseHello({"HELLO"}, &h), "");
  EXPECT_EQ(h.version, 0);
  EXPECT_EQ(RedisParseHello({"HELLO", "3"}, &h), "");
  EXPECT_EQ(h.version, 3);
  EXPECT_EQ(RedisParseHello({"HELLO", "x"}, &h),
            "ERR Protocol version is not an integer or out of range");
  EXPECT_EQ(RedisParseHello({"HELLO", "1"}, &h), "NOPROTO unsupported protocol version");
  EXPECT_EQ(RedisParseHello({"HELLO", "4"}, &h), "NOPROTO unsupported protocol version");
  EXPECT_EQ(RedisParseHello({"HELLO", "2", "auth", "u", "p", "SetName", "n"}, &h), "");
  EXPECT_TRUE(h.auth);
  EXPECT_EQ(h.user, "u");
  EXPECT_EQ(h.password, "p");
  EXPECT_TRUE(h.setname);
  EXPECT_EQ(h.name, "n");
  EXPECT_EQ(RedisParseHello({"HELLO", "3", "AUTH", "u"}, &h),
            "ERR Syntax error in HELLO option 'AUTH'");
  EXPECT_EQ(RedisParseHello({"HELLO", "3", "SETNAME"}, &h),
            "ERR Syntax error in HELLO option 'SETNAME'");
  EXPECT_EQ(RedisParseHello({"HELLO", "3", "FOO"}, &h), "ERR Syntax error in HELLO option 'FOO'");
}

}  // namespace
}  // namespace rowsocket
