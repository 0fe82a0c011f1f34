// GaleraTransaction: the wsrep client state and transaction hooks of a write group.
// Runs on a worker thread.
#include "engine/core/galera_transaction.h"

namespace rowsocket {

GaleraTransaction::~GaleraTransaction() {
  if (opened_) wsrep_close(thd_);
}

bool GaleraTransaction::Begin() {
  if (!WSREP_ON) {
    // Not a Galera node (or wsrep_on turned off): InnoDB must append no certification
    // keys for a THD whose client state is not in a command.
    thd_->variables.wsrep_on = false;
    return true;
  }
  thd_->variables.wsrep_on = true;
  if (!opened_) {
    wsrep_open(thd_);
    opened_ = thd_->wsrep_cs().state() != wsrep::client_state::s_none;
    if (!opened_) return false;
  }
  if (wsrep_before_command(thd_)) {
    // No transaction of this THD is active between groups, so nothing can have been
    // aborted meanwhile; should one have been, the command ends here and the group
    // does not run.
    wsrep_after_command_ignore_result(thd_);
    return false;
  }
  // Each group is a transaction of its own id, a retry of the same batch included.
  thd_->set_wsrep_next_trx_id(next_query_id());
  if (wsrep_start_transaction(thd_, thd_->wsrep_next_trx_id())) {
    wsrep_commit_empty(thd_, true);  // ends the transaction the provider refused
    wsrep_after_command_ignore_result(thd_);
    return false;
  }
  active_ = true;
  return true;
}

GaleraTransaction::Result GaleraTransaction::End() {
  if (!active_) return Result::kNone;
  active_ = false;
  // A group that gave the storage engine nothing to commit (no participant at all,
  // or reads only) still ends its wsrep transaction, as SQL's statements do.
  if (thd_->wsrep_trx().active() &&
      thd_->wsrep_trx().state() == wsrep::transaction::s_executing)
    wsrep_commit_empty(thd_, true);
  // A transaction aborted by a replicated one after it was certified is replayed
  // here (by the server, on a THD of its own, with the group's write set); one
  // aborted before is rolled back and reported as a deadlock.
  const bool replay = wsrep_must_replay(thd_) ||
                      (thd_->wsrep_trx().state() == wsrep::transaction::s_must_abort &&
                       thd_->wsrep_trx().certified());
  const bool aborted = wsrep_after_statement(thd_) != 0;
  const bool replayed =
      !aborted && replay && thd_->wsrep_trx().state() == wsrep::transaction::s_committed;
  // A brute-force abort interrupts the THD as KILL QUERY does and leaves a deadlock
  // error on it; the group's end answers for both, so neither may reach the group
  // that runs next (the worker would take the first for an administrator's KILL,
  // the requests the second for their own error).
  if (aborted || replay) {
    thd_->reset_kill_query();
    thd_->clear_error();
  }
  wsrep_after_command_before_result(thd_);
  wsrep_after_command_after_result(thd_);
  if (aborted) return Result::kAborted;
  return replayed ? Result::kReplayed : Result::kCommitted;
}

}  // namespace rowsocket
