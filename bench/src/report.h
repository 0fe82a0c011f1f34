// What one run of rowsocket-bench measured, and the two ways it is written out: one
// "RESULT key=value ..." line (for scripts and humans) and a JSON object (for
// bench/compare). Built by main after the worker threads have ended; single-threaded.
#pragma once

#include <cstdint>
#include <string>

#include "histogram.h"
#include "options.h"

namespace bench {

struct Result {
  double window_s = 0;           // length of the measurement window
  uint64_t ops = 0;              // keys looked up (gets) or requests (others)
  uint64_t requests = 0;
  uint64_t errors = 0;           // failed requests inside the window
  uint64_t errors_total = 0;     // failed requests and lost connections, any phase
  uint64_t ops_total = 0;        // completed (keys or requests), any phase: warm-up and
                                 // drain included, as server-side counters see them
  std::string first_error;
  LatencyHistogram latency;      // per request, inside the window
  double server_cpu_s = -1;      // CPU the server process used in the window (-1: unknown)
  double client_cpu_s = 0;       // CPU this process used in the window
  double other_cpu_s = 0;        // CPU used by everything else on the machine
  double load1 = -1;             // 1-minute load average at the end
  int cpus = 1;
  bool exhausted = false;        // the key pool ran out before the window's end
  uint64_t next_key = 0;         // inserts/deletes: keys [key_base, next_key) were sent
};

std::string ResultLine(const Options& o, const Result& r);
std::string ResultJson(const Options& o, const Result& r);

}  // namespace bench
