// Worker: the loop turn, batching and connection lifecycle, over its EventLoop.
// Everything here except Start/Join runs on the worker's thread.
#include "server/worker.h"

#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <system_error>
#include <thread>

#include "server/listener.h"
#include "server/login_policy.h"
#include "util/clock.h"
#include "util/log.h"

namespace rowsocket {
namespace {

// The loop never sleeps longer than this, so that DDL waiting for a table this
// worker holds gets it promptly, and shutdown and idle timeouts are noticed.
constexpr int kTickMs = 50;
// A stopping listener's workers wait this long at most for answers held for a log
// flush, so that committed writes are answered before their connections close.
constexpr std::chrono::milliseconds kStopDrain{1000};
// A parked spare worker without open tables has no periodic work: it looks for a
// KILL (or a server shutdown) this often.
constexpr std::chrono::milliseconds kSpareIdleMs{500};
// After a write turn, a worker waits this long at most for the log flush under
// way to end (see WaitForFlush).
constexpr std::chrono::microseconds kFlushWaitMax{2000};

std::atomic<uint64_t> g_next_connection_id{1};

// The peer's IP address, as SQL's accounts match it (an IPv4 client of an IPv6
// socket as plain IPv4).
std::string PeerAddress(const sockaddr_storage& addr) {
  char host[INET6_ADDRSTRLEN] = "?";
  if (addr.ss_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&addr)->sin_addr, host, sizeof host);
  } else if (addr.ss_family == AF_INET6) {
    const in6_addr& a = reinterpret_cast<const sockaddr_in6*>(&addr)->sin6_addr;
    if (IN6_IS_ADDR_V4MAPPED(&a))
      inet_ntop(AF_INET, &a.s6_addr[12], host, sizeof host);
    else
      inet_ntop(AF_INET6, &a, host, sizeof host);
  }
  return host;
}

// "address:port", "[v6 address]:port".
std::string PeerName(const sockaddr_storage& addr, const std::string& address) {
  uint16_t port = 0;
  if (addr.ss_family == AF_INET) port = ntohs(reinterpret_cast<const sockaddr_in*>(&addr)->sin_port);
  if (addr.ss_family == AF_INET6) {
    port = ntohs(reinterpret_cast<const sockaddr_in6*>(&addr)->sin6_port);
    if (address.find(':') != std::string::npos) return "[" + address + "]:" + std::to_string(port);
  }
  return address + ":" + std::to_string(port);
}

}  // namespace

Worker::Worker(const WorkerInfo& info, Listener* listener, size_t slot, ExecutorFactory* factory,
               const ServerConfig& config, ServerTunables* tunables)
    : waits_(&stats_, &listener->gate()),
      info_(WithWorker(info, listener)),
      listener_(listener),
      connections_(&listener->connections()),
      slot_(slot),
      factory_(factory),
      config_(config),
      tunables_(tunables) {}

// The executor counts into this worker's stats; a batch whose answers wait for a
// log flush wakes one of the listener's workers when it is durable.
WorkerInfo Worker::WithWorker(WorkerInfo info, Listener* listener) {
  info.stats = &stats_;
  info.waits = &waits_;
  info.wake = [listener] { listener->WakeForDurable(); };
  listener->AddWorkerStats(&stats_);
  info.listener_figures = [listener](bool with) { return listener->Figures(with); };
  info.reset_listener_figures = [listener] { listener->ResetFigures(); };
  info.protocol = listener->protocol();
  return info;
}

// The listener has asked its workers to stop (Server::Stop) before this runs.
Worker::~Worker() { Join(); }

bool Worker::Start(std::string* error) {
  std::future<bool> started = started_.get_future();
  try {
    thread_ = std::thread(&Worker::Run, this);
  } catch (const std::system_error& e) {
    *error = std::string("cannot start worker thread: ") + e.what();
    return false;
  }
  if (!started.get()) {
    *error = std::string(info_.listener) + " worker could not set up its server thread";
    return false;
  }
  return true;
}

bool Worker::Interrupt() {
  std::lock_guard<std::mutex> lock(executor_mutex_);
  if (executor_ == nullptr) return false;
  executor_->Interrupt();
  return true;
}

void Worker::Join() {
  if (thread_.joinable()) thread_.join();
}

