// Logging seam: formats a message and hands it to the installed sink; LogLimited
// drops what comes faster than a line a second per kind.
#include "util/log.h"

#include <atomic>
#include <cstdarg>
#include <cstdio>

#include "util/clock.h"

namespace rowsocket {
namespace {

void StderrSink(LogLevel, const char* message) { std::fprintf(stderr, "rowsocket: %s\n", message); }

std::atomic<LogSink> g_sink{StderrSink};
std::atomic<int> g_verbosity{1};

}  // namespace

void SetLogSink(LogSink sink) { g_sink.store(sink ? sink : StderrSink); }
void SetLogVerbosity(int verbosity) { g_verbosity.store(verbosity, std::memory_order_relaxed); }

bool LogEnabled(LogLevel level) {
  static constexpr int kThreshold[] = {0, 1, 1, 2, 3};
  return kThreshold[static_cast<int>(level)] <= g_verbosity.load(std::memory_order_relaxed);
}

void Log(LogLevel level, const char* format, ...) {
  if (!LogEnabled(level)) return;
  char buf[1024];
  va_list ap;
  va_start(ap, format);
  std::vsnprintf(buf, sizeof buf, format, ap);
  va_end(ap);
  g_sink.load()(level, buf);
}

bool LogLimit::Admit(uint64_t now_ms, uint64_t* left_out) {
  uint64_t next = next_ms_.load(std::memory_order_relaxed);
  if (now_ms < next || !next_ms_.compare_exchange_strong(next, now_ms + 1000)) {
    left_out_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  *left_out = left_out_.exchange(0, std::memory_order_relaxed);
  return true;
}

void LogLimited(LogLimit* limit, LogLevel level, const char* format, ...) {
  if (!LogEnabled(level)) return;
  uint64_t left_out = 0;
  if (!limit->Admit(NowMs(), &left_out)) return;
  char buf[1024];
  va_list ap;
  va_start(ap, format);
  int n = std::vsnprintf(buf, sizeof buf, format, ap);
  va_end(ap);
  if (left_out > 0 && n >= 0 && static_cast<size_t>(n) < sizeof buf) {
    std::snprintf(buf + n, sizeof buf - static_cast<size_t>(n),
                  " (and %llu more like it left out since the last)",
                  static_cast<unsigned long long>(left_out));
  }
  g_sink.load()(level, buf);
}

}  // namespace rowsocket
