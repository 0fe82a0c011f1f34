// OpenIndex: resolving index and column names against an open table.
// Runs on a worker thread.
#include "engine/core/open_index.h"

#include "protocol/name_list.h"
#include "protocol/engine_status.h"

namespace rowsocket {
namespace {

std::vector<std::string> SplitNames(std::string_view list) {
  std::vector<std::string> names;
  for (std::string_view name : SplitNameList(list)) names.emplace_back(name);
  return names;
}

Field* FindField(TABLE* table, const std::string& name) {
  for (Field** f = table->field; *f; ++f) {
    if (my_strcasecmp(system_charset_info, (*f)->field_name.str, name.c_str()) == 0) return *f;
  }
  return nullptr;
}

// Indexes a key lookup through the handler can read: not FULLTEXT or SPATIAL ones,
// nor a UNIQUE over long values, which the server keeps as a hash of the values.
bool Readable(const KEY& key) {
  return !(key.flags & (HA_FULLTEXT | HA_SPATIAL)) && key.algorithm != HA_KEY_ALG_LONG_HASH;
}

// Adds to `columns` the columns each virtual column in it is computed from (until
// nothing more changes: a virtual column may read another), so that a find that
// answers a virtual column reads what it needs.
void AddBaseColumns(TABLE* table, MY_BITMAP* columns) {
  if (table->vfield == nullptr) return;
  for (bool grew = true; grew;) {
    grew = false;
    for (Field** vf = table->vfield; *vf; ++vf) {
      Field* f = *vf;
      if (f->stored_in_db() || !bitmap_is_set(columns, f->field_index)) continue;
      const uint before = bitmap_bits_set(columns);
      f->vcol_info->expr->walk(&Item::register_field_in_bitmap, 1, columns);
      grew |= bitmap_bits_set(columns) != before;
    }
  }
}

}  // namespace

OpenIndex::OpenIndex(TableEntry* entry, std::string_view index, std::string_view columns,
                     std::string_view filter_columns)
    : entry_(entry),
      index_name_(index),
      column_names_(SplitNames(columns)),
      filter_names_(SplitNames(filter_columns)) {}

OpenIndex::~OpenIndex() {}

EngineStatus OpenIndex::Resolve() {
  if (resolved_generation_ == entry_->generation) return EngineStatus::OK();
  EngineStatus s = ResolveNames();
  if (s.ok()) resolved_generation_ = entry_->generation;
  return s;
}

EngineStatus OpenIndex::ResolveNames() {
  TABLE* table = entry_->table;
  TABLE_SHARE* share = table->s;
  // The empty name is the primary key too: clients send it for PRIMARY (the
  // original plugin's own tests do). A name no index has that is a decimal number
  // is the key's position in the table, as the original plugin reads it.
  if (index_name_ == "PRIMARY" || index_name_.empty()) {
    if (share->primary_key >= MAX_KEY) return EngineStatus::NoSuchIndex();
    key_number_ = share->primary_key;
  } else {
    uint k = 0;
    for (; k < share->keys; ++k) {
      if (my_strcasecmp(system_charset_info, table->key_info[k].name.str, index_name_.c_str()) == 0)
        break;
    }
    if (k == share->keys && index_name_.size() <= 4 &&
        index_name_.find_first_not_of("0123456789") == std::string::npos)
      k = std::min<uint>(static_cast<uint>(std::strtoul(index_name_.c_str(), nullptr, 10)),
                         share->keys);
    if (k == share->keys) return EngineStatus::NoSuchIndex();
    key_number_ = k;
  }

  if (!Readable(table->key_info[key_number_])) return EngineStatus::IndexUnreadable();
  const KEY& k = table->key_info[key_number_];
  first_prefix_part_ = 0;
  while (first_prefix_part_ < k.user_defined_key_parts &&
         !(k.key_part[first_prefix_part_].key_part_flag & HA_PART_KEY_SEG))
    ++first_prefix_part_;

  // A column may be listed twice, but no list may be longer than the table is wide:
  // every listed column costs memory in each answer row.
  if (column_names_.size() > share->fields || filter_names_.size() > share->fields)
    return EngineStatus::NoSuchColumn();

  columns_.clear();
  for (const std::string& name : column_names_) {
    Field* f = FindField(table, name);
    if (f == nullptr) return EngineStatus::NoSuchColumn();
    columns_.push_back(f);
  }
  filter_columns_.clear();
  for (const std::string& name : filter_names_) {
    Field* f = FindField(table, name);
    if (f == nullptr) return EngineStatus::NoSuchColumn();
    filter_columns_.push_back(f);
  }

  // Read set: requested columns, filter columns and the key's own parts.
  read_set_words_.assign((share->fields + 63) / 64, 0);
  my_bitmap_init(&read_set_, read_set_words_.data(), share->fields);
  for (Field* f : columns_) bitmap_set_bit(&read_set_, f->field_index);
  for (Field* f : filter_columns_) bitmap_set_bit(&read_set_, f->field_index);
  for (uint i = 0; i < k.user_defined_key_parts; ++i)
    bitmap_set_bit(&read_set_, k.key_part[i].fieldnr - 1);
  // A system-versioned table keeps old versions of rows beside the current ones;
  // a find reads the end of each row's period to skip the old ones.
  if (table->versioned()) bitmap_set_bit(&read_set_, table->vers_end_field()->field_index);
  AddBaseColumns(table, &read_set_);

  FindChangedKeys();
  computed_columns_ = 0;
  computed_beyond_ = false;
  for (size_t i = 0; i < columns_.size(); ++i) {
    const Field* f = columns_[i];
    if (f->vcol_info == nullptr && !f->vers_sys_field()) continue;
    if (i < 64)
      computed_columns_ |= uint64_t{1} << i;
    else
      computed_beyond_ = true;
  }
  return EngineStatus::OK();
}

void EngineSession::Bind(uint32_t id, std::unique_ptr<IndexBinding> binding,
                         std::vector<std::unique_ptr<OpenIndex>>* retired) {
  if (id >= bindings_.size()) bindings_.resize(id + 1);
  std::swap(bindings_[id], binding);
  if (!binding) {
    open_indexes.Add();
    return;
  }
  for (std::unique_ptr<OpenIndex>& oi : binding->opened)
    if (oi) retired->push_back(std::move(oi));
}

namespace {

// Owned storage for a MY_BITMAP over the fields of `table`.
struct FieldBitmap {
  explicit FieldBitmap(const TABLE* table) : words((table->s->fields + 63) / 64, 0) {
    my_bitmap_init(&map, words.data(), table->s->fields);
  }
  std::vector<my_bitmap_map> words;
  MY_BITMAP map{};
};

// Adds to `written` every generated column whose expression reads a column in it,
// until nothing more changes (a generated column may read another).
void AddDependentGeneratedColumns(TABLE* table, MY_BITMAP* written) {
  if (table->vfield == nullptr) return;
  FieldBitmap reads(table);
  for (bool grew = true; grew;) {
    grew = false;
    for (Field** vf = table->vfield; *vf; ++vf) {
      Field* f = *vf;
      if (bitmap_is_set(written, f->field_index)) continue;
      bitmap_clear_all(&reads.map);
      f->vcol_info->expr->walk(&Item::register_field_in_bitmap, 1, &reads.map);
      if (bitmap_is_overlapping(&reads.map, written)) {
        bitmap_set_bit(written, f->field_index);
        grew = true;
      }
    }
  }
}

}  // namespace

// For n = 0..columns: the keys whose value changes when the first n columns are
// written, by the server's own test (is_key_used: a key part, or the primary key a
// secondary index carries), counting generated columns computed from them; and
// the same for each column written alone.
void OpenIndex::FindChangedKeys() {
  TABLE* table = entry_->table;
  FieldBitmap written(table);
  FieldBitmap alone(table);
  changed_keys_.assign(columns_.size() + 1, key_map());
  column_keys_.assign(columns_.size(), key_map());
  changed_keys_[0].clear_all();
  for (size_t n = 1; n <= columns_.size(); ++n) {
    bitmap_set_bit(&written.map, columns_[n - 1]->field_index);
    AddDependentGeneratedColumns(table, &written.map);
    bitmap_clear_all(&alone.map);
    bitmap_set_bit(&alone.map, columns_[n - 1]->field_index);
    AddDependentGeneratedColumns(table, &alone.map);
    key_map& keys = changed_keys_[n];
    key_map& own = column_keys_[n - 1];
    keys.clear_all();
    own.clear_all();
    for (uint k = 0; k < table->s->keys; ++k) {
      if (is_key_used(table, k, &written.map)) keys.set_bit(k);
      if (is_key_used(table, k, &alone.map)) own.set_bit(k);
    }
  }
}

key_map OpenIndex::KeysWrittenBy(size_t values, const std::vector<uint32_t>& columns) const {
  if (columns.empty()) return changed_keys_[values];
  key_map keys;
  keys.clear_all();
  for (uint32_t column : columns) keys.merge(column_keys_[column]);
  return keys;
}

key_map OpenIndex::KeysChangedBy(const RowChange& change) const {
  if (!change.changes_values()) return changed_keys_[0];
  return KeysWrittenBy(change.values.size(), change.columns);
}

EngineStatus OpenIndex::WriteRefusal(uint64_t columns) const {
  if (entry_->table->triggers != nullptr) return EngineStatus::Triggers();
  if ((computed_columns_ & columns) != 0 || (computed_beyond_ && columns == ~uint64_t{0}))
    return EngineStatus::GeneratedColumn(ER_WARNING_NON_DEFAULT_VALUE_FOR_GENERATED_COLUMN);
  return EngineStatus::OK();
}

bool ChangesScannedKey(const RowChange& change, OpenIndex* oi) {
  return oi->KeysChangedBy(change).is_set(oi->key_number());
}

EngineSession::~EngineSession() = default;

}  // namespace rowsocket