// The ring of an io_uring loop is made on the thread that submits to it.
bool Worker::MakeLoop() {
  if (config_.io == IoLoop::kEpoll) {
    loop_ = NewEpollLoop(listener_, config_.readsize);
    return true;
  }
  std::string error;
  loop_ = NewUringLoop(listener_, slot_, config_.readsize, &error);
  if (!loop_) Log(LogLevel::kError, "%s worker %zu: %s", listener_->name(), slot_, error.c_str());
  return loop_ != nullptr;
}

void Worker::Run() {
  std::unique_ptr<Executor> executor = MakeLoop() ? factory_->Create(info_) : nullptr;
  if (executor) connections_->WorkerStarted();
  started_.set_value(executor != nullptr);
  if (!executor) return;
  {
    std::lock_guard<std::mutex> lock(executor_mutex_);
    executor_ = executor.get();
  }
  Loop(executor.get());
  loop_->Stop();
  DrainHeld(executor.get());
  loop_.reset();  // the kernel is done with this worker's connections
  if (connections_->WorkerStopped()) connections_->CloseAll();
  {
    std::lock_guard<std::mutex> lock(executor_mutex_);
    executor_ = nullptr;
  }
  executor.reset();
}

void Worker::Loop(Executor* executor) {
  std::vector<ClientConnection*> candidates;
  std::vector<ClientConnection*> ready;
  bool admitted = !info_.spare;  // a spare takes turns once its gate admits it
  while (!stopping_ && !executor->ShouldStop()) {
    // No connection pointer from an earlier wait is held past this point.
    connections_->EnterWait(slot_);
    if (!admitted) {
      admitted = listener_->gate().Admit(executor->HasPeriodicWork()
                                             ? std::chrono::milliseconds(kTickMs)
                                             : kSpareIdleMs);
      if (!admitted) {
        executor->Tick();
        continue;
      }
    }
    candidates.clear();
    LoopEvents events;
    if (!loop_->Wait(WaitTimeout(NowMs()), &events, &candidates)) break;
    stopping_ = events.stop;
    TakeDueParked(NowMs(), &candidates);
    // A quiet moment also looks for durable answers, should a wake-up have gone
    // to a worker that was stopping.
    bool release = events.durable || (candidates.empty() && again_.empty() && !events.accept);
    candidates.insert(candidates.end(), again_.begin(), again_.end());
    again_.clear();
    ready.clear();
    for (ClientConnection* c : candidates) {
      Own(c);
      if (c->WantsTurn()) {
        ready.push_back(c);
      } else {
        Finish(c);  // answers first; its requests wait until they are out
      }
    }
    if (!ready.empty()) ServeTurn(executor, ready.data(), ready.size());
    // After the turn: a release may close a connection that `ready` still holds.
    if (release) ReleaseDurable(executor);
    if (events.accept) Accept(executor);
    executor->Tick();
    const uint64_t now = NowMs();
    ReleaseDelayed(now);
    loop_->ResumeAccept(now);
    if (connections_->SweepDue(now)) SweepConnections(now);
    // A spare that holds no connection gives its turn back.
    if (info_.spare && again_.empty() && parked_.empty()) {
      listener_->gate().Leave();
      admitted = false;
    }
  }
  if (info_.spare && admitted) listener_->gate().Leave();
  connections_->LeaveLoop(slot_);
}

// Answers of committed batches go out before their connections close: a stopping
// worker releases held answers as their batches become durable, until none is held
// or kStopDrain has passed.
void Worker::DrainHeld(Executor* executor) {
  ReleaseAsFlushesEnd(executor, 0, std::chrono::steady_clock::now() + kStopDrain);
}

// Sends held answers, whichever worker held them, as log flushes end: until the
// commits up to `ticket` are durable (0: until no answer is held) or `deadline`.
void Worker::ReleaseAsFlushesEnd(Executor* executor, uint64_t ticket,
                                 std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    const uint64_t seen = connections_->DurableNotes();  // before Durable(): no lost wake-up
    ReleaseDurable(executor);
    if (ticket != 0 && executor->Durable() >= ticket) return;
    if (!connections_->WaitForDurable(seen, deadline)) return;
  }
}

// Makes c's counters this worker's and names it in information_schema.
void Worker::Own(ClientConnection* c) { c->ServedBy(&stats_, info_.index); }

