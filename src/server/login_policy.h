// LoginPolicy: what the server layer does to a connection while it is not admitted
// yet, for every listener alike (HandlerSocket's read and write ports, memcached,
// any protocol to come): the engine decides whether a login succeeds (the account's
// rules, engine/accounts.h) and counts each refusal in ConnectionSession::failed_logins;
// the worker, which owns the connection's answers, applies what follows here.
//
//  - A refused login's answer leaves only after a delay that doubles with every
//    refusal on the connection (100 ms, 200 ms, 400 ms, ...). The worker never
//    sleeps: the connection is parked with its answers (ConnectionTable::Delay) and
//    nothing more of it is read until the deadline; the worker serves others meanwhile.
//  - The kLoginFailuresBeforeClose-th refusal is answered (after its delay) and the
//    connection closes.
//  - A connection that has not finished its TLS handshake and, where its listener
//    asks for logins, logged in within rowsocket_connect_timeout seconds of being
//    accepted is closed, whatever it sends meanwhile.
//
// Pure functions of counts and times; any thread.
#pragma once

#include <algorithm>
#include <cstdint>

namespace rowsocket {

// Refused logins on one connection after which it is closed.
constexpr uint32_t kLoginFailuresBeforeClose = 3;
// The delay of the first refused login's answer; each further one doubles it.
constexpr uint64_t kLoginDelayFirstMs = 100;

// How long the answer to the connection's `failures`-th refused login is held.
inline uint64_t LoginDelayMs(uint32_t failures) {
  if (failures == 0) return 0;
  return kLoginDelayFirstMs << std::min<uint32_t>(failures - 1, 16);
}

// Whether the connection closes once that answer has left.
inline bool LoginFailuresEnd(uint32_t failures) { return failures >= kLoginFailuresBeforeClose; }

// Whether a connection accepted `age_ms` ago and not admitted yet (see above) has
// outstayed `connect_timeout_s` (0: no bound).
inline bool AdmissionOverdue(uint64_t age_ms, uint32_t connect_timeout_s) {
  return connect_timeout_s != 0 && age_ms >= uint64_t{connect_timeout_s} * 1000;
}

}  // namespace rowsocket
