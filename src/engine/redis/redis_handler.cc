// RedisHandler: Redis's commands as the batch core runs them (redis_handler.h): the
// default container and its binding, logins and grants, the connection commands
// and their answers. The rows themselves are RedisStrings' (redis_strings.h); INFO,
// CONFIG GET and COMMAND are redis_info.cc. Runs on a worker thread.
#include "engine/redis/redis_handler.h"

#include "engine/memcached/container_map.h"
#include "engine/memcached/containers.h"
#include "engine/rows/row_lookup.h"
#include "protocol/redis.h"
#include "protocol/redis_args.h"
#include "util/log.h"

namespace rowsocket {
namespace {

using I = RedisCommandId;

EngineSession* SessionOf(const BatchItem& item) {
  return static_cast<EngineSession*>(item.session);
}

class RedisModule : public ProtocolModule {
 public:
  std::unique_ptr<ProtocolHandler> NewHandler(WorkerEngine* engine) override {
    if (engine->info().protocol != WireProtocol::kRedis) return nullptr;
    default_container_.Start();
    return std::make_unique<RedisHandler>(engine, &shared_);
  }

 private:
  RedisShared shared_;  // outlives the handlers: the module outlives the workers
  DefaultContainer default_container_;
};

// Commands of the table this listener does not serve yet: answered with an error
// that says so (docs/REDIS.md).
bool Served(I id) {
  switch (id) {
    case I::kClientList: case I::kConfigSet:
    case I::kConfigResetstat:
    case I::kWatch:
      return false;
    default:
      return true;
  }
}

bool IsHashCommand(I id) { return id >= I::kHget && id <= I::kHdel; }

// Whether a served command reads or changes the container's rows (INFO counts them).
bool TouchesRows(const RedisCommandInfo& info) {
  return Served(info.id) && (info.rows != RedisRows::kNone || info.id == I::kInfo);
}

bool LogsIn(const RedisRequest& r) {
  if (r.info == nullptr) return false;
  if (r.info->id == I::kAuth) return true;
  if (r.info->id != I::kHello) return false;
  RedisHello hello;
  return RedisParseHello(r.command.argv, &hello).empty() && hello.auth;
}

}  // namespace

std::unique_ptr<ProtocolModule> NewRedisModule() { return std::make_unique<RedisModule>(); }

RedisHandler::RedisHandler(WorkerEngine* engine, RedisShared* shared)
    : engine_(engine),
      shared_(shared),
      hashes_(&engine->rows()),
      strings_(&engine->rows(), &hashes_) {
  // As the memcached listener's (memcached_handler.cc): one key's row per step, in
  // READ COMMITTED, so that a locking read of a missing key takes no gap lock.
  THD* thd = engine->thd();
  thd->variables.tx_isolation = ISO_READ_COMMITTED;
  thd->tx_isolation = ISO_READ_COMMITTED;
  thd->variables.binlog_format = BINLOG_FORMAT_ROW;
}

bool RedisHandler::Speaks(const BatchItem& item) const {
  return item.protocol == WireProtocol::kRedis;
}

// The command table's properties. Reads are snapshots, as a memcached get; INFO
// reads the rows too (its keyspace section counts them).
ItemTraits RedisHandler::Traits(const BatchItem& item) const {
  const RedisRequest& r = RedisRequestOf(item);
  ItemTraits t;
  t.locking_read = false;
  if (r.info == nullptr || r.queued) return t;
  const I id = r.info->id;
  t.touches_rows = TouchesRows(*r.info);
  if (!r.exec_abort)  // (an EXEC that aborts runs nothing)
    for (const RedisQueued& q : r.transaction) t.touches_rows |= TouchesRows(*q.info);
  t.writes = t.touches_rows && r.writes();
  if (t.touches_rows)
    t.sync_wait = t.writes ? WSREP_SYNC_WAIT_BEFORE_UPDATE_DELETE |
                                 WSREP_SYNC_WAIT_BEFORE_INSERT_REPLACE
                           : WSREP_SYNC_WAIT_BEFORE_READ;
  t.before_login = (r.info->flags & kRedisNoAuth) != 0;
  t.logs_in = LogsIn(r) && SessionOf(item)->account_logins;
  t.sets_up_connection = id == I::kAuth || id == I::kHello || id == I::kReset;
  return t;
}

void RedisHandler::BeginBatch(size_t count) {
  if (steps_.size() < count) steps_.resize(count);
}

RedisSession* RedisHandler::SessionState(const BatchItem& item) {
  EngineSession* session = SessionOf(item);
  if (!session->protocol_state) {
    auto state = std::make_unique<RedisSession>();
    state->id = shared_->next_client_id.fetch_add(1, std::memory_order_relaxed) + 1;
    session->protocol_state = std::move(state);
  }
  return static_cast<RedisSession*>(session->protocol_state.get());
}

// rowsocket.containers' `default`, read again once a second (at once where another
// worker has read a change).
const KvContainer* RedisHandler::DefaultContainer() {
  const uint64_t now_ms = engine_->batch_start_ms();
  if (default_known_ && shared_->mappings.Fresh(default_read_ms_, default_generation_, now_ms))
    return &default_;
  default_known_ =
      shared_->mappings.Read(engine_->thd(), "default", &default_, &default_generation_);
  default_read_ms_ = now_ms;
  return default_known_ ? &default_ : nullptr;
}

Prepared RedisHandler::Prepare(const BatchItem& item, size_t i) {
  Step* step = &steps_[i];
  *step = Step();
  const RedisRequest& r = RedisRequestOf(item);
  SessionState(item);
  Prepared p;
  p.answered = true;
  if (r.info == nullptr || r.queued) return p;
  const I id = r.info->id;
  if (id == I::kExec) {
    bool rows = false;
    for (const RedisQueued& q : r.transaction) rows |= TouchesRows(*q.info);
    return rows && !r.exec_abort ? PrepareRows(item, step) : p;
  }
  if (!Served(id)) {
    step->error = "ERR rowsocket: '" + std::string(r.info->name) + "' is not served yet";
    return p;
  }
  if (LogsIn(r) && SessionOf(item)->account_logins) {
    const std::vector<std::string_view>& argv = r.command.argv;
    if (id == I::kAuth) {
      if (argv.size() > 3) {
        step->error = kRedisErrSyntax;
        return p;
      }
      p.status = argv.size() == 2 ? LogIn(item, "default", argv[1]) : LogIn(item, argv[1], argv[2]);
    } else {
      RedisHello hello;
      RedisParseHello(argv, &hello);
      p.status = LogIn(item, hello.user, hello.password);
    }
    return p;
  }
  if (r.info->rows == RedisRows::kNone && id != I::kInfo) return p;
  return PrepareRows(item, step);
}

// A MariaDB account's password in clear: over TLS only, as `A 4` and SASL PLAIN.
EngineStatus RedisHandler::LogIn(const BatchItem& item, std::string_view user,
                                 std::string_view password) {
  LoginCredentials login;
  login.mechanism = LoginMechanism::kClearPassword;
  login.user = user;
  login.secret = password;
  return engine_->LogIn(SessionOf(item), login);
}

// The containers of the command's keys (and of an EXEC's commands), bound for the
// connection, their indexes opened for this batch, and with account logins their
// grants: the hash containers of its hash keys (redis_hashes.h), and the default
// container where a command takes strings (or has no keys: SCAN, DBSIZE, INFO).
Prepared RedisHandler::PrepareRows(const BatchItem& item, Step* step) {
  const RedisRequest& r = RedisRequestOf(item);
  Prepared p;
  p.answered = true;
  bool strings = false;
  std::vector<std::string_view> words;
  auto consider = [&](const RedisCommandInfo& info, const std::vector<std::string_view>& argv) {
    const bool hashes = IsHashCommand(info.id);
    bool keys = false;
    for (size_t k = 1; k < argv.size(); ++k) {
      if (!RedisIsKeyPosition(info, k, argv.size())) continue;
      keys = true;
      bool hash = false;
      p.status = AddHashTarget(item, argv[k], step, &hash);
      if (!p.status.ok()) return false;
      strings |= !hashes || !hash;
    }
    strings |= !hashes || !keys;
    return true;
  };
  if (r.info->id == I::kExec) {
    for (const RedisQueued& q : r.transaction) {
      if (!TouchesRows(*q.info)) continue;
      words.assign(q.words.begin(), q.words.end());
      if (!consider(*q.info, words)) return p;
    }
  } else if (!consider(*r.info, r.command.argv)) {
    return p;
  }
  for (const RedisHashTarget& t : step->hashes) {
    if (p.index == nullptr) p.index = t.lookup;
    else if (t.lookup != p.index) p.more.push_back(t.lookup);
  }
  if (!strings) {
    p.answered = false;
    return p;
  }
  const KvContainer* container = DefaultContainer();
  if (container == nullptr) {
    p.status = EngineStatus::TableOpenFailed();
    return p;
  }
  if (!engine_->SchemaAllowed(container->db)) {
    p.status = EngineStatus::SchemaForbidden();
    return p;
  }
  EngineSession* session = SessionOf(item);
  ContainerBinding* binding = &SessionState(item)->container;
  if (!binding->lookup || !(binding->container == *container)) {
    if (!binding->lookup) session->open_indexes.Add();  // (OPEN_INDEXES: its container)
    p.status = BindContainerIndexes(engine_, binding, *container);
    if (!p.status.ok()) return p;
  }
  const bool writes = r.writes();
  // (SCAN reads the keys through the insert index, whose first column is the key.)
  bool scans = r.info->id == I::kScan;
  for (const RedisQueued& q : r.transaction) scans |= q.info->id == I::kScan;
  // A request that writes reads its rows through the lookup index (every column
  // of the container: a write keeps the flags and moves the CAS); one that only
  // reads, through the value index (the value and the expiry: Redis answers neither
  // a CAS nor flags). The grants asked for are the lookup's either way.
  const Opened<OpenIndex> reads =
      engine_->OpenResolved(writes ? binding->lookup.get() : binding->values.get());
  Opened<OpenIndex> lookup = reads;
  if (reads.ok() && !writes && SessionOf(item)->account_logins)
    lookup = engine_->OpenResolved(binding->lookup.get());
  const Opened<OpenIndex> insert =
      lookup.ok() && (writes || scans) ? engine_->OpenResolved(binding->insert.get()) : lookup;
  if (!insert.ok()) {
    p.status = insert.error;
    return p;
  }
  p.status = CheckGrants(item, binding, lookup.value, insert.value);
  if (!p.status.ok()) return p;
  p.answered = false;
  if (p.index != nullptr) p.more.push_back(p.index);
  p.index = reads.value;
  step->insert = writes || scans ? insert.value : nullptr;
  return p;
}

// Whether `name` may be the name of a row of rowsocket.containers, whose names are
// read again once a second, and at once where another worker has read a change of
// the mapping: the keys of the strings (`session:abc`) cost no lookup of their own.
// (Leniently: names the mapping's collation may match otherwise than in ASCII case
// and trailing spaces are looked up.)
bool RedisHandler::MayNameContainer(std::string_view name) {
  constexpr uint64_t kNamesMaxAgeMs = 1000;
  constexpr size_t kMaxNames = 4096;  // a mapping of more is looked up name by name
  const uint64_t now_ms = engine_->batch_start_ms();
  const uint64_t generation = shared_->mappings.generation();
  if (!names_read_ || now_ms - names_read_ms_ >= kNamesMaxAgeMs ||
      generation != names_generation_) {
    names_complete_ =
        ReadFirstColumn(engine_->thd(), "rowsocket", "containers", kMaxNames, &names_);
    names_read_ms_ = now_ms;
    names_generation_ = generation;
    names_read_ = true;
  }
  if (!names_complete_) return true;
  auto plain = [](std::string_view n) {
    while (!n.empty() && n.back() == ' ') n.remove_suffix(1);
    return n;
  };
  auto ascii = [](std::string_view n) {
    for (char c : n)
      if (static_cast<unsigned char>(c) >= 0x80) return false;
    return true;
  };
  const std::string_view wanted = plain(name);
  for (const std::string& n : names_)
    if (SameName(plain(n), wanted) || !ascii(n) || !ascii(wanted)) return true;
  return false;
}

// The hash container `name` as rowsocket.containers maps it, read again once a
// second (at once where another worker has read a change); null if it names none.
const KvContainer* RedisHandler::HashContainer(std::string_view name) {
  constexpr size_t kMaxNames = 256;  // then the names start again empty
  if (!MayNameContainer(name)) return nullptr;
  const uint64_t now_ms = engine_->batch_start_ms();
  const std::string key(name);
  auto known = hash_containers_.find(key);
  if (known == hash_containers_.end() ||
      !shared_->mappings.Fresh(known->second.read_ms, known->second.generation, now_ms)) {
    if (known == hash_containers_.end() && hash_containers_.size() >= kMaxNames)
      hash_containers_.clear();
    NamedContainer& named = hash_containers_[key];
    named.found =
        shared_->mappings.Read(engine_->thd(), name, &named.container, &named.generation);
    named.read_ms = now_ms;
    known = hash_containers_.find(key);
  }
  return known->second.found ? &known->second.container : nullptr;
}

// The container of `key` if it is a hash key (`<name>:<rest>` of a container
// `<name>`): bound for the connection, its indexes opened, its grants checked, and
// kept in step->hashes.
EngineStatus RedisHandler::AddHashTarget(const BatchItem& item, std::string_view key, Step* step,
                                         bool* hash) {
  *hash = false;
  const std::string_view prefix = RedisHashPrefix(key);
  if (prefix.empty()) return EngineStatus::OK();
  for (const RedisHashTarget& t : step->hashes) {
    if (t.prefix != prefix) continue;
    *hash = true;
    return EngineStatus::OK();
  }
  const KvContainer* container = HashContainer(prefix);
  if (container == nullptr) return EngineStatus::OK();
  *hash = true;
  if (!engine_->SchemaAllowed(container->db)) return EngineStatus::SchemaForbidden();
  EngineSession* session = SessionOf(item);
  std::unique_ptr<ContainerBinding>& binding = SessionState(item)->hashes[container->name];
  if (!binding) {
    binding = std::make_unique<ContainerBinding>();
    session->open_indexes.Add();  // (OPEN_INDEXES: a connection's containers)
  }
  EngineStatus s;
  if (!binding->lookup || !(binding->container == *container))
    s = BindHashIndexes(engine_, binding.get(), *container);
  Opened<OpenIndex> lookup = Opened<OpenIndex>::Failed(s);
  if (s.ok()) lookup = engine_->OpenResolved(binding->lookup.get());
  if (s.ok() && (!lookup.ok() || !HashFieldsCurrent(lookup.value))) {
    // An ALTER changed the table's columns since the binding was made.
    s = BindHashIndexes(engine_, binding.get(), *container);
    if (s.ok()) lookup = engine_->OpenResolved(binding->lookup.get());
  }
  if (!s.ok()) return s;
  const bool writes = RedisRequestOf(item).writes();
  const Opened<OpenIndex> insert =
      lookup.ok() && writes ? engine_->OpenResolved(binding->insert.get()) : lookup;
  if (!insert.ok()) return insert.error;
  s = CheckGrants(item, binding.get(), lookup.value, insert.value);
  if (!s.ok()) return s;
  RedisHashTarget target;
  target.prefix.assign(prefix);
  target.binding = binding.get();
  target.lookup = lookup.value;
  target.insert = writes ? insert.value : nullptr;
  step->hashes.push_back(std::move(target));
  return EngineStatus::OK();
}

// With account logins, the grants a command needs on a container's table: every
// command reads the row (SELECT on the key and the lookup's columns); a write may
// update it (UPDATE on those columns), one that inserts needs INSERT on every column
// an insert sets, one that deletes DELETE.
EngineStatus RedisHandler::CheckGrants(const BatchItem& item, ContainerBinding* binding,
                                       OpenIndex* lookup, OpenIndex* insert) {
  EngineSession* session = SessionOf(item);
  if (!session->account_logins) return EngineStatus::OK();
  const RedisRequest& r = RedisRequestOf(item);
  AccessWanted wanted;
  wanted.index = lookup;
  wanted.grants = &binding->grants;
  wanted.db = binding->container.db;
  wanted.table = binding->container.table;
  const bool writes = r.writes();
  bool deletes = r.info->deletes, inserts = r.info->inserts, changes = writes && !deletes;
  for (const RedisQueued& q : r.transaction) {
    deletes |= q.info->deletes;
    inserts |= q.info->inserts;
    changes |= q.info->rows == RedisRows::kWrite && !q.info->deletes;
  }
  wanted.del = deletes;
  if (changes) {
    wanted.update_columns = static_cast<uint32_t>(lookup->columns().size());
    if (inserts) {
      wanted.insert_columns = static_cast<uint32_t>(insert->columns().size());
      wanted.insert_index = insert;
      wanted.insert_grants = &binding->insert->grants;
    }
  }
  return engine_->CheckAccess(session, wanted);
}

bool RedisHandler::Run(const BatchItem& item, size_t i, const Prepared& prepared) {
  RowRequests& rows = engine_->rows();
  const uint64_t locks_met = rows.locks_met();
  const size_t mark = item.out->size();
  hashes_.Use(&steps_[i].hashes);
  Answer(item, steps_[i], prepared);
  // As INFO's total_commands_processed: a command that ran (not one refused unrun,
  // nor one a MULTI queued: EXEC counts those it runs).
  const RedisRequest& r = RedisRequestOf(item);
  if (!r.queued && !r.unknown) engine_->stats()->redis_commands_processed.Add();
  if (item.out->size() > mark && (*item.out)[mark] == '-') engine_->stats()->redis_errors.Add();
  return rows.locks_met() != locks_met;
}

void RedisHandler::Answer(const BatchItem& item, const Step& step, const Prepared& p) {
  const RedisRequest& r = RedisRequestOf(item);
  RedisSession* state = SessionState(item);
  RedisReplyWriter w(item.out, state->resp);
  if (!step.error.empty()) return w.Error(step.error);
  if (p.answered) {
    if (r.info != nullptr && !p.status.ok() && LogsIn(r) && SessionOf(item)->account_logins) {
      // A refused login in Redis's words; the reason is in the error log.
      if (p.status.kind() == EngineStatus::Kind::kUnauthenticated)
        return w.Error(kRedisErrWrongPass);
      return w.Error(RedisStatusError(p.status));
    }
    if (!p.status.ok()) return w.Error(RedisStatusError(p.status));
    if (r.info != nullptr && r.info->id == I::kExec) return Exec(item, step, p);
    return AnswerConnection(item, p);
  }
  if (engine_->Killed()) return w.Error(RedisStatusError(EngineStatus::Killed()));
  if (r.writes()) engine_->thd()->set_time();
  if (r.info->id == I::kExec) return Exec(item, step, p);
  RunRows(item, *r.info, r.command.argv, step, p, &w);
}

// A command on the rows, its reply to `w`.
void RedisHandler::RunRows(const BatchItem& item, const RedisCommandInfo& info,
                           const std::vector<std::string_view>& argv, const Step& step,
                           const Prepared& p, RedisReplyWriter* w) {
  if (info.id == I::kInfo) return Info(item, argv, p.index, w);
  if (info.id == I::kFlushdb) return FlushDb(item, argv, p.index, w);
  if (info.id == I::kScan) return Scan(item, argv, step, p, w);
  if (IsHashCommand(info.id)) {
    // (A key of no hash container: a string of the default container, or none.)
    const RedisHashTarget* target = hashes_.TargetOf(argv[1]);
    bool string = false;
    if (target == nullptr &&
        !strings_.Holds(SessionState(item)->container.container, p.index, argv[1], w, &string))
      return;
    return hashes_.Run(info, argv, target, string, w);
  }
  RedisKeyCounts counts;
  const uint64_t max_value =
      engine_->options().tunables->max_line_length.load(std::memory_order_relaxed);
  strings_.Run(info, argv, SessionState(item)->container.container, p.index, step.insert,
               max_value, w, &counts);
  engine_->stats()->redis_keyspace_hits.Add(counts.hits);
  engine_->stats()->redis_keyspace_misses.Add(counts.misses);
}

// EXEC: the commands its MULTI queued, run in order inside the batch's transaction,
// their replies in one array, each command's own error in its place as in Redis.
// All or nothing: a change that fails (a storage error, a row another transaction
// holds) puts back what the commands before it changed, and EXEC answers the error.
void RedisHandler::Exec(const BatchItem& item, const Step& step, const Prepared& p) {
  const RedisRequest& r = RedisRequestOf(item);
  RedisReplyWriter w(item.out, SessionState(item)->resp);
  if (r.exec_abort) return w.Error(kRedisErrExecAbort);
  const size_t mark = item.out->size();
  w.ArrayHeader(r.transaction.size());
  const bool rows = !p.answered;
  if (rows) strings_.BeginAll();
  // The replies together are held to rowsocket_max_answer_size, as one MGET's.
  const uint64_t max_answer =
      engine_->options().tunables->max_answer_size.load(std::memory_order_relaxed);
  bool too_big = false;
  uint64_t ran = 0, errors = 0;  // (Redis counts them as commands and error replies)
  std::vector<std::string_view> argv;
  for (const RedisQueued& q : r.transaction) {
    argv.assign(q.words.begin(), q.words.end());
    const size_t at = item.out->size();
    if (!Served(q.info->id))
      w.Error("ERR rowsocket: '" + std::string(q.info->name) + "' is not served yet");
    else if (TouchesRows(*q.info))
      RunRows(item, *q.info, argv, step, p, &w);
    else
      AnswerCommand(item, *q.info, argv, &w);
    ++ran;
    if (item.out->size() > at && (*item.out)[at] == '-') ++errors;
    too_big = max_answer != 0 && item.out->size() - mark > max_answer;
    if (too_big || (rows && strings_.failed())) break;
  }
  engine_->stats()->redis_commands_processed.Add(ran);
  const bool undone = rows && !strings_.EndAll(too_big);
  if (too_big || undone) {
    item.out->resize(mark);
    w.Error(too_big ? RedisStatusError(EngineStatus::TooBig()) : strings_.failure());
  } else {
    engine_->stats()->redis_errors.Add(errors);
  }
}

void RedisHandler::AnswerFailure(const BatchItem& item, const EngineStatus& status) {
  if (status.ok()) {
    Prepared p;
    p.answered = true;
    return AnswerConnection(item, p);
  }
  engine_->stats()->redis_errors.Add();
  RedisReplyWriter(item.out, SessionState(item)->resp).Error(RedisStatusError(status));
}

// A command of one key (GET, SET, INCR, EXPIRE, ..., and MGET, DEL or EXISTS of one
// key), as KvTouchesOneRow (container_map.h) says; the run order of commands on
// distinct keys cannot show, those on one key keep theirs.
bool RedisHandler::TouchesOneRow(const BatchItem& item, size_t i, const Prepared& p) {
  const RedisRequest& r = RedisRequestOf(item);
  const std::vector<std::string_view>& argv = r.command.argv;
  if (r.info == nullptr || r.info->first_key != 1 || argv.size() < 2 || !p.more.empty())
    return false;
  size_t keys = 0;
  for (size_t k = 1; k < argv.size(); ++k) keys += RedisIsKeyPosition(*r.info, k, argv.size());
  if (keys != 1) return false;
  const Step& step = steps_[i];
  if (!step.hashes.empty() && step.hashes[0].lookup == p.index)
    return KvTouchesOneRow(p.index, step.hashes[0].insert, r.info->inserts);
  return KvTouchesOneRow(p.index, step.insert, r.info->inserts);
}

// (A hash key's row is its `<rest>`.)
bool RedisHandler::CopyRowKey(const BatchItem& item, size_t i, const Prepared& p, uchar* out) {
  const std::string_view key = RedisRequestOf(item).command.argv[1];
  const Step& step = steps_[i];
  if (!step.hashes.empty() && step.hashes[0].lookup == p.index)
    return KvCopyRowKey(RedisHashRowKey(key), p.index, out);
  return KvCopyRowKey(key, p.index, out);
}

uint64_t RedisCursors::Add(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t cursor = ++last_;
  keys_[cursor] = key;
  order_.push_back(cursor);
  while (order_.size() > kMaxCursors) {
    keys_.erase(order_.front());
    order_.pop_front();
  }
  return cursor;
}

bool RedisCursors::Find(uint64_t cursor, std::string* key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = keys_.find(cursor);
  if (it == keys_.end()) return false;
  *key = it->second;
  return true;
}

// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]: the keys in key order, a
// step at a time; a MATCH with a literal prefix reads only the keys that begin with
// it (RedisStrings::Scan).
void RedisHandler::Scan(const BatchItem& item, const std::vector<std::string_view>& argv,
                        const Step& step, const Prepared& p, RedisReplyWriter* w) {
  RedisScanOptions options;
  const std::string error = RedisParseScan(argv.data(), argv.size(), &options);
  if (!error.empty()) return w->Error(error);
  std::string after, last;
  const bool from_start = options.cursor == 0 || !shared_->cursors.Find(options.cursor, &after);
  std::vector<std::string> keys;
  bool done = true;
  const EngineStatus status =
      strings_.Scan(SessionState(item)->container.container, p.index, step.insert, from_start,
                    after, options, &keys, &last, &done);
  if (!status.ok()) return w->Error(RedisStatusError(status));
  w->ArrayHeader(2);
  w->Bulk(done ? "0" : std::to_string(shared_->cursors.Add(last)));
  w->ArrayHeader(keys.size());
  for (const std::string& key : keys) w->Bulk(key);
}

// FLUSHDB [ASYNC|SYNC]: deletes every row of the default container, where
// rowsocket_memcached_flush allows memcached's flush_all to (logged).
void RedisHandler::FlushDb(const BatchItem& item, const std::vector<std::string_view>& argv,
                           OpenIndex* lookup, RedisReplyWriter* w) {
  if (argv.size() > 2) return w->Error(kRedisErrSyntax);
  if (argv.size() == 2) {
    std::string mode(argv[1]);
    for (char& c : mode) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (mode != "async" && mode != "sync") return w->Error(kRedisErrSyntax);
  }
  if (!engine_->options().tunables->memcached_flush.load(std::memory_order_relaxed))
    return w->Error("ERR rowsocket: FLUSHDB is off (rowsocket_memcached_flush)");
  uint64_t deleted = 0;
  const EngineStatus status = strings_.DeleteAll(lookup, &deleted);
  if (!status.ok()) return w->Error(RedisStatusError(status));
  static LogLimit flushed;
  const KvContainer& c = SessionState(item)->container.container;
  LogLimited(&flushed, LogLevel::kWarning, "Redis FLUSHDB deleted the %llu rows of %s.%s",
             static_cast<unsigned long long>(deleted), c.db.c_str(), c.table.c_str());
  w->Ok();
}

// Commands answered without rows, and what the server layer refused.
void RedisHandler::AnswerConnection(const BatchItem& item, const Prepared& p) {
  const RedisRequest& r = RedisRequestOf(item);
  RedisSession* state = SessionState(item);
  RedisReplyWriter w(item.out, state->resp);
  if (r.info == nullptr) return w.Error(r.error.empty() ? "ERR rowsocket: no command" : r.error);
  if (r.queued) return w.SimpleString("QUEUED");
  if (r.info->id == I::kHello) return Hello(item, &w);
  AnswerCommand(item, *r.info, r.command.argv, &w);
}

void RedisHandler::AnswerCommand(const BatchItem& item, const RedisCommandInfo& info,
                                 const std::vector<std::string_view>& argv,
                                 RedisReplyWriter* out) {
  RedisSession* state = SessionState(item);
  RedisReplyWriter& w = *out;
  EngineSession* session = SessionOf(item);
  switch (info.id) {
    case I::kPing:
      if (argv.size() > 2) return w.Error(RedisErrWrongArity("ping"));
      if (argv.size() == 2) return w.Bulk(argv[1]);
      return w.SimpleString("PONG");
    case I::kEcho:
      return w.Bulk(argv[1]);
    case I::kQuit:
      return w.Ok();
    case I::kSelect: {
      int64_t db = 0;
      if (!RedisStringToInt64(argv[1], &db) || db < INT32_MIN || db > INT32_MAX)
        return w.Error(kRedisErrNotInteger);
      if (db != 0) return w.Error(kRedisErrDbIndex);
      return w.Ok();
    }
    case I::kReset:
      state->resp = RespVersion::kResp2;
      state->name.clear();
      if (session->account_logins) session->SetAccount(std::string());
      return RedisReplyWriter(item.out, state->resp).SimpleString("RESET");
    case I::kMulti:
    case I::kDiscard:
    case I::kUnwatch:
      return w.Ok();
    case I::kAuth:
      if (session->account_logins) return w.Ok();  // logged in in pass 1
      // No login is asked on this listener (rowsocket_redis_auth): as Redis's default
      // user without a password.
      if (argv.size() > 3) return w.Error(kRedisErrSyntax);
      if (argv.size() == 2)
        return w.Error(
            "ERR AUTH <password> called without any password configured for the default user. "
            "Are you sure your configuration is correct?");
      if (argv[1] == "default") return w.Ok();
      return w.Error(kRedisErrWrongPass);
    case I::kClientSetname: case I::kClientGetname: case I::kClientId: case I::kClientInfo:
    case I::kClientSetinfo:
      return Client(item, info.id, argv, &w);
    case I::kCommand: case I::kCommandCount: case I::kCommandDocs: case I::kCommandInfo:
    case I::kCommandList:
      return Command(argv, &w);
    case I::kConfigGet:
      return ConfigGet(argv, &w);
    default:
      return w.Error("ERR rowsocket: '" + std::string(info.name) + "' is not served yet");
  }
}

// HELLO's map (server, version, proto, id, mode, role, modules), in the version it
// asked for; its login, if any, was made in pass 1.
void RedisHandler::Hello(const BatchItem& item, RedisReplyWriter* w) {
  RedisSession* state = SessionState(item);
  EngineSession* session = SessionOf(item);
  RedisHello hello;
  const std::string error = RedisParseHello(RedisRequestOf(item).command.argv, &hello);
  if (!error.empty()) return w->Error(error);
  if (hello.auth && !session->account_logins && hello.user != "default")
    return w->Error(kRedisErrWrongPass);
  if (session->account_logins && !session->logged_in())
    return w->Error(
        "NOAUTH HELLO must be called with the client already authenticated, otherwise the "
        "HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and "
        "select the RESP protocol version at the same time");
  if (hello.setname) {
    if (!RedisValidClientName(hello.name))
      return w->Error("ERR Client names cannot contain spaces, newlines or special characters.");
    state->name.assign(hello.name);
  }
  if (hello.version != 0) state->resp = static_cast<RespVersion>(hello.version);
  RedisReplyWriter out(item.out, state->resp);
  out.MapHeader(7);
  out.Bulk("server");
  out.Bulk("redis");
  out.Bulk("version");
  out.Bulk(kRedisCompatibleVersion);
  out.Bulk("proto");
  out.Integer(static_cast<int>(state->resp));
  out.Bulk("id");
  out.Integer(static_cast<int64_t>(state->id));
  out.Bulk("mode");
  out.Bulk("standalone");
  out.Bulk("role");
  out.Bulk("master");
  out.Bulk("modules");
  out.ArrayHeader(0);
}

void RedisHandler::Client(const BatchItem& item, RedisCommandId id,
                          const std::vector<std::string_view>& argv, RedisReplyWriter* w) {
  RedisSession* state = SessionState(item);
  switch (id) {
    case I::kClientSetname:
      if (!RedisValidClientName(argv[2]))
        return w->Error("ERR Client names cannot contain spaces, newlines or special characters.");
      state->name.assign(argv[2]);
      return w->Ok();
    case I::kClientGetname:
      if (state->name.empty()) return w->Null();
      return w->Bulk(state->name);
    case I::kClientId:
      return w->Integer(static_cast<int64_t>(state->id));
    case I::kClientSetinfo: {
      std::string attr(argv[2]);
      for (char& c : attr) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (attr != "lib-name" && attr != "lib-ver")
        return w->Error("ERR Unrecognized option '" + std::string(argv[2]) + "'");
      if (!RedisValidClientName(argv[3]))
        return w->Error("ERR " + attr + " cannot contain spaces, newlines or special characters.");
      (attr == "lib-name" ? state->lib_name : state->lib_ver).assign(argv[3]);
      return w->Ok();
    }
    default: {  // CLIENT INFO: what rowsocket knows of the connection
      std::string line = "id=" + std::to_string(state->id) + " name=" + state->name +
                         " db=0 resp=" + std::to_string(static_cast<int>(state->resp)) +
                         " lib-name=" + state->lib_name + " lib-ver=" + state->lib_ver + "\n";
      return w->Verbatim(line);
    }
  }
}

}  // namespace rowsocket
