// ?describe: the checks (pass 1) and the answer (pass 2) of rowsocket's own request
// for a table's columns. Runs on a worker thread inside a batch.
#include "engine/handlersocket/describe_index.h"

#include <vector>

#include "protocol/response.h"
#include "protocol/engine_status.h"

namespace rowsocket {
namespace {

// The column privileges in SHOW FULL COLUMNS's words and order.
std::string PrivilegeWords(privilege_t privileges) {
  static const struct {
    privilege_t bit;
    const char* word;
  } kWords[] = {{SELECT_ACL, "select"}, {INSERT_ACL, "insert"}, {UPDATE_ACL, "update"},
                {REFERENCES_ACL, "references"}};
  std::string words;
  for (const auto& w : kWords) {
    if ((privileges & w.bit) == NO_ACL) continue;
    if (!words.empty()) words.push_back(',');
    words.append(w.word);
  }
  return words;
}

// The account's privileges by field: without account logins the listener's
// clients may do anything with every column (the worker's own privileges).
bool Privileges(Accounts* accounts, EngineSession* session, TABLE* table,
                std::vector<privilege_t>* privileges) {
  if (!session->account_logins) {
    privileges->assign(table->s->fields, COL_ACLS);
    return true;
  }
  return accounts->ColumnPrivileges(&session->login, table, privileges);
}

}  // namespace

EngineStatus PrepareDescribe(const Request& r, TableCache* tables, Accounts* accounts,
                           EngineSession* session, uint64_t now_ms,
                           DescribeTarget* target) {
  const Opened<TableEntry> table = tables->Get(r.db, r.table);
  if (!table.ok()) return table.error;
  tables->MarkUsed(table.value);
  if (session->account_logins) {
    if (!accounts->Refresh(&session->login, now_ms, kAccountMaxAgeMs)) {
      session->SetAccount("");
      return EngineStatus::Unauthenticated();
    }
    std::vector<privilege_t> privileges;
    if (!Privileges(accounts, session, table.value->table, &privileges))
      return EngineStatus::Denied();
  }
  // The index as `P` finds it by name (PRIMARY, empty, a name, a position).
  OpenIndex index(table.value, r.index, std::string_view(), std::string_view());
  const EngineStatus resolved = index.Resolve();
  if (!resolved.ok()) return resolved;
  target->table = table.value;
  target->key_number = index.key_number();
  return EngineStatus::OK();
}

void AnswerDescribe(const DescribeTarget& target, Accounts* accounts,
                    EngineSession* session, std::string* out) {
  TABLE* table = target.table->table;
  std::vector<privilege_t> privileges;
  ResponseWriter w(out);
  if (table == nullptr) {  // (a table the batch uses stays open: never so)
    w.Error(EngineStatus::TableOpenFailed());
    return;
  }
  if (!Privileges(accounts, session, table, &privileges)) {
    // The grants changed between the passes (a REVOKE seen by a rebuilt login).
    w.Error(EngineStatus::Denied());
    return;
  }
  const KEY& key = table->key_info[target.key_number];
  w.BeginRows(kDescribeFields);
  for (uint i = 0; i < table->s->fields; ++i) {
    const Field* field = table->field[i];
    // As SHOW COLUMNS: the server's own hidden columns are not the table's, and a
    // column without any privilege is not shown.
    if (field->invisible > INVISIBLE_USER || privileges[i] == NO_ACL) continue;
    uint part = 0;
    for (uint p = 0; p < key.user_defined_key_parts && part == 0; ++p)
      if (key.key_part[p].fieldnr == i + 1) part = p + 1;
    w.WireValue(std::string_view(field->field_name.str, field->field_name.length));
    w.UnsignedValue(part);
    w.WireValue(PrivilegeWords(privileges[i]));
  }
  w.EndRows();
}

}  // namespace rowsocket
