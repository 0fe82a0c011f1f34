// Logging seam for layers that must not include MariaDB headers. The plugin layer
// installs a sink that writes to the server's error log with a `rowsocket:` prefix.
// Thread-safe once installed (install before starting workers).
#pragma once

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

}  // namespace rowsocket
