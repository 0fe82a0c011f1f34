// ServerThread: makes the calling OS thread a MariaDB server thread for its
// lifetime: its own THD, registered so SHOW PROCESSLIST lists it and server
// shutdown can signal it.
//
// Construct and destroy on the same thread (a worker's); the THD is this thread's
// alone, except that Interrupt() may be called from any thread.
#pragma once

#include "engine/server_headers.h"
#include "protocol/engine_status.h"
#include "seam/executor.h"

namespace rowsocket {

// True when `thd` was interrupted by a Galera cluster rather than by an
// administrator: a replicated transaction or DDL needed a lock the thread held (a
// worker gives up a table's metadata lock on its next tick).
bool KilledByCluster(const THD* thd);

// What happened to a request that a KILL stopped: killed, or for a Galera cluster's
// interruption a deadlock (HA_ERR_LOCK_DEADLOCK), as SQL's statements get there.
EngineStatus KilledStatus(const THD* thd);

class ServerThread {
 public:
  // `description` shows in SHOW PROCESSLIST's State column.
  explicit ServerThread(const char* description);
  ~ServerThread();
  ServerThread(const ServerThread&) = delete;
  ServerThread& operator=(const ServerThread&) = delete;

  bool ok() const { return thd_ != nullptr; }
  THD* thd() const { return thd_; }

  // Prepares the THD for one batch (fresh query id and time, statement kind).
  void BeginBatch(enum_sql_command command);
  // SHOW PROCESSLIST says `rowsocket: executing batch` (again: opening a table
  // shows stages of its own).
  void ShowExecuting();
  // Frees what the batch allocated on the THD and clears its diagnostics.
  void EndBatch();

  // Sets a session variable of this thread's THD, e.g. the storage engine's row
  // lock wait limit, between batches or within one. Returns false (and logs) if the
  // variable does not exist or the value is refused.
  bool SetSessionVariable(const char* name, unsigned long long value);

  // From any thread: ends what this thread's THD is doing as KILL QUERY does (a
  // lock wait returns, an engine call checks it); the THD stays killed.
  void Interrupt();

  // True once the server is shutting down (also for a thread that began after the
  // server killed its threads). A KILL from an administrator that is
  // not a shutdown is logged and cleared: workers live as long as the plugin. So is,
  // quietly, one from a Galera cluster (see KilledByCluster).
  bool ShutdownRequested();

  // Tells `waits` (may be null) of every wait of this thread that the server or a
  // storage engine reports (thd_wait_begin, thd_wait_end: a page read from disk, a
  // log write a commit waits for), as it tells its thread pool.
  void ReportWaits(WaitObserver* waits);

 private:
  THD* thd_ = nullptr;
  const char* description_;
};

}  // namespace rowsocket
