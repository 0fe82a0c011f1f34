// LookUpRow: start_new_trans, open, read by key, commit, close.
#include "engine/rows/row_lookup.h"

namespace rowsocket {

bool LookUpRow(THD* thd, std::string_view db, std::string_view table,
               const std::vector<std::string_view>& key,
               std::vector<std::optional<std::string>>* row) {
  const std::string db_name(db), table_name(table);
  const LEX_CSTRING db_lex = {db_name.c_str(), db_name.size()};
  const LEX_CSTRING table_lex = {table_name.c_str(), table_name.size()};
  bool found = false;
  row->clear();
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
      TABLE* t = tl.table;
      t->use_all_columns();
      if (t->s->primary_key < MAX_KEY &&
          t->key_info[t->s->primary_key].user_defined_key_parts == key.size()) {
        const KEY& pk = t->key_info[t->s->primary_key];
        for (size_t i = 0; i < key.size(); ++i)
          pk.key_part[i].field->store(key[i].data(), key[i].size(), system_charset_info);
        uchar image[MAX_KEY_LENGTH];
        key_copy(image, t->record[0], &pk, pk.key_length);
        if (t->file->ha_index_read_idx_map(t->record[0], t->s->primary_key, image, HA_WHOLE_KEY,
                                           HA_READ_KEY_EXACT) == 0) {
          String value;
          for (uint i = 0; i < t->s->fields; ++i) {
            Field* f = t->field[i];
            if (f->is_null()) {
              row->emplace_back();
            } else {
              f->val_str(&value);
              row->emplace_back(std::string(value.ptr(), value.length()));
            }
          }
          found = true;
        }
      }
      thd->commit_whole_transaction_and_close_tables();
    }
    new_trans.restore_old_transaction();
  }
  thd->lex->sql_command = command;
  thd->clear_error();
  return found;
}

}  // namespace rowsocket
