// KeyValue: memcached's commands as typed row operations on a container (see
// key_value.h).
#include "engine/memcached/key_value.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <ctime>

#include "engine/rows/row_io.h"
#include "protocol/engine_status.h"
#include "protocol/memcached_status.h"

namespace rowsocket {
namespace {

constexpr int64_t kRelativeLimit = 60 * 60 * 24 * 30;  // memcached: 30 days

int64_t Now() { return static_cast<int64_t>(std::time(nullptr)); }

bool Expired(int64_t expires, int64_t now) { return expires != 0 && expires <= now; }

// The index columns of a write of the first `n` (a bit by column, see
// OpenIndex::WriteRefusal).
uint64_t FirstColumns(size_t n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

void AppendNumber(std::string* to, uint64_t n) {
  char digits[24];
  auto r = std::to_chars(digits, digits + sizeof digits, n);
  to->append(digits, static_cast<size_t>(r.ptr - digits));
}

}  // namespace

int64_t KvExpiry(int64_t exptime, int64_t now) {
  if (exptime == 0) return 0;
  if (exptime < 0) return 1;  // a unix time long past
  return exptime <= kRelativeLimit ? now + exptime : exptime;
}

KvContainer KvContainer::Default() {
  KvContainer c;
  c.name = "default";
  c.db = "rowsocket";
  c.table = "kv";
  c.key_column = "k";
  c.value_columns = {"v"};
  c.cas_column = "cas";
  c.flags_column = "flags";
  c.expires_column = "expires";
  return c;
}

std::string KvContainer::LookupColumns() const {
  std::string columns;
  for (const std::string& v : value_columns) columns += (columns.empty() ? "" : ",") + v;
  for (const std::string* c : {&cas_column, &flags_column, &expires_column})
    if (!c->empty()) columns += "," + *c;
  return columns;
}

std::string KvContainer::InsertColumns() const { return key_column + "," + LookupColumns(); }

bool KvContainer::operator==(const KvContainer& o) const {
  return name == o.name && db == o.db && table == o.table && key_column == o.key_column &&
         value_columns == o.value_columns && separator == o.separator &&
         cas_column == o.cas_column && flags_column == o.flags_column &&
         expires_column == o.expires_column;
}

std::string_view KvRowKey(std::string_view key) {
  if (key.size() < 3 || key[0] != '@' || key[1] != '@') return key;
  const size_t dot = key.find('.', 2);
  return dot == std::string_view::npos ? key : key.substr(dot + 1);
}

std::string_view KvContainerName(std::string_view key) {
  if (key.size() < 3 || key[0] != '@' || key[1] != '@') return "default";
  const size_t dot = key.find('.', 2);
  return dot == std::string_view::npos ? "default" : key.substr(2, dot - 2);
}

uint64_t KeyValue::NextCas() {
  static std::atomic<uint64_t> next{static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count())};
  return next.fetch_add(1, std::memory_order_relaxed) + 1;
}

bool KeyValue::Failed(const RowResult& row, KvResult* result) {
  if (row.status.ok()) return false;
  result->outcome = McOutcome::kError;
  result->status = row.status;
  return true;
}

KeyValue::Found KeyValue::Read(std::string_view key, OpenIndex* lookup, KvItem* item,
                               KvResult* result, int text_of) {
  FindKey(key);
  bool found = false;
  const RowResult row = rows_->Read(spec_, lookup, [&](size_t) {
    ItemOfRow(key, lookup, item);
    if (text_of >= 0) {
      column_text_.clear();
      AppendFieldText(lookup->columns()[static_cast<size_t>(text_of)], &scratch_, &column_text_);
    }
    found = true;
    return EngineStatus::OK();
  });
  if (Failed(row, result) || !found) return Found::kMissing;
  return Dead(*item, Now()) ? Found::kExpired : Found::kPresent;
}

bool KeyValue::Dead(const KvItem& item, int64_t now) const {
  if (Expired(item.expires, now)) return true;
  if (flushed_below_ == 0) return false;
  return container_->cas_column.empty() || item.cas < flushed_below_;
}

// `item` as the row of `key` in record[0] holds it (the lookup index's columns: the
// value columns, then CAS, flags and expiry where the container has them).
void KeyValue::ItemOfRow(std::string_view key, OpenIndex* lookup, KvItem* item) {
  const KvContainer& c = *container_;
  const std::vector<Field*>& columns = lookup->columns();
  item->key = key;
  item->value.clear();
  size_t i = 0;
  for (; i < c.value_columns.size(); ++i) {
    if (i > 0) item->value += c.separator;
    AppendFieldText(columns[i], &scratch_, &item->value);
  }
  item->cas = c.cas_column.empty() ? 0 : FieldNumber<uint64_t>(columns[i++], &scratch_);
  item->flags = c.flags_column.empty() ? 0 : FieldNumber<uint32_t>(columns[i++], &scratch_);
  item->expires = c.expires_column.empty() ? 0 : FieldNumber<int64_t>(columns[i++], &scratch_);
  if (c.cas_column.empty()) item->cas = DerivedCas(*item);
}

// A container without a CAS column: a version of the item's content (FNV-1a of its
// value and flags), which any change to them moves, whoever makes it. Not of its
// expiry time: memcached's touch keeps the CAS.
uint64_t KeyValue::DerivedCas(const KvItem& item) {
  uint64_t h = 14695981039346656037ull;
  auto mix = [&h](const void* data, size_t size) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 1099511628211ull;
  };
  mix(item.value.data(), item.value.size());
  mix(&item.flags, sizeof item.flags);
  return h == 0 ? 1 : h;  // 0 means "no CAS" to memcached's clients
}

