// EngineExecutor's memcached half: the containers (rowsocket.containers) and their
// bindings, container grants, SASL logins, and memcached's answers. The batch flow
// (executor.cc) prepares each memcached item through PrepareMemcached and answers it
// through AnswerMemcached; the rows themselves are KeyValue's (key_value.h).
// Runs on a worker thread.
#include <unistd.h>

#include <ctime>

#include "engine/memcached/containers.h"
#include "engine/core/executor.h"
#include "engine/rows/row_lookup.h"
#include "protocol/memcached_commands.h"
#include "protocol/memcached_status.h"
#include "protocol/name_list.h"
#include "protocol/engine_status.h"
#include "util/log.h"

namespace rowsocket {

namespace {

constexpr std::string_view kMcVersion = "1.6.0-rowsocket";

}  // namespace

// The container `name` as rowsocket.containers maps it (read again once a second, so
// that changes take effect without a restart): null if it names none. `default` is
// rowsocket.kv unless the mapping says otherwise. Every name the mapping's collation
// matches to one row (case, trailing spaces) is that row's container, kept once
// under the row's own name; the other names a client used, and the names that match
// no row, are remembered for as long in container_names_, at most
// kMaxContainerNames of them (then it starts again empty).
const KvContainer* EngineExecutor::ContainerNamed(std::string_view name) {
  constexpr uint64_t kMappingMaxAgeMs = 1000;
  auto fresh = [this](uint64_t read_ms) { return batch_start_ms_ - read_ms < kMappingMaxAgeMs; };
  const std::string key(name);
  auto known = container_mapping_.find(key);
  if (known != container_mapping_.end() && fresh(known->second.read_ms))
    return &known->second.container;
  auto other = container_names_.find(key);
  if (other != container_names_.end() && fresh(other->second.read_ms)) {
    if (other->second.row_name.empty()) return nullptr;
    auto c = container_mapping_.find(other->second.row_name);
    if (c != container_mapping_.end() && fresh(c->second.read_ms)) return &c->second.container;
  }
  // name, db_schema, db_table, key_column, value_columns, value_separator,
  // flags_column, cas_column, expires_column
  std::vector<std::optional<std::string>> row;
  KvContainer c;
  bool found = LookUpRow(thread_.thd(), "rowsocket", "containers", {name}, &row) &&
               row.size() >= 9 && row[0] && row[1] && row[2] && row[3] && row[4];
  if (found) {
    c.name = *row[0];
    c.db = *row[1];
    c.table = *row[2];
    c.key_column = *row[3];
    for (std::string_view column : SplitNameList(*row[4])) c.value_columns.emplace_back(column);
    c.separator = row[5].value_or("|");
    c.flags_column = row[6].value_or("");
    c.cas_column = row[7].value_or("");
    c.expires_column = row[8].value_or("");
    found = !c.value_columns.empty();
  } else if (name == "default") {
    found = true;
    c = KvContainer::Default();
  }
  // The entry under `name` itself is stale or gone: the row it was read from may have
  // been deleted or renamed.
  container_mapping_.erase(key);
  if (found && c.name != key) container_mapping_.erase(c.name);
  const KvContainer* container = nullptr;
  if (found) {
    CachedContainer& cached = container_mapping_[c.name];
    cached.read_ms = batch_start_ms_;
    cached.container = std::move(c);
    container = &cached.container;
  }
  if (container == nullptr || container->name != key) {
    if (container_names_.size() >= kMaxContainerNames && container_names_.count(key) == 0)
      container_names_.clear();
    CachedName& cached = container_names_[key];
    cached.read_ms = batch_start_ms_;
    cached.row_name = container != nullptr ? container->name : std::string();
  } else {
    container_names_.erase(key);
  }
  PublishCacheSizes();
  return container;
}

// The sizes of this worker's container caches, in its status counters.
void EngineExecutor::PublishCacheSizes() {
  // (Counters only add; an unsigned difference wraps to the smaller value.)
  stats_->memcached_containers_cached.Add(container_mapping_.size() - published_containers_);
  stats_->memcached_names_cached.Add(container_names_.size() - published_names_);
  published_containers_ = container_mapping_.size();
  published_names_ = container_names_.size();
}

// Binds a connection's container: its lookup and insert indexes on the unique index
// of its key column (on a system-versioned table the server adds the end of the
// row's period to every unique key: a find of the key skips history rows). What the
// binding had opened before goes to retired_ (a step of this batch may still use it).
EngineStatus EngineExecutor::BindContainer(ContainerBinding* binding, const KvContainer& container) {
  for (std::unique_ptr<IndexBinding>* b : {&binding->lookup, &binding->insert}) {
    if (*b) {
      for (auto& opened : (*b)->opened)
        if (opened) retired_.push_back(std::move(opened));
      b->reset();
    }
  }
  const Opened<TableEntry> table = tables_.Get(container.db, container.table);
  if (!table.ok()) return table.error;
  EngineStatus s = tables_.Reopen(table.value);
  if (!s.ok()) return s;
  const TABLE* t = table.value->table;
  std::string index;
  for (uint k = 0; k < t->s->keys && index.empty(); ++k) {
    const KEY& key = t->key_info[k];
    const uint parts = key.user_defined_key_parts;
    const bool key_alone =
        parts == 1 || (parts == 2 && t->versioned() &&
                       key.key_part[1].fieldnr == t->vers_end_field()->field_index + 1);
    if ((key.flags & HA_NOSAME) && key_alone &&
        SameName(key.key_part[0].field->field_name.str, container.key_column))
      index = key.name.str;
  }
  if (index.empty()) return EngineStatus::NoSuchIndex();
  binding->container = container;
  binding->grants = IndexGrants();
  binding->lookup = std::make_unique<IndexBinding>();
  binding->insert = std::make_unique<IndexBinding>();
  for (IndexBinding* b : {binding->lookup.get(), binding->insert.get()}) {
    b->db = container.db;
    b->table = container.table;
    b->index = index;
  }
  binding->lookup->columns = container.LookupColumns();
  binding->insert->columns = container.InsertColumns();
  return EngineStatus::OK();
}

Opened<OpenIndex> EngineExecutor::OpenContainerIndex(IndexBinding* binding) {
  const Opened<OpenIndex> opened = OpenForThisWorker(binding);
  if (!opened.ok()) return opened;
  OpenIndex* oi = opened.value;
  EngineStatus s = tables_.Reopen(oi->entry());
  if (s.ok()) s = oi->Resolve();
  if (!s.ok()) return Opened<OpenIndex>::Failed(s);
  tables_.MarkUsed(oi->entry());
  return opened;
}

// A memcached command: its container's two indexes, opened for this batch, or an
// answer decided now (commands without a key, refusals).
EngineExecutor::Step EngineExecutor::PrepareMemcached(EngineIndexBindings* bindings,
                                                      const Request& r) {
  Step step;
  step.answered = true;
  const McRequest& mc = *r.memcached;
  if (bindings->account_logins) {
    const McCommandInfo& info = McCommandProperties(mc.command);
    if (info.logs_in) {
      step.status = SaslLogIn(bindings, mc);
      return step;
    }
    if (!info.before_login && !bindings->logged_in()) {
      step.status = EngineStatus::Unauthenticated();
      return step;
    }
  }
  if (!McTouchesRows(mc)) return step;
  step.status = RefusedByServerState(r);
  if (!step.status.ok()) return step;
  const std::string_view name = mc.keys.empty() ? "default" : KvContainerName(mc.keys[0]);
  for (std::string_view key : mc.keys) {
    if (KvContainerName(key) != name) {
      step.client_error = "CLIENT_ERROR the keys of one request must share a container";
      return step;
    }
  }
  const KvContainer* container = ContainerNamed(name);
  if (container == nullptr) {
    step.client_error = "CLIENT_ERROR no container named '" + std::string(name) + "'";
    return step;
  }
  if (!SchemaAllowed(container->db)) {
    step.status = EngineStatus::SchemaForbidden();
    return step;
  }
  // (Under the mapping's own name: every spelling of one container shares a binding.)
  std::unique_ptr<ContainerBinding>& binding = bindings->containers[container->name];
  if (!binding) {
    binding = std::make_unique<ContainerBinding>();
    bindings->open_indexes.Add();  // (OPEN_INDEXES: a memcached connection's containers)
  }
  if (!binding->lookup || !(binding->container == *container)) {
    step.status = BindContainer(binding.get(), *container);
    if (!step.status.ok()) return step;
  }
  // (Only a command that writes may insert.)
  const Opened<OpenIndex> lookup = OpenContainerIndex(binding->lookup.get());
  const Opened<OpenIndex> insert =
      lookup.ok() && r.IsWrite() ? OpenContainerIndex(binding->insert.get()) : lookup;
  if (!insert.ok()) {
    step.status = insert.error;
    return step;
  }
  step.status = RefusedByGalera(r, lookup.value);
  if (!step.status.ok()) return step;
  if (bindings->account_logins) {
    step.status = CheckContainerGrants(bindings, binding.get(), lookup.value, insert.value, r);
    if (!step.status.ok()) return step;
  }
  step.answered = false;
  step.index = lookup.value;
  step.insert_index = r.IsWrite() ? insert.value : nullptr;
  step.container = binding.get();
  return step;
}

// SASL PLAIN (binary protocol): `[authzid] NUL user NUL password`, a MariaDB account's
// password in clear, so taken over TLS only, as `A 4` is.
EngineStatus EngineExecutor::SaslLogIn(EngineIndexBindings* bindings, const McRequest& mc) {
  if (mc.argument != "PLAIN") return EngineStatus::AuthTypeUnknown();
  const std::string_view data = mc.value;
  const size_t first = data.find('\0');
  const size_t second = first == std::string_view::npos ? first : data.find('\0', first + 1);
  Request login;
  login.type = RequestType::kAuth;
  login.auth_type = "4";
  if (second != std::string_view::npos) {
    login.auth_key = data.substr(first + 1, second - first - 1);
    login.auth_arg = data.substr(second + 1);
  }
  Step step = LogIn(bindings, login);
  return step.status;
}

// rowsocket_memcached_auth=account: the account's grants on the container's table,
// as for HandlerSocket requests (see CheckGrants): every command reads the row
// (SELECT on the value, CAS, flags and expiry columns and the key); storage commands
// may update it (UPDATE on the columns the lookup reads) or insert it (INSERT on every
// column an insert sets, the key column included, as SQL's INSERT asks); delete
// deletes it.
EngineStatus EngineExecutor::CheckContainerGrants(EngineIndexBindings* bindings,
                                                ContainerBinding* binding, OpenIndex* lookup,
                                                OpenIndex* insert, const Request& r) {
  EngineStatus s = RefreshGrants(bindings, lookup, {}, &binding->grants);
  if (!s.ok()) return s;
  const IndexGrants& g = binding->grants;
  const McRequest& mc = *r.memcached;
  const uint32_t columns = static_cast<uint32_t>(lookup->columns().size());
  bool allowed = g.select;
  const McCommandInfo& info = McCommandProperties(mc.command);
  if (info.deletes) {
    allowed = allowed && g.del;
  } else if (r.IsWrite()) {
    allowed = allowed && g.update_columns >= columns;
    if (allowed && info.inserts) {
      IndexGrants* ig = &binding->insert->grants;
      s = RefreshGrants(bindings, insert, {}, ig);
      if (!s.ok()) return s;
      allowed = ig->insert_columns >= insert->columns().size();
    }
  }
  if (allowed) return EngineStatus::OK();
  stats_->requests_denied.Add();
  return EngineStatus::Denied();
}

// True if the command met a row lock (its answer is then the lock error).
bool EngineExecutor::AnswerMemcached(const BatchItem& item, const Step& step) {
  const uint64_t locks_met = rows_.locks_met();
  AnswerMemcachedRows(item, step);
  return rows_.locks_met() != locks_met;
}

void EngineExecutor::AnswerMemcachedRows(const BatchItem& item, const Step& step) {
  const McRequest& mc = *item.request->memcached;
  if (step.answered) {
    if (!step.client_error.empty()) {
      if (!mc.WantsAnswer(McOutcome::kError)) return;
      if (mc.framing == McFraming::kBinary)
        return McBinaryWriter(item.out).Error(mc, McStatus::kInvalidArguments);
      return McTextWriter(item.out).Line(step.client_error);
    }
    if (McCommandProperties(mc.command).logs_in) {
      McBinaryWriter w(item.out);
      if (step.status.ok()) return w.Packet(mc, McStatus::kOk, 0, {}, {}, "Authenticated");
      return w.Error(mc, McStatus::kAuthError);
    }
    // Not logged in, or the grants refuse it: memcached's own words for that.
    if (step.status.category() == EngineStatus::kUnauthorized)
      return McAnswerRefusal(mc, step.status, item.out);
    if (!step.status.ok()) return AnswerError(item, step.status);
    return AnswerMemcachedWithoutRows(mc, item.out);
  }
  if (thread_.thd()->killed != NOT_KILLED) return AnswerError(item, KilledStatus(thread_.thd()));
  if (item.request->IsWrite()) thread_.thd()->set_time();
  if (mc.command == McCommand::kFlushAll) return FlushContainer(mc, step, item.out);
  const KvContainer& container = step.container->container;
  kv_.Answer(mc, container, step.index, step.insert_index,
             flushes_->FlushedBelow(container.name, static_cast<int64_t>(std::time(nullptr))),
             item.out);
}

// flush_all empties the default container only where rowsocket_memcached_flush
// allows it. With a delay (memcached's exptime: seconds, or past 30 days a unix time)
// it answers OK and leaves the flush to KvFlushes, replacing one pending; without
// one (or with 0, a negative delay or a time already past) it deletes the rows now,
// and drops a pending flush. What it did is logged (a line a second at most).
void EngineExecutor::FlushContainer(const McRequest& mc, const Step& step, std::string* out) {
  if (!options_.tunables->memcached_flush.load(std::memory_order_relaxed))
    return McAnswerFlushOff(mc, out);
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
    Request r;
    r.type = RequestType::kFind;
    r.op = FindOp::kGe;
    r.key.push_back(WireValue::Of(""));
    r.limit = UINT32_MAX;
    r.modify = ModifyOp::kDelete;
    std::string answer;
    ResponseWriter w(&answer);
    const RowResult row = rows_.Find(r, step.index, &w);
    if (!row.status.ok()) return McAnswerFailure(mc, row.status, out);
    LogLimited(&flushed, LogLevel::kWarning, "memcached flush_all deleted the %llu rows of %s.%s",
               static_cast<unsigned long long>(row.rows_changed), container.db.c_str(),
               container.table.c_str());
  }
  if (!mc.WantsAnswer(McOutcome::kSuccess)) return;
  if (mc.framing == McFraming::kBinary) return McBinaryWriter(out).Success(mc);
  McTextWriter(out).Reply(McTextReply::kOk);
}

