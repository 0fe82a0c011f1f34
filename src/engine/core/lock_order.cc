// Lock order: write batches whose requests each touch one row by a whole unique
// key run in key order, so that two write workers never take the same rows'
// locks in opposite orders.
//
// Batches of pipelined updates or deletes on random keys otherwise deadlock each
// other all the time (InnoDB rolls one back; it runs again and meets the next
// batch), where SQL's `UPDATE ... WHERE id IN (...)` takes its locks in index
// order and only waits. Reordering is safe only where it cannot be seen:
//   - every request of the group finds (and maybe changes or deletes) at most one
//     row of one and the same table, by `=` on all parts of a unique, NOT NULL
//     index whose parts hold whole column values, with no IN list;
//   - no request changes a column of a unique key (the primary key included), so no
//     request can move a row onto another request's key or take a unique value
//     another request also wants;
//   - the table has no foreign keys either way, so no request's outcome depends on
//     rows of another table or on rows the group deletes;
//   - requests on the same row keep their order (a stable sort on the index's own
//     comparison, collation included); requests on different rows then do not see
//     each other within one transaction, so their order cannot show;
//   - inserts (auto-increment ids follow execution order) make the group ineligible.
// Answers are still written in request order.
#include "engine/server_headers.h"

#include <algorithm>

#include "engine/core/executor.h"
#include "engine/rows/row_io.h"

namespace rowsocket {

bool EngineExecutor::PlanLockOrder(BatchItem* items, size_t begin, size_t end) {
  if (info_.read_only) return false;
  size_t writes = 0;
  const TableEntry* entry = nullptr;
  for (size_t i = begin; i < end; ++i) {
    OpenIndex* oi = steps_[i].index;
    if (oi == nullptr || !Member(i)) continue;  // answered already (P, errors): no row
    if (entry == nullptr) entry = oi->entry();
    if (oi->entry() != entry || entry->has_foreign_keys) return false;
    const Request& r = *items[i].request;
    if (r.type != RequestType::kFind || r.op != FindOp::kEq || r.has_in) return false;
    const KEY* key = oi->key();
    if (r.key.size() != key->user_defined_key_parts || !(key->flags & HA_NOSAME)) return false;
    for (uint p = 0; p < key->user_defined_key_parts; ++p)
      if (key->key_part[p].null_bit != 0) return false;
    // Two keys that share a prefix may name one row: their order must show.
    if (oi->HasPrefixPart(key->user_defined_key_parts)) return false;
    if (ChangesUniqueKey(r, oi)) return false;
    writes += r.modify != ModifyOp::kNone;
  }
  if (writes < 2) return false;

  // Each request's key, as the index stores it.
  lock_keys_.clear();
  key_slots_.clear();
  for (size_t i = begin; i < end; ++i) {
    if (!Member(i)) continue;
    OpenIndex* oi = steps_[i].index;
    KeySlot slot{static_cast<uint32_t>(i), oi, 0, 0};
    if (oi != nullptr) {
      KEY* key = oi->key();
      const uint length = KeyLength(key, key->user_defined_key_parts);
      const size_t offset = lock_keys_.size();
      lock_keys_.resize(offset + length);
      if (CopyKey(*items[i].request, key, reinterpret_cast<uchar*>(&lock_keys_[offset]))) {
        slot.offset = offset;
        slot.length = length;
      } else {
        lock_keys_.resize(offset);  // a key that cannot be stored finds nothing: no lock
      }
    }
    key_slots_.push_back(slot);
  }
  // By index, then key (one table: see above).
  auto before = [this](const KeySlot& a, const KeySlot& b) {
    if (a.length == 0 || b.length == 0) return a.length == 0 && b.length != 0;
    if (a.index->key_number() != b.index->key_number())
      return a.index->key_number() < b.index->key_number();
    const auto* ka = reinterpret_cast<const uchar*>(&lock_keys_[a.offset]);
    const auto* kb = reinterpret_cast<const uchar*>(&lock_keys_[b.offset]);
    return key_tuple_cmp(a.index->key()->key_part, ka, kb, a.length) < 0;
  };
  std::stable_sort(key_slots_.begin(), key_slots_.end(), before);
  return true;
}

// Runs the group's requests in the planned order, each answer into its own buffer,
// then hands the answers over in request order. A request that meets a row lock it
// may wait for ends the run (false): its connection waits apart, and the caller
// rolls the group back (a later request of that connection may have run already).
bool EngineExecutor::AnswerInLockOrder(BatchItem* items, size_t begin, size_t end) {
  if (lock_answers_.size() < end - begin) lock_answers_.resize(end - begin);
  for (const KeySlot& slot : key_slots_) {
    std::string* answer = &lock_answers_[slot.item - begin];
    answer->clear();
    BatchItem item = items[slot.item];
    item.out = answer;
    if (!Answer(item, steps_[slot.item])) continue;
    if (MayWait(items, slot.item, RowLockLimitMs())) {
      Park(items, slot.item);
      return false;
    }
    CountLockTimeout(items[slot.item]);
  }
  for (size_t i = begin; i < end; ++i) {
    if (!Member(i)) continue;
    marks_[i] = items[i].out->size();
    items[i].deferred = false;
    items[i].out->append(lock_answers_[i - begin]);
  }
  return true;
}

}  // namespace rowsocket
