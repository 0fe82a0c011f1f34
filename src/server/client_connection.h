// ClientConnection: one client socket and its buffers, owned by one worker at a time.
//
// Input arrives in `in_`; its protocol (connection_protocol.h: the listener's,
// registered once per protocol) parses complete requests in place, so `in_` is
// compacted only after the batch that uses them has been answered. Answers
// accumulate in `out_` and leave in as few writes as the socket allows; answers of
// a write batch that is committed but not yet durable are held back (HoldOutput)
// until it is.
//
// The transport is chosen by the first byte the client sends: 0x16 (a TLS handshake
// record, which no request begins with) makes it a TLS connection, whose handshake
// advances in ReadOnce as the socket becomes ready and whose bytes then pass through
// the TLS session in ReadOnce and Flush; anything else is plain text.
//
// Two state machines:
//  - Ownership (atomic; any worker): free -> owned by the worker that took the
//    readiness that found it free (Acquire) -> free again when it lets go (Release).
//    Readiness that arrives while it is owned makes it "owned, served again" (the
//    owner serves it again instead of letting go). While it is free, the listener's
//    sweep may claim it for a moment (Claim, Unclaim); a worker that arrives
//    meanwhile waits for the sweep to let go.
//  - Phase (the owner's, or the sweep's while it has claimed the connection):
//      serving --WaitForSocket--> sending --AnswersSent--> serving
//      serving or sending --End--> ending (closed once its answers are out)
//    `sending`: let go with answers the socket did not take; its requests wait until
//    they are out. `ending`: the peer closed its side, the stream cannot be framed
//    any more, or it was idle too long; no request is read any more.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/parsed_request.h"
#include "seam/connection_info.h"
#include "seam/executor.h"
#include "seam/stats.h"
#include "server/connection_protocol.h"
#include "util/tls.h"

namespace rowsocket {

class Listener;

class ClientConnection {
 public:
  ClientConnection(int fd, uint64_t id, std::string peer, Listener* listener,
                   std::unique_ptr<ConnectionSession> session, WorkerStats* stats,
                   uint64_t now_ms);

  // --- Ownership ---------------------------------------------------------------
  // Readiness reached a worker: true if the connection was free and that worker now
  // owns it; false if another worker owns it (which then serves it again).
  bool Acquire();
  // The owner is done: true if the connection is free now, false if readiness
  // arrived meanwhile (the owner keeps it and serves it again).
  bool Release();
  // The sweep takes a free connection for a moment, if it is free; Unclaim lets go.
  bool Claim() {
    uint8_t expected = kFree;
    return owner_.compare_exchange_strong(expected, kSwept, std::memory_order_acq_rel);
  }
  void Unclaim() { owner_.store(kFree, std::memory_order_release); }
  // Worker `worker` owns it now: its counters count from now on, and
  // information_schema names it.
  void ServedBy(WorkerStats* stats, int worker) {
    stats_ = stats;
    worker_.store(worker, std::memory_order_relaxed);
  }

  // --- Phase ---------------------------------------------------------------------
  bool serving() const { return phase_ == Phase::kServing; }
  bool ending() const { return phase_ == Phase::kEnding; }
  // Its answers wait for the socket to take them (serving -> sending).
  void WaitForSocket() {
    if (phase_ == Phase::kServing) phase_ = Phase::kSending;
  }
  // Every answer has left: true if it was sending (sending -> serving).
  bool AnswersSent() {
    if (phase_ != Phase::kSending) return false;
    phase_ = Phase::kServing;
    return true;
  }
  // No request is read any more: it closes once its answers are out. False if it was
  // ending already.
  bool End() {
    if (phase_ == Phase::kEnding) return false;
    phase_ = Phase::kEnding;
    return true;
  }

  int fd() const { return fd_; }
  ConnectionSession* session() const { return session_.get(); }
  // The client speaks TLS (its requests arrive only once the handshake is done).
  bool tls() const { return transport_ == Transport::kTls; }
  // The client's first byte said plain text.
  bool plain() const { return transport_ == Transport::kPlain; }

  // The worker whose loop serves it (io_uring: the ring that accepted it), or -1 when
  // any of its listener's workers may (epoll).
  int home() const { return home_; }
  void SetHome(int worker) { home_ = worker; }

  // What a completion-based loop (io_uring) keeps per connection; epoll leaves it
  // alone. Only the home worker's thread touches it.
  struct IoState {
    std::string received;      // bytes received, not yet taken into the input
    uint16_t in_flight = 0;    // operations whose last completion has not come
    bool receiving = false;    // a multishot receive is armed
    bool polling = false;      // a multishot poll is armed (TLS, or transport unknown)
    bool sending = false;      // a send is in flight
    bool peer_closed = false;  // a receive saw the end of the stream
    bool failed = false;       // a receive or a send failed
    bool closing = false;      // closed once in_flight reaches 0
  };
  IoState& io() { return io_; }

