// The server layer's rules for connections not admitted yet (server/login_policy.h).
#include "server/login_policy.h"

#include <gtest/gtest.h>

namespace rowsocket {
namespace {

TEST(LoginPolicyTest, each_refusal_doubles_the_delay_of_its_answer) {
  EXPECT_EQ(LoginDelayMs(0), 0u);
  EXPECT_EQ(LoginDelayMs(1), kLoginDelayFirstMs);
  EXPECT_EQ(LoginDelayMs(2), 2 * kLoginDelayFirstMs);
  EXPECT_EQ(LoginDelayMs(3), 4 * kLoginDelayFirstMs);
  EXPECT_EQ(LoginDelayMs(1000), LoginDelayMs(17));  // bounded, never wraps
}

TEST(LoginPolicyTest, the_connection_closes_at_the_third_refusal) {
  EXPECT_FALSE(LoginFailuresEnd(kLoginFailuresBeforeClose - 1));
  EXPECT_TRUE(LoginFailuresEnd(kLoginFailuresBeforeClose));
  EXPECT_EQ(kLoginFailuresBeforeClose, 3u);  // as docs/PROTOCOL.md says
}

TEST(LoginPolicyTest, admission_is_overdue_after_the_connect_timeout_unless_it_is_off) {
  EXPECT_FALSE(AdmissionOverdue(9999, 10));
  EXPECT_TRUE(AdmissionOverdue(10000, 10));
  EXPECT_FALSE(AdmissionOverdue(1000000, 0));
}

}  // namespace
}  // namespace rowsocket
