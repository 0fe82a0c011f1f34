// RowUndo: recording before-images and putting them back through the handler API.
// Runs on a worker thread inside a batch.
#include "engine/rows/row_undo.h"

namespace rowsocket {

namespace {

// The stored BLOB/TEXT columns of `table`, in field order.
template <typename Visit>
void ForEachBlob(TABLE* table, Visit visit) {
  for (uint i = 0; i < table->s->blob_fields; ++i) {
    Field* f = table->field[table->s->blob_field[i]];
    if (f->stored_in_db()) visit(static_cast<Field_blob*>(f));
  }
}

}  // namespace

void RowUndo::Begin(TABLE* table) {
  End();
  table_ = table;
}

void RowUndo::RecordUpdate() {
  if (!active()) return;
  handler* h = table_->file;
  entries_.push_back({Change::kUpdated, data_.size()});
  data_.append(reinterpret_cast<const char*>(table_->record[1]), table_->s->reclength);
  h->position(table_->record[0]);
  data_.append(reinterpret_cast<const char*>(h->ref), h->ref_length);
  SaveBlobs(table_->record[1]);
}

void RowUndo::RecordDelete() {
  if (!active()) return;
  entries_.push_back({Change::kDeleted, data_.size()});
  data_.append(reinterpret_cast<const char*>(table_->record[0]), table_->s->reclength);
  SaveBlobs(table_->record[0]);
}

void RowUndo::RecordInsert() {
  if (!active()) return;
  handler* h = table_->file;
  entries_.push_back({Change::kInserted, data_.size()});
  h->position(table_->record[0]);
  data_.append(reinterpret_cast<const char*>(h->ref), h->ref_length);
}

// Appends the BLOB/TEXT values of the row image at `record`, whose pointers are
// valid until the handler reads its next row.
void RowUndo::SaveBlobs(const uchar* record) {
  const my_ptrdiff_t offset = record - table_->record[0];
  ForEachBlob(table_, [&](Field_blob* f) {
    const uint32 length = f->get_length(offset);
    data_.append(reinterpret_cast<const char*>(&length), sizeof length);
    if (length > 0) data_.append(reinterpret_cast<const char*>(f->get_ptr(f->ptr + offset)), length);
  });
}

// Aims the BLOB/TEXT columns of record[0] at the values saved from data_[at] on.
// data_ no longer grows while rows are put back, so the pointers stay valid.
void RowUndo::RestoreBlobs(size_t at) {
  ForEachBlob(table_, [&](Field_blob* f) {
    uint32 length;
    memcpy(&length, &data_[at], sizeof length);
    at += sizeof length;
    f->set_ptr(length, reinterpret_cast<uchar*>(&data_[at]));
    at += length;
  });
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
    const Entry& e = entries_[i];
    const uchar* before = reinterpret_cast<const uchar*>(&data_[e.offset]);
    if (e.change == Change::kInserted) {
      rc = h->ha_rnd_pos(table->record[0], reinterpret_cast<uchar*>(&data_[e.offset]));
      if (rc == 0) rc = h->ha_delete_row(table->record[0]);
    } else if (e.change == Change::kDeleted) {
      memcpy(table->record[0], before, reclength);
      RestoreBlobs(e.offset + reclength);
      rc = h->ha_write_row(table->record[0]);
    } else {
      uchar* ref = reinterpret_cast<uchar*>(&data_[e.offset + reclength]);
      rc = h->ha_rnd_pos(table->record[0], ref);
      if (rc != 0) break;
      store_record(table, record[1]);
      memcpy(table->record[0], before, reclength);
      RestoreBlobs(e.offset + reclength + h->ref_length);
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
