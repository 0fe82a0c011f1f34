// ProtocolHandler: what the batch core (executor.h) asks of a protocol. The core
// runs every batch the same way — prepare each item, plan the group's lock order,
// run the group in one transaction, retry, split per connection — and knows no
// protocol: for each item it asks the handler of the protocol the item speaks to
// describe the item (ItemTraits: the properties its command declares), to prepare
// it (bind and resolve what it touches, or decide its answer now), to run it
// inside the group's transaction, to answer a failure in its protocol's words, and
// to name the one row it touches for the lock-order plan.
//
// A protocol is a folder of src/engine with a ProtocolModule, registered in
// src/engine/protocols.cc; the core reads the registrations and nothing else.
//
// A module lives as long as the engine (any thread creates it; its handlers are
// made on their workers' threads). A handler belongs to one executor, on that
// executor's worker thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/server_headers.h"
#include "protocol/engine_status.h"
#include "seam/executor.h"

namespace rowsocket {

class OpenIndex;
class WorkerEngine;
struct EngineOptions;

// What an item's command is, as its protocol declares it: the core applies the
// refusals every protocol shares (login gating, read_only, Galera readiness) and
// decides the group's locks from these alone.
struct ItemTraits {
  bool touches_rows = false;  // reads or changes rows of a table
  bool writes = false;        // changes rows: a write, refused by read_only
  bool locking_read = true;   // its reads lock what they read (false: a snapshot,
                              // as a group of nothing but such reads is run)
  uint sync_wait = 0;         // the wsrep_sync_wait bits that cover it
  bool before_login = true;   // allowed before an account login (where one is asked)
  bool logs_in = false;       // the account login itself
  // It changes what the connection's later requests mean (a login, binding an id
  // again): it must not take effect after requests of its connection that touch
  // rows in the same batch, which may yet wait for a lock.
  bool sets_up_connection = false;
};

// What preparing an item decided.
struct Prepared {
  EngineStatus status;           // the answer decided now, when `answered`
  bool answered = false;       // nothing to run: Run writes the answer of `status`
  OpenIndex* index = nullptr;  // the index whose table the run uses (null: none)
  std::vector<OpenIndex*> more;  // indexes of other tables it uses too (a command of
                                 // several containers); locked with `index`'s
};

class ProtocolHandler {
 public:
  virtual ~ProtocolHandler() = default;

  // Whether `item` speaks this handler's protocol.
  virtual bool Speaks(const BatchItem& item) const = 0;
  // The declared properties of the item's command.
  virtual ItemTraits Traits(const BatchItem& item) const = 0;

  // A new batch of `count` items begins (item positions index the handler's own
  // per-item state, if it keeps any).
  virtual void BeginBatch(size_t count) {}
  // Pass 1, in item order, before any row is touched: binds and resolves what item
  // `i` touches, or decides its answer. The core has applied login gating and the
  // server state's refusals already; after, it refuses a write to a table a Galera
  // node may not write (one without a primary key).
  virtual Prepared Prepare(const BatchItem& item, size_t i) = 0;
  // Writes the answer of item `i` (run inside the group's transaction when it was
  // not answered in pass 1) to item.out. True if it met a row lock another
  // transaction holds: its answer is then the lock error, and the core decides
  // whether it waits apart.
  virtual bool Run(const BatchItem& item, size_t i, const Prepared& prepared) = 0;
  // Writes `status` (a failure the core met: a lock, a kill, a failed commit) as
  // the item's answer in the protocol's words.
  virtual void AnswerFailure(const BatchItem& item, const EngineStatus& status) = 0;

  // The lock-order plan (lock_order.cc). Whether prepared item `i` touches at most
  // the one row a whole key of prepared.index names, such that running it out of
  // request order (after or before other rows' items) cannot show. The core checks
  // the index itself (unique, NOT NULL, whole columns, no foreign keys, one table).
  virtual bool TouchesOneRow(const BatchItem& item, size_t i, const Prepared& prepared) = 0;
  // Writes that row's key image (KeyLength bytes of all the index's parts) to
  // `out`; false if the key can name no row (a NULL for a NOT NULL part).
  virtual bool CopyRowKey(const BatchItem& item, size_t i, const Prepared& prepared,
                          uchar* out) = 0;

  // Counters of an item that answered its lock wait timeout.
  virtual void CountLockTimeout(const BatchItem& item) {}
  // Between batches (Executor::Tick): the protocol's periodic work.
  virtual void Tick(uint64_t now_ms) {}
};

// One protocol of the engine: made once, it makes the handler of each worker.
class ProtocolModule {
 public:
  virtual ~ProtocolModule() = default;
  // Runs on the worker thread, before its first batch. Null: the protocol has
  // nothing to do on this worker (its listener speaks another).
  virtual std::unique_ptr<ProtocolHandler> NewHandler(WorkerEngine* engine) = 0;
};

// Every protocol the engine speaks (protocols.cc: one registration each).
std::vector<std::unique_ptr<ProtocolModule>> RegisteredProtocols(const EngineOptions& options);

}  // namespace rowsocket
