// LookUpRow: one row read by its primary key outside any batch, in a transaction of
// its own, the way the server reads its own tables (start_new_trans), as a consistent
// read (no row lock waited for or taken): what an
// account login reads from mysql.global_priv and the key-value listener from
// rowsocket.containers. Not for the hot path: it opens and closes the table.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/server_headers.h"

namespace rowsocket {

// The row of `db`.`table` whose primary key parts are `key`, every column as text
// (NULL as nullopt). False if the table cannot be opened (then *opened, if given, is
// false) or has no such row. Call on a worker's thread between batches (no table of
// the batch locked).
bool LookUpRow(THD* thd, std::string_view db, std::string_view table,
               const std::vector<std::string_view>& key,
               std::vector<std::optional<std::string>>* row, bool* opened = nullptr);

// The first column's values (its NULLs left out) of every row of `db`.`table`, read
// the same way, in the table's order: false if the table cannot be opened, the read
// failed, or it has more than `max_rows` rows (the first `max_rows` are kept). For a
// small table (rowsocket.containers' names).
bool ReadFirstColumn(THD* thd, std::string_view db, std::string_view table, size_t max_rows,
                     std::vector<std::string>* values);

}  // namespace rowsocket
