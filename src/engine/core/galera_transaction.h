// GaleraTransaction: on a Galera node (wsrep_on=ON), makes a write group a cluster
// transaction with the hooks the server's own dispatch runs around a client's
// command and statement (sql_parse.cc): before the group, the worker's wsrep client
// state enters a command and a transaction starts, so that InnoDB appends the
// certification keys of every row written and the group's row events become its
// write set; the ordinary commit (ha_commit_trans) then certifies it, replicates it
// and commits it in the cluster's order; after it, the statement and the command
// end. A transaction the cluster aborts (a certification failure, or a brute-force
// abort by a replicated transaction that needed its locks) is rolled back and
// reported as a conflict, as SQL reports a deadlock; one aborted after it was
// certified is replayed by the server and committed.
//
// One per GroupTransaction, on its worker's thread: the client state is opened with
// the first write group on a Galera node and closed with the worker.
#pragma once

#include "engine/server_headers.h"

namespace rowsocket {

class GaleraTransaction {
 public:
  explicit GaleraTransaction(THD* thd) : thd_(thd) {}
  ~GaleraTransaction();
  GaleraTransaction(const GaleraTransaction&) = delete;
  GaleraTransaction& operator=(const GaleraTransaction&) = delete;

  // Before a write group opens its statement: on a Galera node, enters a command
  // and starts the wsrep transaction; elsewhere, makes sure the worker's THD takes
  // no part in wsrep. False when the transaction could not start (the group must
  // not write).
  bool Begin();

  enum class Result {
    kNone,       // the group was no wsrep transaction (not a Galera node)
    kCommitted,  // committed in the cluster (or had nothing to commit)
    kReplayed,   // aborted after certification and committed by the server's replay
    kAborted,    // aborted by the cluster: nothing of the group is anywhere
  };
  // After the group's commit or rollback, its table locks and its statement's
  // metadata locks released (a replay takes the rows' locks anew).
  Result End();

 private:
  THD* const thd_;
  bool opened_ = false;  // the THD's wsrep client state is open
  bool active_ = false;  // between Begin and End of a wsrep group
};

}  // namespace rowsocket
