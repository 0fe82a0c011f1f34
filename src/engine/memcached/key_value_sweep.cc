// KeyValue's sweep of expired items and a flush's deletion (see key_value.h): the
// scans that find their keys, a few at a time in key order, and the deletes that
// read each row again under its lock. Runs on the memcached listener's first worker,
// between turns (expiry_sweep.cc).
#include <ctime>

#include "engine/memcached/key_value.h"
#include "engine/rows/row_io.h"

namespace rowsocket {
namespace {

int64_t Now() { return static_cast<int64_t>(std::time(nullptr)); }

bool Expired(int64_t expires, int64_t now) { return expires != 0 && expires <= now; }

}  // namespace

// spec_: at most `budget` rows in key order from the key after `cursor` (from the
// first when it is empty).
void KeyValue::StartAfter(std::string_view cursor, uint32_t budget) {
  spec_.Clear();
  spec_.op = cursor.empty() ? ScanOp::kGe : ScanOp::kGt;
  if (!cursor.empty()) spec_.key.push_back(RowValue::Bytes(cursor));
  spec_.limit = budget;
}

void KeyValue::FindExpired(OpenIndex* sweep, uint32_t budget, std::string* cursor) {
  const int64_t now = Now();
  // No key: from the index's first row.
  StartAfter(*cursor, budget);
  expired_.clear();
  Field* key = sweep->columns()[0];
  Field* expires = sweep->columns()[1];
  uint32_t examined = 0;
  const RowResult row = rows_->Read(spec_, sweep, [&](size_t) {
    ++examined;
    cursor->clear();
    AppendFieldText(key, cursor);
    if (Expired(FieldNumber<int64_t>(expires, &scratch_), now)) expired_.push_back(*cursor);
    return EngineStatus::OK();
  });
  if (!row.status.ok()) expired_.clear();
  if (!row.status.ok() || examined < budget) cursor->clear();
}

bool KeyValue::FindFlushed(const KvContainer& container, OpenIndex* scan, uint32_t budget,
                           uint64_t below, std::string* cursor) {
  StartAfter(*cursor, budget);
  expired_.clear();
  Field* key = scan->columns()[0];
  Field* cas = container.cas_column.empty() ? nullptr : scan->columns()[1];
  uint32_t examined = 0;
  const RowResult row = rows_->Read(spec_, scan, [&](size_t) {
    ++examined;
    cursor->clear();
    AppendFieldText(key, cursor);
    if (cas == nullptr || FieldNumber<uint64_t>(cas, &scratch_) < below)
      expired_.push_back(*cursor);
    return EngineStatus::OK();
  });
  if (!row.status.ok()) expired_.clear();
  if (!row.status.ok() || examined < budget) cursor->clear();
  return row.status.ok();
}

uint64_t KeyValue::DeleteFlushed(const KvContainer& container, OpenIndex* lookup,
                                 uint64_t below, bool* complete) {
  // The lookup index's columns: the value columns, then the CAS column.
  Field* cas = container.cas_column.empty() ? nullptr
                                            : lookup->columns()[container.value_columns.size()];
  uint64_t deleted = 0;
  *complete = false;
  for (const std::string& k : expired_) {
    FindRow(k);
    bool flushed = false;
    const RowResult locked = rows_->Read(spec_, lookup, [&](size_t) {
      flushed = cas == nullptr || FieldNumber<uint64_t>(cas, &scratch_) < below;
      return EngineStatus::OK();
    });
    if (!locked.status.ok()) return deleted;
    if (!flushed) continue;
    change_.Clear();
    change_.kind = RowWrite::kDelete;
    if (!rows_->Modify(spec_, change_, lookup).status.ok()) return deleted;
    ++deleted;
  }
  expired_.clear();
  *complete = true;
  return deleted;
}

uint64_t KeyValue::DeleteExpired(OpenIndex* lookup) {
  const int64_t now = Now();
  Field* expires = lookup->columns().back();
  uint64_t deleted = 0;
  for (const std::string& k : expired_) {
    FindRow(k);
    bool still_expired = false;
    const RowResult locked = rows_->Read(spec_, lookup, [&](size_t) {
      still_expired = Expired(FieldNumber<int64_t>(expires, &scratch_), now);
      return EngineStatus::OK();
    });
    if (!locked.status.ok()) break;
    if (!still_expired) continue;
    change_.Clear();
    change_.kind = RowWrite::kDelete;
    if (!rows_->Modify(spec_, change_, lookup).status.ok()) break;
    ++deleted;
  }
  expired_.clear();
  return deleted;
}

}  // namespace rowsocket
