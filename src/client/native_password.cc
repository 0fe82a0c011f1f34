// NativePasswordResponse: the mysql_native_password scramble, on OpenSSL's SHA1.
//
// SHA1(password) alone lets anyone log in as the account, so it lives only in
// buffers on this stack that are cleansed before returning. Pure; any thread.
#include "native_password.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

namespace rowsocket {
namespace client {

namespace {

constexpr size_t kNonceSize = 20;  // bytes; the wire carries 40 hex digits

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

bool NativePasswordResponse(std::string_view password, std::string_view nonce_hex,
                            std::string* response_hex) {
  // Guide: the nonce's bytes, followed by room for SHA1(SHA1(password)).
  unsigned char salted[kNonceSize + SHA_DIGEST_LENGTH];
  if (nonce_hex.size() != 2 * kNonceSize) return false;
  for (size_t i = 0; i < kNonceSize; ++i) {
    const int hi = HexDigit(nonce_hex[2 * i]), lo = HexDigit(nonce_hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    salted[i] = static_cast<unsigned char>(hi << 4 | lo);
  }

  // Guide: stage1 = SHA1(password), stage2 = SHA1(stage1), mask = SHA1(nonce ‖ stage2).
  unsigned char stage1[SHA_DIGEST_LENGTH], mask[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(password.data()), password.size(), stage1);
  SHA1(stage1, sizeof(stage1), salted + kNonceSize);
  SHA1(salted, sizeof(salted), mask);

  // Guide: response = stage1 XOR mask, in lowercase hex.
  static const char kHex[] = "0123456789abcdef";
  std::string out(2 * SHA_DIGEST_LENGTH, '\0');
  for (size_t i = 0; i < SHA_DIGEST_LENGTH; ++i) {
    const unsigned char b = stage1[i] ^ mask[i];
    out[2 * i] = kHex[b >> 4];
    out[2 * i + 1] = kHex[b & 0x0f];
  }
  OPENSSL_cleanse(stage1, sizeof(stage1));
  OPENSSL_cleanse(mask, sizeof(mask));
  OPENSSL_cleanse(salted, sizeof(salted));
  *response_hex = std::move(out);
  return true;
}

void Wipe(std::string* secret) {
  if (!secret->empty()) OPENSSL_cleanse(&(*secret)[0], secret->size());
  secret->clear();
}

}  // namespace client
}  // namespace rowsocket
