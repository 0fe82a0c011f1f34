// RowRequests: the requests that touch rows — find (with IN, filters, offset and
// limit), find-and-modify (U, +, -, D and their `?` forms) and insert — run on one
// open index whose table the running batch has locked.
//
// Each returns a RowResult: the request's status and its row counts; rows (or the
// success line) go to the ResponseWriter, and a failed request leaves nothing there
// and no change behind (see RowUndo). The batch around it (locks, commit, retries)
// is EngineExecutor's. A find runs in steps: the plan (how to scan the index), the
// scan (which rows the request selects, within its budget), the change of each
// selected row (ModifyRow, row_rules.h), and the undo of a request that fails
// half-way.
//
// One per executor, used on its worker's thread.
#pragma once

#include <cstdint>
#include <type_traits>
#include <string>
#include <vector>

#include "engine/open_index.h"
#include "engine/row_undo.h"
#include "engine/server_headers.h"
#include "protocol/request.h"
#include "protocol/response.h"
#include "seam/config.h"

namespace rowsocket {

struct RowResult {
  WireStatus status;              // OK, or the error the request answered
  int engine_error = 0;       // the storage engine's error behind `status`, if any
  uint64_t rows_read = 0;     // rows a find selected
  uint64_t rows_changed = 0;  // rows updated, deleted or inserted
};

class RowRequests {
 public:
  RowRequests(THD* thd, const ServerTunables* tunables) : thd_(thd), tunables_(tunables) {}
  const ServerTunables* tunables() const { return tunables_; }
  RowRequests(const RowRequests&) = delete;
  RowRequests& operator=(const RowRequests&) = delete;

  RowResult Find(const Request& r, OpenIndex* oi, ResponseWriter* w);
  // A find without a modify part whose rows go to `take` instead of an answer: it
  // sees each selected row in record[0], with the number of the key that found it
  // (of the IN list, else 0), and may end the find with an error.
  // (It refers to the caller's callable, which outlives the call, and copies
  // nothing: no allocation per read, as a std::function's capture may need.)
  class RowTaker {
   public:
    template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, RowTaker>>>
    RowTaker(F&& take)  // NOLINT: implicit, as std::function's
        : callable_(const_cast<void*>(static_cast<const void*>(&take))),
          call_([](void* f, size_t key) {
            return (*static_cast<std::remove_reference_t<F>*>(f))(key);
          }) {}
    WireStatus operator()(size_t key) const { return call_(callable_, key); }

   private:
    void* callable_;
    WireStatus (*call_)(void*, size_t);
  };
  RowResult Read(const Request& r, OpenIndex* oi, RowTaker take);
  RowResult Insert(const Request& r, OpenIndex* oi, ResponseWriter* w);

  // How many requests so far failed on a row lock another transaction holds
  // (HA_ERR_LOCK_WAIT_TIMEOUT: the worker's THD waits for no row lock). A caller
  // compares it before and after a request, whatever the request's kind.
  uint64_t locks_met() const { return locks_met_; }

  // Ends the index scan a find left open on the table (finds of one batch on the
  // same index share a scan). Call before the table is unlocked.
  static void EndScan(TableEntry* entry);

 private:
  struct ScanPlan;
  template <typename TakeRow>
  WireStatus Scan(const Request& r, OpenIndex* oi, const ScanPlan& plan, TakeRow take_row);
  void PrepareFilters(const Request& r, OpenIndex* oi, const ScanPlan& plan);
  int BeginScan(OpenIndex* oi, bool all_columns);
  int ModifyRow(const Request& r, OpenIndex* oi, bool* changed);
  int ModifyDeferredRows(const Request& r, OpenIndex* oi, uint64_t* changed);
  WireStatus EngineError(int error);
  RowResult Fail(int error);
  void Undo(OpenIndex* oi);

  THD* thd_;
  const ServerTunables* tunables_;
  String scratch_;             // text of the column being answered
  std::string deferred_rows_;  // row positions of a find-and-modify done in two phases
  RowUndo undo_;               // rows the running find-and-modify has changed
  int engine_error_ = 0;       // the running request's handler or SQL error
  uint64_t locks_met_ = 0;     // see locks_met()
  std::vector<bool> shared_filter_;     // by filter: its column has other filters
  std::vector<uint32_t> filter_uses_;   // by filter column: filters comparing it
};

}  // namespace rowsocket
