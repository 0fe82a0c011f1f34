// RowRequests: the operations that touch rows, run on one open index whose table
// the running batch has locked: a read of the rows a ScanSpec selects (operator, key
// parts, IN list, filters, offset, limit), the change of each (a RowChange: update,
// +, -, delete) and an insert, with typed values (row_spec.h). HandlerSocket's find
// and insert are adapters over them that add its text answer (row_requests_hs.cc);
// a key-value protocol calls them directly.
//
// Each returns a RowResult: the operation's status and its row counts. A failed
// operation leaves no change behind (see RowUndo), and a failed HandlerSocket
// request nothing in its answer. The batch around it (locks, commit, retries) is
// EngineExecutor's. A find runs in steps: the plan (how to scan the index), the
// scan (which rows the spec selects, within its budget), the change of each
// selected row (ModifyRow, row_rules.h), and the undo of a change that fails
// half-way. Every spec and change must fit its index (ScanSpec::Check, and for
// HandlerSocket CheckRequest; a write also OpenIndex::WriteRefusal).
//
// One per executor, used on its worker's thread.
#pragma once

#include <cstdint>
#include <type_traits>
#include <string>
#include <vector>

#include "engine/core/open_index.h"
#include "engine/rows/row_spec.h"
#include "engine/rows/row_undo.h"
#include "engine/server_headers.h"
#include "protocol/request.h"
#include "protocol/response.h"
#include "seam/config.h"

namespace rowsocket {

struct RowResult {
  EngineStatus status;              // OK, or the error the request answered
  int engine_error = 0;       // the storage engine's error behind `status`, if any
  uint64_t rows_read = 0;     // rows a find selected
  uint64_t rows_changed = 0;  // rows updated, deleted or inserted
  bool has_insert_id = false; // an insert into a table with an AUTO_INCREMENT column:
  uint64_t insert_id = 0;     // the value the row got
};

class RowRequests {
 public:
  RowRequests(THD* thd, const ServerTunables* tunables) : thd_(thd), tunables_(tunables) {}
  const ServerTunables* tunables() const { return tunables_; }
  RowRequests(const RowRequests&) = delete;
  RowRequests& operator=(const RowRequests&) = delete;

  // HandlerSocket's find (and find-and-modify) and insert, answered into `w`. `r`
  // must have passed CheckRequest.
  RowResult Find(const Request& r, OpenIndex* oi, ResponseWriter* w);
  RowResult Insert(const Request& r, OpenIndex* oi, ResponseWriter* w);

  // What sees each row an operation selects, in record[0], with the number of the
  // key that found it (of the IN list, else 0); it may end the operation with an
  // error. (It refers to the caller's callable, which outlives the call, and copies
  // nothing: no allocation per read, as a std::function's capture may need.)
  class RowTaker {
   public:
    template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, RowTaker>>>
    RowTaker(F&& take)  // NOLINT: implicit, as std::function's
        : callable_(const_cast<void*>(static_cast<const void*>(&take))),
          call_([](void* f, size_t key) {
            return (*static_cast<std::remove_reference_t<F>*>(f))(key);
          }) {}
    EngineStatus operator()(size_t key) const { return call_(callable_, key); }

   private:
    void* callable_;
    EngineStatus (*call_)(void*, size_t);
  };
  // The rows `spec` selects, each to `take`.
  RowResult Read(const ScanSpec& spec, OpenIndex* oi, RowTaker take);
  // Applies `change` to each row `spec` selects (rows_read: the rows selected;
  // rows_changed: those changed); `take`, if given, sees each row as it was. All or
  // nothing: a failure puts back the rows already changed.
  RowResult Modify(const ScanSpec& spec, const RowChange& change, OpenIndex* oi,
                   const RowTaker* take = nullptr);
  // Inserts a row whose index columns, from the first (or those at the positions
  // `at` lists, one per value), hold `values` (at most one per column; NULL for the
  // AUTO_INCREMENT column asks for its next value); the others get their defaults.
  RowResult Insert(const std::vector<RowValue>& values, OpenIndex* oi,
                   const std::vector<uint32_t>* at = nullptr);

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
  EngineStatus Scan(const ScanSpec& spec, OpenIndex* oi, const ScanPlan& plan, TakeRow take_row);
  void PrepareFilters(const ScanSpec& spec, OpenIndex* oi, const ScanPlan& plan);
  int BeginScan(OpenIndex* oi, bool all_columns);
  int ModifyRow(const RowChange& change, OpenIndex* oi, bool* changed);
  int ModifyDeferredRows(const RowChange& change, OpenIndex* oi, uint64_t* changed);
  // A HandlerSocket request's scan and change, in hs_spec_ and hs_change_.
  void SpecOf(const Request& r);
  EngineStatus EngineError(int error);
  static EngineStatus StatusOfError(int error);
  RowResult Fail(int error);
  void Undo(OpenIndex* oi);

  THD* thd_;
  const ServerTunables* tunables_;
  ScanSpec hs_spec_;           // the running HandlerSocket request's (SpecOf)
  RowChange hs_change_;
  std::vector<RowValue> hs_values_;  // and an insert's values
  std::string deferred_rows_;  // row positions of a find-and-modify done in two phases
  RowUndo undo_;               // rows the running find-and-modify has changed
  int engine_error_ = 0;       // the running request's handler or SQL error
  uint64_t locks_met_ = 0;     // see locks_met()
  std::vector<bool> shared_filter_;     // by filter: its column has other filters
  std::vector<uint32_t> filter_uses_;   // by filter column: filters comparing it
};

}  // namespace rowsocket
