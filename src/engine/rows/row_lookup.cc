// LookUpRow, ReadRows: start_new_trans, open, read, commit, close.
#include "engine/rows/row_lookup.h"

namespace rowsocket {
namespace {

// Every column of the row in record[0] as text (NULL as nullopt).
void RowText(TABLE* t, std::vector<std::optional<std::string>>* row) {
  String value;
  row->clear();
  for (uint i = 0; i < t->s->fields; ++i) {
    Field* f = t->field[i];
    if (f->is_null()) {
      row->emplace_back();
    } else {
      f->val_str(&value);
      row->emplace_back(std::string(value.ptr(), value.length()));
    }
  }
}

// Opens db.table in a transaction of its own, for `read` to read, then commits and
// closes it. False if it could not be opened.
template <typename Read>
bool InOwnTransaction(THD* thd, std::string_view db, std::string_view table, Read read) {
  const std::string db_name(db), table_name(table);
  const LEX_CSTRING db_lex = {db_name.c_str(), db_name.size()};
  const LEX_CSTRING table_lex = {table_name.c_str(), table_name.size()};
  bool opened = false;
  // A consistent read, as a SELECT's: it neither waits for nor takes row locks
  // (InnoDB locks the rows a TL_READ reads in any other statement).
  const enum_sql_command command = thd->lex->sql_command;
  thd->lex->sql_command = SQLCOM_SELECT;
  {
    start_new_trans new_trans(thd);
    TABLE_LIST tl;
    tl.init_one_table(&db_lex, &table_lex, nullptr, TL_READ);
    const bool system = db == "mysql";
    const bool failed = system ? open_system_tables_for_read(thd, &tl)
                               : open_and_lock_tables(thd, &tl, false, 0);
    if (!failed) {
      opened = true;
      tl.table->use_all_columns();
      read(tl.table);
      thd->commit_whole_transaction_and_close_tables();
    }
    new_trans.restore_old_transaction();
  }
  thd->lex->sql_command = command;
  thd->clear_error();
  return opened;
}

}  // namespace

bool LookUpRow(THD* thd, std::string_view db, std::string_view table,
               const std::vector<std::string_view>& key,
               std::vector<std::optional<std::string>>* row, bool* opened) {
  bool found = false;
  row->clear();
  const bool read = InOwnTransaction(thd, db, table, [&](TABLE* t) {
    if (t->s->primary_key >= MAX_KEY ||
        t->key_info[t->s->primary_key].user_defined_key_parts != key.size())
      return;
    const KEY& pk = t->key_info[t->s->primary_key];
    for (size_t i = 0; i < key.size(); ++i)
      pk.key_part[i].field->store(key[i].data(), key[i].size(), system_charset_info);
    uchar image[MAX_KEY_LENGTH];
    key_copy(image, t->record[0], &pk, pk.key_length);
    if (t->file->ha_index_read_idx_map(t->record[0], t->s->primary_key, image, HA_WHOLE_KEY,
                                       HA_READ_KEY_EXACT) == 0) {
      RowText(t, row);
      found = true;
    }
  });
  if (opened != nullptr) *opened = read;
  return found;
}

bool ReadFirstColumn(THD* thd, std::string_view db, std::string_view table, size_t max_rows,
                     std::vector<std::string>* values) {
  values->clear();
  bool complete = true;
  const bool opened = InOwnTransaction(thd, db, table, [&](TABLE* t) {
    handler* h = t->file;
    if (h->ha_rnd_init(true) != 0) {
      complete = false;
      return;
    }
    String value;
    for (int rc = h->ha_rnd_next(t->record[0]); rc != HA_ERR_END_OF_FILE;
         rc = h->ha_rnd_next(t->record[0])) {
      if (rc != 0 || values->size() == max_rows) {
        complete = false;
        break;
      }
      Field* f = t->field[0];
      if (f->is_null()) continue;
      f->val_str(&value);
      values->emplace_back(value.ptr(), value.length());
    }
    h->ha_rnd_end();
  });
  return opened && complete;
}

}  // namespace rowsocket