// The CAS a write gives `item` (its other fields final).
uint64_t KeyValue::NewCas(const KvItem& item) {
  return container_->cas_column.empty() ? DerivedCas(item) : NextCas();
}

// spec_: a find of the row of memcached's `key`.
void KeyValue::FindKey(std::string_view key) { FindRow(KvRowKey(key)); }

// spec_: a find of the row whose key column holds `row_key`.
void KeyValue::FindRow(std::string_view row_key) { spec_.FindOne(RowValue::Bytes(row_key)); }

// Appends the values a write stores, in the lookup index's order: the value split
// at the container's separator into its value columns, then CAS, flags and expiry,
// as the integers they are.
bool KeyValue::RowValues(const KvItem& item, std::vector<RowValue>* values, KvResult* result) {
  const KvContainer& c = *container_;
  std::string_view rest(item.value);
  for (size_t i = 0; i + 1 < c.value_columns.size(); ++i) {
    const size_t at = c.separator.empty() ? std::string_view::npos : rest.find(c.separator);
    if (at == std::string_view::npos) {
      result->outcome = McOutcome::kError;
      result->status =
          EngineStatus::ValueShape(static_cast<int>(c.value_columns.size()), c.separator);
      return false;
    }
    values->push_back(RowValue::Bytes(rest.substr(0, at)));
    rest.remove_prefix(at + c.separator.size());
  }
  values->push_back(RowValue::Bytes(rest));
  if (!c.cas_column.empty()) values->push_back(RowValue::Unsigned(item.cas));
  if (!c.flags_column.empty()) values->push_back(RowValue::Unsigned(item.flags));
  if (!c.expires_column.empty())
    values->push_back(RowValue::Unsigned(static_cast<uint64_t>(item.expires)));
  return true;
}

bool KeyValue::Update(std::string_view key, const KvItem& item, OpenIndex* lookup,
                      KvResult* result, uint64_t* matched) {
  change_.Clear();
  change_.kind = RowWrite::kUpdate;
  if (!RowValues(item, &change_.values, result)) return false;
  return Change(key, lookup, result, matched);
}

// Runs change_ on the row of `key`. The index was checked when it was resolved
// (OpenIndex::WriteRefusal): the write only reads what that found.
bool KeyValue::Change(std::string_view key, OpenIndex* lookup, KvResult* result,
                      uint64_t* matched) {
  uint64_t written = 0;
  if (change_.kind != RowWrite::kDelete) {
    if (change_.columns.empty()) written = FirstColumns(change_.values.size());
    for (uint32_t column : change_.columns)
      written |= column < 64 ? uint64_t{1} << column : ~uint64_t{0};
  }
  const EngineStatus refusal = lookup->WriteRefusal(written);
  if (!refusal.ok()) return !Failed(RowResult{refusal}, result);
  FindKey(key);
  const RowResult row = rows_->Modify(spec_, change_, lookup);
  if (matched != nullptr) *matched = row.rows_read;
  return !Failed(row, result);
}

