// The container mapping's reads and bindings that memcached's and Redis's handlers
// share (container_map.h). Runs on a worker thread.
#include "engine/memcached/container_map.h"

#include <optional>
#include <string>
#include <vector>

#include "engine/rows/row_io.h"
#include "engine/rows/row_lookup.h"
#include "protocol/name_list.h"

namespace rowsocket {

bool ReadContainerMapping(THD* thd, std::string_view name, KvContainer* c, bool* opened) {
  // name, db_schema, db_table, key_column, value_columns, value_separator,
  // flags_column, cas_column, expires_column
  std::vector<std::optional<std::string>> row;
  bool found = LookUpRow(thd, "rowsocket", "containers", {name}, &row, opened) &&
               row.size() >= 9 && row[0] && row[1] && row[2] && row[3] && row[4];
  if (found) {
    *c = KvContainer();
    c->name = *row[0];
    c->db = *row[1];
    c->table = *row[2];
    c->key_column = *row[3];
    for (std::string_view column : SplitNameList(*row[4])) c->value_columns.emplace_back(column);
    c->separator = row[5].value_or("|");
    c->flags_column = row[6].value_or("");
    c->cas_column = row[7].value_or("");
    c->expires_column = row[8].value_or("");
    return !c->value_columns.empty();
  }
  if (name != "default") return false;
  *c = KvContainer::Default();
  return true;
}

bool ContainerMappingReads::Read(THD* thd, std::string_view name, KvContainer* container,
                                 uint64_t* generation) {
  std::lock_guard<std::mutex> hold(mutex_);
  std::optional<KvContainer> found;
  bool opened = false;
  if (ReadContainerMapping(thd, name, container, &opened)) found = *container;
  if (!opened) {  // (not a change: what the others read stays theirs)
    *generation = generation_.load(std::memory_order_relaxed);
    return found.has_value();
  }
  bool changed = false;
  auto remember = [&](const std::string& key) {
    auto last = last_read_.find(key);
    if (last == last_read_.end()) {
      if (last_read_.size() >= kMaxNames) {
        last_read_.clear();
        changed = true;
      }
      last_read_.emplace(key, found);
    } else if (!(last->second == found)) {
      last->second = found;
      changed = true;
    }
  };
  remember(std::string(name));
  if (found && found->name != name) remember(found->name);
  if (changed) generation_.fetch_add(1, std::memory_order_release);
  *generation = generation_.load(std::memory_order_relaxed);
  return found.has_value();
}

EngineStatus BindContainerIndexes(WorkerEngine* engine, ContainerBinding* binding,
                                  const KvContainer& container) {
  for (std::unique_ptr<IndexBinding>* b : {&binding->lookup, &binding->insert, &binding->values}) {
    engine->Retire(b->get());
    b->reset();
  }
  TableCache& tables = engine->tables();
  const Opened<TableEntry> table = tables.Get(container.db, container.table);
  if (!table.ok()) return table.error;
  EngineStatus s = tables.Reopen(table.value);
  if (!s.ok()) return s;
  const TABLE* t = table.value->table;
  std::string index;
  for (uint k = 0; k < t->s->keys && index.empty(); ++k) {
    const KEY& key = t->key_info[k];
    const uint parts = key.user_defined_key_parts;
    const bool key_alone =
        parts == 1 || (parts == 2 && t->versioned() &&
                       key.key_part[1].fieldnr == t->vers_end_field()->field_index + 1);
    if ((key.flags & HA_NOSAME) && key_alone &&
        SameName(key.key_part[0].field->field_name.str, container.key_column))
      index = key.name.str;
  }
  if (index.empty()) return EngineStatus::NoSuchIndex();
  binding->container = container;
  binding->grants = IndexGrants();
  binding->lookup = std::make_unique<IndexBinding>();
  binding->insert = std::make_unique<IndexBinding>();
  binding->values = std::make_unique<IndexBinding>();
  for (IndexBinding* b : {binding->lookup.get(), binding->insert.get(), binding->values.get()}) {
    b->db = container.db;
    b->table = container.table;
    b->index = index;
  }
  binding->lookup->columns = container.LookupColumns();
  binding->insert->columns = container.InsertColumns();
  binding->values->columns = container.ValueColumns();
  return EngineStatus::OK();
}

bool KvTouchesOneRow(const OpenIndex* lookup, const OpenIndex* written, bool inserts) {
  if (lookup->key_parts() != 1) return false;
  if (written == nullptr) return true;  // it reads
  const TABLE* table = lookup->table();
  if (inserts && table->found_next_number_field != nullptr) return false;
  for (const OpenIndex* oi : {lookup, written}) {
    for (Field* column : oi->columns()) {
      if (column->field_index + 1u == lookup->key()->key_part[0].fieldnr) continue;
      for (uint k = 0; k < table->s->keys; ++k)
        if ((table->key_info[k].flags & HA_NOSAME) && column->part_of_key.is_set(k))
          return false;
    }
  }
  return true;
}

bool KvCopyRowKey(std::string_view row_key, OpenIndex* lookup, uchar* out) {
  ScanSpec key;
  key.FindOne(RowValue::Bytes(row_key));
  return CopyKey(key, 0, lookup->key(), out);
}

}  // namespace rowsocket
