// Logging seam: formats a message and hands it to the installed sink.
#include "server/log.h"

#include <atomic>
#include <cstdarg>
#include <cstdio>

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

}  // namespace rowsocket
