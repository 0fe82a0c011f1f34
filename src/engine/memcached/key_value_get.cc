// KeyValue's retrievals (get, gets, gat, gats, mg, me; see key_value.h): the keys
// of a command are one IN scan of the key column; a text get or gets writes its
// hits into the answer straight from the rows. Runs on a worker thread inside a
// batch.
#include <ctime>

#include "engine/memcached/key_value.h"
#include "engine/rows/row_io.h"
#include "protocol/engine_status.h"
#include "protocol/memcached_commands.h"
#include "protocol/memcached_status.h"

namespace rowsocket {
namespace {

int64_t Now() { return static_cast<int64_t>(std::time(nullptr)); }

}  // namespace

// spec_: one find of the rows of `mc`'s keys, an IN list of the key column, with
// in_keys_ the key of each IN value; a key the column cannot hold as it is is left
// out (a miss). False if none is left.
bool KeyValue::FindKeys(const McRequest& mc) {
  spec_.Clear();
  spec_.key.push_back(RowValue::Bytes(""));
  spec_.has_in = true;
  in_keys_.clear();
  for (size_t k = 0; k < mc.keys.size(); ++k) {
    RowValue row_key;
    if (!ExactKey(key_column_, KvRowKey(mc.keys[k]), &scratch_, &row_key)) continue;
    spec_.in_values.push_back(row_key);
    in_keys_.push_back(k);
  }
  spec_.limit = static_cast<uint32_t>(in_keys_.size());
  return !in_keys_.empty();
}

void KeyValue::Answer(const McRequest& mc, const KvContainer& container, OpenIndex* lookup,
                      OpenIndex* insert, uint64_t flushed_below, std::string* out) {
  const bool plain_get = mc.command == McCommand::kGet || mc.command == McCommand::kGets;
  hits_ = expired_met_ = flushed_met_ = 0;
  if (plain_get && mc.framing == McFraming::kText && !mc.noreply) {
    container_ = &container;
    flushed_below_ = flushed_below;
    key_column_ = WholeColumn(lookup->key()->key_part[0]);
    const McOutcome outcome = RetrieveInto(mc, lookup, out);
    return Count(mc, outcome);
  }
  KvResult result;
  Run(mc, container, lookup, insert, &result, flushed_below);
  hits_ = static_cast<uint32_t>(result.items.size());
  Count(mc, result.outcome);
  WriteKvAnswer(mc, result, out);
}

// get and gets in text (see Answer): each hit's `VALUE` line and value go into the
// answer as the scan reads its row, the value's bytes straight from the row (those
// of several value columns joined once, in value_text_); the answer is the one
// Retrieve's items make, and an error takes back what was written.
McOutcome KeyValue::RetrieveInto(const McRequest& mc, OpenIndex* lookup, std::string* out) {
  McTextWriter w(out);
  if (!FindKeys(mc)) {
    w.Reply(McTextReply::kEnd);
    return McOutcome::kMiss;
  }
  const int64_t now = Now();
  const bool with_cas = mc.command == McCommand::kGets;
  const KvContainer& c = *container_;
  const std::vector<Field*>& columns = lookup->columns();
  // The lookup index's columns: the value columns, then CAS, flags and expiry where
  // the container has them.
  const size_t value_columns = c.value_columns.size();
  Field* cas = c.cas_column.empty() ? nullptr : columns[CasAt()];
  Field* flags = c.flags_column.empty() ? nullptr : columns[CasAt() + !c.cas_column.empty()];
  Field* expires = c.expires_column.empty() ? nullptr : columns[ExpiresAt()];
  const uint64_t max_answer = rows_->tunables()->max_answer_size.load(std::memory_order_relaxed);
  const size_t mark = out->size();
  uint64_t answer_size = 0;
  bool too_large = false;
  const RowResult row = rows_->Read(spec_, lookup, [&](size_t in) {
    // The numbers first: a value's text may be the scratch buffer's.
    uint64_t item_cas = cas == nullptr ? 0 : FieldNumber<uint64_t>(cas, &scratch_);
    const int64_t item_expires = expires == nullptr ? 0 : FieldNumber<int64_t>(expires, &scratch_);
    if (Dead(item_expires, item_cas, now)) {
      NoteDead(item_expires, now);
      return EngineStatus::OK();
    }
    const uint32_t item_flags = flags == nullptr ? 0 : FieldNumber<uint32_t>(flags, &scratch_);
    std::string_view data;
    if (value_columns == 1) {
      data = FieldText(columns[0], &scratch_);
    } else {
      value_text_.clear();
      for (size_t i = 0; i < value_columns; ++i) {
        if (i > 0) value_text_ += c.separator;
        AppendFieldText(columns[i], &value_text_);
      }
      data = value_text_;
    }
    if (with_cas && cas == nullptr) item_cas = DerivedCas(data, item_flags);
    const std::string_view key = mc.keys[in_keys_[in]];
    answer_size += key.size() + data.size() + kKvItemFraming;
    if (max_answer != 0 && answer_size > max_answer) {
      too_large = true;
      return EngineStatus::TooBig();
    }
    if (with_cas)
      w.ValueWithCas(key, item_flags, data, item_cas);
    else
      w.Value(key, item_flags, data);
    ++hits_;
    return EngineStatus::OK();
  });
  if (!row.status.ok()) {  // (too large, or the read failed)
    out->resize(mark);
    w.Line(McTextError(too_large ? EngineStatus::TooBig() : row.status));
    return McOutcome::kError;
  }
  w.Reply(McTextReply::kEnd);
  return hits_ == 0 ? McOutcome::kMiss : McOutcome::kSuccess;
}

// get, gets, gat, gats, mg: the hits, in key order; gat and gats (and mg with T)
// give every hit its new expiry time. The keys are looked up in one find, as an IN
// list of the key column; a key the column cannot hold as it is is a miss.
void KeyValue::Retrieve(const McRequest& mc, OpenIndex* lookup, KvResult* result) {
  const bool touch = McWritesRows(mc);  // (a retrieval writes only the expiry)
  const int64_t now = Now();
  result->outcome = McOutcome::kMiss;
  if (!FindKeys(mc)) return;
  // A key named many times is answered as often (as memcached does), within the
  // answer's budget: the items are held until the answer is written.
  const uint64_t max_answer = rows_->tunables()->max_answer_size.load(std::memory_order_relaxed);
  uint64_t answer_size = 0;
  bool too_large = false;
  const RowResult row = rows_->Read(spec_, lookup, [&](size_t in) {
    KvItem item;
    ItemOfRow(mc.keys[in_keys_[in]], lookup, &item);
    if (Dead(item, now)) {
      NoteDead(item.expires, now);
      return EngineStatus::OK();
    }
    answer_size += item.key.size() + item.value.size() + kKvItemFraming;
    if (max_answer != 0 && answer_size > max_answer) {
      too_large = true;
      return EngineStatus::TooBig();
    }
    result->items.push_back(std::move(item));
    return EngineStatus::OK();
  });
  if (too_large) {
    result->items.clear();
    result->items.shrink_to_fit();
    result->outcome = McOutcome::kError;
    result->status = EngineStatus::TooBig();
    return;
  }
  if (Failed(row, result)) {
    result->items.clear();
    return;
  }
  if (touch) {
    for (KvItem& item : result->items) {
      item.expires = KvExpiry(mc.exptime, now);
      if (!ChangeExpiry(item, lookup, result)) return;
    }
  }
  result->outcome = result->items.empty() ? McOutcome::kMiss : McOutcome::kSuccess;
}

}  // namespace rowsocket
