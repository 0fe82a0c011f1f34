// ConnectionProtocol: what differs per protocol in the server layer, for one
// connection. ClientConnection moves bytes, keeps the turn's bookkeeping and
// applies what every protocol shares (TLS, login delays and timeouts, output
// holds); its protocol frames and parses the input into requests of its own type,
// applies its per-connection rules (a shared secret, account-login gating, the
// read-only listener, refusing plain text where TLS is required) and writes the
// errors the server answers itself (a line too long, TLS required) as invalid
// requests that its engine handler answers in the protocol's words.
//
// A protocol of the server layer is one implementation of this interface and a
// ServerProtocol in its own file (hs_connection.cc, mc_connection.cc), registered
// in connection_protocols.cc.
// Each connection owns its own; used on its owner's thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "protocol/parsed_request.h"
#include "seam/config.h"
#include "seam/executor.h"
#include "seam/stats.h"

namespace rowsocket {

class Listener;

// One parse of a connection's input: what the connection gives its protocol, and
// what the protocol says back.
struct ParseTurn {
  // The input not parsed yet; a protocol may decode tokens in place, and requests
  // point into it until they have been answered.
  char* input = nullptr;
  size_t size = 0;
  // A request (line, value) longer than `max_line_length` bytes is refused; an
  // unfinished one of `max_unfinished` bytes or more (the listener's input is over
  // its budget) ends the connection.
  uint32_t max_line_length = 0;
  uint32_t max_unfinished = 0;
  const Listener* listener = nullptr;
  ConnectionSession* session = nullptr;
  WorkerStats* stats = nullptr;
  bool tls = false;           // the connection speaks TLS
  bool refuse_plain = false;  // plain text while require_secure_transport is on

  // Out: the requests parsed, in order (pointers into the protocol's own slots,
  // valid until the next Parse or Trim); the input bytes they took.
  std::vector<ParsedRequest*>* requests = nullptr;
  size_t consumed = 0;
  bool end = false;         // no request is read any more: it closes once answered
  bool next_turn = false;   // what follows is parsed next turn (after a login's answer)
};

class ConnectionProtocol {
 public:
  virtual ~ConnectionProtocol() = default;
  // Parses the complete requests of turn->input into turn->requests (cleared
  // first), applying the protocol's per-connection rules. Stops at an unfinished
  // request, at the end of the stream's framing (sets `end`), or where what follows
  // must wait for this turn's answers (sets `next_turn`).
  virtual void Parse(ParseTurn* turn) = 0;
  // Gives back request slots; for a connection that has gone quiet, with every
  // request answered.
  virtual void Trim() {}
  // The connection has proved the listener's shared secret (any thread; a protocol
  // without one: never).
  virtual bool secret_accepted() const { return false; }
  // Bytes of requests the protocol keeps between turns (a Redis MULTI's queued
  // commands), charged to the listener's input budget with the connection's input.
  virtual size_t held_bytes() const { return 0; }
};

// What a quiet connection's Trim keeps of its parsed-request slots: at most
// kKeptRequestSlots, their memory given back.
constexpr size_t kKeptRequestSlots = 64;
template <class Slot>
void TrimRequestSlots(std::vector<Slot>* slots) {
  if (slots->size() <= kKeptRequestSlots) return;
  slots->resize(kKeptRequestSlots);
  slots->shrink_to_fit();
}

// What the server layer knows of a protocol: made once per protocol, in its own
// file, and registered in connection_protocols.cc.
struct ServerProtocol {
  // The protocol's side of a new connection.
  std::unique_ptr<ConnectionProtocol> (*new_connection)();
  // The counts of open connections its listeners add to (a read-only listener's,
  // and the others').
  uint64_t StatsSnapshot::*open_connections_read_only;
  uint64_t StatsSnapshot::*open_connections;
};

// The registration of `protocol` (connection_protocols.cc).
const ServerProtocol& ServerProtocolOf(WireProtocol protocol);

}  // namespace rowsocket
