// The answer to an account login's challenge: MariaDB's mysql_native_password scramble.
//
// `A 2 <user>` answers a nonce (40 hex digits: 20 random bytes, single use); the
// client proves it knows the password with `A 3 <user> <response>`, where
//   response = SHA1(password) XOR SHA1(nonce_bytes ‖ SHA1(SHA1(password)))
// in 40 lowercase hex digits: what the mariadb client computes for the same account,
// so the server checks it against the hash in mysql.global_priv and never sees the
// password. Called by Connection::Login. Pure; any thread.
#pragma once

#include <string>
#include <string_view>

namespace rowsocket {
namespace client {

// Sets `*response_hex` to the response for `password` (any bytes, empty included)
// and the server's `nonce_hex`. Returns false, leaving `*response_hex` unchanged,
// when `nonce_hex` is not 40 hex digits. Intermediate hashes are wiped.
bool NativePasswordResponse(std::string_view password, std::string_view nonce_hex,
                            std::string* response_hex);

// Overwrites the bytes of `secret` (a password no longer needed), then empties it.
void Wipe(std::string* secret);

}  // namespace client
}  // namespace rowsocket
