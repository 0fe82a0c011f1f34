// Tests for memcached's words of the engine's refusals and failures
// (memcached_status.h): every framing, and quiet requests.
#include "protocol/memcached_status.h"

#include <gtest/gtest.h>

#include <string>

#include "protocol/memcached_response.h"
#include "protocol/wire_errors.h"

namespace rowsocket {
namespace {

McRequest Text(bool noreply = false) {
  McRequest mc;
  mc.command = McCommand::kStore;
  mc.framing = McFraming::kText;
  mc.noreply = noreply;
  return mc;
}

McRequest Binary() {
  McRequest mc;
  mc.command = McCommand::kStore;
  mc.framing = McFraming::kBinary;
  mc.opcode = 0x01;
  mc.opaque = 7;
  return mc;
}

std::string BinaryError(const McRequest& mc, McStatus status) {
  std::string out;
  McBinaryWriter(&out).Error(mc, status);
  return out;
}

TEST(MemcachedStatus, refusal_by_grants_and_by_login_differ_in_text) {
  std::string out;
  McAnswerRefusal(Text(), ErrorStatus(WireError::kDenied), &out);
  EXPECT_EQ(out, "CLIENT_ERROR access denied\r\n");
  out.clear();
  McAnswerRefusal(Text(), ErrorStatus(WireError::kUnauth), &out);
  EXPECT_EQ(out, "CLIENT_ERROR unauthenticated\r\n");
}

TEST(MemcachedStatus, refusal_is_answered_to_a_quiet_request) {
  std::string out;
  McAnswerRefusal(Text(/*noreply=*/true), ErrorStatus(WireError::kDenied), &out);
  EXPECT_EQ(out, "CLIENT_ERROR access denied\r\n");
}

TEST(MemcachedStatus, binary_refusal_is_an_auth_error) {
  const McRequest mc = Binary();
  std::string out;
  McAnswerRefusal(mc, ErrorStatus(WireError::kDenied), &out);
  EXPECT_EQ(out, BinaryError(mc, McStatus::kAuthError));
}

TEST(MemcachedStatus, failure_names_the_class_and_the_word) {
  std::string out;
  McAnswerFailure(Text(), WireStatus::StorageCode(1205), &out);
  EXPECT_EQ(out, "SERVER_ERROR 1 1205\r\n");
  out.clear();
  McAnswerFailure(Text(), ErrorStatus(WireError::kKilled), &out);
  EXPECT_EQ(out, "SERVER_ERROR 1 killed\r\n");
  out.clear();
  McAnswerFailure(Text(), ErrorStatus(WireError::kReadOnly), &out);
  EXPECT_EQ(out, "SERVER_ERROR 2 readonly\r\n");
}

TEST(MemcachedStatus, failure_of_a_quiet_text_request_is_silent) {
  std::string out;
  McAnswerFailure(Text(/*noreply=*/true), WireStatus::StorageCode(1205), &out);
  McAnswerFlushOff(Text(/*noreply=*/true), &out);
  EXPECT_EQ(out, "");
}

TEST(MemcachedStatus, binary_failure_is_a_temporary_failure) {
  const McRequest mc = Binary();
  std::string out;
  McAnswerFailure(mc, WireStatus::StorageCode(1213), &out);
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
