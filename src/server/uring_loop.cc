// The io_uring loop (see event_loop.h): one ring per worker, serving the connections
// it was given at accept. Runs on its worker's thread (the ring is single-issuer).
//
// Accepting: every ring keeps a multishot poll on the listening socket, and a worker
// it wakes accepts what the backlog holds, one at a time, giving each connection to
// the worker of the listener serving the fewest (Listener::HandOff). Not io_uring's
// multishot accept: its wake-up is exclusive, and the one ring it wakes may belong
// to a worker in the middle of a long batch that accepts, and serves
// the connection, only when the batch ends; a poll wakes every ring, and the rings of
// workers in a batch just find the backlog empty later.
//
// Per plain connection the kernel keeps one multishot receive armed; what it brings
// lands in a ring of provided buffers, is copied into the connection's IoState and
// the buffer goes straight back. The turn takes it (Read) like a recv() would have.
// A connection that is not reading (answers waiting for the socket, or for a log
// flush) stops receiving once kMaxReceived bytes wait, so a client that does not
// read its answers fills its socket, as with epoll. Answers leave as one send per
// connection, all queued by a turn and submitted by the next Wait's io_uring_enter;
// while a send is in flight the connection is "sending" and gets no turn, so its
// output buffer stays put.
//
// Until its first byte arrives, and for good if that byte begins a TLS handshake, a
// connection is on a readiness path instead: a multishot poll says when to call
// ReadOnce and Flush, which use the socket (and OpenSSL) directly.
//
// A connection with operations in flight is closed once their last completions have
// come (their user data points to it): Close cancels them first.
#include <liburing.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "server/client_connection.h"
#include "server/event_loop.h"
#include "server/listener.h"
#include "util/clock.h"
#include "util/log.h"

namespace rowsocket {
namespace {

constexpr unsigned kEntries = 1024;      // submission queue
constexpr unsigned kCqEntries = 8192;    // completion queue
constexpr unsigned kBuffers = 128;       // provided receive buffers (a power of two): 2 MiB
constexpr unsigned kBufferSize = 16384;
constexpr uint16_t kBufferGroup = 0;
// A connection that is not reading stops receiving past this many waiting bytes.
constexpr size_t kMaxReceived = 64 * 1024;
// Linux 6.0 brought multishot receive; the flags below are as old or newer, so a
// kernel that takes them has everything this loop uses (buffer rings 5.19,
// multishot accept 5.19).
// Completions are run only when the worker waits (DEFER_TASKRUN, 6.1): no
// interruptions of a turn.
constexpr unsigned kSetupFlags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
                                 IORING_SETUP_TASKRUN_FLAG | IORING_SETUP_CQSIZE;

// User data: a connection's address with the operation in its low bits, or one of
// the loop's own operations with no address.
enum Op : uint64_t { kReceive = 0, kSend = 1, kPoll = 2, kOpMask = 7 };
enum LoopOp : uint64_t { kAcceptOp = 1, kStopOp = 2, kWakeOp = 3, kIgnoreOp = 4 };

uint64_t Data(ClientConnection* c, Op op) { return reinterpret_cast<uint64_t>(c) | op; }

// Makes a ring with this loop's flags; false with *error set on failure.
bool InitRing(io_uring* ring, std::string* error) {
  io_uring_params params{};
  params.flags = kSetupFlags;
  params.cq_entries = kCqEntries;
  const int rc = io_uring_queue_init_params(kEntries, ring, &params);
  if (rc == 0) return true;
  *error = std::string("io_uring_queue_init: ") + std::strerror(-rc) +
           (rc == -EINVAL ? " (io_uring needs Linux 6.1 or later)" : "");
  return false;
}

class UringLoop final : public EventLoop {
 public:
  UringLoop(Listener* listener, size_t slot, uint32_t readsize)
      : listener_(listener), connections_(&listener->connections()), slot_(slot),
        scratch_(readsize) {}
  ~UringLoop() override;

  bool Open(std::string* error);

