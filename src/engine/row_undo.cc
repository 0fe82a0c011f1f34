// RowUndo: recording before-images and putting them back through the handler API.
// Runs on a worker thread inside a batch.
#include "engine/row_undo.h"

namespace rowsocket {

void RowUndo::Begin(TABLE* table) {
  End();
  if (table->s->blob_fields == 0) table_ = table;
}

void RowUndo::RecordUpdate() {
  if (!active()) return;
  handler* h = table_->file;
  entries_.push_back({false, data_.size()});
  data_.append(reinterpret_cast<const char*>(table_->record[1]), table_->s->reclength);
  h->position(table_->record[0]);
  data_.append(reinterpret_cast<const char*>(h->ref), h->ref_length);
}

void RowUndo::RecordDelete() {
  if (!active()) return;
  entries_.push_back({true, data_.size()});
  data_.append(reinterpret_cast<const char*>(table_->record[0]), table_->s->reclength);
}

int RowUndo::Revert() {
  if (!active() || entries_.empty()) {
    End();
    return 0;
  }
  TABLE* table = table_;
  handler* h = table->file;
  const size_t reclength = table->s->reclength;
  int rc = h->ha_rnd_init(false);
  for (size_t i = entries_.size(); rc == 0 && i-- > 0;) {
    const uchar* before = reinterpret_cast<const uchar*>(&data_[entries_[i].offset]);
    if (entries_[i].deleted) {
      memcpy(table->record[0], before, reclength);
      rc = h->ha_write_row(table->record[0]);
    } else {
      uchar* ref = reinterpret_cast<uchar*>(&data_[entries_[i].offset + reclength]);
      rc = h->ha_rnd_pos(table->record[0], ref);
      if (rc != 0) break;
      store_record(table, record[1]);
      memcpy(table->record[0], before, reclength);
      rc = h->ha_update_row(table->record[1], table->record[0]);
      if (rc == HA_ERR_RECORD_IS_THE_SAME) rc = 0;
    }
  }
  h->ha_rnd_end();
  End();
  return rc;
}

void RowUndo::End() {
  table_ = nullptr;
  entries_.clear();
  data_.clear();
}

}  // namespace rowsocket
