// The wire's error vocabulary: one entry per error, each word explained, classes as
// the protocol documents them.
#include "protocol/wire_errors.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace rowsocket {
namespace {

TEST(WireErrors, every_error_has_a_distinct_word_and_a_meaning) {
  std::set<std::string> words;
  for (int e = 0; e <= static_cast<int>(WireError::kTlsRequired); ++e) {
    const WireErrorInfo& info = Describe(static_cast<WireError>(e));
    EXPECT_FALSE(info.word.empty()) << e;
    EXPECT_FALSE(info.meaning.empty()) << info.word;
    EXPECT_TRUE(words.insert(std::string(info.word)).second) << info.word;
    EXPECT_EQ(MeaningOf(info.code, info.word), info.meaning);
  }
}

TEST(WireErrors, error_status_carries_the_class_and_the_word) {
  EXPECT_EQ(ErrorStatus(WireError::kKpNum), WireStatus::BadRequest("kpnum"));
  EXPECT_EQ(ErrorStatus(WireError::kOpenTable), WireStatus::Storage("open_table"));
  EXPECT_EQ(ErrorStatus(WireError::kUnauth), WireStatus::Unauthorized("unauth"));
}

TEST(WireErrors, a_word_means_something_only_in_its_class) {
  EXPECT_TRUE(MeaningOf(1, "kpnum").empty());
  EXPECT_FALSE(MeaningOf(2, "kpnum").empty());
  EXPECT_FALSE(MeaningOf(2, "tblnum").empty());  // the original's
  EXPECT_TRUE(MeaningOf(2, "nosuchword").empty());
}

}  // namespace
}  // namespace rowsocket
