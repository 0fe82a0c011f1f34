// Tests for the token encoding: AppendEncoded, AppendNull and DecodeInPlace.
//
// Pins the byte-level contract every HandlerSocket client relies on: which bytes
// are escaped and how, that NULL and the empty string stay apart, and that decoding
// undoes encoding for every byte value.
#include "protocol/codec.h"

#include <gtest/gtest.h>

#include <string>

namespace rowsocket {
namespace {

std::string Encode(std::string_view raw) {
  std::string out;
  AppendEncoded(&out, raw);
  return out;
}

std::string Decode(std::string token) {
  const size_t size = DecodeInPlace(token.data(), token.size());
  token.resize(size);
  return token;
}

std::string AllByteValues() {
  std::string raw;
  for (int b = 0; b < 256; ++b) raw.push_back(static_cast<char>(b));
  return raw;
}

TEST(Codec, all_256_byte_values_round_trip_in_one_token) {
  const std::string raw = AllByteValues();
  const std::string encoded = Encode(raw);
  EXPECT_EQ(encoded.size(), 256u + 16u);  // 16 escaped bytes take two bytes each
  EXPECT_EQ(Decode(encoded), raw);
}

TEST(Codec, every_single_byte_value_round_trips) {
  for (int b = 0; b < 256; ++b) {
    const std::string raw(1, static_cast<char>(b));
    EXPECT_EQ(Decode(Encode(raw)), raw) << "byte " << b;
  }
}

TEST(Codec, bytes_below_0x10_are_written_as_0x01_and_byte_plus_0x40) {
  for (int b = 0; b < 0x10; ++b) {
    const std::string expected = {'\x01', static_cast<char>(b + 0x40)};
    EXPECT_EQ(Encode(std::string(1, static_cast<char>(b))), expected) << "byte " << b;
  }
}

TEST(Codec, tab_newline_and_zero_are_escaped) {
  EXPECT_EQ(Encode("\t"), std::string("\x01\x49"));
  EXPECT_EQ(Encode("\n"), std::string("\x01\x4a"));
  EXPECT_EQ(Encode(std::string(1, '\0')), std::string("\x01\x40"));
  EXPECT_EQ(Encode("\x01"), std::string("\x01\x41"));
}

TEST(Codec, bytes_from_0x10_stand_for_themselves) {
  std::string raw;
  for (int b = 0x10; b < 256; ++b) raw.push_back(static_cast<char>(b));
  EXPECT_EQ(Encode(raw), raw);
}

TEST(Codec, encoded_value_never_contains_tab_newline_or_zero) {
  const std::string encoded = Encode(AllByteValues());
  EXPECT_EQ(encoded.find('\t'), std::string::npos);
  EXPECT_EQ(encoded.find('\n'), std::string::npos);
  EXPECT_EQ(encoded.find('\0'), std::string::npos);
}

TEST(Codec, null_is_one_zero_byte_and_empty_string_is_nothing) {
  std::string null_token;
  AppendNull(&null_token);
  EXPECT_EQ(null_token, std::string(1, '\0'));
  EXPECT_EQ(Encode(""), "");
  // A string holding one zero byte is not NULL on the wire either.
  EXPECT_NE(Encode(std::string(1, '\0')), null_token);
}

TEST(Codec, append_encoded_appends_after_existing_content) {
  std::string out = "0\t1\t";
  AppendEncoded(&out, "a\tb");
  EXPECT_EQ(out, std::string("0\t1\ta\x01\x49" "b"));
}

TEST(Codec, decode_leaves_token_without_escape_untouched) {
  std::string token = "plain value";
  EXPECT_EQ(DecodeInPlace(token.data(), token.size()), token.size());
  EXPECT_EQ(token, "plain value");
}

TEST(Codec, decode_of_empty_token_is_empty) {
  char nothing = 'x';
  EXPECT_EQ(DecodeInPlace(&nothing, 0), 0u);
  EXPECT_EQ(DecodeInPlace(nullptr, 0), 0u);
}

TEST(Codec, decode_keeps_a_trailing_lone_escape_byte) {
  EXPECT_EQ(Decode("ab\x01"), std::string("ab\x01"));
  EXPECT_EQ(Decode("\x01"), std::string("\x01"));
}

TEST(Codec, decode_handles_escapes_at_start_middle_and_end) {
  EXPECT_EQ(Decode("\x01\x49" "a\x01\x4a" "b\x01\x40"), std::string("\ta\nb") + '\0');
  EXPECT_EQ(Decode("\x01\x41\x01\x41"), std::string("\x01\x01"));
}

TEST(Codec, decode_never_writes_past_the_token) {
  std::string buffer = std::string("x\x01\x49y") + "\tNEXT";
  const size_t size = DecodeInPlace(buffer.data(), 4);
  EXPECT_EQ(buffer.substr(0, size), "x\ty");
  EXPECT_EQ(buffer.substr(4), "\tNEXT");
}

}  // namespace
}  // namespace rowsocket
