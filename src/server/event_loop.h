// EventLoop: how one worker waits for its connections and moves their bytes. The
// worker (worker.h) owns the turn — which connections are served, the batch, the
// answers, held answers, idle connections — and asks its loop only to wait, read,
// write, accept and close. Two implementations:
//
//  - epoll (epoll_loop.cc): every worker of a listener waits on the listener's shared,
//    edge-triggered epoll set; a connection is served by whichever worker is free.
//    Reads and writes are recv() and send() calls in the turn.
//  - io_uring (uring_loop.cc): each worker has its own ring; a connection belongs to
//    the worker it was given to at accept. Input arrives by multishot receives
//    into a ring of provided buffers and waits in the connection until its next turn;
//    answers leave as send operations that the next wait submits, all of a turn's in
//    one io_uring_enter. TLS connections stay on a readiness path (a multishot poll)
//    with OpenSSL on the socket, as with epoll.
//
// A loop is made, used and destroyed on its worker's thread.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "seam/config.h"

namespace rowsocket {

class ClientConnection;
class ConnectionTable;
class Listener;

// What one wait brought besides ready connections.
struct LoopEvents {
  bool stop = false;     // the listener asks its workers to stop
  bool durable = false;  // a batch became durable: held answers may leave
  bool accept = false;   // connections wait to be accepted (EventLoop::Accept)
};

// A connection the kernel accepted.
struct Accepted {
  int fd;
  sockaddr_storage peer;
};

class EventLoop {
 public:
  virtual ~EventLoop() = default;

  // Submits what was queued, then waits up to `timeout_ms` (0: not at all) for
  // events. Connections that became ready and that this worker now owns
  // (ClientConnection::Acquire) are appended to *ready. False on a fatal error.
  virtual bool Wait(int timeout_ms, LoopEvents* events, std::vector<ClientConnection*>* ready) = 0;

  // Brings what the client sent into c's input (see ClientConnection::ReadOnce).
  // False when c is unusable.
  virtual bool Read(ClientConnection* c) = 0;
  // Sends c's sendable answers, or queues them for the next Wait; answers queued and
  // not yet sent are still unsent (c->CanSend()). False on a socket error.
  virtual bool Write(ClientConnection* c) = 0;
  // Closes a connection the caller owns: now, or once the kernel has finished with it.
  virtual void Close(ClientConnection* c) = 0;

  // Starts watching a connection just listed in the ConnectionTable; false if it
  // cannot be (the caller closes it).
  virtual bool Watch(ClientConnection* c) = 0;
  // The next connection accepted, one at a time (each is admitted or refused before
  // the next takes a descriptor). False when there is none; *error is then 0, or the
  // errno that stopped accepting (EMFILE and the like: the caller pauses accepting).
  virtual bool Accept(Accepted* accepted, int* error) = 0;
  // Every turn: accepting resumes once a pause (Listener::PauseAccept) is over.
  virtual void ResumeAccept(uint64_t now_ms) = 0;

  // The loop has ended: what is written from now on (answers released while the
  // worker stops) goes straight to the socket.
  virtual void Stop() = 0;

  // Which worker's connections this loop serves (ClientConnection::home): -1, any.
  virtual int home() const = 0;
};

// The loops. `slot`: the worker's number among its listener's workers; `readsize`:
// bytes asked from the socket per read.
std::unique_ptr<EventLoop> NewEpollLoop(Listener* listener, uint32_t readsize);
// Null, with *error set, if the ring cannot be made.
std::unique_ptr<EventLoop> NewUringLoop(Listener* listener, size_t slot, uint32_t readsize,
                                        std::string* error);
// Accepts one connection from the listener's socket (non-blocking). False when the
// backlog is empty (*error 0) or accepting failed for want of descriptors or memory
// (*error: the errno); other failures are logged and end the attempt. Any thread.
bool AcceptFrom(const Listener& listener, Accepted* accepted, int* error);

// Whether this kernel (and its sysctls and seccomp filters) lets rowsocket use
// io_uring; if not, *why says why. Any thread.
bool UringAvailable(std::string* why);

}  // namespace rowsocket