bool KeyValue::Insert(std::string_view key, const KvItem& item, OpenIndex* insert,
                      KvResult* result, bool* duplicate) {
  values_.clear();
  values_.push_back(RowValue::Bytes(KvRowKey(key)));
  if (!RowValues(item, &values_, result)) return false;
  const EngineStatus refusal = insert->WriteRefusal(FirstColumns(values_.size()));
  if (!refusal.ok()) return !Failed(RowResult{refusal}, result);
  const RowResult row = rows_->Insert(values_, insert);
  *duplicate = row.engine_error == HA_ERR_FOUND_DUPP_KEY;
  if (*duplicate) return false;
  return !Failed(row, result);
}

bool KeyValue::Delete(std::string_view key, OpenIndex* lookup, KvResult* result) {
  change_.Clear();
  change_.kind = RowWrite::kDelete;
  return Change(key, lookup, result);
}

void KeyValue::Run(const McRequest& mc, const KvContainer& container, OpenIndex* lookup,
                   OpenIndex* insert, KvResult* result, uint64_t flushed_below) {
  container_ = &container;
  flushed_below_ = flushed_below;
  key_column_ = WholeColumn(lookup->key()->key_part[0]);
  if (!IsRetrieval(mc.command)) {
    // A key the key column cannot hold as it is names no item: a write of it would
    // change the row of another key (of "01" the row 1, of a key longer than a
    // CHAR(10) the row of its first ten characters).
    for (std::string_view key : mc.keys) {
      if (!HoldsExactly(key_column_, KvRowKey(key), &scratch_)) {
        result->outcome = McOutcome::kError;
        result->status = EngineStatus::NotAKey();
        return;
      }
    }
  }
  switch (mc.command) {
    case McCommand::kGet:
    case McCommand::kGets:
    case McCommand::kGat:
    case McCommand::kGats:
    case McCommand::kMetaGet:
    case McCommand::kMetaDebug:
      return Retrieve(mc, lookup, result);
    case McCommand::kStore:
    case McCommand::kMetaSet:
      return Store(mc, lookup, insert, result);
    case McCommand::kIncr:
    case McCommand::kDecr:
    case McCommand::kMetaArithmetic:
      return Arithmetic(mc, lookup, insert, result);
    case McCommand::kTouch:
      return Touch(mc, lookup, result);
    case McCommand::kDelete:
    case McCommand::kMetaDelete:
      return Remove(mc, lookup, result);
    default:
      result->outcome = McOutcome::kError;
      result->status = EngineStatus::UnknownCommand();
  }
}

bool KeyValue::IsRetrieval(McCommand command) {
  switch (command) {
    case McCommand::kGet:
    case McCommand::kGets:
    case McCommand::kGat:
    case McCommand::kGats:
    case McCommand::kMetaGet:
    case McCommand::kMetaDebug:
      return true;
    default:
      return false;
  }
}

// set, add, replace, append, prepend, cas (and ms in those modes).
void KeyValue::Store(const McRequest& mc, OpenIndex* lookup, OpenIndex* insert,
                     KvResult* result) {
  if (mc.store == McStoreMode::kSet) return Set(mc, lookup, insert, result);
  const std::string_view key = mc.keys[0];
  // append and prepend change one value column: they read its text too.
  const int extended = mc.store == McStoreMode::kAppend
                           ? static_cast<int>(container_->value_columns.size()) - 1
                           : (mc.store == McStoreMode::kPrepend ? 0 : -1);
  KvItem stored;
  const Found found = Read(key, lookup, &stored, result, extended);
  if (result->outcome == McOutcome::kError) return;
  const bool live = found == Found::kPresent;
  KvItem item;
  item.key = key;
  item.flags = mc.flags;
  item.expires = KvExpiry(mc.exptime, Now());
  item.value.assign(mc.value);
  switch (mc.store) {
    case McStoreMode::kAdd:
      if (live) {
        result->outcome = McOutcome::kNotStored;
        return;
      }
      break;
    case McStoreMode::kReplace:
      if (!live) {
        result->outcome = McOutcome::kNotStored;
        return;
      }
      break;
    case McStoreMode::kAppend:
    case McStoreMode::kPrepend:
      if (!live) {
        result->outcome = McOutcome::kNotStored;
        return;
      }
      return Extend(mc, std::move(stored), static_cast<uint32_t>(extended), lookup, result);
    case McStoreMode::kCas:
      if (!live) {
        result->outcome = McOutcome::kMiss;
        return;
      }
      if (stored.cas != mc.cas) {
        result->outcome = McOutcome::kExists;
        return;
      }
      break;
    default:  // set
      break;
  }
  item.cas = NewCas(item);
  if (found != Found::kMissing) {
    if (Update(key, item, lookup, result)) {
      result->outcome = McOutcome::kSuccess;
      result->items.push_back(std::move(item));
    }
    return;
  }
  bool duplicate = false;
  if (Insert(key, item, insert, result, &duplicate)) {
    result->outcome = McOutcome::kSuccess;
    result->items.push_back(std::move(item));
  } else if (duplicate) {
    // Another transaction inserted the key since it was read: add loses; set
    // replaces what it wrote (the row is locked from here on).
    if (mc.store == McStoreMode::kAdd) {
      result->outcome = McOutcome::kNotStored;
    } else if (Update(key, item, lookup, result)) {
      result->outcome = McOutcome::kSuccess;
      result->items.push_back(std::move(item));
    }
  }
}

