// LogFlusher: the flushing thread and its tickets.
#include "engine/core/log_flusher.h"

#include <chrono>
#include <future>

#include "engine/engine.h"
#include "engine/core/server_thread.h"
#include "util/log.h"

namespace rowsocket {
namespace {

std::atomic<uint64_t> g_log_flushes{0};
std::atomic<uint64_t> g_log_flush_us{0};

// Flushes `engine`'s log and counts the flush and its time.
void FlushLog(handlerton* engine) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  engine->flush_logs(engine);
  const auto took = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
  g_log_flush_us.fetch_add(static_cast<uint64_t>(took.count()), std::memory_order_relaxed);
  g_log_flushes.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

uint64_t LogFlushes() { return g_log_flushes.load(std::memory_order_relaxed); }
uint64_t LogFlushMicroseconds() { return g_log_flush_us.load(std::memory_order_relaxed); }

LogFlusher::LogFlusher(handlerton* engine) : engine_(engine) {}

LogFlusher::~LogFlusher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  requested_cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

bool LogFlusher::Start() {
  std::promise<bool> started;
  std::future<bool> ok = started.get_future();
  thread_ = std::thread([this, &started] {
    ServerThread server_thread("rowsocket: log flusher");
    started.set_value(server_thread.ok());
    if (server_thread.ok()) Run(&server_thread);
  });
  if (ok.get()) return true;
  thread_.join();
  Log(LogLevel::kError, "cannot start the log flusher thread; writes flush their own log");
  return false;
}

uint64_t LogFlusher::Request(const std::function<void()>* wake) {
  uint64_t ticket;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    ticket = ++requested_;
    if (stopped_) {
      // The server is shutting down and the thread has gone: flush here.
      lock.unlock();
      FlushLog(engine_);
      lock.lock();
      if (Durable() < ticket) durable_.store(ticket, std::memory_order_release);
      return ticket;
    }
    bool known = false;
    for (Waiting& w : waiting_) {
      if (w.wake == wake) {
        w.latest = ticket;
        known = true;
      }
    }
    if (!known) waiting_.push_back({wake, ticket, ticket});
  }
  requested_cv_.notify_one();
  return ticket;
}

void LogFlusher::Forget(const std::function<void()>* wake) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t i = 0; i < waiting_.size(); ++i) {
    if (waiting_[i].wake == wake) {
      waiting_[i] = waiting_.back();
      waiting_.pop_back();
      return;
    }
  }
}

// Each flush covers every ticket handed out before it began: those commits are in
// the log buffer already, and flush_logs writes and syncs all of it. Tickets asked
// for during a flush wait for the next one. The thread stops when told to or when
// the server shuts down (which waits for its THD to go), after flushing what is
// outstanding; later tickets are flushed by Request itself.
void LogFlusher::Run(ServerThread* thread) {
  constexpr auto kShutdownCheck = std::chrono::milliseconds(50);
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    requested_cv_.wait_for(lock, kShutdownCheck, [this] { return stop_ || requested_ > Durable(); });
    if (!stop_ && thread->ShutdownRequested()) stop_ = true;
    if (requested_ == Durable()) {
      if (!stop_) continue;
      stopped_ = true;
      break;
    }
    const uint64_t upto = requested_;
    flushing_.store(upto, std::memory_order_release);
    lock.unlock();
    FlushLog(engine_);
    lock.lock();
    durable_.store(upto, std::memory_order_release);
    flushing_.store(0, std::memory_order_release);
    // A waker whose later tickets are still outstanding is woken for the ones this
    // flush covered, and again after the next flush (which covers the rest: they were
    // handed out before it will begin).
    for (size_t i = 0; i < waiting_.size();) {
      Waiting& w = waiting_[i];
      if (w.oldest > upto) {
        ++i;
        continue;
      }
      (*w.wake)();
      if (w.latest > upto) {
        w.oldest = upto + 1;
        ++i;
      } else {
        w = waiting_.back();
        waiting_.pop_back();
      }
    }
  }
}

LogFlusher* SharedLogFlusher::Get(handlerton* engine) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!flusher_ && !failed_) {
    flusher_ = std::make_unique<LogFlusher>(engine);
    failed_ = !flusher_->Start();
    if (failed_) flusher_.reset();
    started_.store(flusher_.get(), std::memory_order_release);
  }
  return flusher_ && flusher_->engine() == engine ? flusher_.get() : nullptr;
}

}  // namespace rowsocket
