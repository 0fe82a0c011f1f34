// WorkerEngine: a worker's THD, tables, rows and group transaction, and the checks
// every protocol applies (schemas, the server's state, logins, grants). Runs on
// its worker's thread.
#include "engine/core/worker_engine.h"

#include <cctype>

#include "protocol/name_list.h"
#include "protocol/engine_status.h"
#include "util/log.h"

namespace rowsocket {
namespace {

constexpr const char* kSystemSchemas[] = {"mysql", "information_schema", "performance_schema",
                                          "sys"};

bool ListContains(std::string_view list, std::string_view name) {
  for (std::string_view item : SplitNameList(list)) {
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (SameName(item, name)) return true;
  }
  return false;
}

bool GaleraNodeServesReads() {
  return GaleraNodeReady() || global_system_variables.wsrep_dirty_reads;
}

}  // namespace

bool GaleraNodeReady() { return wsrep_ready_get() && wsrep_reject_queries == WSREP_REJECT_NONE; }

bool SameName(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

const char* GaleraState() {
  if (!WSREP_ON) return "OFF";
  if (GaleraNodeReady()) return "READY";
  return global_system_variables.wsrep_dirty_reads ? "DIRTY_READS" : "REFUSED";
}

WorkerEngine::WorkerEngine(const WorkerInfo& info, const EngineOptions& options,
                           SharedLogFlusher* flusher)
    : info_(info),
      options_(options),
      stats_(info.stats),
      thread_(info.spare ? (info.read_only ? "rowsocket: spare read worker"
                                           : "rowsocket: spare write worker")
                         : (info.read_only ? "rowsocket: read worker" : "rowsocket: write worker")),
      tables_(thread_.thd(), !info.read_only),
      rows_(thread_.thd(), options.tunables),
      group_(thread_.thd(), !info.read_only, flusher, &info_.wake, stats_),
      accounts_(thread_.thd()) {
  if (thread_.ok()) thread_.ReportWaits(info_.waits);
}

void WorkerEngine::Retire(IndexBinding* binding) {
  if (binding == nullptr) return;
  for (auto& opened : binding->opened)
    if (opened) retired_.push_back(std::move(opened));
}

// (A connection is served by its listener's workers only, so their slots number
// the binding's openings.)
Opened<OpenIndex> WorkerEngine::OpenForThisWorker(IndexBinding* b) {
  const size_t slot = static_cast<size_t>(info_.slot);
  if (b->opened.size() <= slot) b->opened.resize(slot + 1);
  if (!b->opened[slot]) {
    const Opened<TableEntry> table = tables_.Get(b->db, b->table);
    if (!table.ok()) return Opened<OpenIndex>::Failed(table.error);
    b->opened[slot] =
        std::make_unique<OpenIndex>(table.value, b->index, b->columns, b->filter_columns);
  }
  return Opened<OpenIndex>::Of(b->opened[slot].get());
}

Opened<OpenIndex> WorkerEngine::OpenResolved(IndexBinding* binding) {
  const Opened<OpenIndex> opened = OpenForThisWorker(binding);
  if (!opened.ok()) return opened;
  OpenIndex* oi = opened.value;
  EngineStatus s = tables_.Reopen(oi->entry());
  if (s.ok()) s = oi->Resolve();
  if (!s.ok()) return Opened<OpenIndex>::Failed(s);
  tables_.MarkUsed(oi->entry());
  return opened;
}

bool WorkerEngine::SchemaAllowed(std::string_view db) const {
  for (const char* system : kSystemSchemas) {
    if (SameName(db, system)) return ListContains(options_.allowed_system_schemas, db);
  }
  return true;
}

// read_only holds rowsocket's clients to it like SQL's ordinary users (rowsocket's
// threads have every privilege; a replica's read_only must not let writes
// through); Galera's refusal is ER_UNKNOWN_COM_ERROR, as SQL answers.
EngineStatus WorkerEngine::RefusedByServerState(bool writes) {
  if (opt_readonly && writes) return EngineStatus::ReadOnly(ER_OPTION_PREVENTS_STATEMENT);
  if (!WSREP_ON) return EngineStatus::OK();
  if (writes ? GaleraNodeReady() : GaleraNodeServesReads()) return EngineStatus::OK();
  (writes ? stats_->galera_writes_refused : stats_->galera_reads_refused).Add();
  return EngineStatus::ClusterNotReady(ER_UNKNOWN_COM_ERROR);
}

// SQL refuses it with ER_LOCK_DEADLOCK: such rows would be certified by no key of
// their own.
EngineStatus WorkerEngine::RefusedByGalera(bool writes, const OpenIndex* oi) {
  if (!WSREP_ON || wsrep_certify_nonPK || !writes) return EngineStatus::OK();
  if (oi->table()->s->primary_key != MAX_KEY) return EngineStatus::OK();
  stats_->galera_writes_refused.Add();
  return EngineStatus::ClusterRefused(ER_LOCK_DEADLOCK);
}

// Every failure is counted and logged, never a password.
EngineStatus WorkerEngine::LogIn(EngineSession* session, const LoginCredentials& credentials,
                                 bool clear_password_allowed) {
  const EngineStatus status = accounts_.LogIn(&session->login, credentials,
                                              session->peer_address,
                                              session->tls || clear_password_allowed);
  session->SetAccount(session->login.AccountName());
  if (status.ok()) {
    stats_->logins.Add();
    static LogLimit logged_in;
    LogLimited(&logged_in, LogLevel::kDebug, "%s logged in from %s",
               session->login.AccountName().c_str(), session->peer_address.c_str());
    return status;
  }
  stats_->logins_failed.Add();
  ++session->failed_logins;  // the server layer delays the answer (login_policy.h)
  static LogLimit failed;
  std::string user = std::string(credentials.user).substr(0, USERNAME_CHAR_LENGTH);
  for (char& c : user)  // a client's bytes: nothing that could forge a log line
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  LogLimited(&failed, LogLevel::kWarning, "login refused (%.*s) for user '%s' from %s",
             static_cast<int>(status.Name().size()), status.Name().data(),
             user.c_str(), session->peer_address.c_str());
  return status;
}

EngineStatus WorkerEngine::RefreshGrants(EngineSession* session, OpenIndex* oi,
                                       const std::vector<Field*>& filters,
                                       IndexGrants* grants) {
  AccountLogin* login = &session->login;
  if (!RefreshLogin(session)) return EngineStatus::Unauthenticated();
  accounts_.Check(login, oi->table(), oi->key_number(), oi->columns(), filters, grants);
  return EngineStatus::OK();
}

EngineStatus WorkerEngine::CheckAccess(EngineSession* session, const AccessWanted& wanted) {
  static const std::vector<Field*> kNoFilters;
  EngineStatus s = RefreshGrants(session, wanted.index,
                               wanted.filters != nullptr ? *wanted.filters : kNoFilters,
                               wanted.grants);
  if (!s.ok()) return s;
  const IndexGrants& g = *wanted.grants;
  const char* refused = nullptr;
  if (!g.select) {
    refused = "SELECT";
  } else if (wanted.del && !g.del) {
    refused = "DELETE";
  } else if (wanted.update_columns > g.update_columns) {
    refused = "UPDATE";
  } else if (wanted.insert_columns > 0) {
    IndexGrants* ig = wanted.grants;
    if (wanted.insert_index != nullptr && wanted.insert_index != wanted.index) {
      ig = wanted.insert_grants;
      s = RefreshGrants(session, wanted.insert_index, kNoFilters, ig);
      if (!s.ok()) return s;
    }
    if (wanted.insert_columns > ig->insert_columns) refused = "INSERT";
  }
  if (refused == nullptr) return EngineStatus::OK();
  return Refuse(session, refused, wanted.db, wanted.table);
}

bool WorkerEngine::RefreshLogin(EngineSession* session) {
  if (accounts_.Refresh(&session->login, batch_start_ms_, kAccountMaxAgeMs)) return true;
  session->SetAccount("");
  return false;
}

EngineStatus WorkerEngine::CheckMaySeeTable(EngineSession* session, std::string_view db,
                                            std::string_view table) {
  if (!RefreshLogin(session)) return EngineStatus::Unauthenticated();
  if (accounts_.MaySeeTable(&session->login, db, table)) return EngineStatus::OK();
  return Refuse(session, "access", db, table);
}

EngineStatus WorkerEngine::Refuse(EngineSession* session, const char* what, std::string_view db,
                                  std::string_view table) {
  stats_->requests_denied.Add();
  static LogLimit denied;
  LogLimited(&denied, LogLevel::kWarning, "%s denied to %s from %s on %.*s.%.*s", what,
             session->login.AccountName().c_str(), session->peer_address.c_str(),
             static_cast<int>(db.size()), db.data(), static_cast<int>(table.size()),
             table.data());
  return EngineStatus::Denied();
}

}  // namespace rowsocket