// set (and ms in set mode) needs nothing of the row it replaces: one update of the key,
// and an insert only when no row matched (then, if another transaction inserted the
// key meanwhile, the update again: the row is locked from there on).
void KeyValue::Set(const McRequest& mc, OpenIndex* lookup, OpenIndex* insert, KvResult* result) {
  const std::string_view key = mc.keys[0];
  KvItem item;
  item.key = key;
  item.flags = mc.flags;
  item.expires = KvExpiry(mc.exptime, Now());
  item.value.assign(mc.value);
  item.cas = NewCas(item);
  uint64_t matched = 0;
  if (!Update(key, item, lookup, result, &matched)) return;
  bool stored = matched > 0;
  if (!stored) {
    bool duplicate = false;
    stored = Insert(key, item, insert, result, &duplicate);
    if (!stored && duplicate) stored = Update(key, item, lookup, result);
  }
  if (!stored) return;
  result->outcome = McOutcome::kSuccess;
  result->items.push_back(std::move(item));
}

// incr, decr, ma: memcached's 64-bit unsigned rules (McApplyDelta).
void KeyValue::Arithmetic(const McRequest& mc, OpenIndex* lookup, OpenIndex* insert,
                          KvResult* result) {
  const std::string_view key = mc.keys[0];
  KvItem item;
  const Found found = Read(key, lookup, &item, result);
  if (result->outcome == McOutcome::kError) return;
  if (found != Found::kPresent) {
    if (!mc.vivify) {
      result->outcome = McOutcome::kMiss;
      return;
    }
    // ma with N (binary incr/decr with an initial value): the item is created.
    item = KvItem();
    item.key = key;
    AppendNumber(&item.value, mc.initial);
    item.expires = KvExpiry(mc.vivify_exptime, Now());
    item.cas = NewCas(item);
    bool duplicate = false;
    if (found == Found::kExpired ? Update(key, item, lookup, result)
                                 : Insert(key, item, insert, result, &duplicate)) {
      result->outcome = McOutcome::kSuccess;
      result->number = mc.initial;
      result->items.push_back(std::move(item));
    } else if (duplicate) {
      result->outcome = McOutcome::kError;
      result->status = EngineStatus::Conflict(HA_ERR_FOUND_DUPP_KEY);
    }
    return;
  }
  // The number is the item's value: a container of several value columns joins
  // them with its separator, which is no number.
  const McDeltaResult delta = McApplyDelta(item.value, mc.decrement, mc.delta);
  if (!delta.numeric || container_->value_columns.size() != 1) {
    result->outcome = McOutcome::kError;
    result->status = EngineStatus::NotANumber();
    return;
  }
  item.value.assign(delta.text());
  item.cas = NewCas(item);
  if (!ChangeColumn(item, 0, item.value, lookup, result)) return;
  result->outcome = McOutcome::kSuccess;
  result->number = delta.value;
  result->items.push_back(std::move(item));
}

// touch changes the expiry time only, and keeps the CAS, as memcached's does.
void KeyValue::Touch(const McRequest& mc, OpenIndex* lookup, KvResult* result) {
  const std::string_view key = mc.keys[0];
  KvItem item;
  if (Read(key, lookup, &item, result) != Found::kPresent) {
    if (result->outcome != McOutcome::kError) result->outcome = McOutcome::kMiss;
    return;
  }
  item.expires = KvExpiry(mc.exptime, Now());
  if (ChangeExpiry(item, lookup, result)) result->outcome = McOutcome::kSuccess;
}

