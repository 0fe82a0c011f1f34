// RowUndo: the before-images of the rows one find-and-modify request has changed,
// so that a request failing half-way (a duplicate key on its third row, say) can put
// its earlier rows back. An error answer then means the request had no effect, while
// the rest of its batch's transaction goes on.
//
// Tables with BLOB/TEXT columns are not recorded: their record images point into
// buffers the handler reuses. For them a request that fails half-way keeps the rows
// it changed before the failure (documented in the README).
// Used by one worker's executor, on its thread, with the table locked.
#pragma once

#include <string>
#include <vector>

#include "engine/server_headers.h"

namespace rowsocket {

class RowUndo {
 public:
  // Starts recording changes to `table` (no-op for tables with BLOB columns).
  void Begin(TABLE* table);
  bool active() const { return table_ != nullptr; }

  // After ha_update_row: record[1] holds the row before, record[0] after.
  void RecordUpdate();
  // After ha_delete_row: record[0] still holds the deleted row.
  void RecordDelete();

  // Puts every recorded row back, newest first, and stops recording. No index scan
  // may be active on the table. Returns 0 or the handler error that stopped it.
  int Revert();
  // Forgets what was recorded and stops recording.
  void End();

 private:
  struct Entry {
    bool deleted;
    size_t offset;  // in data_: the before-image, then (updates) the row's position after
  };

  TABLE* table_ = nullptr;
  std::vector<Entry> entries_;
  std::string data_;
};

}  // namespace rowsocket
