// Lock order: write groups whose items each touch one row by a whole unique key
// run in key order, so that two write workers never take the same rows' locks in
// opposite orders, whatever protocol the items speak.
//
// Batches of pipelined updates or deletes on random keys otherwise deadlock each
// other all the time (InnoDB rolls one back; it runs again and meets the next
// batch), where SQL's `UPDATE ... WHERE id IN (...)` takes its locks in index
// order and only waits. Reordering is safe only where it cannot be seen:
//   - every item of the group touches at most one row of one and the same table,
//     named by all parts of a unique, NOT NULL index whose parts hold whole column
//     values (checked here), in a way whose order cannot show (its protocol's
//     handler says: ProtocolHandler::TouchesOneRow; e.g. it changes no column of
//     a unique key, so no item can move a row onto another item's key or take a
//     unique value another item also wants, and it takes no AUTO_INCREMENT value);
//   - the table has no foreign keys either way, so no item's outcome depends on
//     rows of another table or on rows the group deletes;
//   - items on the same row keep their order (a stable sort on the index's own
//     comparison, collation included: LockPlan); items on different rows then do
//     not see each other within one transaction, so their order cannot show.
// Answers are still written in request order.
#include "engine/server_headers.h"

#include "engine/core/executor.h"
#include "engine/rows/row_io.h"

namespace rowsocket {

// Whether every member that touches rows touches one row, as above, with at least
// two writes among them.
bool EngineExecutor::OneRowEach(BatchItem* items, size_t begin, size_t end) {
  size_t writes = 0;
  const TableEntry* entry = nullptr;
  for (size_t i = begin; i < end; ++i) {
    const Step& step = steps_[i];
    OpenIndex* oi = step.prepared.index;
    if (oi == nullptr || !Member(i)) continue;  // answered already (P, errors): no row
    if (entry == nullptr) entry = oi->entry();
    if (oi->entry() != entry || entry->has_foreign_keys || !step.prepared.more.empty())
      return false;
    const KEY* key = oi->key();
    if (!(key->flags & HA_NOSAME)) return false;
    for (uint p = 0; p < key->user_defined_key_parts; ++p)
      if (key->key_part[p].null_bit != 0) return false;
    // Two keys that share a prefix may name one row: their order must show.
    if (oi->HasPrefixPart(key->user_defined_key_parts)) return false;
    if (!step.handler->TouchesOneRow(items[i], i, step.prepared)) return false;
    writes += step.traits.writes;
  }
  return writes >= 2;
}

bool EngineExecutor::PlanLockOrder(BatchItem* items, size_t begin, size_t end) {
  if (engine_.info().read_only || !OneRowEach(items, begin, end)) return false;
  // Each item's key, as the index stores it.
  lock_plan_.Clear();
  const TABLE* table = nullptr;
  for (size_t i = begin; i < end; ++i) {
    if (!Member(i)) continue;
    const Step& step = steps_[i];
    OpenIndex* oi = step.prepared.index;
    const uint32_t item = static_cast<uint32_t>(i);
    if (oi == nullptr) {
      lock_plan_.AddKeyless(item);
      continue;
    }
    table = oi->table();
    KEY* key = oi->key();
    const uint length = KeyLength(key, key->user_defined_key_parts);
    uchar* out = lock_plan_.AddKey(item, oi->key_number(), length);
    if (!step.handler->CopyRowKey(items[i], i, step.prepared, out)) lock_plan_.DropLastKey();
  }
  // By index, then key (one table: see above).
  lock_plan_.Sort([table](uint32_t index, const uint8_t* a, const uint8_t* b, uint32_t length) {
    return key_tuple_cmp(table->key_info[index].key_part, const_cast<uchar*>(a),
                         const_cast<uchar*>(b), length) < 0;
  });
  return true;
}

// Runs the group's items in the planned order, each answer into its own buffer,
// then hands the answers over in request order. An item that meets a row lock it
// may wait for ends the run (false): its connection waits apart, and the caller
// rolls the group back (a later item of that connection may have run already).
bool EngineExecutor::AnswerInLockOrder(BatchItem* items, size_t begin, size_t end) {
  if (lock_answers_.size() < end - begin) lock_answers_.resize(end - begin);
  for (const LockSlot& slot : lock_plan_.slots()) {
    std::string* answer = &lock_answers_[slot.item - begin];
    answer->clear();
    BatchItem item = items[slot.item];
    item.out = answer;
    if (!Answer(item, slot.item)) continue;
    if (MayWait(items, slot.item, RowLockLimitMs())) {
      Park(items, slot.item);
      return false;
    }
    CountLockTimeout(items[slot.item], slot.item);
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
