// HandlerSocketHandler: the HandlerSocket protocol behind the batch core
// (core/protocol_handler.h). `P` binds an index id of the connection to an open
// index (IndexBinding), `A` logs in (rowsocket_auth=account), finds and inserts
// run on their bound index as HandlerSocket's adapters over the row operations
// (row_requests_hs.cc), checked first (request_check.h) and against the account's
// grants, and every answer is HandlerSocket's text (response.h).
//
// One per executor, on its worker's thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/core/protocol_handler.h"
#include "engine/core/worker_engine.h"
#include "engine/handlersocket/describe_index.h"

namespace rowsocket {

// The HandlerSocket request an item of this protocol carries (Speaks(item) holds).
inline Request& HsRequestOf(const BatchItem& item) { return *static_cast<Request*>(item.request); }

class HandlerSocketHandler : public ProtocolHandler {
 public:
  explicit HandlerSocketHandler(WorkerEngine* engine) : engine_(engine) {}

  bool Speaks(const BatchItem& item) const override;
  ItemTraits Traits(const BatchItem& item) const override;
  void BeginBatch(size_t count) override;
  Prepared Prepare(const BatchItem& item, size_t i) override;
  bool Run(const BatchItem& item, size_t i, const Prepared& prepared) override;
  void AnswerFailure(const BatchItem& item, const EngineStatus& status) override;
  bool TouchesOneRow(const BatchItem& item, size_t i, const Prepared& prepared) override;
  bool CopyRowKey(const BatchItem& item, size_t i, const Prepared& prepared,
                  uchar* out) override;
  void CountLockTimeout(const BatchItem& item) override;

 private:
  // A `P`: binds index id r.index_id of the connection to the index it names.
  EngineStatus BindIndex(EngineSession* session, const Request& r);
  // `A`: a nonce (`A 2`, into *value) or a login (`A 3`, `A 4`).
  EngineStatus LogIn(EngineSession* session, const Request& r, std::string* value);
  // A find or an insert on its bound index, resolved and checked.
  Prepared PrepareRows(const BatchItem& item);
  EngineStatus CheckGrants(EngineSession* session, IndexBinding* binding, OpenIndex* oi,
                         const Request& r);
  void CountResult(const Request& r, const RowResult& result);

  WorkerEngine* engine_;
  // By item of the running batch: the one value an `A 2` answers (its nonce).
  std::vector<std::string> values_;
  // By item: a `?describe`'s table and index, found in pass 1 (describe_index.h).
  std::vector<DescribeTarget> describes_;
};

// Makes the HandlerSocket handler of every worker.
std::unique_ptr<ProtocolModule> NewHandlerSocketModule();

}  // namespace rowsocket
