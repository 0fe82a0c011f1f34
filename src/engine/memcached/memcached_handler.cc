// MemcachedHandler: memcached's commands as the batch core runs them — the
// containers (rowsocket.containers) and their bindings, container grants, SASL
// logins, flush_all, and memcached's answers. The rows themselves are KeyValue's
// (key_value.h); the sweep of expired and flushed items is expiry_sweep.cc.
// Runs on a worker thread.
#include "engine/memcached/memcached_handler.h"


#include <cstring>
#include <ctime>

#include "engine/memcached/container_map.h"
#include "engine/memcached/containers.h"
#include "engine/rows/row_io.h"
#include "engine/rows/row_lookup.h"
#include "protocol/memcached_commands.h"
#include "protocol/memcached_stats.h"
#include "protocol/memcached_status.h"
#include "protocol/name_list.h"
#include "protocol/engine_status.h"
#include "util/log.h"

namespace rowsocket {
namespace {

// A SASL PLAIN login refused for want of TLS: the binary auth error's text says why.
constexpr std::string_view kSaslNeedsTls =
    "SASL PLAIN sends the password in clear: connect with TLS, or set "
    "rowsocket_memcached_sasl_over_plain_tcp=ON";

EngineSession* SessionOf(const BatchItem& item) {
  return static_cast<EngineSession*>(item.session);
}

// What the handler keeps of a connection: each container's binding, by the name
// its row of rowsocket.containers stores.
struct KvSession : ProtocolState {
  std::unordered_map<std::string, std::unique_ptr<ContainerBinding>> containers;
};

KvSession* KvSessionOf(EngineSession* session) {
  if (!session->protocol_state) session->protocol_state = std::make_unique<KvSession>();
  return static_cast<KvSession*>(session->protocol_state.get());
}

class MemcachedModule : public ProtocolModule {
 public:
  std::unique_ptr<ProtocolHandler> NewHandler(WorkerEngine* engine) override {
    const WorkerInfo& info = engine->info();
    if (info.protocol == WireProtocol::kMemcached) {
      default_container_.Start();
      return std::make_unique<MemcachedHandler>(engine, &flushes_, &mappings_);
    }
    // Where no memcached listener runs, the Redis listener's first worker sweeps the
    // expired items of the containers it serves: its handler here speaks no item
    // (Speaks), and only its Tick runs.
    if (info.protocol == WireProtocol::kRedis && info.slot == 0 &&
        !engine->options().memcached_listener)
      return std::make_unique<MemcachedHandler>(engine, &flushes_, &mappings_);
    return nullptr;
  }

