// Consistency of the Redis command table (redis_commands.h): one row per command in
// RedisCommandId order; names, arities, flags and key positions equal to what
// redis-server 7.0's COMMAND INFO says (data/redis_commands.tsv); rowsocket's own
// columns agreeing with Redis's flags; and the lookup's errors.
#include "protocol/redis_commands.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "redis_test_data.h"

namespace rowsocket {
namespace {

std::string FlagList(uint32_t flags) {
  std::string s;
  for (size_t bit = 0; bit < kRedisFlagCount; ++bit) {
    if (!(flags & (1u << bit))) continue;
    if (!s.empty()) s += ',';
    s += RedisFlagName(bit);
  }
  return s;
}

TEST(RedisCommands, one_row_per_command_in_order_with_unique_names) {
  std::set<std::string> names;
  for (size_t i = 0; i < kRedisCommands; ++i) {
    const RedisCommandInfo& info = RedisCommandTable()[i];
    EXPECT_EQ(static_cast<size_t>(info.id), i);
    EXPECT_EQ(&RedisCommandProperties(info.id), &info);
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
  }
}

TEST(RedisCommands, match_redis_server_command_info) {
  std::map<std::string, std::vector<std::string>> reference;
  for (const auto& row : redis_test::ReadData("redis_commands.tsv")) {
    ASSERT_EQ(row.size(), 6u);
    reference[row[0]] = row;
  }
  // Commands newer than Redis 7.0, declared as Redis 7.2 declares them.
  reference["client|setinfo"] = {"client|setinfo", "4", "noscript,loading,stale", "0", "0", "0"};
  EXPECT_EQ(reference.size(), kRedisCommands);
  for (size_t i = 0; i < kRedisCommands; ++i) {
    const RedisCommandInfo& c = RedisCommandTable()[i];
    SCOPED_TRACE(c.name);
    auto it = reference.find(c.name);
    ASSERT_NE(it, reference.end()) << "not in redis-server's COMMAND INFO data";
    EXPECT_EQ(std::to_string(c.arity), it->second[1]);
    EXPECT_EQ(FlagList(c.flags), it->second[2]);
    EXPECT_EQ(std::to_string(c.first_key), it->second[3]);
    EXPECT_EQ(std::to_string(c.last_key), it->second[4]);
    EXPECT_EQ(std::to_string(c.key_step), it->second[5]);
  }
}

TEST(RedisCommands, rowsocket_columns_agree_with_redis_flags) {
  for (size_t i = 0; i < kRedisCommands; ++i) {
    const RedisCommandInfo& c = RedisCommandTable()[i];
    SCOPED_TRACE(c.name);
    // Redis's write commands change rows; its read-only ones read them.
    if (c.flags & kRedisWrite) {
      EXPECT_EQ(c.rows, RedisRows::kWrite);
    }
    if (c.flags & kRedisReadonly) {
      EXPECT_EQ(c.rows, RedisRows::kRead);
    }
    EXPECT_TRUE(!c.inserts || c.rows == RedisRows::kWrite);
    EXPECT_TRUE(!c.deletes || c.rows == RedisRows::kWrite);
    EXPECT_FALSE(c.inserts && c.deletes);
    EXPECT_TRUE(!c.flush || c.deletes);
    // Nothing that touches rows runs before a login.
    EXPECT_TRUE(!(c.flags & kRedisNoAuth) || c.rows == RedisRows::kNone);
    switch (c.counts_as) {
      case RedisCountsAs::kFind: EXPECT_EQ(c.rows, RedisRows::kRead); break;
      case RedisCountsAs::kInsert: EXPECT_TRUE(c.inserts); break;
      case RedisCountsAs::kUpdate: EXPECT_TRUE(c.rows == RedisRows::kWrite && !c.deletes); break;
      case RedisCountsAs::kDelete: EXPECT_TRUE(c.deletes); break;
      case RedisCountsAs::kOther: break;
    }
    // A key position needs a step.
    EXPECT_TRUE(c.first_key == 0 || c.key_step > 0);
  }
}

std::string Find(std::vector<std::string_view> argv, RedisCommandId* id = nullptr) {
  std::string error;
  const RedisCommandInfo* info = RedisFindCommand(argv.data(), argv.size(), &error);
  if (info != nullptr && id != nullptr) *id = info->id;
  return info != nullptr ? "" : error;
}

TEST(RedisCommands, lookup_is_case_blind_and_finds_subcommands) {
  RedisCommandId id{};
  EXPECT_EQ(Find({"gEt", "k"}, &id), "");
  EXPECT_EQ(id, RedisCommandId::kGet);
  EXPECT_EQ(Find({"client", "SETNAME", "n"}, &id), "");
  EXPECT_EQ(id, RedisCommandId::kClientSetname);
  EXPECT_EQ(Find({"COMMAND"}, &id), "");
  EXPECT_EQ(id, RedisCommandId::kCommand);
  EXPECT_EQ(Find({"CONFIG", "get", "maxmemory"}, &id), "");
  EXPECT_EQ(id, RedisCommandId::kConfigGet);
}

TEST(RedisCommands, lookup_errors_are_redis_words) {
  EXPECT_EQ(Find({"get"}), "ERR wrong number of arguments for 'get' command");
  EXPECT_EQ(Find({"client", "setname"}), "ERR wrong number of arguments for 'client|setname' command");
  EXPECT_EQ(Find({"client"}), "ERR wrong number of arguments for 'client' command");
  EXPECT_EQ(Find({"client", "foo"}), "ERR unknown subcommand 'foo'. Try CLIENT HELP.");
  EXPECT_EQ(Find({"Config", "x"}), "ERR unknown subcommand 'x'. Try CONFIG HELP.");
  EXPECT_EQ(Find({"client|setname", "x"}), "ERR unknown command 'client|setname', with args beginning with: 'x' ");
  EXPECT_EQ(Find({"set", "k"}), "ERR wrong number of arguments for 'set' command");
  // PING's arity is -1: its at most one argument is PING's own check, as in Redis.
  EXPECT_EQ(Find({"ping", "a", "b"}), "");
}

TEST(RedisCommands, key_positions) {
  const RedisCommandInfo& mset = RedisCommandProperties(RedisCommandId::kMset);
  EXPECT_TRUE(RedisIsKeyPosition(mset, 1, 5));
  EXPECT_FALSE(RedisIsKeyPosition(mset, 2, 5));
  EXPECT_TRUE(RedisIsKeyPosition(mset, 3, 5));
  EXPECT_FALSE(RedisIsKeyPosition(mset, 0, 5));
  const RedisCommandInfo& del = RedisCommandProperties(RedisCommandId::kDel);
  EXPECT_TRUE(RedisIsKeyPosition(del, 3, 4));
  EXPECT_FALSE(RedisIsKeyPosition(RedisCommandProperties(RedisCommandId::kPing), 1, 2));
}

}  // namespace
}  // namespace rowsocket
