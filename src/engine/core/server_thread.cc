// ServerThread: THD creation, per-batch housekeeping and destruction.
// Runs on a worker thread.
#include "engine/core/server_thread.h"

#include "protocol/engine_status.h"
#include "util/log.h"

namespace rowsocket {
namespace {

// The wait observer of this thread's THD (a worker's THD is used on its own thread
// only, and the server reports a thread's waits on that thread).
thread_local WaitObserver* t_waits = nullptr;

void WaitBegins(THD*, int) {
  if (t_waits != nullptr) t_waits->WaitBegan();
}

void WaitEnds(THD*) {
  if (t_waits != nullptr) t_waits->WaitEnded();
}

// The server's scheduler functions for its own threads, but for the two that hear
// of waits. Made once, from a worker's THD (every THD starts with the same one).
scheduler_functions* ReportingScheduler(const scheduler_functions* server) {
  static scheduler_functions reporting = [server] {
    scheduler_functions s = *server;
    s.thd_wait_begin = WaitBegins;
    s.thd_wait_end = WaitEnds;
    return s;
  }();
  return &reporting;
}

}  // namespace

ServerThread::ServerThread(const char* description) : description_(description) {
  if (my_thread_init()) return;
  THD* thd = new THD(next_thread_id());
  thd->thread_stack = reinterpret_cast<char*>(&thd);
  thd->store_globals();
  thd->system_thread = SYSTEM_THREAD_GENERIC;
  thd->security_ctx->skip_grants();
  thd->security_ctx->host_or_ip = "localhost";
  // Not COM_DAEMON: the server refuses to KILL daemon threads, and an
  // administrator must be able to end a worker's batch. Sleep between batches,
  // Query during one, like a client's thread.
  thd->set_command(COM_SLEEP);
  thd->init_for_queries();
  thd->real_id = pthread_self();
  // Each batch is a statement in autocommit mode: its commit ends the InnoDB
  // transaction and its read view, so the next batch sees newly committed rows.
  thd->variables.option_bits &= ~(OPTION_NOT_AUTOCOMMIT | OPTION_BEGIN);
  thd->variables.option_bits |= OPTION_AUTOCOMMIT;
  thd->count_cuted_fields = CHECK_FIELD_IGNORE;
  thd->proc_info = description_;
  server_threads.insert(thd);
  thd_ = thd;
}

ServerThread::~ServerThread() {
  if (thd_ == nullptr) return;
  t_waits = nullptr;
  server_threads.erase(thd_);
  thd_->set_status_var_init();
  thd_->killed = KILL_CONNECTION;
  delete thd_;
  set_current_thd(nullptr);
  my_thread_end();
}

void ServerThread::BeginBatch(enum_sql_command command) {
  thd_->set_time();
  thd_->set_query_id(next_query_id());
  thd_->lex->sql_command = command;
  thd_->set_command(COM_QUERY);
  ShowExecuting();
}

void ServerThread::ShowExecuting() { thd_->proc_info = "rowsocket: executing batch"; }

void ServerThread::EndBatch() {
  if (thd_->is_error() || thd_->get_stmt_da()->is_set()) thd_->clear_error(true);
  thd_->get_stmt_da()->reset_diagnostics_area();
  thd_->get_stmt_da()->clear_warning_info(thd_->query_id);
  free_root(thd_->mem_root, MYF(MY_KEEP_PREALLOC));
  thd_->set_command(COM_SLEEP);
  thd_->proc_info = description_;
}

bool ServerThread::SetSessionVariable(const char* name, unsigned long long value) {
  THD* thd = thd_;
  // find_sys_var() locks the variable's plugin for the statement, in the list a
  // running batch's own plugin locks are in: only that lock is released here.
  const uint locked_before = thd->lex->plugins.elements;
  bool ok = false;
  if (sys_var* var = find_sys_var(thd, name, strlen(name), false)) {
    Item* item = new (thd->mem_root) Item_uint(thd, value);
    set_var assignment(thd, OPT_SESSION, var, &null_clex_str, item);
    List<set_var_base> list;
    list.push_back(&assignment, thd->mem_root);
    ok = sql_set_variables(thd, &list, false) == 0;
  }
  plugin_unlock_list(thd, reinterpret_cast<plugin_ref*>(thd->lex->plugins.buffer) + locked_before,
                     thd->lex->plugins.elements - locked_before);
  thd->lex->plugins.elements = locked_before;
  if (!ok) {
    Log(LogLevel::kDebug, "cannot set %s=%llu for rowsocket's threads: %s", name, value,
        thd->is_error() ? thd->get_stmt_da()->message() : "no such variable");
    thd->clear_error(true);
  }
  return ok;
}

void ServerThread::ReportWaits(WaitObserver* waits) {
  if (waits == nullptr) return;
  t_waits = waits;
  thd_->scheduler = ReportingScheduler(thd_->scheduler);
}

void ServerThread::Interrupt() { thd_->awake(KILL_QUERY); }

// On a wsrep THD an administrator's KILL goes through wsrep_kill_thd, which records
// it in wsrep_abort_by_kill; a brute-force abort of the cluster does not.
bool KilledByCluster(const THD* thd) {
  return thd->killed != NOT_KILLED && WSREP_NNULL(thd) &&
         thd->wsrep_abort_by_kill == NOT_KILLED;
}

EngineStatus KilledStatus(const THD* thd) {
  if (KilledByCluster(thd)) return EngineStatus::Deadlock(HA_ERR_LOCK_DEADLOCK);
  return EngineStatus::Killed();
}

bool ServerThread::ShutdownRequested() {
  // The server kills the threads it knows of once, early in its shutdown, then
  // waits for every THD to go: a thread that began after that pass (the log
  // flusher starts with the first write to commit) is never killed.
  if (abort_loop) return true;
  killed_state k = thd_->killed;
  if (k == NOT_KILLED) return false;
  if (k == KILL_SERVER || k == KILL_SERVER_HARD) return true;
  if (KilledByCluster(thd_)) {
    thd_->reset_killed();
    return false;
  }
  static LogLimit killed;
  LogLimited(&killed, LogLevel::kWarning,
             "KILL of worker thread %llu ended its batch (its remaining requests answered "
             "`1 1 killed`); workers stop with UNINSTALL PLUGIN or shutdown",
             static_cast<unsigned long long>(thd_->thread_id));
  thd_->reset_killed();
  return false;
}

}  // namespace rowsocket
