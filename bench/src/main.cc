// rowsocket-bench: closed-loop load generator for HandlerSocket (rowsocket and the
// original plugin), memcached, Redis and MariaDB SQL (text and prepared). See UsageText in
// options.cc for the flags and options.h for the data it expects on the server.
//
// The main thread parses options, starts one Worker per client thread, waits until
// every connection is open, then walks the phases: warm-up, the measurement window
// (CPU sampled at both edges), drain. It prints a live progress line when stdout is
// a terminal, then one RESULT line, and writes the JSON when asked. Exit status: 0
// when every request succeeded, 1 when any failed, 2 when the run could not start.
#include <mysql.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "driver.h"
#include "proc_stat.h"
#include "report.h"

using namespace bench;

namespace {

std::unique_ptr<Connection> NewConnection(const Options& o, Worker* w) {
  switch (o.target) {
    case TargetKind::kHandlerSocket: return MakeStreamConnection(w, MakeHandlerSocketProtocol(o));
    case TargetKind::kMemcached: return MakeStreamConnection(w, MakeMemcachedProtocol(o));
    case TargetKind::kRedis: return MakeStreamConnection(w, MakeRedisProtocol(o));
    case TargetKind::kSqlText:
    case TargetKind::kSqlPrepared: return MakeSqlConnection(w);
  }
  return nullptr;
}

uint64_t Sum(const std::vector<std::unique_ptr<Worker>>& workers,
             rowsocket::Counter Stats::*field) {
  uint64_t total = 0;
  for (auto& w : workers) total += (w->stats().*field).Get();
  return total;
}

// Sleeps until `seconds` have passed since `start_ns` or `stop()` is true, redrawing
// the progress line every second when `tty`.
template <typename Stop>
void Wait(const char* phase, int64_t start_ns, double seconds, bool tty,
          const std::vector<std::unique_ptr<Worker>>& workers, Stop stop) {
  const int64_t end = start_ns + int64_t(seconds * 1e9);
  int64_t next_draw = start_ns + 1'000'000'000;
  uint64_t last_ops = Sum(workers, &Stats::ops_total);
  int64_t last_ns = start_ns;
  for (int64_t now = NowNs(); now < end && !stop(); now = NowNs()) {
    usleep(10'000);
    if (tty && now >= next_draw) {
      const uint64_t ops = Sum(workers, &Stats::ops_total);
      std::printf("\r\033[K%s %5.1fs  %10.0f ops/s  errors %llu", phase, (now - start_ns) / 1e9,
                  double(ops - last_ops) * 1e9 / double(now - last_ns),
                  (unsigned long long)Sum(workers, &Stats::errors_total));
      std::fflush(stdout);
      last_ops = ops;
      last_ns = now;
      next_draw += 1'000'000'000;
    }
  }
}

// The run's result: the workers' counters and latencies summed, the CPU the server,
// this process and the rest of the machine used between `begin` and `end`.
Result MergeResults(const std::vector<std::unique_ptr<Worker>>& workers, const CpuSample& begin,
                    const CpuSample& end, const KeyPool& pool) {
  Result r;
  r.window_s = double(end.wall_ns - begin.wall_ns) / 1e9;
  for (auto& w : workers) {
    const Stats& s = w->stats();
    r.latency.Merge(s.latency);
    if (r.first_error.empty()) r.first_error = s.first_error;
  }
  r.ops = Sum(workers, &Stats::ops);
  r.requests = Sum(workers, &Stats::requests);
  r.errors = Sum(workers, &Stats::errors);
  r.errors_total = Sum(workers, &Stats::errors_total);
  r.ops_total = Sum(workers, &Stats::ops_total);
  if (begin.server_s >= 0 && end.server_s >= 0) r.server_cpu_s = end.server_s - begin.server_s;
  r.client_cpu_s = end.self_s - begin.self_s;
  r.other_cpu_s = (end.machine_busy_s - begin.machine_busy_s) - r.client_cpu_s -
                  (r.server_cpu_s > 0 ? r.server_cpu_s : 0);
  if (r.other_cpu_s < 0) r.other_cpu_s = 0;
  r.load1 = LoadAverage1();
  r.cpus = CpuCount();
  r.exhausted = pool.exhausted();
  r.next_key = pool.next();
  return r;
}

// Prints the RESULT line (and the first error), writes the JSON when asked; the exit
// status.
int Report(const Options& o, const Result& r) {
  std::printf("%s\n", ResultLine(o, r).c_str());
  std::fflush(stdout);
  if (!r.first_error.empty())
    std::fprintf(stderr, "rowsocket-bench: %llu failed requests; first: %s\n",
                 (unsigned long long)r.errors_total, r.first_error.c_str());
  if (!o.json_path.empty()) {
    FILE* f = std::fopen(o.json_path.c_str(), "w");
    if (!f) {
      std::perror(o.json_path.c_str());
      return 2;
    }
    std::fprintf(f, "%s\n", ResultJson(o, r).c_str());
    std::fclose(f);
  }
  return r.errors_total ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::string error = ParseOptions(argc, argv, &o);
  if (error == "help") {
    std::fputs(UsageText(), stdout);
    return 0;
  }
  if (!error.empty()) {
    std::fprintf(stderr, "rowsocket-bench: %s\n%s", error.c_str(), UsageText());
    return 2;
  }
  const bool tty = o.progress && isatty(STDOUT_FILENO);
  if (o.target == TargetKind::kSqlText || o.target == TargetKind::kSqlPrepared)
    mysql_library_init(0, nullptr, nullptr);

  // Workers and their connections (round-robin over threads).
  RunControl control;
  const Zipf zipf = o.dist == Distribution::kZipf ? Zipf(o.rows, o.zipf_theta) : Zipf();
  KeyPool pool(o.key_base, o.key_count);
  std::vector<std::unique_ptr<Worker>> workers;
  for (int t = 0; t < o.threads; ++t)
    workers.push_back(std::make_unique<Worker>(o, &control, zipf, &pool, t));
  for (int c = 0; c < o.conns; ++c) {
    Worker* w = workers[size_t(c % o.threads)].get();
    w->AddConnection(NewConnection(o, w));
  }
  for (auto& w : workers) w->StartThread();
  while (control.ready.load() < o.threads) usleep(1000);
  for (auto& w : workers) {
    if (!w->stats().setup_error.empty()) {
      control.phase = kAbort;
      for (auto& x : workers) x->Join();
      std::fprintf(stderr, "rowsocket-bench: %s\n", w->stats().setup_error.c_str());
      return 2;
    }
  }

  // Warm-up, then the window: stop early when the key pool is used up.
  control.phase = kWarmup;
  auto pool_done = [&] { return pool.exhausted(); };
  Wait("warm-up", NowNs(), o.warmup_s, tty, workers, pool_done);
  const CpuSample begin = SampleCpu(o.server_pid);
  control.phase = kMeasure;
  Wait("measure", begin.wall_ns, o.duration_s, tty, workers, pool_done);
  control.phase = kDrain;
  const CpuSample end = SampleCpu(o.server_pid);
  for (auto& w : workers) w->Join();
  if (tty) std::printf("\r\033[K");

  const Result r = MergeResults(workers, begin, end, pool);
  return Report(o, r);
}
