// RowUndo: the before-images of the rows one find-and-modify request has changed,
// so that a request failing half-way (a duplicate key on its third row, say) can put
// its earlier rows back. An error answer then means the request had no effect, while
// the rest of its batch's transaction goes on.
//
// A record image holds BLOB/TEXT values as pointers into buffers the handler
// reuses on its next read, so their bytes are saved next to the image and the
// pointers are aimed at the saved bytes when the row is put back.
// Used by one worker's executor, on its thread, with the table locked.
#pragma once

#include <string>
#include <vector>

#include "engine/server_headers.h"

namespace rowsocket {

class RowUndo {
 public:
  // Starts recording changes to `table`.
  void Begin(TABLE* table);
  bool active() const { return table_ != nullptr; }

  // After ha_update_row: record[1] holds the row before, record[0] after.
  void RecordUpdate();
  // After ha_delete_row: record[0] still holds the deleted row.
  void RecordDelete();
  // After ha_write_row of a row the request added (a history row of a versioned
  // table): record[0] holds it.
  void RecordInsert();

  // Puts every recorded row back, newest first, and stops recording. No index scan
  // may be active on the table. Returns 0 or the handler error that stopped it.
  int Revert();
  // Forgets what was recorded and stops recording.
  void End();

 private:
  enum class Change : uint8_t { kUpdated, kDeleted, kInserted };
  struct Entry {
    Change change;
    // In data_: for updates and deletes the before-image, then (updates) the row's
    // position after the change, then each BLOB/TEXT value as a 4-byte length and
    // its bytes; for inserts the row's position.
    size_t offset;
  };

  void SaveBlobs(const uchar* record);
  void RestoreBlobs(size_t at);

  TABLE* table_ = nullptr;
  std::vector<Entry> entries_;
  std::string data_;
};

}  // namespace rowsocket
