// Unit tests for the lock-order plan (engine/core/lock_plan.h): the order in which
// a group of single-row items takes its row locks.
#include "engine/core/lock_plan.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <string>
#include <vector>

namespace rowsocket {
namespace {

// Keys compared as bytes, as an index of a binary column compares them.
bool BytesBefore(uint32_t, const uint8_t* a, const uint8_t* b, uint32_t length) {
  return std::memcmp(a, b, length) < 0;
}

void Add(LockPlan* plan, uint32_t item, uint32_t index, const std::string& key) {
  uint8_t* out = plan->AddKey(item, index, static_cast<uint32_t>(key.size()));
  std::memcpy(out, key.data(), key.size());
}

std::vector<uint32_t> Items(const LockPlan& plan) {
  std::vector<uint32_t> items;
  for (const LockSlot& slot : plan.slots()) items.push_back(slot.item);
  return items;
}

TEST(LockPlan, items_run_in_key_order) {
  LockPlan plan;
  Add(&plan, 0, 0, "c");
  Add(&plan, 1, 0, "a");
  Add(&plan, 2, 0, "b");
  plan.Sort(BytesBefore);
  EXPECT_EQ(Items(plan), (std::vector<uint32_t>{1, 2, 0}));
}

TEST(LockPlan, opposite_request_orders_take_locks_in_the_same_order) {
  LockPlan up, down;
  Add(&up, 0, 0, "a");
  Add(&up, 1, 0, "b");
  Add(&down, 0, 0, "b");
  Add(&down, 1, 0, "a");
  up.Sort(BytesBefore);
  down.Sort(BytesBefore);
  std::vector<std::string> up_keys, down_keys;
  for (const LockSlot& s : up.slots()) up_keys.emplace_back(reinterpret_cast<const char*>(up.key(s)), s.length);
  for (const LockSlot& s : down.slots())
    down_keys.emplace_back(reinterpret_cast<const char*>(down.key(s)), s.length);
  EXPECT_EQ(up_keys, down_keys);
}

TEST(LockPlan, items_on_the_same_row_keep_their_request_order) {
  LockPlan plan;
  Add(&plan, 0, 0, "b");
  Add(&plan, 1, 0, "a");
  Add(&plan, 2, 0, "b");
  Add(&plan, 3, 0, "a");
  Add(&plan, 4, 0, "b");
  plan.Sort(BytesBefore);
  EXPECT_EQ(Items(plan), (std::vector<uint32_t>{1, 3, 0, 2, 4}));
}

TEST(LockPlan, items_without_a_row_come_first_in_request_order) {
  LockPlan plan;
  Add(&plan, 0, 0, "b");
  plan.AddKeyless(1);
  Add(&plan, 2, 0, "a");
  plan.AddKeyless(3);
  plan.Sort(BytesBefore);
  EXPECT_EQ(Items(plan), (std::vector<uint32_t>{1, 3, 2, 0}));
}

TEST(LockPlan, a_key_that_names_no_row_takes_no_lock) {
  LockPlan plan;
  Add(&plan, 0, 0, "b");
  Add(&plan, 1, 0, "a");
  plan.DropLastKey();
  Add(&plan, 2, 0, "c");
  plan.Sort(BytesBefore);
  EXPECT_EQ(Items(plan), (std::vector<uint32_t>{1, 0, 2}));
  EXPECT_EQ(plan.slots()[0].length, 0u);
  // The dropped key's bytes are gone: the next key was written where it was.
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(plan.key(plan.slots()[2])), 1), "c");
}

TEST(LockPlan, keys_order_by_index_first) {
  LockPlan plan;
  Add(&plan, 0, 1, "a");
  Add(&plan, 1, 0, "z");
  plan.Sort(BytesBefore);
  EXPECT_EQ(Items(plan), (std::vector<uint32_t>{1, 0}));
}

TEST(LockPlan, the_index_comparison_decides_the_key_order) {
  // A collation that orders case-insensitively: "B" after "a", "A" with "a".
  auto caseless = [](uint32_t, const uint8_t* a, const uint8_t* b, uint32_t length) {
    for (uint32_t i = 0; i < length; ++i) {
      const int x = std::tolower(a[i]), y = std::tolower(b[i]);
      if (x != y) return x < y;
    }
    return false;
  };
  LockPlan plan;
  Add(&plan, 0, 0, "B");
  Add(&plan, 1, 0, "a");
  Add(&plan, 2, 0, "A");
  plan.Sort(caseless);
  EXPECT_EQ(Items(plan), (std::vector<uint32_t>{1, 2, 0}));
}

TEST(LockPlan, clear_empties_the_plan) {
  LockPlan plan;
  Add(&plan, 0, 0, "a");
  plan.Clear();
  EXPECT_TRUE(plan.slots().empty());
  Add(&plan, 5, 0, "b");
  EXPECT_EQ(plan.slots()[0].offset, 0u);
}

}  // namespace
}  // namespace rowsocket