// Reads and parses every ready connection, executes all their requests as one
// batch, then writes the answers. A connection's requests that the executor
// deferred (its client has not read enough of its answers) wait for a later turn.
void Worker::ServeTurn(Executor* executor, ClientConnection** ready, size_t count) {
  const uint32_t max_line = tunables_->max_line_length.load(std::memory_order_relaxed);
  const size_t max_unsent = tunables_->max_output_buffer.load(std::memory_order_relaxed);
  const uint64_t start_us = NowUs();
  batch_.clear();
  turn_.clear();
  holding_.clear();
  for (size_t i = 0; i < count; ++i) TakeRequests(ready[i], max_line, max_unsent, start_us / 1000);
  if (batch_.empty()) return;
  if (info_.spare) stats_.spare_turns.Add();
  listener_->BatchRunning(slot_, true);
  const uint64_t ticket = executor->Execute(batch_.data(), batch_.size());
  listener_->BatchRunning(slot_, false);
  const bool hold = ticket != 0 && ticket > executor->Durable();
  const uint64_t now_ms = NowMs();
  const uint64_t committed_us = hold ? NowUs() : 0;
  for (const TurnEntry& t : turn_) {
    ClientConnection* c = t.connection;
    if (c->session()->failed_logins != t.failed_logins) AfterRefusedLogin(c, NowMs());
    c->CheckAdmitted();
    size_t answered = 0;
    while (answered < t.items && !batch_[t.first_item + answered].deferred) ++answered;
    const uint32_t retry_ms = answered < t.items ? batch_[t.first_item + answered].retry_ms : 0;
    if (answered < t.items && retry_ms == 0) stats_.requests_deferred.Add(t.items - answered);
    c->EndTurn(answered);
    c->CompactInput();
    connections_->ChargeInput(c);
    if (hold) {
      c->HoldOutput(ticket, c->answers_begin(), start_us, committed_us);  // counted on release
      holding_.push_back(c);
    } else if (retry_ms != 0) {
      Park(c, now_ms + retry_ms);  // (latency counted once its requests are answered)
    } else {
      c->CountLatency(NowUs() - start_us);
      Finish(c);
    }
  }
  if (holding_.empty()) return;
  connections_->Hold(holding_.data(), holding_.size());
  WaitForFlush(executor, ticket);
  // The flush may have ended before they were listed, its wake-up finding none.
  if (executor->Durable() >= ticket) ReleaseDurable(executor);
}

// After a write turn whose commit waits for a log flush that has not begun (one
// is under way, for earlier commits): any write this worker commits before that
// flush ends would join the same next flush, so instead it waits for the flush
// under way to end and lets the writes that arrive meanwhile gather into its next
// turn: one commit per flush rather than one per turn, where each commit costs
// InnoDB a transaction's start and end. The flusher stays busy meanwhile, so
// writes wait no longer for durability. The wait is bounded, so that a slow log
// delays the reads this worker would serve meanwhile by kFlushWaitMax at most.
// Every flush that ends meanwhile is this worker's to release (no other worker is
// woken for it).
void Worker::WaitForFlush(Executor* executor, uint64_t ticket) {
  if (stopping_) return;
  const uint64_t under_way = executor->Flushing();
  if (under_way == 0 || under_way >= ticket) return;  // its own flush has begun
  ReleaseAsFlushesEnd(executor, under_way, std::chrono::steady_clock::now() + kFlushWaitMax);
}

// Adds a ready connection's requests to the batch: those a turn deferred, or else
// what it sent since (read once, every complete line). Its unfinished line may take
// one read at most while the listener's input is over budget.
void Worker::TakeRequests(ClientConnection* c, uint32_t max_line, size_t max_unsent,
                          uint64_t now_ms) {
  const uint32_t failed_logins = c->session()->failed_logins;  // parsing may refuse one
  if (!c->has_unanswered()) {
    if (!loop_->Read(c)) return Close(c);
    c->CheckAdmitted();
    connections_->ChargeInput(c);
    const bool over_budget = connections_->input_bytes() >
                             tunables_->max_input_memory.load(std::memory_order_relaxed);
    const uint32_t max_unfinished = over_budget ? config_.readsize : max_line;
    if (c->ParseLines(max_line, max_unfinished) == 0) {
      Finish(c);  // part of a line: wait for the rest; the peer's end: close
      return;
    }
    c->NoteActive(now_ms);
  }
  const size_t first = c->BeginTurn();
  turn_.push_back({c, batch_.size(), c->parsed() - first, failed_logins});
  const size_t out_limit = c->OutputLimit(max_unsent);
  const WireProtocol protocol = c->protocol();
  for (size_t k = first; k < c->parsed(); ++k)
    batch_.push_back({c->session(), protocol, c->request(k), c->output(), out_limit, false});
}