 private:
  // (Outlive the handlers: the module outlives the workers.)
  KvFlushes flushes_;
  ContainerMappingReads mappings_;
  DefaultContainer default_container_;
};

}  // namespace

std::unique_ptr<ProtocolModule> NewMemcachedModule() {
  return std::make_unique<MemcachedModule>();
}

MemcachedHandler::MemcachedHandler(WorkerEngine* engine, KvFlushes* flushes,
                                   ContainerMappingReads* mappings)
    : engine_(engine),
      mappings_(mappings),
      kv_(&engine->rows()),
      sweeps_expired_items_(engine->info().slot == 0),
      flushes_(flushes) {
  kv_.CountInto(&engine->stats()->memcached);
  // Each memcached command reads and writes the row of one key, so its batches
  // run in READ COMMITTED: a locking read of a key no row has takes no gap lock.
  // Under REPEATABLE READ the find before a set's or add's insert locks the gap
  // the new key goes into, and two batches inserting keys into one gap (distinct
  // keys, both needing the other's gap) deadlock. (InnoDB logs such writes only as
  // rows, which rowsocket does anyway: the session's binlog_format says so.)
  THD* thd = engine->thd();
  thd->variables.tx_isolation = ISO_READ_COMMITTED;
  thd->tx_isolation = ISO_READ_COMMITTED;
  thd->variables.binlog_format = BINLOG_FORMAT_ROW;
}

MemcachedHandler::~MemcachedHandler() {
  container_mapping_.clear();
  container_names_.clear();
  PublishCacheSizes();
}

bool MemcachedHandler::Speaks(const BatchItem& item) const {
  return item.protocol == WireProtocol::kMemcached;
}

// The command table's properties. A retrieval reads a snapshot, as memcached never
// makes a get wait; a write may update or insert.
ItemTraits MemcachedHandler::Traits(const BatchItem& item) const {
  const McRequest& mc = McRequestOf(item);
  const McCommandInfo& info = McCommandProperties(mc.command);
  ItemTraits t;
  t.touches_rows = info.uses_rows;
  t.writes = mc.writes;
  t.locking_read = false;
  if (t.touches_rows)
    t.sync_wait = t.writes ? WSREP_SYNC_WAIT_BEFORE_UPDATE_DELETE |
                                 WSREP_SYNC_WAIT_BEFORE_INSERT_REPLACE
                           : WSREP_SYNC_WAIT_BEFORE_READ;
  t.before_login = info.before_login;
  t.logs_in = info.logs_in;
  return t;
}

void MemcachedHandler::BeginBatch(size_t count) {
  if (steps_.size() < count) steps_.resize(count);
}

// A command's container, its two indexes opened for this batch; or an answer
// decided now (commands without a key, SASL, refusals).
Prepared MemcachedHandler::Prepare(const BatchItem& item, size_t i) {
  Step* step = &steps_[i];
  *step = Step();
  const McRequest& mc = McRequestOf(item);
  const McCommandInfo& info = McCommandProperties(mc.command);
  Prepared p;
  p.answered = true;
  EngineSession* session = SessionOf(item);
  if (info.logs_in && session->account_logins) {
    p.status = SaslLogIn(session, mc);
    return p;
  }
  if (mc.command == McCommand::kStats) {
    PrepareStats(*session, mc, &step->stats_answer);
    return p;
  }
  if (!info.uses_rows) return p;
  return PrepareRows(item, step);
}

Prepared MemcachedHandler::PrepareRows(const BatchItem& item, Step* step) {
  const McRequest& mc = McRequestOf(item);
  EngineSession* session = SessionOf(item);
  Prepared p;
  p.answered = true;
  const std::string_view name = mc.keys.empty() ? "default" : KvContainerName(mc.keys[0]);
  for (std::string_view key : mc.keys) {
    if (KvContainerName(key) != name) {
      step->client_error = "CLIENT_ERROR the keys of one request must share a container";
      return p;
    }
  }
  const KvContainer* container = ContainerNamed(name);
  if (container == nullptr) {
    step->client_error = "CLIENT_ERROR no container named '" + std::string(name) + "'";
    return p;
  }
  ContainerBinding* binding = nullptr;
  p.status = BoundContainer(session, *container, &binding);
  if (!p.status.ok()) return p;
  // (Only a command that writes may insert.)
  const Opened<OpenIndex> lookup = engine_->OpenResolved(binding->lookup.get());
  const Opened<OpenIndex> insert =
      lookup.ok() && mc.writes ? engine_->OpenResolved(binding->insert.get()) : lookup;
  if (!insert.ok()) {
    p.status = insert.error;
    return p;
  }
  if (session->account_logins) {
    p.status = CheckContainerGrants(session, binding, lookup.value, insert.value, mc);
    if (!p.status.ok()) return p;
  }
  p.answered = false;
  p.index = lookup.value;
  step->insert_index = mc.writes ? insert.value : nullptr;
  step->container = binding;
  return p;
}

// (Under the mapping's own name: every spelling of one container shares a binding.)
EngineStatus MemcachedHandler::BoundContainer(EngineSession* session,
                                            const KvContainer& container,
                                            ContainerBinding** bound) {
  if (!engine_->SchemaAllowed(container.db)) return EngineStatus::SchemaForbidden();
  std::unique_ptr<ContainerBinding>& binding = KvSessionOf(session)->containers[container.name];
  if (!binding) {
    binding = std::make_unique<ContainerBinding>();
    session->open_indexes.Add();  // (OPEN_INDEXES: a key-value connection's containers)
  }
  *bound = binding.get();
  if (binding->lookup && binding->container == container) return EngineStatus::OK();
  return BindContainer(binding.get(), container);
}

// The container `name` as rowsocket.containers maps it (read again once a second, so
// that changes take effect without a restart, and at once where another worker has
// read a change: ContainerMappingReads): null if it names none. `default` is
// rowsocket.kv unless the mapping says otherwise. Every name the mapping's collation
// matches to one row (case, trailing spaces) is that row's container, kept once
// under the row's own name; the other names a client used, and the names that match
// no row, are remembered for as long in container_names_, at most
// kMaxContainerNames of them (then it starts again empty).
const KvContainer* MemcachedHandler::ContainerNamed(std::string_view name) {
  const uint64_t now_ms = engine_->batch_start_ms();
  auto fresh = [this, now_ms](const auto& cached) {
    return mappings_->Fresh(cached.read_ms, cached.generation, now_ms);
  };
  const std::string key(name);
  auto known = container_mapping_.find(key);
  if (known != container_mapping_.end() && fresh(known->second))
    return &known->second.container;
  auto other = container_names_.find(key);
  if (other != container_names_.end() && fresh(other->second)) {
    if (other->second.row_name.empty()) return nullptr;
    auto c = container_mapping_.find(other->second.row_name);
    if (c != container_mapping_.end() && fresh(c->second)) return &c->second.container;
  }
  KvContainer c;
  uint64_t read_generation = 0;
  const bool found = mappings_->Read(engine_->thd(), name, &c, &read_generation);
  // The entry under `name` itself is stale or gone: the row it was read from may have
  // been deleted or renamed.
  container_mapping_.erase(key);
  if (found && c.name != key) container_mapping_.erase(c.name);
  const KvContainer* container = nullptr;
  if (found) {
    CachedContainer& cached = container_mapping_[c.name];
    cached.read_ms = now_ms;
    cached.generation = read_generation;
    cached.container = std::move(c);
    container = &cached.container;
  }
  if (container == nullptr || container->name != key) {
    if (container_names_.size() >= kMaxContainerNames && container_names_.count(key) == 0)
      container_names_.clear();
    CachedName& cached = container_names_[key];
    cached.read_ms = now_ms;
    cached.generation = read_generation;
    cached.row_name = container != nullptr ? container->name : std::string();
  } else {
    container_names_.erase(key);
  }
  PublishCacheSizes();
  return container;
}

// The sizes of this worker's container caches, in its status counters.
void MemcachedHandler::PublishCacheSizes() {
  WorkerStats* stats = engine_->stats();
  // (Counters only add; an unsigned difference wraps to the smaller value.)
  stats->memcached_containers_cached.Add(container_mapping_.size() - published_containers_);
  stats->memcached_names_cached.Add(container_names_.size() - published_names_);
  published_containers_ = container_mapping_.size();
  published_names_ = container_names_.size();
}

// Binds a connection's container: its lookup and insert indexes on the unique index
// of its key column (on a system-versioned table the server adds the end of the
// row's period to every unique key: a find of the key skips history rows). What the
// binding had opened before is retired (a step of this batch may still use it).
EngineStatus MemcachedHandler::BindContainer(ContainerBinding* binding, const KvContainer& container) {
  return BindContainerIndexes(engine_, binding, container);
}

// SASL PLAIN (binary protocol): `[authzid] NUL user NUL password`, a MariaDB account's
// password in clear, so taken over TLS only, as `A 4` is, unless
// rowsocket_memcached_sasl_over_plain_tcp says plain TCP will do.
EngineStatus MemcachedHandler::SaslLogIn(EngineSession* session, const McRequest& mc) {
  McCounters& counts = engine_->stats()->memcached;
  counts.auth_cmds.Add();
  if (mc.argument != "PLAIN") {
    counts.auth_errors.Add();
    return EngineStatus::AuthTypeUnknown();
  }
  const std::string_view data = mc.value;
  const size_t first = data.find('\0');
  const size_t second = first == std::string_view::npos ? first : data.find('\0', first + 1);
  LoginCredentials login;
  login.mechanism = LoginMechanism::kClearPassword;
  if (second != std::string_view::npos) {
    login.user = data.substr(first + 1, second - first - 1);
    login.secret = data.substr(second + 1);
  }
  const EngineStatus status =
      engine_->LogIn(session, login, engine_->options().memcached_sasl_over_plain_tcp);
  if (!status.ok()) counts.auth_errors.Add();
  return status;
}

// rowsocket_memcached_auth=account: the account's grants on the container's table,
// as for every protocol's requests (WorkerEngine::CheckAccess): every command reads
// the row (SELECT on the value, CAS, flags and expiry columns and the key); storage
// commands may update it (UPDATE on the columns the lookup reads) or insert it
// (INSERT on every column an insert sets, the key column included, as SQL's INSERT
// asks); delete deletes it.
EngineStatus MemcachedHandler::CheckContainerGrants(EngineSession* session,
                                                  ContainerBinding* binding, OpenIndex* lookup,
                                                  OpenIndex* insert, const McRequest& mc) {
  const McCommandInfo& info = McCommandProperties(mc.command);
  AccessWanted wanted;
  wanted.index = lookup;
  wanted.grants = &binding->grants;
  wanted.db = binding->container.db;
  wanted.table = binding->container.table;
  if (info.deletes) {
    wanted.del = true;
  } else if (McWritesRows(mc)) {
    wanted.update_columns = static_cast<uint32_t>(lookup->columns().size());
    if (info.inserts) {
      wanted.insert_columns = static_cast<uint32_t>(insert->columns().size());
      wanted.insert_index = insert;
      wanted.insert_grants = &binding->insert->grants;
    }
  }
  return engine_->CheckAccess(session, wanted);
}

bool MemcachedHandler::Run(const BatchItem& item, size_t i, const Prepared& prepared) {
  RowRequests& rows = engine_->rows();
  const uint64_t locks_met = rows.locks_met();
  Answer(item, steps_[i], prepared);
  return rows.locks_met() != locks_met;
}

void MemcachedHandler::Answer(const BatchItem& item, const Step& step, const Prepared& p) {
  const McRequest& mc = McRequestOf(item);
  if (p.answered) {
    if (!step.client_error.empty()) {
      if (!mc.WantsAnswer(McOutcome::kError)) return;
      if (mc.framing == McFraming::kBinary)
        return McBinaryWriter(item.out).Error(mc, McStatus::kInvalidArguments);
      return McTextWriter(item.out).Line(step.client_error);
    }
    if (McCommandProperties(mc.command).logs_in) {
      McBinaryWriter w(item.out);
      if (p.status.ok()) return w.Packet(mc, McStatus::kOk, 0, {}, {}, "Authenticated");
      if (p.status == EngineStatus::TlsRequired())
        return w.Packet(mc, McStatus::kAuthError, 0, {}, {}, kSaslNeedsTls);
      return w.Error(mc, McStatus::kAuthError);
    }
    // Not logged in, or the grants refuse it: memcached's own words for that.
    if (p.status.category() == EngineStatus::kUnauthorized)
      return McAnswerRefusal(mc, p.status, item.out);
    if (p.status.ok() && mc.command == McCommand::kStats) {
      item.out->append(step.stats_answer);
      return;
    }
    return AnswerFailure(item, p.status);
  }
  if (engine_->Killed()) return AnswerFailure(item, KilledStatus(engine_->thd()));
  if (McRequestOf(item).writes) engine_->thd()->set_time();
  if (mc.command == McCommand::kFlushAll) return FlushContainer(mc, step, p.index, item.out);
  const KvContainer& container = step.container->container;
  kv_.Answer(mc, container, p.index, step.insert_index,
             flushes_->FlushedBelow(container.name, static_cast<int64_t>(std::time(nullptr))),
             item.out);
}

void MemcachedHandler::AnswerFailure(const BatchItem& item, const EngineStatus& status) {
  const McRequest& mc = McRequestOf(item);
  if (status.ok()) return AnswerWithoutRows(mc, item.out);
  McAnswerFailure(mc, status, item.out);
}

// A command of one key (a write, or a retrieval of that key alone), as
// KvTouchesOneRow (container_map.h) says. Commands on the same key keep their order;
// CAS values follow the order the commands ran in, which memcached leaves open.
bool MemcachedHandler::TouchesOneRow(const BatchItem& item, size_t i, const Prepared& p) {
  const McRequest& mc = McRequestOf(item);
  if (mc.keys.size() != 1 || mc.command == McCommand::kFlushAll) return false;
  return KvTouchesOneRow(p.index, steps_[i].insert_index,
                         McCommandProperties(mc.command).inserts);
}

bool MemcachedHandler::CopyRowKey(const BatchItem& item, size_t, const Prepared& p,
                                  uchar* out) {
  return KvCopyRowKey(KvRowKey(McRequestOf(item).keys[0]), p.index, out);
}

void MemcachedHandler::Tick(uint64_t now_ms) {
  if (!sweeps_expired_items_) return;
  CarryOutFlushes(now_ms);
  SweepExpiredItems(now_ms);
}

// flush_all empties the default container only where rowsocket_memcached_flush
// allows it. With a delay (memcached's exptime: seconds, or past 30 days a unix time)
// it answers OK and leaves the flush to KvFlushes, replacing one pending; without
// one (or with 0, a negative delay or a time already past) it deletes the rows now,
// and drops a pending flush. What it did is logged (a line a second at most).
void MemcachedHandler::FlushContainer(const McRequest& mc, const Step& step, OpenIndex* lookup,
                                      std::string* out) {
  if (!engine_->options().tunables->memcached_flush.load(std::memory_order_relaxed))
    return McAnswerFlushOff(mc, out);
  engine_->stats()->memcached.cmd_flush.Add();
  const KvContainer& container = step.container->container;
  const int64_t now = static_cast<int64_t>(std::time(nullptr));
  const int64_t at = mc.has_exptime && mc.exptime > 0 ? KvExpiry(mc.exptime, now) : 0;
  static LogLimit flushed;
  if (at > now) {
    flushes_->Schedule(container.name, at);
    LogLimited(&flushed, LogLevel::kWarning,
               "memcached flush_all of %s.%s in %lld s (container '%s')", container.db.c_str(),
               container.table.c_str(), static_cast<long long>(at - now), container.name.c_str());
  } else {
    flushes_->CancelPending(container.name);
    ScanSpec all;  // every row, from the index's first key
    all.op = ScanOp::kGe;
    all.key.push_back(RowValue::Bytes(""));
    all.limit = UINT32_MAX;
    RowChange remove;
    remove.kind = RowWrite::kDelete;
    const RowResult row = engine_->rows().Modify(all, remove, lookup);
    if (!row.status.ok()) return McAnswerFailure(mc, row.status, out);
    LogLimited(&flushed, LogLevel::kWarning, "memcached flush_all deleted the %llu rows of %s.%s",
               static_cast<unsigned long long>(row.rows_changed), container.db.c_str(),
               container.table.c_str());
  }
  if (!mc.WantsAnswer(McOutcome::kSuccess)) return;
  if (mc.framing == McFraming::kBinary) return McBinaryWriter(out).Success(mc);
  McTextWriter(out).Reply(McTextReply::kOk);
}

// Commands answered without the container: version, verbosity, noop, quit, SASL,
// and requests the parser refused (stats: PrepareStats, memcached_stats.cc).
void MemcachedHandler::AnswerWithoutRows(const McRequest& mc, std::string* out) {
  const bool binary = mc.framing == McFraming::kBinary;
  McTextWriter text(out);
  McBinaryWriter packet(out);
  switch (mc.command) {
    case McCommand::kInvalid:
      if (mc.error_status == McStatus::kValueTooLarge)
        engine_->stats()->memcached.store_too_large.Add();
      if (!mc.WantsAnswer(McOutcome::kError)) return;
      return binary ? packet.Error(mc, mc.error_status) : text.Line(mc.error);
    case McCommand::kVersion:
      return binary ? packet.Version(mc, kMcCompatibleVersion)
                    : text.Version(kMcCompatibleVersion);
    case McCommand::kVerbosity:
    case McCommand::kQuit:
    case McCommand::kNoop:
      if (!mc.WantsAnswer(McOutcome::kSuccess)) return;
      if (binary) return packet.Success(mc);
      if (mc.command == McCommand::kVerbosity) text.Reply(McTextReply::kOk);
      return;
    case McCommand::kMetaNoop:
      return text.MetaNoop();
    case McCommand::kSaslListMechs:
      return packet.Packet(mc, McStatus::kOk, 0, {}, {}, "PLAIN");
    default:  // the binary protocol's SASL step (PLAIN has none)
      if (binary) return packet.Error(mc, McStatus::kUnknownCommand);
      return text.Reply(McTextReply::kError);
  }
}

}  // namespace rowsocket
