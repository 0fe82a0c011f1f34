// CPU accounting from /proc: the server's CPU per request, and how busy the rest of
// the machine was while we measured (a run disturbed by other work is flagged).
// SampleCpu is called by the main thread at both edges of the measurement window;
// the difference of two samples is what a report shows. Linux only.
#pragma once

#include <cstdint>

namespace bench {

struct CpuSample {
  int64_t wall_ns = 0;
  double server_s = -1;     // utime+stime of the server process (-1: none or gone)
  double self_s = 0;        // utime+stime of this benchmark process
  double machine_busy_s = 0;  // every CPU's non-idle time (user..steal) from /proc/stat
};

// Reads the clock, /proc/<server_pid>/stat (when server_pid > 0), /proc/self/stat and
// /proc/stat.
CpuSample SampleCpu(int server_pid);

// The 1-minute load average (first field of /proc/loadavg); -1 if unreadable.
double LoadAverage1();

// Online CPUs.
int CpuCount();

}  // namespace bench