// append (prepend): the data goes at the end of the last value column (the start of
// the first), whose NULL reads as empty, as in the item's value; the other value
// columns, the flags and the expiry time stay as they are. The item's value is the
// old one with the data at its end (start), as memcached's.
void KeyValue::Extend(const McRequest& mc, KvItem item, uint32_t column, OpenIndex* lookup,
                      KvResult* result) {
  const bool append = mc.store == McStoreMode::kAppend;
  const std::string text = append ? column_text_ + std::string(mc.value)
                                  : std::string(mc.value) + column_text_;
  item.value = append ? item.value + std::string(mc.value) : std::string(mc.value) + item.value;
  item.cas = NewCas(item);
  if (!ChangeColumn(item, column, text, lookup, result)) return;
  result->outcome = McOutcome::kSuccess;
  result->items.push_back(std::move(item));
}

// The positions of the CAS, flags and expiry columns in the lookup index (after the
// value columns; each only where the container has it).
uint32_t KeyValue::CasAt() const { return static_cast<uint32_t>(container_->value_columns.size()); }
uint32_t KeyValue::ExpiresAt() const {
  return CasAt() + !container_->cas_column.empty() + !container_->flags_column.empty();
}

// Writes `text` into value column `column` of the row of `item`, and the item's CAS
// where the container keeps one: nothing else of the row changes.
bool KeyValue::ChangeColumn(const KvItem& item, uint32_t column, std::string_view text,
                            OpenIndex* lookup, KvResult* result) {
  change_.Clear();
  change_.kind = RowWrite::kUpdate;
  change_.columns.push_back(column);
  change_.values.push_back(RowValue::Bytes(text));
  if (!container_->cas_column.empty()) {
    change_.columns.push_back(CasAt());
    change_.values.push_back(RowValue::Unsigned(item.cas));
  }
  return Change(item.key, lookup, result);
}

// Writes the item's expiry time into the row of `item`, where the container keeps
// one (without, items never expire): nothing else of the row changes.
bool KeyValue::ChangeExpiry(const KvItem& item, OpenIndex* lookup, KvResult* result) {
  if (container_->expires_column.empty()) return true;
  change_.Clear();
  change_.kind = RowWrite::kUpdate;
  change_.columns.push_back(ExpiresAt());
  change_.values.push_back(RowValue::Unsigned(static_cast<uint64_t>(item.expires)));
  return Change(item.key, lookup, result);
}

// delete, md: an expired item is deleted too, and answered as a miss.
void KeyValue::Remove(const McRequest& mc, OpenIndex* lookup, KvResult* result) {
  const std::string_view key = mc.keys[0];
  KvItem item;
  const Found found = Read(key, lookup, &item, result);
  if (result->outcome == McOutcome::kError) return;
  if (found == Found::kMissing) {
    result->outcome = McOutcome::kMiss;
    return;
  }
  if (mc.cas != 0 && item.cas != mc.cas && found == Found::kPresent) {
    result->outcome = McOutcome::kExists;
    return;
  }
  if (!Delete(key, lookup, result)) return;
  result->outcome = found == Found::kPresent ? McOutcome::kSuccess : McOutcome::kMiss;
}

}  // namespace rowsocket

