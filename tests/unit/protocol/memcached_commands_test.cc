// Consistency of the memcached command table (memcached_commands.h): one row per
// command in McCommand order, and properties that agree with each other.
#include "protocol/memcached_commands.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace rowsocket {
namespace {

TEST(MemcachedCommands, one_row_per_command_in_order_with_unique_names) {
  std::set<std::string> names;
  for (size_t i = 0; i < kMcCommands; ++i) {
    const McCommandInfo& info = McCommandTable()[i];
    EXPECT_EQ(static_cast<size_t>(info.command), i);
    EXPECT_EQ(&McCommandProperties(info.command), &info);
    ASSERT_NE(info.name, nullptr);
    EXPECT_FALSE(std::string(info.name).empty());
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
  }
}

TEST(MemcachedCommands, properties_agree) {
  for (size_t i = 0; i < kMcCommands; ++i) {
    const McCommandInfo& c = McCommandTable()[i];
    SCOPED_TRACE(c.name);
    // Writing means using the rows; inserting and deleting mean writing.
    EXPECT_TRUE(!c.writes || c.uses_rows);
    EXPECT_TRUE(!c.inserts || c.writes);
    EXPECT_TRUE(!c.deletes || c.writes);
    EXPECT_FALSE(c.inserts && c.deletes);
    // A flag that makes a command write belongs to a reading command.
    EXPECT_TRUE(c.writes_with_flag == 0 || (c.uses_rows && !c.writes));
    // Nothing that touches rows runs before a login; the login is its own step.
    EXPECT_TRUE(!c.before_login || !c.uses_rows);
    EXPECT_TRUE(!c.logs_in || !(c.before_login || c.uses_rows));
    // A retrieval reads rows, and changes at most their expiry: it neither inserts
    // nor deletes.
    EXPECT_TRUE(!c.retrieves || (c.uses_rows && !c.inserts && !c.deletes));
    // The counters agree with what the command does.
    switch (c.counts_as) {
      case McCountsAs::kFind: EXPECT_TRUE(c.uses_rows && !c.writes); break;
      case McCountsAs::kInsert: EXPECT_TRUE(c.inserts); break;
      case McCountsAs::kUpdate: EXPECT_TRUE(c.writes && !c.deletes); break;
      case McCountsAs::kDelete: EXPECT_TRUE(c.deletes); break;
      case McCountsAs::kInvalid: EXPECT_EQ(c.command, McCommand::kInvalid); break;
      case McCountsAs::kOther: break;
    }
  }
}

TEST(MemcachedCommands, mg_writes_only_with_T) {
  McRequest mg;
  mg.command = McCommand::kMetaGet;
  mg.framing = McFraming::kMeta;
  EXPECT_FALSE(McWritesRows(mg));
  EXPECT_TRUE(McTouchesRows(mg));
  static const std::string input = "mg foo v T30\r\n";
  McRequest mg_touch;
  ASSERT_EQ(ParseMcRequest(input, McProtocol::kText, McLimits(), &mg_touch).status,
            McParseStatus::kRequest);
  EXPECT_EQ(mg_touch.command, McCommand::kMetaGet);
  EXPECT_TRUE(McWritesRows(mg_touch));
  McRequest version;
  version.command = McCommand::kVersion;
  EXPECT_FALSE(McTouchesRows(version));
  McRequest del;
  del.command = McCommand::kDelete;
  EXPECT_TRUE(McWritesRows(del));
}

// Each command counts (ParsedRequest::category) as its table row says.
TEST(MemcachedCommands, category_follows_counts_as) {
  for (size_t i = 0; i < kMcCommands; ++i) {
    const McCommandInfo& c = McCommandTable()[i];
    SCOPED_TRACE(c.name);
    McRequest mc;
    mc.command = c.command;
    const RequestCategory category = McCategoryOf(mc);
    switch (c.counts_as) {
      case McCountsAs::kFind: EXPECT_EQ(category, RequestCategory::kFind); break;
      case McCountsAs::kInsert: EXPECT_EQ(category, RequestCategory::kInsert); break;
      case McCountsAs::kUpdate: EXPECT_EQ(category, RequestCategory::kUpdate); break;
      case McCountsAs::kDelete: EXPECT_EQ(category, RequestCategory::kDelete); break;
      case McCountsAs::kInvalid: EXPECT_EQ(category, RequestCategory::kInvalid); break;
      case McCountsAs::kOther: EXPECT_EQ(category, RequestCategory::kOpen); break;
    }
  }
}

// Clear() forgets what the server decided of the request before.
TEST(MemcachedCommands, clear_resets_the_neutral_fields) {
  McRequest mc;
  mc.category = RequestCategory::kUpdate;
  mc.writes = true;
  mc.Clear();
  EXPECT_EQ(mc.category, RequestCategory::kInvalid);
  EXPECT_FALSE(mc.writes);
}

}  // namespace
}  // namespace rowsocket
