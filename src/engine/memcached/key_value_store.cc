// KeyValue's commands that change an item (see key_value.h): the stores (set, add,
// replace, append, prepend, cas, ms; what each does decided in Store from what the
// read of the item found), incr, decr and ma (memcached's 64-bit unsigned rules),
// touch, delete and md. Each is the row steps of key_value.cc on the container's indexes, and ends
// in the KvResult its answer is written from (key_value_answer.cc). Runs on a worker
// thread inside a batch.
#include <charconv>
#include <ctime>

#include "engine/memcached/key_value.h"

namespace rowsocket {
namespace {

int64_t Now() { return static_cast<int64_t>(std::time(nullptr)); }

void AppendNumber(std::string* to, uint64_t n) {
  char digits[24];
  auto r = std::to_chars(digits, digits + sizeof digits, n);
  to->append(digits, static_cast<size_t>(r.ptr - digits));
}

}  // namespace

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
