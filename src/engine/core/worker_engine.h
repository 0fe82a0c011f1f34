// WorkerEngine: one worker's engine, as every protocol handler uses it — its THD
// (ServerThread), its open tables (TableCache), the row operations (RowRequests),
// the group transaction, the account logins — and the checks every protocol
// applies the same way: which schemas may be named, what the server's state
// (read_only, a Galera node's readiness) refuses, account logins and grants.
//
// Owned by the worker's EngineExecutor; created, used and destroyed on its
// worker's thread.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "engine/admin/accounts.h"
#include "engine/core/group_transaction.h"
#include "engine/core/log_flusher.h"
#include "engine/core/open_index.h"
#include "engine/core/server_thread.h"
#include "engine/core/table_cache.h"
#include "engine/engine.h"
#include "engine/rows/row_requests.h"
#include "engine/server_headers.h"
#include "seam/executor.h"

namespace rowsocket {

// As SQL decides for its queries: a Galera node is ready for clients while it is
// synced with the cluster and wsrep_reject_queries rejects nothing; one that is not
// serves reads only when wsrep_dirty_reads allows them.
bool GaleraNodeReady();

// Whether two identifiers (schema, column names) are the same, ASCII case aside.
bool SameName(std::string_view a, std::string_view b);

// What an item asks of the account's grants (rowsocket_auth=account): every item
// SELECT on what its index reads (its columns, filter columns and key), and a
// write the privilege it needs on the columns it writes.
struct AccessWanted {
  OpenIndex* index = nullptr;                // what the item reads
  const std::vector<Field*>* filters = nullptr;  // and tests (null: none)
  IndexGrants* grants = nullptr;             // the session's grants on `index`
  bool del = false;                          // DELETE
  uint32_t update_columns = 0;               // UPDATE on the index's first columns
  uint32_t insert_columns = 0;               // INSERT on the first columns of:
  OpenIndex* insert_index = nullptr;         //   this index (null: `index`),
  IndexGrants* insert_grants = nullptr;      //   whose grants these are
  std::string_view db, table;                // for the log
};

class WorkerEngine {
 public:
  // `flusher`: where write commits may leave their log flush (null: they do not).
  WorkerEngine(const WorkerInfo& info, const EngineOptions& options, SharedLogFlusher* flusher);
  WorkerEngine(const WorkerEngine&) = delete;
  WorkerEngine& operator=(const WorkerEngine&) = delete;

  bool ok() const { return thread_.ok(); }
  const WorkerInfo& info() const { return info_; }
  const EngineOptions& options() const { return options_; }
  WorkerStats* stats() const { return stats_; }
  ServerThread& thread() { return thread_; }
  THD* thd() const { return thread_.thd(); }
  TableCache& tables() { return tables_; }
  RowRequests& rows() { return rows_; }
  GroupTransaction& group() { return group_; }
  Accounts& accounts() { return accounts_; }

  // Steady clock ms when the running batch (or between batches, the running
  // periodic step) began: ages of caches and grants count from it.
  uint64_t batch_start_ms() const { return batch_start_ms_; }
  void set_batch_start_ms(uint64_t ms) { batch_start_ms_ = ms; }
  // Open indexes replaced during the running batch (a step of it may still use
  // them); freed when it ends.
  std::vector<std::unique_ptr<OpenIndex>>* retired() { return &retired_; }
  void Retire(IndexBinding* binding);
  void FreeRetired() { retired_.clear(); }

  // Whether the worker's THD was killed (the rest of the batch does not run).
  bool Killed() const { return thread_.thd()->killed != NOT_KILLED; }

  // `b` as this executor opens it: the first time this executor serves the
  // binding's connection, in its own table cache.
  Opened<OpenIndex> OpenForThisWorker(IndexBinding* b);
  // The same, reopened if DDL closed it, resolved and marked used by the batch.
  Opened<OpenIndex> OpenResolved(IndexBinding* b);
  // Whether requests may name schema `db` (system schemas only where
  // rowsocket_allowed_system_schemas lists them).
  bool SchemaAllowed(std::string_view db) const;

  // What the server's state refuses, as it refuses SQL: read_only refuses writes;
  // a Galera node that is not ready refuses writes, and reads unless
  // wsrep_dirty_reads allows them.
  EngineStatus RefusedByServerState(bool writes);
  // On a Galera node with wsrep_certify_nonPK=OFF, a write to a table without a
  // primary key, as SQL refuses it.
  EngineStatus RefusedByGalera(bool writes, const OpenIndex* oi);

  // An account login (`A 3`, `A 4`, SASL PLAIN) of the connection, counted
  // and logged; a refusal counts in its failed_logins. `clear_password_allowed`: a
  // password in clear (A 4, SASL PLAIN) is taken without TLS too
  // (where the listener's protocol has an option that says plain TCP will do).
  EngineStatus LogIn(EngineSession* session, const LoginCredentials& credentials,
                     bool clear_password_allowed = false);
  // Whether the account's grants allow what `wanted` says, as the server's grants
  // give them (accounts.h), at most a second old: `denied` (counted and logged) if
  // not, `unauth` if the account is gone.
  EngineStatus CheckAccess(EngineSession* session, const AccessWanted& wanted);
  // Before a table a client named is opened: `denied` (counted and logged) unless the
  // account has some privilege on it (Accounts::MaySeeTable), `unauth` if the account
  // is gone; so a refusal is the same whether or not the table exists.
  EngineStatus CheckMaySeeTable(EngineSession* session, std::string_view db,
                                std::string_view table);

 private:
  // The login's security context rebuilt once it is a second old; false (the login
  // ends) when the account has been dropped meanwhile.
  bool RefreshLogin(EngineSession* session);
  // A refusal of `what` (SELECT, INSERT, ...) on db.table: counted, logged, `denied`.
  EngineStatus Refuse(EngineSession* session, const char* what, std::string_view db,
                      std::string_view table);
  // `grants` for `oi` (and filter columns `filters`) brought up to date with the
  // connection's login, itself rebuilt from the server's ACL once it is a second
  // old; `unauth` when the account has been dropped meanwhile (the login ends).
  EngineStatus RefreshGrants(EngineSession* session, OpenIndex* oi,
                           const std::vector<Field*>& filters, IndexGrants* grants);

  const WorkerInfo info_;
  const EngineOptions options_;
  WorkerStats* stats_;
  ServerThread thread_;
  TableCache tables_;
  RowRequests rows_;
  GroupTransaction group_;
  Accounts accounts_;
  uint64_t batch_start_ms_ = 0;
  std::vector<std::unique_ptr<OpenIndex>> retired_;
};

}  // namespace rowsocket