// Commands answered without the container: version, verbosity, stats, noop, quit,
// SASL, and requests the parser refused.
void EngineExecutor::AnswerMemcachedWithoutRows(const McRequest& mc, std::string* out) {
  const bool binary = mc.framing == McFraming::kBinary;
  McTextWriter text(out);
  McBinaryWriter packet(out);
  switch (mc.command) {
    case McCommand::kInvalid:
      if (!mc.WantsAnswer(McOutcome::kError)) return;
      return binary ? packet.Error(mc, mc.error_status) : text.Line(mc.error);
    case McCommand::kVersion:
      return binary ? packet.Version(mc, kMcVersion) : text.Version(kMcVersion);
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
    case McCommand::kStats: {
      if (!mc.argument.empty()) {
        // Groups of memcached's own (settings, slabs, ...) have nothing to say
        // here; any other is unknown, as memcached answers it.
        const bool known = mc.argument == "settings" || mc.argument == "items" ||
                           mc.argument == "slabs" || mc.argument == "sizes" ||
                           mc.argument == "conns";
        if (!known)
          return binary ? packet.Error(mc, McStatus::kKeyNotFound) : text.Reply(McTextReply::kError);
        return binary ? packet.StatEnd(mc) : text.Reply(McTextReply::kEnd);
      }
      const std::string pid = std::to_string(static_cast<long long>(getpid()));
      const std::string now = std::to_string(static_cast<long long>(std::time(nullptr)));
      const std::pair<std::string_view, std::string_view> stats[] = {
          {"pid", pid}, {"time", now}, {"version", kMcVersion}};
      for (const auto& [name, value] : stats)
        binary ? packet.Stat(mc, name, value) : text.Stat(name, value);
      return binary ? packet.StatEnd(mc) : text.Reply(McTextReply::kEnd);
    }
    default:  // the binary protocol's SASL step (PLAIN has none)
      if (binary) return packet.Error(mc, McStatus::kUnknownCommand);
      return text.Reply(McTextReply::kError);
  }
}

}  // namespace rowsocket
