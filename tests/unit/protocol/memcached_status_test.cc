// Tests for memcached's words of the engine's refusals and failures
// (memcached_status.h): every framing, and quiet requests.
#include "protocol/memcached_status.h"

#include <gtest/gtest.h>

#include <string>

#include "memcached_test_util.h"
#include "protocol/memcached_response.h"

namespace rowsocket {
namespace {

using mc_test::BinaryError;

McRequest Text(bool noreply = false) {
  return mc_test::StoreRequest(McFraming::kText, noreply);
}
McRequest Binary() { return mc_test::StoreRequest(McFraming::kBinary); }

TEST(MemcachedStatus, refusal_by_grants_and_by_login_differ_in_text) {
  std::string out;
  McAnswerRefusal(Text(), EngineStatus::Denied(), &out);
  EXPECT_EQ(out, "CLIENT_ERROR access denied\r\n");
  out.clear();
  McAnswerRefusal(Text(), EngineStatus::Unauthenticated(), &out);
  EXPECT_EQ(out, "CLIENT_ERROR unauthenticated\r\n");
}

TEST(MemcachedStatus, refusal_is_answered_to_a_quiet_request) {
  std::string out;
  McAnswerRefusal(Text(/*noreply=*/true), EngineStatus::Denied(), &out);
  EXPECT_EQ(out, "CLIENT_ERROR access denied\r\n");
}

TEST(MemcachedStatus, binary_refusal_is_an_auth_error) {
  const McRequest mc = Binary();
  std::string out;
  McAnswerRefusal(mc, EngineStatus::Denied(), &out);
  EXPECT_EQ(out, BinaryError(mc, McStatus::kAuthError));
}

TEST(MemcachedStatus, failure_names_the_error_number_or_what_happened) {
  std::string out;
  McAnswerFailure(Text(), EngineStatus::LockWaitTimeout(1205), &out);
  EXPECT_EQ(out, "SERVER_ERROR 1 1205\r\n");
  out.clear();
  McAnswerFailure(Text(), EngineStatus::Killed(), &out);
  EXPECT_EQ(out, "SERVER_ERROR the request was killed\r\n");
  out.clear();
  McAnswerFailure(Text(), EngineStatus::TableOpenFailed(), &out);
  EXPECT_EQ(out, "SERVER_ERROR the table cannot be opened\r\n");
}

TEST(MemcachedStatus, failure_of_a_quiet_text_request_is_silent) {
  std::string out;
  McAnswerFailure(Text(/*noreply=*/true), EngineStatus::StorageError(1205), &out);
  McAnswerFlushOff(Text(/*noreply=*/true), &out);
  EXPECT_EQ(out, "");
}

TEST(MemcachedStatus, binary_failure_is_a_temporary_failure) {
  const McRequest mc = Binary();
  std::string out;
  McAnswerFailure(mc, EngineStatus::Deadlock(1213), &out);
  EXPECT_EQ(out, BinaryError(mc, McStatus::kOutOfMemory));
}

TEST(MemcachedStatus, flush_off_names_the_option) {
  std::string out;
  McAnswerFlushOff(Text(), &out);
  EXPECT_EQ(out, "SERVER_ERROR flush_all is off (rowsocket_memcached_flush)\r\n");
  const McRequest mc = Binary();
  out.clear();
  McAnswerFlushOff(mc, &out);
  EXPECT_EQ(out, BinaryError(mc, McStatus::kNotStored));
}

}  // namespace
}  // namespace rowsocket
