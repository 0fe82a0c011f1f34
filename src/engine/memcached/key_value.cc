// KeyValue: memcached's commands as typed row operations on a container (see
// key_value.h): the containers and their keys, the CAS, the row steps every command
// is made of (read an item, update, insert, delete or change some columns of its row,
// with the write refusals of the container's index), and Run, which hands a command to
// its kind: retrievals (key_value_get.cc), the commands that change an item
// (key_value_store.cc). Runs on a worker thread inside a batch.
#include "engine/memcached/key_value.h"

#include <atomic>
#include <chrono>
#include <ctime>

#include "engine/rows/row_io.h"
#include "protocol/engine_status.h"
#include "protocol/memcached_commands.h"

namespace rowsocket {
namespace {

constexpr int64_t kRelativeLimit = 60 * 60 * 24 * 30;  // memcached: 30 days

int64_t Now() { return static_cast<int64_t>(std::time(nullptr)); }

bool Expired(int64_t expires, int64_t now) { return expires != 0 && expires <= now; }

// The index columns of a write of the first `n` (a bit by column, see
// OpenIndex::WriteRefusal).
uint64_t FirstColumns(size_t n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

// `c`'s value columns, then its CAS and flags (where asked) and its expiry.
std::string ContainerColumns(const KvContainer& c, bool cas_and_flags) {
  std::string columns;
  for (const std::string& v : c.value_columns) columns += (columns.empty() ? "" : ",") + v;
  for (const std::string* column : {&c.cas_column, &c.flags_column, &c.expires_column})
    if (!column->empty() && (cas_and_flags || column == &c.expires_column))
      columns += "," + *column;
  return columns;
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

std::string KvContainer::LookupColumns() const { return ContainerColumns(*this, true); }

std::string KvContainer::InsertColumns() const { return key_column + "," + LookupColumns(); }

std::string KvContainer::ValueColumns() const { return ContainerColumns(*this, false); }

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
      AppendFieldText(lookup->columns()[static_cast<size_t>(text_of)], &column_text_);
    }
    found = true;
    return EngineStatus::OK();
  });
  if (Failed(row, result) || !found) return Found::kMissing;
  return Dead(*item, Now()) ? Found::kExpired : Found::kPresent;
}

bool KeyValue::Dead(const KvItem& item, int64_t now) const {
  return Dead(item.expires, item.cas, now);
}

bool KeyValue::Dead(int64_t expires, uint64_t cas, int64_t now) const {
  if (Expired(expires, now)) return true;
  if (flushed_below_ == 0) return false;
  return container_->cas_column.empty() || cas < flushed_below_;
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
    AppendFieldText(columns[i], &item->value);
  }
  item->cas = c.cas_column.empty() ? 0 : FieldNumber<uint64_t>(columns[i++], &scratch_);
  item->flags = c.flags_column.empty() ? 0 : FieldNumber<uint32_t>(columns[i++], &scratch_);
  item->expires = c.expires_column.empty() ? 0 : FieldNumber<int64_t>(columns[i++], &scratch_);
  if (c.cas_column.empty()) item->cas = DerivedCas(*item);
}

// A container without a CAS column: a version of the item's content (FNV-1a of its
// value and flags), which any change to them moves, whoever makes it. Not of its
// expiry time: memcached's touch keeps the CAS.
uint64_t KeyValue::DerivedCas(std::string_view value, uint32_t flags) {
  uint64_t h = 14695981039346656037ull;
  auto mix = [&h](const void* data, size_t size) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 1099511628211ull;
  };
  mix(value.data(), value.size());
  mix(&flags, sizeof flags);
  return h == 0 ? 1 : h;  // 0 means "no CAS" to memcached's clients
}

uint64_t KeyValue::DerivedCas(const KvItem& item) { return DerivedCas(item.value, item.flags); }

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
  return McCommandProperties(command).retrieves;
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

}  // namespace rowsocket
