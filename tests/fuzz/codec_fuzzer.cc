// libFuzzer target for the token codec (protocol/codec.h): AppendEncoded writes
// every string value of an answer, DecodeInPlace reads every value token of a
// request and of an answer. One input is arbitrary bytes, used both as a raw string
// to encode and as an encoded token to decode.
//
// It checks what codec.h promises:
//  - decoding the encoding gives back the bytes, for any bytes;
//  - the encoding appends (what the buffer held stays), is the input with each byte
//    0x00..0x0f replaced by 0x01 and the byte plus 0x40, so it holds no byte below
//    0x10 but the 0x01 that starts such a pair (no TAB, LF or NULL token can appear),
//    and is never the NULL token;
//  - decoding any token in place gives what a plain reference decoder gives, no
//    longer than the token, and the encoding of that decodes back to it.
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "protocol/codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rowsocket;
  const std::string_view raw(reinterpret_cast<const char*>(data), size);

  // Guide: the input as a raw string: encode it, check the form, decode it back.
  std::string encoded = "prefix";
  AppendEncoded(&encoded, raw);
  FUZZ_CHECK(encoded.compare(0, 6, "prefix") == 0);
  const std::string_view wire = std::string_view(encoded).substr(6);
  size_t low = 0;
  for (unsigned char c : raw) low += c < 0x10;
  FUZZ_CHECK(wire.size() == raw.size() + low);
  FUZZ_CHECK(wire != std::string_view("\0", 1));
  for (size_t i = 0, j = 0; i < raw.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(raw[i]);
    if (c < 0x10) {
      FUZZ_CHECK(wire[j] == '\x01' && static_cast<unsigned char>(wire[j + 1]) == c + 0x40);
      j += 2;
    } else {
      FUZZ_CHECK(static_cast<unsigned char>(wire[j]) == c);
      ++j;
    }
  }
  for (size_t j = 0; j < wire.size(); ++j) {
    const unsigned char c = static_cast<unsigned char>(wire[j]);
    if (c == 0x01) {
      FUZZ_CHECK(j + 1 < wire.size());
      const unsigned char next = static_cast<unsigned char>(wire[++j]);
      FUZZ_CHECK(next >= 0x40 && next <= 0x4f);
    } else {
      FUZZ_CHECK(c >= 0x10);
    }
  }
  fuzz::LineCopy to_decode(wire);
  const size_t decoded = DecodeInPlace(to_decode.data(), to_decode.size());
  FUZZ_CHECK(std::string_view(to_decode.data(), decoded) == raw);

  // Guide: the input as an encoded token: decode it in place, compare, re-encode.
  fuzz::LineCopy token(raw);
  const size_t length = DecodeInPlace(token.data(), token.size());
  FUZZ_CHECK(length <= size);
  const std::string_view result(token.data(), length);
  FUZZ_CHECK(result == fuzz::ReferenceDecode(raw));
  std::string again;
  AppendEncoded(&again, result);
  fuzz::LineCopy again_copy(again);
  const size_t again_length = DecodeInPlace(again_copy.data(), again_copy.size());
  FUZZ_CHECK(std::string_view(again_copy.data(), again_length) == result);
  return 0;
}
