// OpenIndex: resolving index and column names against an open table.
// Runs on a worker thread.
#include "engine/open_index.h"

namespace rowsocket {
namespace {

std::vector<std::string> SplitNames(std::string_view list) {
  std::vector<std::string> names;
  while (!list.empty()) {
    size_t comma = list.find(',');
    names.emplace_back(list.substr(0, comma));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return names;
}

Field* FindField(TABLE* table, const std::string& name) {
  for (Field** f = table->field; *f; ++f) {
    if (my_strcasecmp(system_charset_info, (*f)->field_name.str, name.c_str()) == 0) return *f;
  }
  return nullptr;
}

}  // namespace

OpenIndex::OpenIndex(TableEntry* entry, std::string_view index, std::string_view columns,
                     std::string_view filter_columns)
    : entry_(entry),
      index_name_(index),
      column_names_(SplitNames(columns)),
      filter_names_(SplitNames(filter_columns)) {}

OpenIndex::~OpenIndex() {}

Status OpenIndex::Resolve() {
  if (resolved_generation_ == entry_->generation) return Status::OK();
  Status s = ResolveNames();
  if (s.ok()) resolved_generation_ = entry_->generation;
  return s;
}

Status OpenIndex::ResolveNames() {
  TABLE* table = entry_->table;
  TABLE_SHARE* share = table->s;
  if (index_name_ == "PRIMARY") {
    if (share->primary_key >= MAX_KEY) return Status::BadRequest("idxnum");
    key_number_ = share->primary_key;
  } else {
    uint k = 0;
    for (; k < share->keys; ++k) {
      if (my_strcasecmp(system_charset_info, table->key_info[k].name.str, index_name_.c_str()) == 0)
        break;
    }
    if (k == share->keys) return Status::BadRequest("idxnum");
    key_number_ = k;
  }

  columns_.clear();
  for (const std::string& name : column_names_) {
    Field* f = FindField(table, name);
    if (f == nullptr) return Status::BadRequest("fld");
    columns_.push_back(f);
  }
  filter_columns_.clear();
  for (const std::string& name : filter_names_) {
    Field* f = FindField(table, name);
    if (f == nullptr) return Status::BadRequest("fld");
    filter_columns_.push_back(f);
  }

  // Read set: requested columns, filter columns and the key's own parts.
  read_set_words_.assign((share->fields + 63) / 64, 0);
  my_bitmap_init(&read_set_, read_set_words_.data(), share->fields);
  for (Field* f : columns_) bitmap_set_bit(&read_set_, f->field_index);
  for (Field* f : filter_columns_) bitmap_set_bit(&read_set_, f->field_index);
  KEY* k = key();
  for (uint i = 0; i < k->user_defined_key_parts; ++i)
    bitmap_set_bit(&read_set_, k->key_part[i].fieldnr - 1);

  return Status::OK();
}

void EngineSession::Bind(uint32_t id, std::unique_ptr<IndexBinding> binding,
                         std::vector<std::unique_ptr<OpenIndex>>* retired) {
  if (id >= bindings_.size()) bindings_.resize(id + 1);
  std::swap(bindings_[id], binding);
  if (!binding) {
    open_indexes.store(open_indexes.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    return;
  }
  for (std::unique_ptr<OpenIndex>& oi : binding->opened)
    if (oi) retired->push_back(std::move(oi));
}

// True if `r` changes (U, +, -) a column that is part of one of `keys` (key numbers
// of its table).
bool ChangesKeyColumns(const Request& r, OpenIndex* oi, const key_map& keys) {
  if (r.modify != ModifyOp::kUpdate && r.modify != ModifyOp::kIncrement &&
      r.modify != ModifyOp::kDecrement)
    return false;
  for (size_t i = 0; i < r.modify_values.size(); ++i)
    if (oi->columns()[i]->part_of_key.is_overlapping(keys)) return true;
  return false;
}

// The scanned index, or the primary key (which every secondary index carries).
bool ChangesScannedKey(const Request& r, OpenIndex* oi) {
  key_map keys;
  keys.clear_all();
  keys.set_bit(oi->key_number());
  const uint pk = oi->table()->s->primary_key;
  if (pk < MAX_KEY) keys.set_bit(pk);
  return ChangesKeyColumns(r, oi, keys);
}

// True if `r` changes a column of any unique key of its table.
bool ChangesUniqueKey(const Request& r, OpenIndex* oi) {
  const TABLE* table = oi->table();
  key_map unique;
  unique.clear_all();
  for (uint k = 0; k < table->s->keys; ++k)
    if (table->key_info[k].flags & HA_NOSAME) unique.set_bit(k);
  return ChangesKeyColumns(r, oi, unique);
}

}  // namespace rowsocket
