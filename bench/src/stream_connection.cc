// StreamConnection: one TCP connection of a line/byte protocol (HandlerSocket or
// memcached) in the closed loop. It keeps `depth` requests in flight in a FIFO ring;
// each readable event reads once, checks every complete reply against the request it
// answers (through the StreamProtocol), queues as many new requests as replies
// arrived, and writes them with one write(). With --batch B it works in round trips
// instead: B requests in one write, and the next B only once all B are answered.
// With --ssl every byte passes a TLS session (the handshake made in Open); a read
// then goes on until the session has nothing more, since the epoll set sees only
// the socket.
// Owned and run by one Worker thread.
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "driver.h"

namespace bench {

namespace {

constexpr size_t kReadChunk = 64 * 1024;

class StreamConnection : public Connection {
 public:
  StreamConnection(Worker* worker, std::unique_ptr<StreamProtocol> protocol)
      : Connection(worker), protocol_(std::move(protocol)),
        ring_(size_t(std::max(worker->options().depth, worker->options().batch))),
        round_trips_(worker->options().batch > 1) {}
  ~StreamConnection() override {
    tls_.reset();
    if (fd_ >= 0) close(fd_);
  }

  std::string Open() override {
    std::string error;
    fd_ = ConnectTcp(worker_->options().host, worker_->options().port, &error);
    if (fd_ < 0) return error;
    link_.fd = fd_;
    if (worker_->options().ssl) {
      error = StartTls();
      if (!error.empty()) return error;
    }
    return protocol_->Handshake(link_);
  }

  int fd() const override { return fd_; }
  size_t in_flight() const override { return count_; }

  std::string Start() override {
    Refill(ring_.size(), NowNs());
    return Flush();
  }

  std::string OnEvents(uint32_t events) override {
    if (events & EPOLLIN) {
      std::string error = ReadAndCheck();
      if (!error.empty()) return error;
    } else if (events & (EPOLLERR | EPOLLHUP)) {
      return "socket error or hang-up";
    }
    return Flush();
  }

 private:
  // Blocking TLS handshake (the certificate is not checked: the benchmark measures
  // the cost of the encryption, not trust).
  std::string StartTls() {
    static const std::unique_ptr<rowsocket::TlsContext> context = [] {
      std::string ignored;
      return rowsocket::TlsContext::ForClient("", false, &ignored);
    }();
    if (!context) return "cannot make a TLS context";
    tls_ = std::make_unique<rowsocket::TlsStream>(*context, fd_, /*server=*/false);
    link_.tls = tls_.get();
    const int64_t deadline = NowNs() + 10'000'000'000;
    for (;;) {
      const rowsocket::TlsIo io = tls_->Handshake();
      if (io == rowsocket::TlsIo::kDone) return "";
      if (io != rowsocket::TlsIo::kWantRead && io != rowsocket::TlsIo::kWantWrite)
        return "TLS handshake: " + tls_->error();
      const int64_t left_ms = (deadline - NowNs()) / 1'000'000;
      if (left_ms <= 0) return "TLS handshake: timeout";
      pollfd p{fd_, short(io == rowsocket::TlsIo::kWantRead ? POLLIN : POLLOUT), 0};
      poll(&p, 1, int(left_ms));
    }
  }

  // Reads what is there, completes every request whose reply is whole, and queues
  // one new request per completion (in round trips: a full batch once all are in).
  std::string ReadAndCheck() {
    bool got = false;
    do {
      if (in_.size() - in_end_ < kReadChunk) in_.resize(in_end_ + kReadChunk);
      ssize_t n = ReadSome(link_, &in_[in_end_], in_.size() - in_end_);
      if (n == 0) return "closed by the server";
      if (n < 0) {
        if (errno == EAGAIN || errno == EINTR) break;
        return std::strerror(errno);
      }
      in_end_ += size_t(n);
      got = true;
    } while (tls_);  // TLS: until the session wants the socket
    if (!got) return "";
    const int64_t now = NowNs();

    size_t completed = 0;
    std::string error;
    while (count_ > 0) {
      Op& op = ring_[head_];
      size_t consumed = 0;
      error.clear();
      auto r = protocol_->Reply(&in_[in_start_], in_end_ - in_start_, op, &consumed, &error);
      if (r == StreamProtocol::Parse::kIncomplete) break;
      if (r == StreamProtocol::Parse::kBroken) return "unreadable reply: " + error;
      worker_->Complete(op, now, r == StreamProtocol::Parse::kOk ? nullptr : &error);
      in_start_ += consumed;
      head_ = (head_ + 1) % ring_.size();
      --count_;
      ++completed;
    }
    if (count_ == 0 && in_start_ < in_end_) return "bytes after the last expected reply";
    // Keep the unread tail at the front of the buffer.
    if (in_start_ == in_end_) {
      in_start_ = in_end_ = 0;
    } else if (in_start_ > in_.size() / 2) {
      std::memmove(&in_[0], &in_[in_start_], in_end_ - in_start_);
      in_end_ -= in_start_;
      in_start_ = 0;
    }
    if (!round_trips_) Refill(completed, now);
    else if (count_ == 0) Refill(ring_.size(), now);
    return "";
  }

  void Refill(size_t n, int64_t now) {
    for (size_t i = 0; i < n && count_ < ring_.size(); ++i) {
      Op& op = ring_[(head_ + count_) % ring_.size()];
      if (!worker_->NextOp(&op)) return;
      op.sent_ns = now;
      protocol_->Append(op, &out_);
      ++count_;
    }
  }

  std::string Flush() {
    while (out_sent_ < out_.size()) {
      ssize_t n = WriteSome(link_, out_.data() + out_sent_, out_.size() - out_sent_);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno != EAGAIN) return std::strerror(errno);
        if (!want_write_) worker_->WantWrite(this, want_write_ = true);
        return "";
      }
      out_sent_ += size_t(n);
    }
    out_.clear();
    out_sent_ = 0;
    if (want_write_) worker_->WantWrite(this, want_write_ = false);
    return "";
  }

  std::unique_ptr<StreamProtocol> protocol_;
  int fd_ = -1;
  std::unique_ptr<rowsocket::TlsStream> tls_;
  Link link_;
  std::vector<Op> ring_;   // requests in flight, oldest at head_
  const bool round_trips_; // --batch: refill only when every request is answered
  size_t head_ = 0, count_ = 0;
  std::string in_;         // bytes read; unread ones are [in_start_, in_end_)
  size_t in_start_ = 0, in_end_ = 0;
  std::string out_;        // requests not yet written from out_sent_ on
  size_t out_sent_ = 0;
  bool want_write_ = false;
};

}  // namespace

std::unique_ptr<Connection> MakeStreamConnection(Worker* worker,
                                                 std::unique_ptr<StreamProtocol> protocol) {
  return std::make_unique<StreamConnection>(worker, std::move(protocol));
}

}  // namespace bench