namespace rowsocket {
namespace {

McMetaItem MetaItemOf(const KvItem& item, int64_t now) {
  McMetaItem meta;
  meta.flags = item.flags;
  meta.cas = item.cas;
  meta.ttl = item.expires == 0 ? -1 : std::max<int64_t>(0, item.expires - now);
  meta.size = item.value.size();
  return meta;
}

// The text and meta answers.
void WriteText(const McRequest& mc, const KvResult& result, std::string* out) {
  McTextWriter w(out);
  const bool meta = mc.framing == McFraming::kMeta;
  if (result.outcome == McOutcome::kError) return w.Line(McTextError(result.status));
  switch (mc.command) {
    case McCommand::kGet:
    case McCommand::kGets:
    case McCommand::kGat:
    case McCommand::kGats: {
      const bool with_cas = mc.command == McCommand::kGets || mc.command == McCommand::kGats;
      for (const KvItem& item : result.items) {
        if (with_cas)
          w.ValueWithCas(item.key, item.flags, item.value, item.cas);
        else
          w.Value(item.key, item.flags, item.value);
      }
      return w.Reply(McTextReply::kEnd);
    }
    case McCommand::kMetaGet: {
      if (result.items.empty()) return w.MetaStatus("EN", mc, nullptr);
      const McMetaItem item = MetaItemOf(result.items[0], static_cast<int64_t>(std::time(nullptr)));
      if (mc.meta.Has('v')) return w.MetaValue(mc, item, result.items[0].value);
      return w.MetaStatus("HD", mc, &item);
    }
    case McCommand::kMetaDebug: {
      // What memcached's `me` says of an item, as far as a row knows it: no last
      // access time (la=0), never fetched, slab class 1, and the item's bytes.
      if (result.items.empty()) return w.MetaStatus("EN", mc, nullptr);
      const KvItem& item = result.items[0];
      const McMetaItem meta = MetaItemOf(item, static_cast<int64_t>(std::time(nullptr)));
      std::string details = "exp=" + std::to_string(meta.ttl) + " la=0 cas=" +
                            std::to_string(item.cas) + " fetch=no cls=1 size=" +
                            std::to_string(item.key.size() + item.value.size());
      return w.MetaDebug(mc, details);
    }
    case McCommand::kMetaArithmetic: {
      if (result.outcome == McOutcome::kMiss) return w.MetaStatus("NF", mc, nullptr);
      const McMetaItem item = MetaItemOf(result.items[0], static_cast<int64_t>(std::time(nullptr)));
      if (mc.meta.Has('v')) return w.MetaValue(mc, item, result.items[0].value);
      return w.MetaStatus("HD", mc, &item);
    }
    case McCommand::kIncr:
    case McCommand::kDecr:
      if (result.outcome == McOutcome::kMiss) return w.Reply(McTextReply::kNotFound);
      return w.Number(result.number);
    default:
      break;
  }
  const McMetaItem* item = nullptr;
  McMetaItem stored;
  if (!result.items.empty()) {
    stored = MetaItemOf(result.items[0], static_cast<int64_t>(std::time(nullptr)));
    item = &stored;
  }
  switch (result.outcome) {
    case McOutcome::kSuccess:
      if (meta) return w.MetaStatus("HD", mc, item);
      if (mc.command == McCommand::kDelete) return w.Reply(McTextReply::kDeleted);
      if (mc.command == McCommand::kTouch) return w.Reply(McTextReply::kTouched);
      return w.Reply(McTextReply::kStored);
    case McOutcome::kNotStored:
      return meta ? w.MetaStatus("NS", mc, nullptr) : w.Reply(McTextReply::kNotStored);
    case McOutcome::kExists:
      return meta ? w.MetaStatus("EX", mc, nullptr) : w.Reply(McTextReply::kExists);
    default:  // a miss
      return meta ? w.MetaStatus("NF", mc, nullptr) : w.Reply(McTextReply::kNotFound);
  }
}

void WriteBinary(const McRequest& mc, const KvResult& result, std::string* out) {
  McBinaryWriter w(out);
  if (result.outcome == McOutcome::kError) return w.Error(mc, McBinaryError(result.status));
  const KvItem* item = result.items.empty() ? nullptr : &result.items[0];
  switch (result.outcome) {
    case McOutcome::kSuccess:
      switch (mc.command) {
        case McCommand::kGet:
        case McCommand::kGat:
          return w.Hit(mc, item->flags, item->cas, item->value);
        case McCommand::kIncr:
        case McCommand::kDecr:
          return w.Counter(mc, result.number, item->cas);
        default:
          return w.Success(mc, item != nullptr ? item->cas : 0);
      }
    case McOutcome::kMiss:
      if (mc.command == McCommand::kGet || mc.command == McCommand::kGat) return w.Miss(mc);
      return w.Error(mc, McStatus::kKeyNotFound);
    case McOutcome::kNotStored:
      // As memcached answers in binary: add finds the key, replace misses it.
      if (mc.store == McStoreMode::kAdd) return w.Error(mc, McStatus::kKeyExists);
      if (mc.store == McStoreMode::kReplace) return w.Error(mc, McStatus::kKeyNotFound);
      return w.Error(mc, McStatus::kNotStored);
    case McOutcome::kExists:
      return w.Error(mc, McStatus::kKeyExists);
    default:
      return w.Error(mc, McBinaryError(result.status));
  }
}

}  // namespace

void WriteKvAnswer(const McRequest& mc, const KvResult& result, std::string* out) {
  if (!mc.WantsAnswer(result.outcome)) return;
  if (mc.framing == McFraming::kBinary) return WriteBinary(mc, result, out);
  WriteText(mc, result, out);
}

}  // namespace rowsocket
