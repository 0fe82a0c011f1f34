// Logging seam for layers that must not include MariaDB headers. The plugin layer
// installs a sink that writes to the server's error log with a `rowsocket:` prefix.
// Thread-safe once installed (install before starting workers).
//
// A message that clients can cause (a refused connection, accept failing for lack
// of descriptors, a deadlock) goes through LogLimited, so that no client can flood
// the error log: at most one line a second per kind of message.
#pragma once

#include <atomic>
#include <cstdint>

namespace rowsocket {

// Each level is written from the rowsocket_verbose value in brackets on.
enum class LogLevel {
  kError,    // [0] always
  kWarning,  // [1] the default
  kInfo,     // [1] start, stop, listeners
  kNotice,   // [2] notable events (rollbacks and retries, refused connections)
  kDebug,    // [3] tables opened and closed
};

using LogSink = void (*)(LogLevel level, const char* message);

void SetLogSink(LogSink sink);
// Sets the most verbose level that is written (0 = errors only .. 3 = debug).
void SetLogVerbosity(int verbosity);
bool LogEnabled(LogLevel level);
// printf-style; drops the message when the level is not enabled.
void Log(LogLevel level, const char* format, ...) __attribute__((format(printf, 2, 3)));

// One kind of message written through LogLimited; a static at its call site.
class LogLimit {
 public:
  // True if a line may be written at `now_ms` (one a second at most); then
  // *left_out is how many were left out since the last line written.
  bool Admit(uint64_t now_ms, uint64_t* left_out);

 private:
  std::atomic<uint64_t> next_ms_{0};
  std::atomic<uint64_t> left_out_{0};
};

// Log, but at most one line a second per `limit`; the next line written says how
// many were left out meanwhile.
void LogLimited(LogLimit* limit, LogLevel level, const char* format, ...)
    __attribute__((format(printf, 3, 4)));

}  // namespace rowsocket
