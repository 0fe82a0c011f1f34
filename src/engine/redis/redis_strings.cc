// RedisStrings: Redis's string and key commands as row operations on a container
// (redis_strings.h). Each command's words are Redis 7.0's (t_string.c, expire.c,
// db.c): the order in which it checks its arguments, its errors and its replies.
// Runs on a worker thread inside a batch.
#include "engine/redis/redis_strings.h"

#include <chrono>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "engine/rows/row_io.h"
#include "protocol/redis.h"
#include "protocol/redis_args.h"
#include "protocol/redis_request.h"

namespace rowsocket {
namespace {

using I = RedisCommandId;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The index columns of a write of the first `n` (a bit by column, see
// OpenIndex::WriteRefusal).
uint64_t FirstColumns(size_t n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

// The most rows one SCAN step examines, whatever its COUNT.
constexpr uint64_t kMaxScanCount = 10000;

// The largest unix time an INT UNSIGNED expiry column (rowsocket.kv's) holds.
constexpr int64_t kMaxExpiry = 4294967295LL;

bool SameWord(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

// Whether the command takes hash keys (a hash to it, or a missing key to MGET).
bool TakesHashKeys(RedisCommandId id) {
  switch (id) {
    case I::kDel: case I::kUnlink: case I::kExists: case I::kType: case I::kTtl:
    case I::kPttl: case I::kPersist: case I::kMget:
      return true;
    default:
      return false;
  }
}

}  // namespace

void RedisStrings::Begin(const KvContainer& container, OpenIndex* lookup, OpenIndex* insert) {
  container_ = &container;
  lookup_ = lookup;
  insert_ = insert;
  key_column_ = WholeColumn(lookup->key()->key_part[0]);
  // The lookup index's columns: the value, then the CAS, flags and expiry where the
  // container has them (KvContainer::LookupColumns); the value index's, the value
  // and the expiry alone (ValueColumns). Where the container has no CAS and no
  // flags, the two are the same.
  const bool expires = !container.expires_column.empty();
  const bool cas_and_flags =
      lookup->columns().size() > container.value_columns.size() + size_t{expires};
  int at = 1;
  cas_at_ = !cas_and_flags || container.cas_column.empty() ? -1 : at++;
  flags_at_ = !cas_and_flags || container.flags_column.empty() ? -1 : at++;
  expires_at_ = expires ? at++ : -1;
  now_ms_ = NowMs();
}

bool RedisStrings::Error(std::string_view text) {
  w_->Error(text);
  return false;
}

bool RedisStrings::Fail(const EngineStatus& status) { return Error(RedisStatusError(status)); }

// The container's shape, and for a write every key: one the key column cannot hold
// exactly would change the row of another key. A hash key is the wrong type, but to
// the commands that take one; hashes keep no expiry.
bool RedisStrings::Check(const std::vector<std::string_view>& argv, const RedisCommandInfo& info) {
  if (container_->value_columns.size() != 1)
    return Error("ERR rowsocket: Redis strings need a container of one value column");
  const bool takes_hashes = TakesHashKeys(info.id);
  for (size_t i = 1; i < argv.size(); ++i) {
    if (!RedisIsKeyPosition(info, i, argv.size())) continue;
    if (hashes_->TargetOf(argv[i]) != nullptr) {
      if (takes_hashes) continue;
      if (info.id == I::kExpire || info.id == I::kPexpire || info.id == I::kExpireat ||
          info.id == I::kPexpireat)
        return Error("ERR rowsocket: a hash (a row of a container's table) keeps no expiry");
      return Error(kRedisErrWrongType);
    }
    if (info.rows == RedisRows::kWrite && !HoldsExactly(key_column_, argv[i], &scratch_))
      return Fail(EngineStatus::NotAKey());
  }
  return true;
}

bool RedisStrings::Holds(const KvContainer& container, OpenIndex* lookup, std::string_view key,
                         RedisReplyWriter* w, bool* live) {
  w_ = w;
  Begin(container, lookup, nullptr);
  Item item;
  if (!Read(key, &item)) return false;
  *live = item.live();
  return true;
}


// `item` as the row in record[0] holds it (the lookup index's columns).
void RedisStrings::ItemOfRow(Item* item) {
  const std::vector<Field*>& columns = lookup_->columns();
  item->value.clear();
  AppendFieldText(columns[0], &item->value);
  item->cas = cas_at_ < 0 ? 0 : FieldNumber<uint64_t>(columns[cas_at_], &scratch_);
  item->flags = flags_at_ < 0 ? 0 : FieldNumber<uint32_t>(columns[flags_at_], &scratch_);
  item->expires = expires_at_ < 0 ? 0 : FieldNumber<int64_t>(columns[expires_at_], &scratch_);
  item->found = Expired(item->expires) ? Found::kExpired : Found::kPresent;
}

bool RedisStrings::LiveValueOfRow(std::string_view* value) {
  const std::vector<Field*>& columns = lookup_->columns();
  const int64_t expires =
      expires_at_ < 0 ? 0 : FieldNumber<int64_t>(columns[expires_at_], &scratch_);
  if (Expired(expires)) return false;
  *value = FieldText(columns[0], &scratch_);
  return true;
}

// Reads the row of `key` (in a write, with its row lock); false on an error, which
// is answered unless `quiet`.
bool RedisStrings::Read(std::string_view key, Item* item, bool quiet) {
  item->found = Found::kMissing;
  if (!HoldsExactly(key_column_, key, &scratch_)) return true;
  spec_.FindOne(RowValue::Bytes(key));
  const RowResult row = rows_->Read(spec_, lookup_, [&](size_t) {
    ItemOfRow(item);
    return EngineStatus::OK();
  });
  return quiet ? row.status.ok() : !Failed(row);
}

bool RedisStrings::FailChange(const EngineStatus& status) {
  undo_.Fail(RedisStatusError(status));
  return Fail(status);
}

// Writes `item` (value, a new CAS, flags and expiry) as the row of `key`: an update
// of the row it was read from, or an insert.
bool RedisStrings::Write(std::string_view key, Item* item) {
  if (undo_.active() && !Record(key)) return false;
  if (cas_at_ >= 0) item->cas = KeyValue::NextCas();
  const bool insert = !item->has_row();
  ValuesOf(key, *item, insert);
  bool duplicate = false;
  if (insert ? !InsertRow(&duplicate) : !UpdateRow(key)) {
    // (Another transaction made the row since it was read.)
    return duplicate ? FailChange(EngineStatus::Conflict(HA_ERR_FOUND_DUPP_KEY)) : false;
  }
  item->found = Found::kPresent;
  return true;
}

// One update of the key, and an insert only when no row matched; if another
// transaction inserted the key meanwhile, the update again (the row is locked from
// there on).
bool RedisStrings::Overwrite(std::string_view key, Item* item) {
  if (cas_at_ >= 0) item->cas = KeyValue::NextCas();
  ValuesOf(key, *item, false);
  uint64_t matched = 0;
  if (!UpdateRow(key, &matched)) return false;
  item->found = Found::kPresent;
  if (matched > 0) return true;
  ValuesOf(key, *item, true);
  bool duplicate = false;
  if (InsertRow(&duplicate)) return true;
  if (!duplicate) return false;
  ValuesOf(key, *item, false);
  return UpdateRow(key);
}

void RedisStrings::ValuesOf(std::string_view key, const Item& item, bool insert) {
  values_.clear();
  if (insert) values_.push_back(RowValue::Bytes(key));
  values_.push_back(RowValue::Bytes(item.value));
  if (cas_at_ >= 0) values_.push_back(RowValue::Unsigned(item.cas));
  if (flags_at_ >= 0) values_.push_back(RowValue::Unsigned(item.flags));
  if (expires_at_ >= 0) values_.push_back(RowValue::Unsigned(static_cast<uint64_t>(item.expires)));
}

bool RedisStrings::UpdateRow(std::string_view key, uint64_t* matched) {
  const EngineStatus refusal = lookup_->WriteRefusal(FirstColumns(values_.size()));
  if (!refusal.ok()) return Fail(refusal);
  change_.Clear();
  change_.kind = RowWrite::kUpdate;
  change_.values = values_;
  spec_.FindOne(RowValue::Bytes(key));
  const RowResult row = rows_->Modify(spec_, change_, lookup_);
  if (matched != nullptr) *matched = row.rows_read;
  return !Failed(row);
}

bool RedisStrings::InsertRow(bool* duplicate) {
  const EngineStatus refusal = insert_->WriteRefusal(FirstColumns(values_.size()));
  if (!refusal.ok()) return Fail(refusal);
  const RowResult row = rows_->Insert(values_, insert_);
  *duplicate = row.engine_error == HA_ERR_FOUND_DUPP_KEY;
  return !*duplicate && !Failed(row);
}

// Writes the expiry column of the row of `key` alone (as memcached's touch: the
// value, CAS and flags stay).
bool RedisStrings::WriteExpiry(std::string_view key, int64_t expires) {
  if (undo_.active() && !Record(key)) return false;
  change_.Clear();
  change_.kind = RowWrite::kUpdate;
  change_.columns.push_back(static_cast<uint32_t>(expires_at_));
  change_.values.push_back(RowValue::Unsigned(static_cast<uint64_t>(expires)));
  const EngineStatus refusal = lookup_->WriteRefusal(uint64_t{1} << expires_at_);
  if (!refusal.ok()) return Fail(refusal);
  spec_.FindOne(RowValue::Bytes(key));
  return !Failed(rows_->Modify(spec_, change_, lookup_));
}

bool RedisStrings::Delete(std::string_view key) {
  const EngineStatus refusal = lookup_->WriteRefusal(0);
  if (!refusal.ok()) return Fail(refusal);
  if (undo_.active() && !Record(key)) return false;
  change_.Clear();
  change_.kind = RowWrite::kDelete;
  spec_.FindOne(RowValue::Bytes(key));
  return !Failed(rows_->Modify(spec_, change_, lookup_));
}

void RedisStrings::BeginAll() {
  undo_.Begin();
  hashes_->BeginAll();
}

bool RedisStrings::Record(std::string_view key) {
  Recorded r;
  r.key.assign(key);
  if (!Read(key, &r.before, false)) return false;
  const size_t bytes = r.key.size() + r.before.value.size() + sizeof(Recorded);
  return undo_.Add(std::move(r), bytes) || Error(undo_.failure());
}

// (The rows put back are locked by this transaction already: no change of them
// can meet another's lock.)
bool RedisStrings::EndAll(bool undo) {
  const bool failed = undo || undo_.failed() || hashes_->failed();
  hashes_->EndAll(failed);
  return undo_.End(failed, [&](const Recorded& r) { Restore(r.key, r.before); });
}

// Quietly: the command's answer is its failure's.
bool RedisStrings::Restore(const std::string& key, const Item& before) {
  Item now;
  if (!Read(key, &now, true)) return false;
  if (!before.has_row() && !now.has_row()) return true;
  spec_.FindOne(RowValue::Bytes(key));
  change_.Clear();
  if (!before.has_row()) {
    change_.kind = RowWrite::kDelete;
    return rows_->Modify(spec_, change_, lookup_).status.ok();
  }
  values_.clear();
  if (!now.has_row()) values_.push_back(RowValue::Bytes(key));
  values_.push_back(RowValue::Bytes(before.value));
  if (cas_at_ >= 0) values_.push_back(RowValue::Unsigned(before.cas));
  if (flags_at_ >= 0) values_.push_back(RowValue::Unsigned(before.flags));
  if (expires_at_ >= 0)
    values_.push_back(RowValue::Unsigned(static_cast<uint64_t>(before.expires)));
  if (!now.has_row()) return rows_->Insert(values_, insert_).status.ok();
  change_.kind = RowWrite::kUpdate;
  change_.values = values_;
  return rows_->Modify(spec_, change_, lookup_).status.ok();
}

bool RedisStrings::ExpiryOf(int64_t at_ms, int64_t* expires) {
  if (expires_at_ < 0) return Error("ERR rowsocket: the container keeps no expiry");
  int64_t seconds = at_ms / 1000 + (at_ms % 1000 > 0 ? 1 : 0);
  if (seconds < 1) seconds = 1;  // already past: a unix time long gone
  *expires = seconds > kMaxExpiry ? kMaxExpiry : seconds;
  return true;
}

void RedisStrings::Run(const RedisCommandInfo& info, const std::vector<std::string_view>& argv,
                       const KvContainer& container, OpenIndex* lookup, OpenIndex* insert,
                       uint64_t max_value, RedisReplyWriter* w, RedisKeyCounts* counts) {
  w_ = w;
  counts_ = counts;
  max_value_ = max_value;
  Begin(container, lookup, insert);
  if (!Check(argv, info)) return;
  switch (info.id) {
    case I::kGet: return Get(argv[1], false);
    case I::kGetdel: return Get(argv[1], true);
    case I::kSet: return Set(argv);
    case I::kSetnx: return SetNx(argv[1], argv[2]);
    case I::kSetex: return SetEx(argv);
    case I::kGetset: return GetSet(argv[1], argv[2]);
    case I::kGetex: return GetEx(argv);
    case I::kMget: return MGet(argv);
    case I::kMset: return MSet(argv, false);
    case I::kMsetnx: return MSet(argv, true);
    case I::kAppend: return Append(argv[1], argv[2]);
    case I::kStrlen: return StrLen(argv[1]);
    case I::kGetrange: return GetRange(argv);
    case I::kIncr: return IncrBy(argv[1], 1);
    case I::kDecr: return IncrBy(argv[1], -1);
    case I::kIncrby: return IncrByText(argv[1], argv[2], false);
    case I::kDecrby: return IncrByText(argv[1], argv[2], true);
    case I::kIncrbyfloat: return IncrByFloat(argv[1], argv[2]);
    case I::kDel:
    case I::kUnlink: return Del(argv);
    case I::kExists: return Exists(argv);
    case I::kType: return Type(argv[1]);
    case I::kExpire: return Expire(argv, false, false);
    case I::kPexpire: return Expire(argv, true, false);
    case I::kExpireat: return Expire(argv, false, true);
    case I::kPexpireat: return Expire(argv, true, true);
    case I::kTtl: return Ttl(argv[1], false);
    case I::kPttl: return Ttl(argv[1], true);
    case I::kPersist: return Persist(argv[1]);
    case I::kDbsize: return DbSize();
    default: Fail(EngineStatus::UnknownCommand());
  }
}

void RedisStrings::Get(std::string_view key, bool del) {
  Item& item = read_;
  if (Read(key, &item) && !(del && item.has_row() && !Delete(key))) AnswerValue(item);
  KeepReadItem();
}

void RedisStrings::AnswerValue(const Item& item) {
  if (item.live()) {
    ++counts_->hits;
    w_->Bulk(item.value);
  } else {
    ++counts_->misses;
    w_->Null();
  }
}

void RedisStrings::KeepReadItem() {
  if (read_.value.capacity() > kKeptReadBytes) std::string().swap(read_.value);
}

void RedisStrings::KeepInKeys() {
  if (in_keys_.size() > kKeptReadKeys) std::vector<size_t>().swap(in_keys_);
}

// SET key value [NX|XX] [GET] [EX|PX|EXAT|PXAT t|KEEPTTL]: the old value first with
// GET; nothing more when NX or XX stops it.
void RedisStrings::Set(const std::vector<std::string_view>& argv) {
  RedisSetOptions o;
  std::string error = RedisParseSetOptions(argv.data(), argv.size(), 3, RedisSetCommand::kSet, &o);
  if (!error.empty()) return w_->Error(error);
  int64_t expires = 0;
  if (o.expire != RedisExpireKind::kNone) {
    int64_t at_ms = 0;
    error = RedisExpireAt(o, now_ms_, "set", &at_ms);
    if (!error.empty()) return w_->Error(error);
    if (!ExpiryOf(at_ms, &expires)) return;
  }
  Item item;
  if (!o.get && !o.nx && !o.xx && !o.keepttl && !undo_.active()) {
    // Nothing of the row it replaces counts.
    item.value.assign(argv[2]);
    item.expires = expires;
    if (Overwrite(argv[1], &item)) w_->Ok();
    return;
  }
  if (!Read(argv[1], &item)) return;
  const bool had = item.live();
  std::string old;
  if (o.get && had) old = item.value;
  auto reply_old = [&] {
    if (had) w_->Bulk(old); else w_->Null();
  };
  if ((o.nx && had) || (o.xx && !had)) return o.get ? reply_old() : w_->Null();
  if (o.keepttl) {
    if (!had) item.expires = 0;
  } else {
    item.expires = expires;
  }
  item.value.assign(argv[2]);
  item.flags = 0;
  if (!Write(argv[1], &item)) return;
  if (o.get) return reply_old();
  w_->Ok();
}

void RedisStrings::SetNx(std::string_view key, std::string_view value) {
  Item item;
  if (!Read(key, &item)) return;
  if (item.live()) return w_->Integer(0);
  item.value.assign(value);
  item.flags = 0;
  item.expires = 0;
  if (Write(key, &item)) w_->Integer(1);
}

void RedisStrings::SetEx(const std::vector<std::string_view>& argv) {
  RedisSetOptions o;
  o.expire = RedisExpireKind::kEx;
  o.expire_arg = argv[2];
  int64_t at_ms = 0, expires = 0;
  const std::string error = RedisExpireAt(o, now_ms_, "setex", &at_ms);
  if (!error.empty()) return w_->Error(error);
  if (!ExpiryOf(at_ms, &expires)) return;
  Item item;
  if (!Read(argv[1], &item)) return;
  item.value.assign(argv[3]);
  item.flags = 0;
  item.expires = expires;
  if (Write(argv[1], &item)) w_->Ok();
}

void RedisStrings::GetSet(std::string_view key, std::string_view value) {
  Item item;
  if (!Read(key, &item)) return;
  const bool had = item.live();
  std::string old;
  if (had) old.swap(item.value);
  item.value.assign(value);
  item.flags = 0;
  item.expires = 0;
  if (!Write(key, &item)) return;
  if (had) w_->Bulk(old); else w_->Null();
}

void RedisStrings::GetEx(const std::vector<std::string_view>& argv) {
  RedisSetOptions o;
  std::string error =
      RedisParseSetOptions(argv.data(), argv.size(), 2, RedisSetCommand::kGetex, &o);
  if (!error.empty()) return w_->Error(error);
  int64_t at_ms = 0, expires = 0;
  if (o.expire != RedisExpireKind::kNone) {
    error = RedisExpireAt(o, now_ms_, "getex", &at_ms);
    if (!error.empty()) return w_->Error(error);
    if (!ExpiryOf(at_ms, &expires)) return;
  }
  Item item;
  if (!Read(argv[1], &item)) return;
  if (!item.live()) {
    ++counts_->misses;
    return w_->Null();
  }
  ++counts_->hits;
  if (o.expire != RedisExpireKind::kNone) {
    if (at_ms <= now_ms_ ? !Delete(argv[1]) : !WriteExpiry(argv[1], expires)) return;
  } else if (o.persist && item.expires != 0 && expires_at_ >= 0) {
    if (!WriteExpiry(argv[1], 0)) return;
  }
  w_->Bulk(item.value);
}

// One IN scan of the key column for every key.
void RedisStrings::MGet(const std::vector<std::string_view>& argv) {
  const size_t n = argv.size() - 1;
  std::vector<size_t>& in_keys = in_keys_;
  in_keys.clear();
  spec_.Clear();
  spec_.key.push_back(RowValue::Bytes(""));
  spec_.has_in = true;
  for (size_t k = 0; k < n; ++k) {
    if (hashes_->TargetOf(argv[k + 1]) != nullptr) continue;  // (not a string: nil)
    if (!HoldsExactly(key_column_, argv[k + 1], &scratch_)) continue;
    spec_.in_values.push_back(RowValue::Bytes(argv[k + 1]));
    in_keys.push_back(k);
  }
  spec_.limit = static_cast<uint32_t>(in_keys.size());
  // The answer is written as the rows come, in the keys' order (the IN list is
  // read in its order), each value straight from the row; a nil for every key
  // before it that found no live row. It is held to rowsocket_max_answer_size (its
  // values and their headers); an error drops what was written of it.
  const uint64_t max_answer = rows_->tunables()->max_answer_size.load(std::memory_order_relaxed);
  const size_t start = w_->written();
  w_->ArrayHeader(n);
  size_t answered = 0;  // the keys answered so far
  uint64_t answer = 0, hits = 0;
  if (!in_keys.empty()) {
    const RowResult row = rows_->Read(spec_, lookup_, [&](size_t v) {
      std::string_view value;
      if (!LiveValueOfRow(&value)) return EngineStatus::OK();
      answer += value.size() + kRedisBulkHeader;
      if (max_answer != 0 && answer > max_answer) return EngineStatus::TooBig();
      for (; answered < in_keys[v]; ++answered) w_->Null();
      w_->Bulk(value);
      ++answered;
      ++hits;
      return EngineStatus::OK();
    });
    if (!row.status.ok()) {
      w_->DropSince(start);
      Failed(row);
      return KeepInKeys();
    }
  }
  for (; answered < n; ++answered) w_->Null();
  counts_->hits += hits;
  counts_->misses += n - hits;
  KeepInKeys();
}

// MSET and MSETNX: every key read (and locked) first, then the pairs written in
// order (a key given twice takes its last value).
void RedisStrings::MSet(const std::vector<std::string_view>& argv, bool nx) {
  if (argv.size() % 2 == 0)
    return w_->Error(RedisErrWrongArity(nx ? "msetnx" : "mset"));
  Item item;
  for (size_t i = 1; nx && i < argv.size(); i += 2) {
    if (!Read(argv[i], &item)) return;
    if (item.live()) return w_->Integer(0);
  }
  BeginAll();
  bool written = true;
  for (size_t i = 1; i < argv.size() && written; i += 2) {
    written = Read(argv[i], &item);
    item.value.assign(argv[i + 1]);
    item.flags = 0;
    item.expires = 0;
    written = written && Write(argv[i], &item);
  }
  if (!EndAll(!written)) return;  // (answered with the error)
  if (nx) return w_->Integer(1);
  w_->Ok();
}

void RedisStrings::Append(std::string_view key, std::string_view tail) {
  Item item;
  if (!Read(key, &item)) return;
  if (!item.live()) {
    item.value.clear();
    item.flags = 0;
    item.expires = 0;
  }
  if (item.value.size() + tail.size() > max_value_)
    return w_->Error(kRedisErrStringTooLong);
  item.value.append(tail);
  if (Write(key, &item)) w_->Integer(static_cast<int64_t>(item.value.size()));
}

void RedisStrings::StrLen(std::string_view key) {
  Item item;
  if (!Read(key, &item)) return;
  w_->Integer(item.live() ? static_cast<int64_t>(item.value.size()) : 0);
}

void RedisStrings::GetRange(const std::vector<std::string_view>& argv) {
  int64_t start = 0, end = 0;
  if (!RedisStringToInt64(argv[2], &start) || !RedisStringToInt64(argv[3], &end))
    return w_->Error(kRedisErrNotInteger);
  Item item;
  if (!Read(argv[1], &item)) return;
  if (!item.live()) return w_->Bulk("");
  const int64_t length = static_cast<int64_t>(item.value.size());
  if (start < 0 && end < 0 && start > end) return w_->Bulk("");
  if (start < 0) start = length + start;
  if (end < 0) end = length + end;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= length) end = length - 1;
  if (start > end || length == 0) return w_->Bulk("");
  w_->Bulk(std::string_view(item.value).substr(static_cast<size_t>(start),
                                               static_cast<size_t>(end - start + 1)));
}

void RedisStrings::IncrByText(std::string_view key, std::string_view delta, bool negate) {
  int64_t n = 0;
  if (!RedisStringToInt64(delta, &n)) return w_->Error(kRedisErrNotInteger);
  if (negate) {
    if (n == std::numeric_limits<int64_t>::min())
      return w_->Error("ERR decrement would overflow");
    n = -n;
  }
  IncrBy(key, n);
}

void RedisStrings::IncrBy(std::string_view key, int64_t delta) {
  Item item;
  if (!Read(key, &item)) return;
  int64_t value = 0;
  if (item.live()) {
    if (!RedisStringToInt64(item.value, &value)) return w_->Error(kRedisErrNotInteger);
  } else {
    item.flags = 0;
    item.expires = 0;
  }
  if ((delta < 0 && value < 0 && delta < std::numeric_limits<int64_t>::min() - value) ||
      (delta > 0 && value > 0 && delta > std::numeric_limits<int64_t>::max() - value))
    return w_->Error(kRedisErrOverflow);
  value += delta;
  item.value = std::to_string(value);
  if (Write(key, &item)) w_->Integer(value);
}

void RedisStrings::IncrByFloat(std::string_view key, std::string_view delta) {
  Item item;
  if (!Read(key, &item)) return;
  long double value = 0, incr = 0;
  if ((item.live() && !RedisStringToLongDouble(item.value, &value)) ||
      !RedisStringToLongDouble(delta, &incr))
    return w_->Error(kRedisErrNotFloat);
  if (!item.live()) {
    item.flags = 0;
    item.expires = 0;
  }
  value += incr;
  if (std::isnan(value) || std::isinf(value)) return w_->Error(kRedisErrNanOrInfinity);
  item.value.clear();
  RedisFormatLongDouble(value, &item.value);
  if (Write(key, &item)) w_->Bulk(item.value);
}

// Every key read (and locked) first, then the rows deleted: a key given twice
// counts once; an expired row is deleted and not counted.
void RedisStrings::Del(const std::vector<std::string_view>& argv) {
  Item item;
  bool exists = false;
  for (size_t i = 1; i < argv.size(); ++i) {
    const RedisHashTarget* hash = hashes_->TargetOf(argv[i]);
    if (hash != nullptr ? !hashes_->Exists(*hash, argv[i], &exists, w_) : !Read(argv[i], &item))
      return;
  }
  int64_t deleted = 0;
  BeginAll();
  bool done = true;
  for (size_t i = 1; i < argv.size() && done; ++i) {
    if (const RedisHashTarget* hash = hashes_->TargetOf(argv[i])) {
      done = hashes_->Delete(*hash, argv[i], &exists, w_);
      deleted += done && exists;
      continue;
    }
    done = Read(argv[i], &item);
    if (!done || !item.has_row()) continue;
    done = Delete(argv[i]);
    deleted += item.live();
  }
  if (EndAll(!done)) w_->Integer(deleted);
}

// A key given twice counts twice, as in Redis.
void RedisStrings::Exists(const std::vector<std::string_view>& argv) {
  Item item;
  int64_t found = 0;
  for (size_t i = 1; i < argv.size(); ++i) {
    if (!ReadKey(argv[i], &item)) return;
    found += item.live();
  }
  w_->Integer(found);
}

// A hash key's row as a live item (without a value), or missing.
bool RedisStrings::ReadKey(std::string_view key, Item* item) {
  const RedisHashTarget* hash = hashes_->TargetOf(key);
  if (hash == nullptr) return Read(key, item);
  bool exists = false;
  if (!hashes_->Exists(*hash, key, &exists, w_)) return false;
  *item = Item();
  item->found = exists ? Found::kPresent : Found::kMissing;
  return true;
}

void RedisStrings::Type(std::string_view key) {
  Item item;
  if (!ReadKey(key, &item)) return;
  if (!item.live()) return w_->SimpleString("none");
  w_->SimpleString(hashes_->TargetOf(key) != nullptr ? "hash" : "string");
}

// EXPIRE key t [NX|XX|GT|LT] and its kin: the options, then the time (seconds or
// ms, relative or absolute), then the key; a time already past deletes the key.
void RedisStrings::Expire(const std::vector<std::string_view>& argv, bool ms, bool absolute) {
  bool nx = false, xx = false, gt = false, lt = false;
  for (size_t i = 3; i < argv.size(); ++i) {
    const std::string_view opt = argv[i].substr(0, argv[i].find('\0'));
    if (SameWord(opt, "nx")) nx = true;
    else if (SameWord(opt, "xx")) xx = true;
    else if (SameWord(opt, "gt")) gt = true;
    else if (SameWord(opt, "lt")) lt = true;
    else return w_->Error("ERR Unsupported option " + std::string(opt));
  }
  if (nx && (xx || gt || lt))
    return w_->Error("ERR NX and XX, GT or LT options at the same time are not compatible");
  if (gt && lt) return w_->Error("ERR GT and LT options at the same time are not compatible");
  int64_t when = 0;
  if (!RedisStringToInt64(argv[2], &when)) return w_->Error(kRedisErrNotInteger);
  const std::string_view name = argv[0];
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  if (!ms) {
    if (when > kMax / 1000 || when < kMin / 1000) return w_->Error(RedisErrInvalidExpire(lower));
    when *= 1000;
  }
  const int64_t base = absolute ? 0 : now_ms_;
  if (when > kMax - base) return w_->Error(RedisErrInvalidExpire(lower));
  when += base;
  if (expires_at_ < 0) return w_->Error("ERR rowsocket: the container keeps no expiry");
  Item item;
  if (!Read(argv[1], &item)) return;
  if (!item.live()) return w_->Integer(0);
  const int64_t current = item.expires == 0 ? -1 : item.expires * 1000;
  if ((nx && current != -1) || (xx && current == -1) || (gt && (current == -1 || when <= current)) ||
      (lt && current != -1 && when >= current))
    return w_->Integer(0);
  if (when <= now_ms_) {
    if (Delete(argv[1])) w_->Integer(1);
    return;
  }
  int64_t expires = 0;
  if (!ExpiryOf(when, &expires)) return;
  if (WriteExpiry(argv[1], expires)) w_->Integer(1);
}

void RedisStrings::Ttl(std::string_view key, bool ms) {
  Item item;
  if (!ReadKey(key, &item)) return;
  if (!item.live()) return w_->Integer(-2);
  if (item.expires == 0) return w_->Integer(-1);
  // (The expiry was rounded up to its second: whole seconds left are rounded down.)
  int64_t ttl = item.expires * 1000 - now_ms_;
  if (ttl < 0) ttl = 0;
  w_->Integer(ms ? ttl : ttl / 1000);
}

void RedisStrings::Persist(std::string_view key) {
  Item item;
  if (!ReadKey(key, &item)) return;
  if (!item.live() || item.expires == 0) return w_->Integer(0);
  if (WriteExpiry(key, 0)) w_->Integer(1);
}

void RedisStrings::DbSize() {
  uint64_t keys = 0, with_expiry = 0;
  const EngineStatus status = CountKeys(*container_, lookup_, &keys, &with_expiry);
  if (!status.ok()) return (void)Fail(status);
  w_->Integer(static_cast<int64_t>(keys));
}

EngineStatus RedisStrings::DeleteAll(OpenIndex* lookup, uint64_t* deleted) {
  *deleted = 0;
  const EngineStatus refusal = lookup->WriteRefusal(0);
  if (!refusal.ok()) return refusal;
  spec_.Clear();
  spec_.op = ScanOp::kGe;
  spec_.key.push_back(RowValue::Bytes(""));
  spec_.limit = UINT32_MAX;
  change_.Clear();
  change_.kind = RowWrite::kDelete;
  const RowResult row = rows_->Modify(spec_, change_, lookup);
  *deleted = row.rows_changed;
  return row.status;
}

EngineStatus RedisStrings::Scan(const KvContainer& container, OpenIndex* lookup,
                                OpenIndex* keys_index, bool from_start, const std::string& after,
                                const RedisScanOptions& options, std::vector<std::string>* keys,
                                std::string* last, bool* done) {
  Begin(container, lookup, nullptr);
  keys->clear();
  *done = true;
  // The pattern's literal prefix, up to its first special character.
  // (Only a binary key column orders keys by their bytes, so that the keys that begin
  // with the prefix are the ones from it on until the first that does not.)
  std::string_view prefix;
  if (options.has_match && key_column_->charset() == &my_charset_bin)
    prefix = options.match.substr(0, options.match.find_first_of("*?[\\"));
  const bool strings = !options.has_type || SameWord(options.type, "string");
  spec_.Clear();
  if (!from_start && after >= prefix) {
    spec_.op = ScanOp::kGt;
    spec_.key.push_back(RowValue::Bytes(after));
  } else {
    spec_.op = ScanOp::kGe;
    spec_.key.push_back(RowValue::Bytes(prefix));
  }
  // COUNT is a hint (Redis's too): a step examines at most kMaxScanCount rows.
  const uint64_t count = std::min<uint64_t>(static_cast<uint64_t>(options.count), kMaxScanCount);
  spec_.limit = static_cast<uint32_t>(count);
  // The insert index's columns: the key, the value, then CAS, flags and expiry.
  const std::vector<Field*>& columns = keys_index->columns();
  Field* expires = expires_at_ < 0 ? nullptr : columns[static_cast<size_t>(expires_at_) + 1];
  uint64_t examined = 0;
  bool past_prefix = false;
  std::string key;
  const RowResult row = rows_->Read(spec_, keys_index, [&](size_t) {
    key.clear();
    AppendFieldText(columns[0], &key);
    if (key.compare(0, prefix.size(), prefix) != 0) {
      past_prefix = true;
      return EngineStatus::TooManyRows();  // (ends the scan; no error)
    }
    ++examined;
    last->swap(key);
    const int64_t at = expires == nullptr ? 0 : FieldNumber<int64_t>(expires, &scratch_);
    if ((at != 0 && at * 1000 <= now_ms_) || !strings) return EngineStatus::OK();
    if (options.has_match && !RedisGlobMatch(options.match, *last, false)) return EngineStatus::OK();
    keys->push_back(*last);
    return EngineStatus::OK();
  });
  if (past_prefix) return EngineStatus::OK();
  if (!row.status.ok()) return row.status;
  *done = examined < count;
  return EngineStatus::OK();
}

// Every row of the key index, from its first key, within rowsocket_max_rows_examined.
EngineStatus RedisStrings::CountKeys(const KvContainer& container, OpenIndex* lookup,
                                     uint64_t* keys, uint64_t* with_expiry) {
  if (container_ != &container || lookup_ != lookup) Begin(container, lookup, nullptr);
  *keys = *with_expiry = 0;
  spec_.Clear();
  spec_.op = ScanOp::kGe;
  spec_.key.push_back(RowValue::Bytes(""));
  spec_.limit = UINT32_MAX;
  Field* expires = expires_at_ < 0 ? nullptr : lookup->columns()[expires_at_];
  const RowResult row = rows_->Read(spec_, lookup, [&](size_t) {
    const int64_t at = expires == nullptr ? 0 : FieldNumber<int64_t>(expires, &scratch_);
    if (at != 0 && at * 1000 <= now_ms_) return EngineStatus::OK();
    ++*keys;
    *with_expiry += at != 0;
    return EngineStatus::OK();
  });
  return row.status;
}

}  // namespace rowsocket
