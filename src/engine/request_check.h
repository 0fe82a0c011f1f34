// CheckRequest: whether a find, find-and-modify or insert can run on its open index
// as asked. Every such request is checked in a batch's first pass, before the batch
// plans a lock order, sorts keys or calls the storage engine, so that nothing later
// ever reads past a request's values or an index's parts.
//
// Runs on a worker thread with the open index resolved against its open table.
#pragma once

#include "engine/open_index.h"
#include "protocol/request.h"
#include "protocol/status.h"

namespace rowsocket {

// OK, or the answer the request gets instead of running:
//   kpnum      more key values than the index has parts, or IN on a part not given;
//   filterfld  a filter on a filter column the index was not opened with;
//   filterblob a filter on a BLOB/TEXT column;
//   modop      more modify values than columns, or + / - on a column that is not a
//              number;
//   idxop      an operation the index cannot do (a range, or a partial key, on a
//              HASH index);
//   fld        an insert with more values than columns;
//   1906       (SQL's ER_WARNING_NON_DEFAULT_VALUE_FOR_GENERATED_COLUMN) a write to a
//              generated or system-versioning column, which SQL refuses too;
//   triggers   (code 1) a write to a table with triggers: SQL would run them, and
//              rowsocket cannot, so it changes nothing rather than skip them.
Status CheckRequest(const Request& r, OpenIndex* oi);

}  // namespace rowsocket