// After a connection's turn, or once its socket may take more: writes what may
// leave, then lets the connection go until it is ready again, or closes it once it
// is ending and nothing is left to write. While answers wait for a slow reader its
// requests are not read, so its memory stays bounded by what one turn can produce;
// once they are out, what it sent meanwhile is read next turn (its readiness came
// while nobody read).
void Worker::Finish(ClientConnection* c) {
  if (c->delayed()) {
    if (c->delayed_until() > NowMs()) return connections_->Delay(c);
    c->EndDelay();
  }
  if (!loop_->Write(c)) return Close(c);
  if (c->CanSend()) {
    c->WaitForSocket();
    return LetGo(c);
  }
  if (c->ending() && !c->has_unanswered()) return Close(c);
  if (c->AnswersSent() || c->read_more() || c->has_unanswered()) {
    again_.push_back(c);
    return;
  }
  LetGo(c);
}

// A connection whose first unanswered request met a lock: what it may send leaves
// now; its requests run again at `due_ms`, unless its socket is full (then they run
// once the socket has taken its answers, whichever worker serves it then).
void Worker::Park(ClientConnection* c, uint64_t due_ms) {
  if (!loop_->Write(c)) return Close(c);
  if (c->CanSend()) {
    c->WaitForSocket();
    return LetGo(c);
  }
  parked_.push_back({c, due_ms});
}

// How long the loop may sleep: not past the next parked connection's retry, and not
// at all while a connection is to be served again.
int Worker::WaitTimeout(uint64_t now_ms) const {
  if (!again_.empty()) return 0;
  uint64_t timeout = kTickMs;
  for (const ParkedConnection& p : parked_)
    timeout = std::min(timeout, p.due_ms > now_ms ? p.due_ms - now_ms : 0);
  return static_cast<int>(timeout);
}

// Parked connections whose retry has come (all of them once stopping) join the turn.
void Worker::TakeDueParked(uint64_t now_ms, std::vector<ClientConnection*>* candidates) {
  size_t kept = 0;
  for (const ParkedConnection& p : parked_) {
    if (p.due_ms <= now_ms || stopping_)
      candidates->push_back(p.connection);
    else
      parked_[kept++] = p;
  }
  parked_.resize(kept);
}

// From here on another worker may own c, unless readiness arrived while this one
// did: then it serves c again next turn.
void Worker::LetGo(ClientConnection* c) {
  if (!c->Release()) again_.push_back(c);
}

// Closes a connection this worker owns (see ConnectionTable::Close).
void Worker::Close(ClientConnection* c) { loop_->Close(c); }

// Sends the answers whose batches have become durable, whichever worker held them.
void Worker::ReleaseDurable(Executor* executor) {
  const uint64_t durable = executor->Durable();
  const uint64_t now_us = NowUs();
  released_.clear();
  connections_->TakeDurable(durable, loop_->home(), &released_);
  for (ClientConnection* c : released_) {
    Own(c);
    c->ReleaseOutput(durable, now_us);
    Finish(c);
  }
}

// Sends the answers of refused logins whose delay is over (login_policy.h),
// whichever worker parked them.
void Worker::ReleaseDelayed(uint64_t now_ms) {
  released_.clear();
  connections_->TakeDelayed(now_ms, loop_->home(), &released_);
  for (ClientConnection* c : released_) {
    Own(c);
    c->EndDelay();
    Finish(c);
  }
}

// The turn refused a login of `c`: its answers wait, longer with every refusal, and
// after a few the connection closes (login_policy.h). Its further requests are not
// read meanwhile: a login is the last request of its turn (ParseLines).
void Worker::AfterRefusedLogin(ClientConnection* c, uint64_t now_ms) {
  const uint32_t failures = c->session()->failed_logins;
  stats_.logins_delayed.Add();
  c->DelayOutput(now_ms + LoginDelayMs(failures));
  if (LoginFailuresEnd(failures) && c->End()) stats_.connections_login_closed.Add();
}

