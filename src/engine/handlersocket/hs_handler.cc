// HandlerSocketHandler: HandlerSocket's requests as the batch core runs them —
// `P` bindings, `A` logins, finds and inserts on bound indexes, its grants, its
// counters and its text answers. Runs on a worker thread, inside Execute.
#include "engine/handlersocket/hs_handler.h"

#include "engine/handlersocket/request_check.h"
#include "engine/rows/row_io.h"
#include "protocol/response.h"
#include "protocol/engine_status.h"
#include "protocol/handlersocket_status.h"

namespace rowsocket {
namespace {

EngineSession* SessionOf(const BatchItem& item) {
  return static_cast<EngineSession*>(item.session);
}

// The bits of wsrep_sync_wait (SQL's causality checks on a Galera node) that cover
// a request: reads 1, updates and deletes 2, inserts 4.
uint SyncWaitBits(const Request& r) {
  switch (r.type) {
    case RequestType::kFind:
      return r.modify == ModifyOp::kNone ? WSREP_SYNC_WAIT_BEFORE_READ
                                         : WSREP_SYNC_WAIT_BEFORE_UPDATE_DELETE;
    case RequestType::kInsert:
      return WSREP_SYNC_WAIT_BEFORE_INSERT_REPLACE;
    default:
      return 0;
  }
}

class HandlerSocketModule : public ProtocolModule {
 public:
  std::unique_ptr<ProtocolHandler> NewHandler(WorkerEngine* engine) override {
    if (engine->info().protocol != WireProtocol::kHandlerSocket) return nullptr;
    return std::make_unique<HandlerSocketHandler>(engine);
  }
};

}  // namespace

std::unique_ptr<ProtocolModule> NewHandlerSocketModule() {
  return std::make_unique<HandlerSocketModule>();
}

bool HandlerSocketHandler::Speaks(const BatchItem& item) const {
  return item.protocol == WireProtocol::kHandlerSocket;
}

// A HandlerSocket request needs no login to be parsed: its grants (checked on
// every request of a listener with account logins) refuse what a connection that
// is not logged in asks.
ItemTraits HandlerSocketHandler::Traits(const BatchItem& item) const {
  const Request& r = HsRequestOf(item);
  ItemTraits t;
  t.touches_rows = r.type == RequestType::kFind || r.type == RequestType::kInsert;
  t.writes = r.IsWrite();
  t.locking_read = true;  // a find on the write port locks what it reads, as the original's
  t.sync_wait = SyncWaitBits(r);
  t.logs_in = r.type == RequestType::kAuth;
  t.sets_up_connection = r.type == RequestType::kAuth ||
                         (r.type == RequestType::kOpenIndex &&
                          SessionOf(item)->Find(r.index_id) != nullptr);
  return t;
}

void HandlerSocketHandler::BeginBatch(size_t count) {
  if (values_.size() < count) values_.resize(count);
  if (describes_.size() < count) describes_.resize(count);
}

Prepared HandlerSocketHandler::Prepare(const BatchItem& item, size_t i) {
  Prepared p;
  const Request& r = HsRequestOf(item);
  EngineSession* session = SessionOf(item);
  values_[i].clear();
  switch (r.type) {
    case RequestType::kFind:
    case RequestType::kInsert:
      return PrepareRows(item);
    case RequestType::kInvalid:
      p.status = HsEngineStatus(r.error);
      break;
    case RequestType::kAuth:
      if (session->account_logins) p.status = LogIn(session, r, &values_[i]);
      break;
    case RequestType::kOpenIndex:
      p.status = BindIndex(session, r);
      break;
    case RequestType::kDescribe:
      describes_[i] = DescribeTarget();
      p.status = !engine_->SchemaAllowed(r.db)
                     ? EngineStatus::SchemaForbidden()
                     : PrepareDescribe(r, &engine_->tables(), &engine_->accounts(), session,
                                       engine_->batch_start_ms(), &describes_[i]);
      break;
    default:
      break;
  }
  p.answered = true;
  return p;
}

Prepared HandlerSocketHandler::PrepareRows(const BatchItem& item) {
  Prepared p;
  const Request& r = HsRequestOf(item);
  EngineSession* session = SessionOf(item);
  IndexBinding* binding = session->Find(r.index_id);
  const Opened<OpenIndex> bound = binding != nullptr
                                      ? engine_->OpenForThisWorker(binding)
                                      : Opened<OpenIndex>::Failed(EngineStatus::IndexNotOpen());
  p.answered = true;
  if (!bound.ok()) {
    p.status = bound.error;
    return p;
  }
  OpenIndex* oi = bound.value;
  EngineStatus s = engine_->tables().Reopen(oi->entry());
  if (s.ok()) s = oi->Resolve();
  if (s.ok()) s = CheckRequest(&HsRequestOf(item), oi);
  if (s.ok() && session->account_logins) s = CheckGrants(session, binding, oi, r);
  if (!s.ok()) {
    p.status = s;
    return p;
  }
  engine_->tables().MarkUsed(oi->entry());
  p.answered = false;
  p.index = oi;
  return p;
}

// rowsocket_auth=account: `A 2` answers a nonce; `A 3` and `A 4` log the connection
// in as an account, or out.
EngineStatus HandlerSocketHandler::LogIn(EngineSession* session, const Request& r,
                                       std::string* value) {
  if (r.auth_type == "2")
    return engine_->accounts().Challenge(&session->login, r.auth_key, value);
  LoginCredentials credentials;
  credentials.user = r.auth_key;
  credentials.secret = r.auth_arg;
  credentials.mechanism = r.auth_type == "4" ? LoginMechanism::kClearPassword
                                             : LoginMechanism::kChallengeResponse;
  return engine_->LogIn(session, credentials);
}

// rowsocket_auth=account: every request on an index needs SELECT on what its `P`
// named; writes need INSERT, UPDATE or DELETE as well, on the columns they write.
EngineStatus HandlerSocketHandler::CheckGrants(EngineSession* session, IndexBinding* binding,
                                             OpenIndex* oi, const Request& r) {
  AccessWanted wanted;
  wanted.index = oi;
  wanted.filters = &oi->filter_columns();
  wanted.grants = &binding->grants;
  wanted.db = binding->db;
  wanted.table = binding->table;
  if (r.type == RequestType::kInsert) {
    wanted.insert_columns = static_cast<uint32_t>(r.insert_values.size());
  } else if (r.type == RequestType::kFind && r.modify == ModifyOp::kDelete) {
    wanted.del = true;
  } else if (r.type == RequestType::kFind && r.modify != ModifyOp::kNone) {
    wanted.update_columns = static_cast<uint32_t>(r.modify_values.size());
  }
  return engine_->CheckAccess(session, wanted);
}

// A `P` binds again only once the new index resolves (and its grants allow it):
// until then the id keeps what it was bound to.
EngineStatus HandlerSocketHandler::BindIndex(EngineSession* session, const Request& r) {
  const EngineOptions& options = engine_->options();
  if (r.index_id >= options.tunables->max_open_indexes.load(std::memory_order_relaxed))
    return EngineStatus::IndexNotOpen();
  if (!engine_->SchemaAllowed(r.db)) return EngineStatus::SchemaForbidden();
  if (session->account_logins) {
    // Grants first, as SQL checks them before it opens a table: an account without
    // any privilege on the table learns nothing of whether it, its index or its
    // columns exist.
    const EngineStatus s = engine_->CheckMaySeeTable(session, r.db, r.table);
    if (!s.ok()) return s;
  }
  auto binding = std::make_unique<IndexBinding>();
  binding->db = r.db;
  binding->table = r.table;
  binding->index = r.index;
  binding->columns = r.columns;
  binding->filter_columns = r.filter_columns;
  const Opened<OpenIndex> opened = engine_->OpenForThisWorker(binding.get());
  if (!opened.ok()) return opened.error;
  OpenIndex* oi = opened.value;
  engine_->tables().MarkUsed(oi->entry());
  EngineStatus s = oi->Resolve();
  if (s.ok() && session->account_logins) s = CheckGrants(session, binding.get(), oi, r);
  if (!s.ok()) return s;
  session->Bind(r.index_id, std::move(binding), engine_->retired());
  return EngineStatus::OK();
}

bool HandlerSocketHandler::Run(const BatchItem& item, size_t i, const Prepared& prepared) {
  ResponseWriter w(item.out);
  const Request& r = HsRequestOf(item);
  RowResult result;
  if (prepared.answered && prepared.status.ok() && r.type == RequestType::kDescribe) {
    AnswerDescribe(describes_[i], &engine_->accounts(), SessionOf(item), item.out);
  } else if (prepared.answered && prepared.status.ok() && !values_[i].empty()) {
    w.BeginRows(1);
    w.WireValue(values_[i]);
    w.EndRows();
  } else if (prepared.answered) {
    result.status = prepared.status;
    w.Result(prepared.status);
  } else if (engine_->Killed()) {
    // KILL of this worker's process-list id (or a Galera cluster's interruption):
    // the rest of its batch does not run.
    result.status = KilledStatus(engine_->thd());
    w.Error(result.status);
  } else {
    // Each write is a statement of its own time, as in SQL: ON UPDATE values and
    // the periods of versioned rows change from one to the next (a row two requests
    // of a batch change keeps its middle version as history).
    if (r.IsWrite()) engine_->thd()->set_time();
    RowRequests& rows = engine_->rows();
    const uint64_t locks_met = rows.locks_met();
    result = r.type == RequestType::kInsert ? rows.Insert(r, prepared.index, &w)
                                            : rows.Find(r, prepared.index, &w);
    if (rows.locks_met() != locks_met) return true;  // counted by the core
  }
  CountResult(r, result);
  return false;
}

void HandlerSocketHandler::AnswerFailure(const BatchItem& item, const EngineStatus& status) {
  ResponseWriter(item.out).Error(status);
}

// A find by `=` on every part of its index, without an IN list, that changes no
// unique key (which could move a row onto another request's key, or take a unique
// value another request also wants). Inserts never: auto-increment ids follow the
// order in which they run.
bool HandlerSocketHandler::TouchesOneRow(const BatchItem& item, size_t, const Prepared& p) {
  const Request& r = HsRequestOf(item);
  if (r.type != RequestType::kFind || r.op != FindOp::kEq || r.has_in) return false;
  if (r.key.size() != p.index->key_parts()) return false;
  return !ChangesUniqueKey(r, p.index);
}

bool HandlerSocketHandler::CopyRowKey(const BatchItem& item, size_t, const Prepared& p,
                                      uchar* out) {
  return CopyKey(HsRequestOf(item), p.index->key(), out);
}

void HandlerSocketHandler::CountLockTimeout(const BatchItem&) {
  engine_->stats()->errors_storage.Add();
}

void HandlerSocketHandler::CountResult(const Request& r, const RowResult& result) {
  WorkerStats* stats = engine_->stats();
  switch (result.status.category()) {
    case EngineStatus::kOk: break;
    case EngineStatus::kStorage: stats->errors_storage.Add(); break;
    case EngineStatus::kBadRequest: stats->errors_request.Add(); break;
    case EngineStatus::kUnauthorized: stats->errors_auth.Add(); break;
  }
  if (result.engine_error == HA_ERR_LOCK_WAIT_TIMEOUT) stats->lock_wait_timeouts.Add();
  if (result.engine_error == HA_ERR_LOCK_DEADLOCK) stats->deadlocks.Add();
  if (!result.status.ok()) return;
  stats->rows_read.Add(result.rows_read);
  if (r.type == RequestType::kInsert)
    stats->rows_inserted.Add(result.rows_changed);
  else if (r.modify == ModifyOp::kDelete)
    stats->rows_deleted.Add(result.rows_changed);
  else if (r.modify != ModifyOp::kNone)
    stats->rows_updated.Add(result.rows_changed);
}

}  // namespace rowsocket
