// TableCache: opening tables with an explicit-duration metadata lock, the way
// the server's own HANDLER statement keeps tables open between statements, and
// closing them when DDL needs them. Runs on a worker thread, between batches.
#include "engine/core/table_cache.h"

#include "protocol/engine_status.h"
#include "util/log.h"

namespace rowsocket {

TableCache::~TableCache() { CloseAll(); }

namespace {

// A name the server could never have given a table: empty, too long for its
// metadata lock key (which would silently cut it), or holding a NUL byte.
bool ImpossibleName(std::string_view name) {
  return name.empty() || name.size() > NAME_LEN || name.find('\0') != std::string_view::npos;
}

}  // namespace

Opened<TableEntry> TableCache::Get(std::string_view db, std::string_view name) {
  if (ImpossibleName(db) || ImpossibleName(name))
    return Opened<TableEntry>::Failed(EngineStatus::TableOpenFailed());
  std::string key;
  key.reserve(db.size() + name.size() + 1);
  key.append(db).push_back('\0');
  key.append(name);
  auto it = entries_.find(key);
  TableEntry* entry;
  if (it != entries_.end()) {
    entry = it->second.get();
  } else {
    auto e = std::make_unique<TableEntry>();
    e->db.assign(db);
    e->name.assign(name);
    const EngineStatus status = Open(e.get());
    if (!status.ok()) return Opened<TableEntry>::Failed(status);  // not remembered
    entry = e.get();
    entries_.emplace(std::move(key), std::move(e));
    return Opened<TableEntry>::Of(entry);
  }
  const EngineStatus status = entry->table ? EngineStatus::OK() : Open(entry);
  return status.ok() ? Opened<TableEntry>::Of(entry) : Opened<TableEntry>::Failed(status);
}

EngineStatus TableCache::Reopen(TableEntry* entry) {
  const EngineStatus status = entry->table ? EngineStatus::OK() : Open(entry);
  if (status.ok() && !entry->cascade_children.empty()) CheckCascades(entry);
  return status;
}

EngineStatus TableCache::Open(TableEntry* entry) {
  std::string key = entry->db;
  key.push_back('\0');
  key.append(entry->name);
  if (lock_timed_out_.count(key) != 0) {
    met_lock_ = true;
    return EngineStatus::TableOpenFailed();
  }
  MakeRoom();
  LEX_CSTRING db{entry->db.c_str(), entry->db.size()};
  LEX_CSTRING name{entry->name.c_str(), entry->name.size()};
  TABLE_LIST& tl = entry->table_list;
  tl.init_one_table(&db, &name, &name, for_writes_ ? TL_WRITE : TL_READ);
  // The lock is requested with transaction duration (open_tables() can back off
  // and retry only those) and made explicit once the table is open.
  MDL_REQUEST_INIT(&tl.mdl_request, MDL_key::TABLE, db.str, name.str,
                   for_writes_ ? MDL_SHARED_WRITE : MDL_SHARED_READ, MDL_TRANSACTION);
  tl.required_type = TABLE_TYPE_NORMAL;

  TABLE* saved_open_tables = thd_->open_tables;
  thd_->set_open_tables(nullptr);
  MDL_savepoint savepoint = thd_->mdl_context.mdl_savepoint();
  TABLE_LIST* list = &tl;
  uint counter = 0;
  // The backup/FTWRL protection that SQL takes here with statement duration is
  // taken per write batch instead (EngineExecutor): a table kept open must not
  // hold it, or FLUSH TABLES WITH READ LOCK and backups would wait for ever.
  bool failed = open_tables(thd_, &list, &counter, MYSQL_OPEN_SKIP_SCOPED_MDL_LOCK);
  if (!failed && (tl.table == nullptr || tl.table->s->tmp_table != NO_TMP_TABLE)) failed = true;
  if (failed) {
    if (thd_->is_error() && thd_->get_stmt_da()->sql_errno() == ER_LOCK_WAIT_TIMEOUT) {
      lock_timed_out_.insert(std::move(key));
      met_lock_ = true;
    }
    close_thread_tables(thd_);
    thd_->mdl_context.rollback_to_savepoint(savepoint);
    thd_->set_open_tables(saved_open_tables);
    thd_->clear_error();
    return EngineStatus::TableOpenFailed();
  }
  TABLE* table = tl.table;
  thd_->set_open_tables(saved_open_tables);
  entry->mdl_ticket = tl.mdl_request.ticket;
  thd_->mdl_context.set_lock_duration(entry->mdl_ticket, MDL_EXPLICIT);
  table->open_by_handler = 1;
  table->next = nullptr;
  table->pos_in_table_list = &tl;
  entry->table = table;
  List<FOREIGN_KEY_INFO> foreign_keys;  // on the THD's memory root, freed with the batch
  entry->has_foreign_keys = table->file->referenced_by_foreign_key() ||
                            table->file->get_foreign_key_list(thd_, &foreign_keys) != 0 ||
                            !foreign_keys.is_empty();
  entry->cascade_children.clear();
  List<FOREIGN_KEY_INFO> referencing;
  if (for_writes_ && table->file->referenced_by_foreign_key() &&
      table->file->get_parent_foreign_key_list(thd_, &referencing) == 0) {
    List_iterator_fast<FOREIGN_KEY_INFO> it(referencing);
    while (FOREIGN_KEY_INFO* fk = it++) {
      TableEntry::CascadeChild child;
      child.on_update = fk_modifies_child(fk->update_method);
      child.on_delete = fk_modifies_child(fk->delete_method);
      if (!child.on_update && !child.on_delete) continue;
      child.db.assign(fk->foreign_db->str, fk->foreign_db->length);
      child.name.assign(fk->foreign_table->str, fk->foreign_table->length);
      entry->cascade_children.push_back(std::move(child));
    }
  }
  entry->key_buffer.assign(table->s->max_key_length + 8, 0);
  entry->filter_record.assign(table->s->rec_buff_length + 8, 0);
  entry->key_record.assign(table->s->rec_buff_length + 8, 0);
  ++entry->generation;
  ++open_count_;
  Log(LogLevel::kDebug, "opened table %s.%s", entry->db.c_str(), entry->name.c_str());
  return EngineStatus::OK();
}

void TableCache::CheckCascades(TableEntry* entry) {
  MarkUsed(entry);  // (not closed to make room for a child)
  entry->update_cascades_into_virtual = entry->delete_cascades_into_virtual = false;
  for (size_t i = 0; i < entry->cascade_children.size(); ++i) {
    // (Get may open a table, which may make room: the copy outlives any entry moved.)
    const TableEntry::CascadeChild child = entry->cascade_children[i];
    const Opened<TableEntry> opened = Get(child.db, child.name);
    if (opened.ok() && opened.value->table->s->virtual_fields == 0) continue;
    entry->update_cascades_into_virtual |= child.on_update;
    entry->delete_cascades_into_virtual |= child.on_delete;
  }
}

// The tables rowsocket keeps open count against table_open_cache like any other:
// while the server's cache is full, this worker gives back its least recently used
// table (one its running batch does not use) before it opens another.
void TableCache::MakeRoom() {
  while (open_count_ > 0 && tc_records() >= tc_size) {
    TableEntry* oldest = nullptr;
    for (auto& kv : entries_) {
      TableEntry* e = kv.second.get();
      if (e->table == nullptr || e->batch_mark == batch_number_) continue;
      if (oldest == nullptr || e->last_used_ms < oldest->last_used_ms) oldest = e;
    }
    if (oldest == nullptr) return;
    Close(oldest);
  }
}

void TableCache::Close(TableEntry* entry) {
  if (entry->table == nullptr) return;
  TABLE* table = entry->table;
  table->open_by_handler = 0;
  table->file->ha_index_or_rnd_end();
  close_thread_table(thd_, &table);
  thd_->mdl_context.release_lock(entry->mdl_ticket);
  entry->table = nullptr;
  entry->mdl_ticket = nullptr;
  entry->scan_index = nullptr;
  --open_count_;
  Log(LogLevel::kDebug, "closed table %s.%s", entry->db.c_str(), entry->name.c_str());
}

void TableCache::ReleaseContended() {
  if (open_count_ == 0) return;
  for (auto& kv : entries_) {
    TableEntry* e = kv.second.get();
    if (e->table == nullptr) continue;
    if (e->mdl_ticket->has_pending_conflicting_lock() || e->table->s->tdc->flushed) Close(e);
  }
}

void TableCache::CloseIdle(uint64_t now_ms, uint64_t idle_ms) {
  if (open_count_ == 0) return;
  for (auto& kv : entries_) {
    TableEntry* e = kv.second.get();
    if (e->table != nullptr && now_ms - e->last_used_ms > idle_ms) Close(e);
  }
}

void TableCache::CloseAll() {
  for (auto& kv : entries_) Close(kv.second.get());
}

}  // namespace rowsocket