  bool Wait(int timeout_ms, LoopEvents* events, std::vector<ClientConnection*>* ready) override;
  bool Read(ClientConnection* c) override;
  bool Write(ClientConnection* c) override;
  void Close(ClientConnection* c) override;
  bool Watch(ClientConnection* c) override;
  bool Accept(Accepted* accepted, int* error) override;
  void ResumeAccept(uint64_t now_ms) override;
  void Stop() override { stopped_ = true; }
  int home() const override { return static_cast<int>(slot_); }

 private:
  io_uring_sqe* Sqe();
  void Arm(ClientConnection* c, Op op);
  void ArmLoop(LoopOp op);
  void Receive(ClientConnection* c);
  void Complete(const io_uring_cqe& cqe, LoopEvents* events, std::vector<ClientConnection*>* ready);
  void Completed(ClientConnection* c, const io_uring_cqe& cqe);
  void Received(ClientConnection* c, const io_uring_cqe& cqe);
  void Cancel(uint64_t data);
  size_t LeastLoaded() const;

  Listener* listener_;
  ConnectionTable* connections_;
  const size_t slot_;
  io_uring ring_{};
  bool ring_made_ = false;
  io_uring_buf_ring* buffer_ring_ = nullptr;  // mmap'ed, registered with the ring
  size_t buffer_ring_bytes_ = 0;
  std::vector<char> buffers_;                 // kBuffers of kBufferSize
  std::vector<char> scratch_;                 // the readiness path's reads
  uint64_t wake_value_ = 0;                   // what reading the wake eventfd brings
  size_t in_flight_ = 0;                      // all operations not completed yet
  bool accepting_ = false;                    // the listening socket's poll is armed
  bool stopped_ = false;
};

bool UringLoop::Open(std::string* error) {
  if (!InitRing(&ring_, error)) return false;
  ring_made_ = true;
  io_uring_register_ring_fd(&ring_);  // saves a descriptor lookup per enter; optional
  // The provided buffers: a ring of kBuffers entries the kernel picks from.
  buffer_ring_bytes_ = kBuffers * sizeof(io_uring_buf);
  void* mem = mmap(nullptr, buffer_ring_bytes_, PROT_READ | PROT_WRITE,
                   MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
  if (mem == MAP_FAILED) {
    *error = std::string("mmap: ") + std::strerror(errno);
    return false;
  }
  buffer_ring_ = static_cast<io_uring_buf_ring*>(mem);
  io_uring_buf_reg reg{};
  reg.ring_addr = reinterpret_cast<uint64_t>(mem);
  reg.ring_entries = kBuffers;
  reg.bgid = kBufferGroup;
  const int rc = io_uring_register_buf_ring(&ring_, &reg, 0);
  if (rc != 0) {
    *error = std::string("io_uring_register_buf_ring: ") + std::strerror(-rc);
    return false;
  }
  buffers_.resize(size_t{kBuffers} * kBufferSize);
  io_uring_buf_ring_init(buffer_ring_);
  for (unsigned i = 0; i < kBuffers; ++i)
    io_uring_buf_ring_add(buffer_ring_, &buffers_[size_t{i} * kBufferSize], kBufferSize, i,
                          io_uring_buf_ring_mask(kBuffers), i);
  io_uring_buf_ring_advance(buffer_ring_, kBuffers);
  ArmLoop(kStopOp);
  ArmLoop(kWakeOp);
  ResumeAccept(NowMs());
  return true;
}

// Cancels everything and waits (a second at most) for the kernel to finish with this
// loop's connections and buffers; should it not, the buffers are left behind rather
// than freed under its feet.
UringLoop::~UringLoop() {
  if (!ring_made_) return;
  if (io_uring_sqe* sqe = Sqe()) {
    io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ANY | IORING_ASYNC_CANCEL_ALL);
    io_uring_sqe_set_data64(sqe, kIgnoreOp);
    ++in_flight_;
  }
  const uint64_t deadline = NowMs() + 1000;
  while (in_flight_ > 0 && NowMs() < deadline) {
    __kernel_timespec ts{0, 10 * 1000 * 1000};
    io_uring_cqe* cqe = nullptr;
    io_uring_submit_and_wait_timeout(&ring_, &cqe, 1, &ts, nullptr);
    unsigned head;
    unsigned seen = 0;
    io_uring_for_each_cqe(&ring_, head, cqe) {
      ++seen;
      if (cqe->flags & IORING_CQE_F_MORE) continue;
      --in_flight_;
      auto* c = reinterpret_cast<ClientConnection*>(cqe->user_data & ~uint64_t{kOpMask});
      if (c != nullptr && --c->io().in_flight == 0 && c->io().closing)
        connections_->Close(c);
    }
    io_uring_cq_advance(&ring_, seen);
  }
  const bool done = in_flight_ == 0;
  io_uring_queue_exit(&ring_);
  if (!done) {
    Log(LogLevel::kWarning, "%s worker %zu: io_uring operations outlived the stop",
        listener_->name(), slot_);
    new std::vector<char>(std::move(buffers_));  // deliberately left to the kernel
    return;
  }
  if (buffer_ring_ != nullptr) munmap(buffer_ring_, buffer_ring_bytes_);
}

io_uring_sqe* UringLoop::Sqe() {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (sqe == nullptr) {
    io_uring_submit(&ring_);  // the queue is full: what it holds goes now
    sqe = io_uring_get_sqe(&ring_);
  }
  return sqe;
}

// The listener's stop eventfd (level-triggered, never drained) and this worker's wake
// eventfd, read whenever a batch becomes durable.
void UringLoop::ArmLoop(LoopOp op) {
  io_uring_sqe* sqe = Sqe();
  if (sqe == nullptr) return;
  if (op == kStopOp) io_uring_prep_poll_add(sqe, listener_->stop_fd(), POLLIN);
  if (op == kWakeOp) io_uring_prep_read(sqe, listener_->wake_fd(slot_), &wake_value_, sizeof wake_value_, 0);
  io_uring_sqe_set_data64(sqe, op);
  ++in_flight_;
}

void UringLoop::Arm(ClientConnection* c, Op op) {
  io_uring_sqe* sqe = Sqe();
  if (sqe == nullptr) {
    c->io().failed = true;  // cannot happen after a submit; closes the connection
    return;
  }
  ClientConnection::IoState& io = c->io();
  switch (op) {
    case kReceive:
      io_uring_prep_recv_multishot(sqe, c->fd(), nullptr, 0, 0);
      sqe->flags |= IOSQE_BUFFER_SELECT;
      sqe->buf_group = kBufferGroup;
      io.receiving = true;
      break;
    case kSend: {
      const std::string_view unsent = c->Unsent();
      io_uring_prep_send(sqe, c->fd(), unsent.data(), unsent.size(), MSG_NOSIGNAL);
      io.sending = true;
      break;
    }
    default:
      io_uring_prep_poll_multishot(sqe, c->fd(), POLLIN | POLLOUT | POLLRDHUP);
      io.polling = true;
      break;
  }
  io_uring_sqe_set_data64(sqe, Data(c, op));
  ++io.in_flight;
  ++in_flight_;
}

void UringLoop::Cancel(uint64_t data) {
  io_uring_sqe* sqe = Sqe();
  if (sqe == nullptr) return;
  io_uring_prep_cancel64(sqe, data, 0);
  io_uring_sqe_set_data64(sqe, kIgnoreOp);
  ++in_flight_;
}

// Arms the receive of a plain connection unless it is armed, over, or enough waits.
void UringLoop::Receive(ClientConnection* c) {
  ClientConnection::IoState& io = c->io();
  if (io.receiving || io.peer_closed || io.failed || io.closing || stopped_) return;
  if (io.received.size() >= kMaxReceived) return;
  Arm(c, kReceive);
}

// Without waiting, the enter still runs the completions deferred so far.
bool UringLoop::Wait(int timeout_ms, LoopEvents* events, std::vector<ClientConnection*>* ready) {
  __kernel_timespec ts{timeout_ms / 1000, (timeout_ms % 1000) * 1000000LL};
  io_uring_cqe* cqe = nullptr;
  const int rc = timeout_ms > 0 ? io_uring_submit_and_wait_timeout(&ring_, &cqe, 1, &ts, nullptr)
                                : io_uring_submit_and_get_events(&ring_);
  if (rc < 0 && rc != -ETIME && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY) {
    Log(LogLevel::kError, "io_uring_submit_and_wait: %s", std::strerror(-rc));
    return false;
  }
  unsigned head;
  unsigned seen = 0;
  io_uring_for_each_cqe(&ring_, head, cqe) {
    ++seen;
    Complete(*cqe, events, ready);
  }
  io_uring_cq_advance(&ring_, seen);
  return true;
}

void UringLoop::Complete(const io_uring_cqe& cqe, LoopEvents* events,
                         std::vector<ClientConnection*>* ready) {
  const bool more = cqe.flags & IORING_CQE_F_MORE;
  if (!more) --in_flight_;
  auto* c = reinterpret_cast<ClientConnection*>(cqe.user_data & ~uint64_t{kOpMask});
  if (c == nullptr) {
    switch (cqe.user_data) {
      case kAcceptOp:
        if (!more) accepting_ = false;  // armed again by ResumeAccept
        events->accept = true;
        break;
      case kStopOp:
        events->stop = true;
        break;
      case kWakeOp:  // a durable batch, or a connection handed to this worker
        events->durable = true;
        if (listener_->handed_off(slot_) != 0) events->accept = true;
        if (!stopped_) ArmLoop(kWakeOp);
        break;
      default:
        break;
    }
    return;
  }
  Completed(c, cqe);
  ClientConnection::IoState& io = c->io();
  if (!more && --io.in_flight == 0 && io.closing) return connections_->Close(c);
  if (!io.closing && c->Acquire()) ready->push_back(c);  // else it is served again anyway
}

// Bookkeeping of one completion of c's operations.
void UringLoop::Completed(ClientConnection* c, const io_uring_cqe& cqe) {
  ClientConnection::IoState& io = c->io();
  const bool more = cqe.flags & IORING_CQE_F_MORE;
  switch (static_cast<Op>(cqe.user_data & kOpMask)) {
    case kReceive:
      Received(c, cqe);
      break;
    case kSend:
      io.sending = false;
      if (cqe.res > 0 && !io.closing) c->Sent(static_cast<size_t>(cqe.res));
      if (cqe.res < 0) io.failed = true;
      break;
    case kPoll:
      if (!more) io.polling = false;
      if (cqe.res > 0 && (cqe.res & (POLLRDHUP | POLLHUP | POLLERR))) c->NoteHangup();
      if (!more && cqe.res >= 0 && !io.closing && !c->plain()) Arm(c, kPoll);  // overflowed
      break;
    default:
      break;
  }
}

void UringLoop::Received(ClientConnection* c, const io_uring_cqe& cqe) {
  ClientConnection::IoState& io = c->io();
  if (cqe.flags & IORING_CQE_F_BUFFER) {
    const unsigned id = cqe.flags >> IORING_CQE_BUFFER_SHIFT;
    char* buffer = &buffers_[size_t{id} * kBufferSize];
    if (cqe.res > 0 && !io.closing) {
      const size_t before = io.received.size();
      io.received.append(buffer, static_cast<size_t>(cqe.res));
      // Not reading: stop receiving until the turn takes what waits.
      if (before < kMaxReceived && io.received.size() >= kMaxReceived &&
          (cqe.flags & IORING_CQE_F_MORE))
        Cancel(Data(c, kReceive));
    }
    io_uring_buf_ring_add(buffer_ring_, buffer, kBufferSize, id, io_uring_buf_ring_mask(kBuffers), 0);
    io_uring_buf_ring_advance(buffer_ring_, 1);
  }
  if (cqe.res == 0) io.peer_closed = true;
  // Out of buffers (ENOBUFS) or cancelled: armed again when there is room.
  if (cqe.res < 0 && cqe.res != -ENOBUFS && cqe.res != -ECANCELED) io.failed = true;
  if (!(cqe.flags & IORING_CQE_F_MORE)) {
    io.receiving = false;
    Receive(c);
  }
}

// The first byte decides: plain text moves to the multishot receive, TLS stays on
// the readiness path.
bool UringLoop::Read(ClientConnection* c) {
  ClientConnection::IoState& io = c->io();
  if (!c->plain()) {
    if (!c->ReadOnce(scratch_.data(), scratch_.size())) return false;
    if (c->plain()) {  // the first read; from now on the ring receives
      if (io.polling) Cancel(Data(c, kPoll));
      Receive(c);
    }
    return true;
  }
  if (io.failed) return false;
  c->ReadReceived(&io.received, io.peer_closed);
  Receive(c);
  return true;
}

bool UringLoop::Write(ClientConnection* c) {
  ClientConnection::IoState& io = c->io();
  if (io.sending) return true;  // its completion brings the connection back
  if (io.failed) return false;
  if (!c->plain() || stopped_) return c->Flush();
  if (c->CanSend()) Arm(c, kSend);
  return true;
}

void UringLoop::Close(ClientConnection* c) {
  ClientConnection::IoState& io = c->io();
  if (io.in_flight == 0) return connections_->Close(c);
  if (io.closing) return;
  io.closing = true;  // it stays this worker's until the last completion
  io_uring_sqe* sqe = Sqe();
  if (sqe == nullptr) return;
  io_uring_prep_cancel_fd(sqe, c->fd(), IORING_ASYNC_CANCEL_ALL);
  io_uring_sqe_set_data64(sqe, kIgnoreOp);
  ++in_flight_;
}

// Readiness until the first byte says which transport the client speaks.
bool UringLoop::Watch(ClientConnection* c) {
  Arm(c, kPoll);
  return !c->io().failed;
}

// The listener's workers whose rings accept all see a new connection, and the first
// to look takes it: left alone, one worker would take nearly all. So a connection
// goes to the worker serving the fewest among those not running a batch (which may
// wait for a lock for seconds); this one is not.
size_t UringLoop::LeastLoaded() const {
  auto load = [this](size_t w) { return connections_->homed(w) + listener_->handed_off(w); };
  size_t best = slot_;
  for (size_t w = 0; w < listener_->workers(); ++w) {
    if (load(w) < load(best) && !listener_->batch_running(w)) best = w;
  }
  return best;
}

// Connections handed to this worker first, then the backlog. When descriptors run
// out the poll is cancelled until the pause is over (ResumeAccept).
bool UringLoop::Accept(Accepted* accepted, int* error) {
  *error = 0;
  if (listener_->TakeHandedOff(slot_, accepted)) return true;
  while (AcceptFrom(*listener_, accepted, error)) {
    const size_t home = LeastLoaded();
    if (home == slot_) return true;
    listener_->HandOff(home, *accepted);
  }
  if (*error != 0 && accepting_) Cancel(kAcceptOp);
  return false;
}

void UringLoop::ResumeAccept(uint64_t now_ms) {
  if (accepting_ || stopped_ || listener_->AcceptPaused(now_ms)) return;
  io_uring_sqe* sqe = Sqe();
  if (sqe == nullptr) return;
  io_uring_prep_poll_multishot(sqe, listener_->fd(), POLLIN);
  io_uring_sqe_set_data64(sqe, kAcceptOp);
  accepting_ = true;
  ++in_flight_;
}

}  // namespace

std::unique_ptr<EventLoop> NewUringLoop(Listener* listener, size_t slot, uint32_t readsize,
                                        std::string* error) {
  auto loop = std::make_unique<UringLoop>(listener, slot, readsize);
  if (!loop->Open(error)) return nullptr;
  return loop;
}

bool UringAvailable(std::string* why) {
  io_uring ring{};
  if (!InitRing(&ring, why)) return false;
  io_uring_queue_exit(&ring);
  return true;
}

}  // namespace rowsocket
