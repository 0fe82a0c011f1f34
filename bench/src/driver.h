// The client model shared by every target: worker threads, each running an epoll
// loop over its connections, each connection keeping `depth` requests in flight.
//
// A Worker owns its connections, its OpSource and its statistics; nothing in the hot
// path is shared between threads except the read-mostly RunControl phase and, for
// inserts and deletes, the KeyPool. The main thread moves the phase from kSetup to
// kWarmup (connections start sending), kMeasure (completions are counted) and
// kDrain (no new requests; in-flight ones finish), then joins the threads and reads
// their Stats.
//
// Connection is the seam between the loop and a protocol: StreamConnection (below)
// carries the line/byte protocols (HandlerSocket, memcached, Redis) through a
// StreamProtocol; SqlConnection (sql_connection.h) drives libmariadb's non-blocking
// API. Both call back into Worker::NextOp and Worker::Complete.
#pragma once

#include <sys/epoll.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "histogram.h"
#include "options.h"
#include "util/clock.h"
#include "util/counter.h"
#include "util/tls.h"
#include "workload.h"

namespace bench {

enum Phase : int { kSetup = 0, kWarmup, kMeasure, kDrain, kAbort };

struct RunControl {
  std::atomic<int> phase{kSetup};
  std::atomic<int> ready{0};  // workers whose connections are open (or failed)
};

// What one thread measured. Its thread adds to the counters; the main thread reads
// them for the progress line while the run goes on.
struct Stats {
  using Counter = rowsocket::Counter;
  LatencyHistogram latency;               // requests completed in the window
  Counter ops;                            // weighted (keys) in the window
  Counter requests;                       // in the window
  Counter errors;                         // failed requests in the window
  Counter ops_total;                      // any phase, for the progress line
  Counter errors_total;                   // any phase, including lost connections
  std::string first_error;                // written by the owner thread only
  std::string setup_error;                // a connection that could not be opened
};

class Worker;

// A stream connection's socket, and its TLS session when it speaks TLS (--ssl).
struct Link {
  int fd = -1;
  rowsocket::TlsStream* tls = nullptr;
};
// One read or write on `link`: bytes moved (> 0), 0 at the peer's end, or -1 with
// errno set (EAGAIN: the socket, or the TLS session, must become ready first).
ssize_t ReadSome(const Link& link, char* data, size_t size);
ssize_t WriteSome(const Link& link, const char* data, size_t size);

class Connection {
 public:
  explicit Connection(Worker* worker) : worker_(worker) {}
  virtual ~Connection() = default;
  // Connects and does the protocol's set-up (blocking). Returns "" or an error.
  virtual std::string Open() = 0;
  virtual int fd() const = 0;
  // Sends the first requests of the closed loop. Returns "" or a fatal error.
  virtual std::string Start() = 0;
  // Handles epoll `events`. Returns an error when the connection is unusable; the
  // worker then closes it and counts its in-flight requests as failed.
  virtual std::string OnEvents(uint32_t events) = 0;
  virtual size_t in_flight() const = 0;

  bool dead = false;  // set by the worker after OnEvents failed; never used again

 protected:
  Worker* worker_;
};

// A byte-stream protocol: how to frame, send and check requests.
class StreamProtocol {
 public:
  enum class Parse { kIncomplete, kOk, kFailed, kBroken };
  virtual ~StreamProtocol() = default;
  // Blocking set-up on a fresh connection (HS: open indexes). Returns "" or error.
  virtual std::string Handshake(const Link& link) = 0;
  // Appends the request for `op` to `out`.
  virtual void Append(const Op& op, std::string* out) = 0;
  // Reads the reply to `op` from the front of data[0..size) (which it may modify).
  // kIncomplete: more bytes needed. kOk/kFailed: `*consumed` bytes were the reply;
  // kFailed sets `*error`. kBroken: the stream cannot be read further.
  virtual Parse Reply(char* data, size_t size, const Op& op, size_t* consumed,
                      std::string* error) = 0;
};

std::unique_ptr<StreamProtocol> MakeHandlerSocketProtocol(const Options& options);
std::unique_ptr<StreamProtocol> MakeMemcachedProtocol(const Options& options);
std::unique_ptr<StreamProtocol> MakeRedisProtocol(const Options& options);

// Connections of each kind (stream_connection.cc, sql_connection.cc).
std::unique_ptr<Connection> MakeStreamConnection(Worker* worker,
                                                 std::unique_ptr<StreamProtocol> protocol);
std::unique_ptr<Connection> MakeSqlConnection(Worker* worker);

class Worker {
 public:
  Worker(const Options& options, RunControl* control, const Zipf& zipf, KeyPool* pool,
         int index);
  ~Worker();

  void AddConnection(std::unique_ptr<Connection> c) { conns_.push_back(std::move(c)); }
  void StartThread() { thread_ = std::thread([this] { Run(); }); }
  void Join() { if (thread_.joinable()) thread_.join(); }
  Stats& stats() { return stats_; }

  // --- for connections -------------------------------------------------------
  // The next request to send, or false when nothing more should be sent.
  bool NextOp(Op* op);
  // Records the end of `op` at time `now_ns`; `error` is null on success.
  void Complete(const Op& op, int64_t now_ns, const std::string* error);
  // Asks for (or stops asking for) writability events on `c`.
  void WantWrite(Connection* c, bool on);
  const Options& options() const { return options_; }

 private:
  void Run();
  void Kill(Connection* c, const std::string& why);
  void NoteError(const std::string& error);

  const Options& options_;
  RunControl* control_;
  OpSource source_;
  int epoll_fd_ = -1;
  std::vector<std::unique_ptr<Connection>> conns_;
  Stats stats_;
  std::thread thread_;
};

// rowsocket's steady clock in nanoseconds, signed for deadline arithmetic.
inline int64_t NowNs() { return static_cast<int64_t>(rowsocket::NowNs()); }

// Sends `request` on blocking-or-not `link` and reads until `lines` LFs have
// arrived (or `timeout_ms`); the lines read go to `*reply`. Returns "" or an error.
std::string ExchangeLines(const Link& link, const std::string& request, int lines,
                          int timeout_ms, std::string* reply);

// A TCP connection to host:port with TCP_NODELAY, non-blocking. Returns fd or -1
// with `*error` set.
int ConnectTcp(const std::string& host, int port, std::string* error);

}  // namespace bench