// Accepts what the loop found. When descriptors run out, accepting pauses (see
// Listener::PauseAccept) instead of failing again at once; the clients wait in the
// backlog meanwhile.
void Worker::Accept(Executor* executor) {
  static LogLimit accept_failed;
  static LogLimit refused;
  Accepted a;
  int error = 0;
  while (loop_->Accept(&a, &error)) {
    listener_->AcceptSucceeded();
    const uint32_t limit = tunables_->max_connections.load(std::memory_order_relaxed);
    if (!connections_->Admit(limit)) {
      stats_.connections_refused.Add();
      LogLimited(&refused, LogLevel::kNotice, "%s port: connection refused, limit of %u reached",
                 listener_->name(), limit);
      ::close(a.fd);
      continue;
    }
    AddConnection(a.fd, a.peer, executor);
  }
  if (error == 0) return;
  const uint64_t pause_ms = listener_->PauseAccept(NowMs());
  if (pause_ms == 0) return;
  stats_.accept_pauses.Add();
  LogLimited(&accept_failed, LogLevel::kWarning, "accept on %s port: %s; not accepting for %llu ms",
             listener_->name(), std::strerror(error), static_cast<unsigned long long>(pause_ms));
}

// Lists an admitted connection and arms it.
void Worker::AddConnection(int fd, const sockaddr_storage& peer, Executor* executor) {
  int on = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  if (config_.sndbuf > 0) setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &config_.sndbuf, sizeof(int));
  if (config_.rcvbuf > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &config_.rcvbuf, sizeof(int));
  std::unique_ptr<ConnectionSession> session = executor->NewSession();
  session->peer_address = PeerAddress(peer);
  session->account_logins = listener_->auth() == AuthMode::kAccount;
  std::string name = PeerName(peer, session->peer_address);
  auto owned =
      std::make_unique<ClientConnection>(fd, g_next_connection_id.fetch_add(1), std::move(name),
                                         listener_, std::move(session), &stats_, NowMs());
  owned->ServedBy(&stats_, info_.index);
  stats_.connections_total.Add();
  owned->SetHome(loop_->home());
  ClientConnection* c = connections_->Add(std::move(owned));
  if (!loop_->Watch(c)) return Close(c);
  LetGo(c);  // the loop reports what arrived before the connection was watched
}

// Once a second, by one worker of the listener: trims the buffers of connections
// that went quiet and shuts down those idle longer than rowsocket_timeout, and those
// not admitted within rowsocket_connect_timeout whatever they send (login_policy.h);
// the worker that then sees their end closes them.
void Worker::SweepConnections(uint64_t now_ms) {
  const uint64_t timeout_ms = uint64_t{tunables_->timeout_seconds.load()} * 1000;
  const uint32_t connect_timeout_s = tunables_->connect_timeout_seconds.load();
  auto trim = [](uint64_t idle_ms) { return idle_ms >= 1000 && idle_ms < 2000; };  // quiet for about a second
  auto expire = [timeout_ms](uint64_t idle_ms) { return timeout_ms != 0 && idle_ms > timeout_ms; };
  auto overdue = [&](const ClientConnection& c) {
    return !c.admitted() && AdmissionOverdue(c.age_ms(now_ms), connect_timeout_s);
  };
  connections_->ForEachIdle(
      now_ms,
      [&](const ClientConnection& c, uint64_t idle_ms) {
        return trim(idle_ms) || expire(idle_ms) || overdue(c);
      },
      [&](ClientConnection* c, uint64_t idle_ms) {
        if (overdue(*c)) {
          if (c->End()) stats_.connections_connect_timed_out.Add();
          ::shutdown(c->fd(), SHUT_RDWR);  // (again, should the owner not have seen it yet)
          return;
        }
        if (trim(idle_ms)) {
          c->Trim();
          connections_->ChargeInput(c);
        }
        // A slow reader's answers still leave, and its requests are still answered.
        if (expire(idle_ms) && !c->HasOutput() && !c->has_unanswered() && c->End()) {
          stats_.connections_timed_out.Add();
          ::shutdown(c->fd(), SHUT_RDWR);
        }
      });
}

}  // namespace rowsocket
