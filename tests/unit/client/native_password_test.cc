// Tests for NativePasswordResponse, the scramble that answers an account login's nonce.
//
// The expected responses were computed apart from this code, with Python's hashlib:
//   s1 = sha1(pw); mask = sha1(nonce_bytes + sha1(s1)); bytes(a ^ b for a, b in zip(s1, mask))
// so a wrong byte order, a hashed hex nonce or a truncated password shows up here.
#include <gtest/gtest.h>

#include <string>

#include "native_password.h"

namespace rowsocket {
namespace client {
namespace {

constexpr const char* kCountingNonce = "000102030405060708090a0b0c0d0e0f10111213";
constexpr const char* kRandomNonce = "f3a9c2e07b5d1148a6e2907fcd3318b0e45a7c21";

std::string Response(std::string_view password, std::string_view nonce) {
  std::string response = "unchanged";
  EXPECT_TRUE(NativePasswordResponse(password, nonce, &response));
  return response;
}

TEST(NativePassword, response_matches_the_mysql_native_password_scramble) {
  EXPECT_EQ(Response("pw", kCountingNonce), "c240bb20be464e6a00310bf70095910c89d96cbe");
  EXPECT_EQ(Response("pw", kRandomNonce), "09870633c1fe3ba1515b7473abf7b736710e5e73");
}

TEST(NativePassword, empty_password_uses_the_same_formula) {
  EXPECT_EQ(Response("", kCountingNonce), "767be93ed197083818f15db91fd7d52407ad353e");
  EXPECT_EQ(Response("", kRandomNonce), "dbec0c7cc7b4fda0a65ebad58a4c97e15d31d83e");
}

TEST(NativePassword, non_ascii_passwords_are_hashed_as_their_bytes) {
  EXPECT_EQ(Response("p\xc3\xa4ssw\xc3\xb6rd", kCountingNonce),  // "pässwörd" in UTF-8
            "8a70fa1ac58f05e75a7b1461f870c6bf88ab0732");
  EXPECT_EQ(Response("\xd0\xbf\xd0\xb0\xd1\x80\xd0\xbe\xd0\xbb\xd1\x8c", kRandomNonce),
            "42aaa66824151fe82bcc73fb6cbfc084c93ed1af");  // "пароль" in UTF-8
  // Not UTF-8, with a NUL byte, a TAB and a space: every byte counts.
  EXPECT_EQ(Response(std::string_view("\xff\x00\xfe tab\there", 12), kCountingNonce),
            "c82da84506c275e7f88ff1e9a8da55c021eea64f");
  EXPECT_EQ(Response(std::string_view("\xff\x00\xfe tab\there", 12), kRandomNonce),
            "8df0fbac44cb9890a99aaca4d9ca4d7270e3927f");
}

TEST(NativePassword, uppercase_nonce_digits_are_read_alike) {
  EXPECT_EQ(Response("pw", "F3A9C2E07B5D1148A6E2907FCD3318B0E45A7C21"),
            "09870633c1fe3ba1515b7473abf7b736710e5e73");
}

TEST(NativePassword, a_nonce_that_is_not_40_hex_digits_is_refused) {
  for (std::string_view bad : {"", "00", "000102030405060708090a0b0c0d0e0f1011121",
                               "000102030405060708090a0b0c0d0e0f1011121300",
                               "000102030405060708090a0b0c0d0e0f1011121g"}) {
    std::string response = "unchanged";
    EXPECT_FALSE(NativePasswordResponse("pw", bad, &response)) << bad;
    EXPECT_EQ(response, "unchanged");
  }
}

TEST(NativePassword, wipe_empties_the_string) {
  std::string password = "a password long enough to live on the heap";
  Wipe(&password);
  EXPECT_TRUE(password.empty());
}

}  // namespace
}  // namespace client
}  // namespace rowsocket
