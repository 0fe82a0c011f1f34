// SampleCpu and friends: parsing of /proc/<pid>/stat, /proc/stat and /proc/loadavg.
// Main thread only. See proc_stat.h.
#include "proc_stat.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "driver.h"  // NowNs

namespace bench {

namespace {

double Ticks() {
  static const double ticks = double(sysconf(_SC_CLK_TCK));
  return ticks;
}

// utime+stime (fields 14 and 15) of /proc/<who>/stat, in seconds; -1 on failure.
double ProcessCpu(const std::string& who) {
  FILE* f = std::fopen(("/proc/" + who + "/stat").c_str(), "r");
  if (!f) return -1;
  char buf[1024];
  size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  // The command name (field 2) may hold spaces: start after its closing ')'.
  const char* p = std::strrchr(buf, ')');
  if (!p) return -1;
  unsigned long long utime = 0, stime = 0;
  // Fields 3..13 are skipped; then utime, stime.
  if (std::sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
                  &utime, &stime) != 2)
    return -1;
  return double(utime + stime) / Ticks();
}

double MachineBusy() {
  FILE* f = std::fopen("/proc/stat", "r");
  if (!f) return 0;
  unsigned long long user = 0, nice = 0, sys = 0, idle = 0, iowait = 0, irq = 0, softirq = 0,
                     steal = 0;
  int got = std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user, &nice, &sys,
                        &idle, &iowait, &irq, &softirq, &steal);
  std::fclose(f);
  if (got < 4) return 0;
  return double(user + nice + sys + irq + softirq + steal) / Ticks();
}

}  // namespace

CpuSample SampleCpu(int server_pid) {
  CpuSample s;
  s.wall_ns = NowNs();
  if (server_pid > 0) s.server_s = ProcessCpu(std::to_string(server_pid));
  s.self_s = ProcessCpu("self");
  s.machine_busy_s = MachineBusy();
  return s;
}

double LoadAverage1() {
  FILE* f = std::fopen("/proc/loadavg", "r");
  if (!f) return -1;
  double load = -1;
  if (std::fscanf(f, "%lf", &load) != 1) load = -1;
  std::fclose(f);
  return load;
}

int CpuCount() {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? int(n) : 1;
}

}  // namespace bench
