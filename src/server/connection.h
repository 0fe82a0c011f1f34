// Connection: one client socket and its buffers, owned by one worker at a time.
//
// Input arrives in `in_`; complete lines are parsed in place into `requests_`
// (their tokens point into `in_`), so `in_` is compacted only after the batch that
// uses them has been answered. Answers accumulate in `out_` and leave in as few
// writes as the socket allows; answers of a write batch that is committed but not
// yet durable are held back (HoldOutput) until it is.
//
// One worker at a time owns the connection and only the owner uses it: the worker
// that took the readiness that found it free (Acquire), until it lets go (Release).
// Readiness that arrives meanwhile is noted, and the owner serves the connection
// again instead of letting go. While the connection is free, the listener's sweep
// may claim it for a moment (Claim); a worker that arrives meanwhile waits for the
// sweep to let go.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "protocol/request.h"
#include "server/connection_info.h"
#include "server/executor.h"
#include "server/stats.h"

namespace rowsocket {

class Listener;

class Connection {
 public:
  Connection(int fd, uint64_t id, std::string peer, Listener* listener,
             std::unique_ptr<Session> session, WorkerStats* stats, uint64_t now_ms)
      : fd_(fd), id_(id), peer_(std::move(peer)), connected_ms_(now_ms), listener_(listener),
        session_(std::move(session)), stats_(stats) {
    last_active_ms.store(now_ms, std::memory_order_relaxed);
  }

  // Readiness reached a worker: true if the connection was free and that worker now
  // owns it; false if another worker owns it (which then serves it again).
  bool Acquire();
  // The owner is done: true if the connection is free now, false if readiness
  // arrived meanwhile (the owner keeps it and serves it again).
  bool Release();
  // The owner's counters count from now on.
  void CountInto(WorkerStats* stats) { stats_ = stats; }
  // The sweep takes a free connection for a moment, if it is free; Unclaim lets go.
  bool Claim() {
    uint8_t expected = kFree;
    return state_.compare_exchange_strong(expected, kSwept, std::memory_order_acq_rel);
  }
  void Unclaim() { state_.store(kFree, std::memory_order_release); }

  int fd() const { return fd_; }
  uint64_t id() const { return id_; }
  Listener* listener() const { return listener_; }
  Session* session() const { return session_.get(); }

  // Reads once from the socket (through the worker's `scratch` buffer of `size`
  // bytes) into the input buffer. Returns false when the connection is unusable
  // (error); sets eof() when the peer closed its side.
  bool ReadOnce(char* scratch, size_t size);

  // Parses every complete line in the input buffer into requests (see
  // ParsedRequests). Applies the line-length limit, the read-only rule and
  // authentication. Returns the number of requests parsed.
  size_t ParseLines(uint32_t max_line_length);
  Request* request(size_t i) { return &requests_[i]; }
  // Requests parsed by the last ParseLines.
  size_t parsed() const { return parsed_; }

  // Drops the input consumed by the last ParseLines (call after answering).
  void CompactInput();
  // Gives back buffer memory; for connections that have gone quiet, so that
  // thousands of idle connections cost little.
  void Trim();

  std::string* output() { return &out_; }
  // Answers not written yet, held ones included.
  bool HasOutput() const { return out_sent_ < out_.size(); }
  // Answers that may be written now.
  bool CanSend() const { return out_sent_ < SendableEnd(); }
  // Writes as much of the sendable output as the socket takes. False on a socket
  // error.
  bool Flush();

  // The output from `begin` on, the answers to the requests of the last
  // ParseLines, waits until the batch with `ticket` is durable (see
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

  bool eof() const { return eof_; }
  // The socket may hold more than the last ReadOnce took: it filled the scratch
  // buffer, or the peer's end was reported and not read yet.
  bool read_more() const {
    return read_more_ || (hangup_.load(std::memory_order_acquire) && !eof_);
  }
  // Readiness with the peer's end (EPOLLRDHUP, EPOLLHUP, EPOLLERR) reached a worker
  // (any worker: the edge may come while another owns the connection).
  void NoteHangup() { hangup_.store(true, std::memory_order_release); }
  // The stream is beyond repair: answer what was parsed, then close.
  bool closing() const { return closing_; }

  // Fills what other threads may see (information_schema); any thread, under the
  // listener's connection list mutex.
  void Describe(uint64_t now_ms, ConnectionInfo* info) const;

  std::atomic<uint64_t> last_active_ms{0};  // last time a request arrived
  std::atomic<int> worker{0};   // the worker that served it last
  size_t index = 0;             // position in the listener's list (under its mutex)
  bool timed_out = false;       // shut down by the sweep (under the list's mutex)
  bool awaiting_output = false; // let go with answers the socket did not take
  size_t turn_output = 0;       // output size before the last turn's answers

 private:
  // Turns one line into a request, applying per-connection rules.
  void ParseOne(char* line, size_t size, Request* request);
  void AnswerLineTooLong(size_t slot);

  int fd_;
  const uint64_t id_;
  const std::string peer_;
  const uint64_t connected_ms_;
  Listener* listener_;
  std::unique_ptr<Session> session_;
  WorkerStats* stats_;
  std::string in_;                 // received bytes; [0, consumed_) already parsed
  size_t consumed_ = 0;
  std::string out_;                // answers; [0, out_sent_) already written
  size_t out_sent_ = 0;
  struct Hold {
    uint64_t ticket;
    size_t begin;
    uint64_t since_us;
    uint64_t committed_us;
    uint32_t requests[kRequestKinds];  // held answers by request kind
  };
  std::vector<Hold> holds_;        // oldest first
  size_t SendableEnd() const { return holds_.empty() ? out_.size() : holds_.front().begin; }
  std::vector<Request> requests_;  // reused across batches
  size_t parsed_ = 0;
  // Written by the worker only; atomics so that Describe may read them anywhere.
  std::atomic<uint64_t> requests_total_{0};
  std::atomic<uint64_t> bytes_received_{0};
  std::atomic<uint64_t> bytes_sent_{0};
  std::atomic<bool> authenticated_{false};
  bool eof_ = false;
  bool closing_ = false;
  bool read_more_ = false;         // the last read filled the buffer: more may wait
  std::atomic<bool> hangup_{false};
  enum : uint8_t { kFree, kOwned, kOwnedAgain, kSwept };
  std::atomic<uint8_t> state_{kOwned};
};

}  // namespace rowsocket