  // Reads once from the socket (through the worker's `scratch` buffer of `size`
  // bytes) into the input buffer; on a TLS connection, advances the handshake first
  // and reads until the buffer is full or the socket has no more. Returns false when
  // the connection is unusable (error, failed handshake, TLS while TLS is off); ends
  // the connection when the peer closed its side.
  bool ReadOnce(char* scratch, size_t size);
  // The same for bytes a completion brought: moves `received` into the input (it
  // is left empty); with nothing received and `peer_closed`, ends the connection.
  void ReadReceived(std::string* received, bool peer_closed);

  // Parses every complete request in the input buffer, through the connection's
  // protocol (ConnectionProtocol::Parse: its line-length or value-size limit, its
  // read-only rule and authentication); an unfinished request of `max_unfinished`
  // bytes or more (at most the line-length limit) ends the connection.
  // Returns the number of requests parsed. Call only when every request parsed
  // before has been answered.
  size_t ParseLines(uint32_t max_line_length, uint32_t max_unfinished);
  // Parsed request `i`, of the type of protocol() (see BatchItem::request).
  ParsedRequest* request(size_t i) { return requests_[i]; }
  // What the connection speaks: its listener's protocol.
  WireProtocol protocol() const;
  // Requests parsed by the last ParseLines.
  size_t parsed() const { return parsed_; }

  // A turn executes the parsed requests not answered yet: BeginTurn returns the
  // index of the first (up to parsed()) and marks where their answers begin in the
  // output; EndTurn says how many of them were answered, in order (the rest were
  // deferred and wait for a later turn, see BatchItem::out_limit).
  size_t BeginTurn();
  void EndTurn(size_t answered);
  // Parsed requests wait for an answer: no input is read until they have one.
  bool has_unanswered() const { return answered_ < parsed_; }
  // Where the answers to the current turn's requests begin in the output.
  size_t answers_begin() const { return answers_begin_; }
  // Every request the last turn answered waited `micros`.
  void CountLatency(uint64_t micros);
  // The connection wants a turn: it is serving, or it is ending with requests still
  // to answer and no answer waiting for the socket.
  bool WantsTurn() const {
    return phase_ == Phase::kServing ||
           (phase_ == Phase::kEnding && has_unanswered() && !CanSend());
  }

  // Drops the input consumed by the last ParseLines once all its requests have been
  // answered (their tokens point into it).
  void CompactInput();
  // Gives back buffer memory; for connections that have gone quiet, so that
  // thousands of idle connections cost little.
  void Trim();
  // Gives back all the memory of a closed connection but the little its retirement
  // keeps (connection_table.h, rule 3: a stale pointer only tries to Acquire it), so
  // that connections a hostile client opens and drops quickly cost their buffers only
  // while they are open. ConnectionTable::Close calls it once the socket is closed.
  void FreeClosed();
  // Bytes the input buffer holds (for the listener's input budget).
  size_t input_capacity() const { return in_.capacity() + protocol_->held_bytes(); }

  std::string* output() { return &out_; }
  // Answers not written yet, held ones included.
  bool HasOutput() const { return out_sent_ < out_.size(); }
  // Answers that may be written now.
  bool CanSend() const { return out_sent_ < SendableEnd(); }
  // Writes as much of the sendable output as the socket takes. False on a socket
  // error.
  bool Flush();
  // The sendable output not written yet, for a loop that writes it itself; it stays
  // valid and unchanged until Sent.
  std::string_view Unsent() const {
    return std::string_view(out_).substr(out_sent_, SendableEnd() - out_sent_);
  }
  // `n` bytes of Unsent() have left.
  void Sent(size_t n);
  // Says goodbye (TLS close_notify, best effort) and closes the socket; for the
  // ConnectionTable, once.
  void CloseSocket();
  // The output size at which the executor defers this connection's further
  // requests: `max_unsent` bytes of answers not written yet.
  size_t OutputLimit(size_t max_unsent) const { return out_sent_ + max_unsent; }

  // The output from `begin` on, the answers to the requests the last turn
  // answered, waits until the batch with `ticket` is durable (see
  // Executor::Execute); later answers queue behind it. `since_us`: when the turn
  // that read those requests began (their latency runs until the release);
  // `committed_us`: when the batch committed (their wait for the log flush begins).
  void HoldOutput(uint64_t ticket, size_t begin, uint64_t since_us, uint64_t committed_us);
  // Lets go of the holds of durable batches, recording their requests' latency and
  // wait for the log flush up to `now_us`; true if any went.
  bool ReleaseOutput(uint64_t durable, uint64_t now_us);
  bool held() const { return !holds_.empty(); }
  // The ticket that must be durable before every held answer may leave (0: none).
  uint64_t held_until() const { return holds_.empty() ? 0 : holds_.back().ticket; }

