// CheckRequest: whether a find, find-and-modify or insert can run on its open index
// as asked. Every such request is checked in a batch's first pass, before the batch
// plans a lock order, sorts keys or calls the storage engine, so that nothing later
// ever reads past a request's values or an index's parts.
//
// Runs on a worker thread with the open index resolved against its open table.
#pragma once

#include "engine/core/open_index.h"
#include "protocol/request.h"
#include "protocol/engine_status.h"

namespace rowsocket {

// OK, or the answer the request gets instead of running:
//   kpnum      more key values than the index has parts, or IN on a part not given;
//   filterfld  a filter on a filter column the index was not opened with;
//   filterblob a filter comparing a BLOB/TEXT column with a value (NULL is fine);
//   modop      + / - on a column that holds neither numbers nor text;
//   idxop      an operation the index cannot do (a range, or a partial key, on a
//              HASH index; `<=` on a partitioned table, whose handler returns the
//              rows of a backward scan from an existing key out of order);
//   1906       (SQL's ER_WARNING_NON_DEFAULT_VALUE_FOR_GENERATED_COLUMN) a write to a
//              generated or system-versioning column, which SQL refuses too;
//   triggers   (code 1) a write to a table with triggers: SQL would run them, and
//              rowsocket cannot, so it changes nothing rather than skip them.
// Values past the index's columns (an insert's or a modify's) are dropped from `r`,
// as the original plugin drops them: every later step may rely on one value per
// column at most.
EngineStatus CheckRequest(Request* r, OpenIndex* oi);

// The column that modify value `i` of `r` writes (see Request::modify_columns).
inline Field* ModifiedColumn(const Request& r, const std::vector<Field*>& columns, size_t i) {
  return columns[r.modify_columns.empty() ? i : r.modify_columns[i]];
}

// Whether find-and-modify `r` on `oi` changes (U, +, -) the value of a unique key.
// `r` must have passed CheckRequest.
bool ChangesUniqueKey(const Request& r, OpenIndex* oi);

}  // namespace rowsocket