  // A refused login (login_policy.h): every answer, and every further request, waits
  // until `until_ms`; delayed() is true until EndDelay.
  void DelayOutput(uint64_t until_ms) { delay_until_ms_ = until_ms; }
  bool delayed() const { return delay_until_ms_ != 0; }
  uint64_t delayed_until() const { return delay_until_ms_; }
  void EndDelay() { delay_until_ms_ = 0; }

  // Admitted (login_policy.h): its TLS handshake, if any, and the login its listener
  // asks for, if any, have finished (any thread). On a listener that asks for no
  // login a connection is admitted from the start, until its first byte begins a TLS
  // handshake; once the handshake and any login are done it stays admitted.
  // CheckAdmitted, by the owner after each read and each turn, sets it when due.
  bool admitted() const { return admitted_.load(std::memory_order_acquire); }
  void CheckAdmitted();
  // Milliseconds since it was accepted (any thread).
  uint64_t age_ms(uint64_t now_ms) const { return now_ms - connected_ms_; }

  // The socket may hold more than the last ReadOnce took: it filled the scratch
  // buffer, or the peer's end was reported and not read yet.
  bool read_more() const {
    return read_more_ || (hangup_.load(std::memory_order_acquire) && !ending());
  }
  // Readiness with the peer's end (EPOLLRDHUP, EPOLLHUP, EPOLLERR) reached a worker
  // (any worker: the edge may come while another owns the connection).
  void NoteHangup() { hangup_.store(true, std::memory_order_release); }

  // A request arrived at `now_ms`; how long ago the last one did (any thread).
  void NoteActive(uint64_t now_ms) { last_active_ms_.store(now_ms, std::memory_order_relaxed); }
  uint64_t idle_ms(uint64_t now_ms) const {
    return now_ms - last_active_ms_.load(std::memory_order_relaxed);
  }

  // Fills what other threads may see (information_schema); any thread, under the
  // listener's connection list mutex.
  void Describe(uint64_t now_ms, ConnectionInfo* info) const;

 private:
  friend class ConnectionTable;  // keeps table_slot_

  enum class Phase : uint8_t { kServing, kSending, kEnding };
  enum class Transport : uint8_t { kUnknown, kPlain, kTls };
  enum class Choice : uint8_t { kChosen, kWait, kUnusable };
  enum : uint8_t { kFree, kOwned, kOwnedAgain, kSwept };

  // Looks at the first byte without taking it and sets transport_.
  Choice ChooseTransport();
  bool ReadTls(char* scratch, size_t size);
  bool SendTls();
  size_t SendableEnd() const { return holds_.empty() ? out_.size() : holds_.front().begin; }

  int fd_;
  int home_ = -1;
  IoState io_;
  const uint64_t id_;
  const std::string peer_;
  const uint64_t connected_ms_;
  Listener* listener_;
  std::unique_ptr<ConnectionSession> session_;
  WorkerStats* stats_;
  std::string in_;                 // received bytes; [0, consumed_) already parsed
  size_t consumed_ = 0;
  std::string out_;                // answers; [0, out_sent_) already written
  size_t out_sent_ = 0;
  size_t answers_begin_ = 0;       // output size when the current turn began
  struct Hold {
    uint64_t ticket;
    size_t begin;
    uint64_t since_us;
    uint64_t committed_us;
    uint32_t requests[kRequestCategories];  // held answers by request category
  };
  std::vector<Hold> holds_;        // oldest first
  std::unique_ptr<ConnectionProtocol> protocol_;  // parses; owns the requests' slots
  std::vector<ParsedRequest*> requests_;          // the last ParseLines's, reused
  size_t parsed_ = 0;              // requests_[0, parsed_) came from the last ParseLines
  size_t answered_ = 0;            // requests_[0, answered_) have their answers
  size_t turn_first_ = 0;          // the first request the current turn executes
  size_t table_slot_ = 0;          // position in the ConnectionTable's list (its lock)
  size_t input_charged_ = 0;       // input capacity counted in the table's budget
  Phase phase_ = Phase::kServing;
  Transport transport_ = Transport::kUnknown;
  bool refuse_plain_ = false;      // plain text while require_secure_transport is on
  bool tls_counted_ = false;       // counted in the listener's open TLS connections
  std::unique_ptr<TlsStream> tls_;
  std::atomic<const char*> tls_version_{""};  // for Describe
  bool read_more_ = false;         // the last read filled the buffer: more may wait
  uint64_t delay_until_ms_ = 0;    // a refused login's answers wait until then (0: none)
  std::atomic<bool> hangup_{false};
  std::atomic<uint8_t> owner_{kOwned};  // made owned by the worker that accepts it
  // Written by the owner only; atomics so that Describe may read them anywhere.
  std::atomic<uint64_t> last_active_ms_{0};
  std::atomic<int> worker_{0};     // the worker that served it last
  Counter requests_total_;
  Counter bytes_received_;
  Counter bytes_sent_;
  std::atomic<bool> admitted_{false};
};

}  // namespace rowsocket
