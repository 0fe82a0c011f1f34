// The wire's error vocabulary (wire_errors.h): one table, in WireError order.
#include "protocol/wire_errors.h"

namespace rowsocket {
namespace {

constexpr WireStatus::Code kTable = WireStatus::kStorage;
constexpr WireStatus::Code kRequest = WireStatus::kBadRequest;
constexpr WireStatus::Code kAuth = WireStatus::kUnauthorized;

constexpr WireErrorInfo kErrors[] = {
    {kTable, "open_table", "the table does not exist or cannot be opened (or its metadata "
                           "lock stayed taken for rowsocket_lock_wait_timeout)"},
    {kTable, "lock_tables", "the table could not be locked (LOCK TABLES or DDL held it for "
                            "rowsocket_lock_wait_timeout)"},
    {kTable, "commit", "the transaction could not be committed"},
    {kTable, "triggers", "the table has SQL triggers, which rowsocket cannot run; writes "
                         "are refused"},
    {kTable, "killed", "an administrator's KILL ended the worker's batch"},
    {kRequest, "cmd", "unknown command: a request starts with P, A or an index id"},
    {kRequest, "syntax", "malformed request (missing or extra tokens, or a bad number)"},
    {kRequest, "readonly", "writes are refused on the read-only listener; use the write port"},
    {kRequest, "stmtnum", "index id not opened on this connection, or above "
                          "rowsocket_max_open_indexes"},
    {kRequest, "idxnum", "no index of that name on the table"},
    {kRequest, "idxtype", "the index cannot be read by key (FULLTEXT, SPATIAL, or a UNIQUE "
                          "over long values)"},
    {kRequest, "idxop", "the index cannot do that operation (a range, or a partial key, on "
                        "a HASH index)"},
    {kRequest, "kpnum", "more key values than the index has key parts"},
    {kRequest, "klen", "a key or insert count that the values do not fill"},
    {kRequest, "fld", "unknown column, or a column list longer than the table is wide"},
    {kRequest, "op", "unknown operator (find: = > >= < <=; filter: = != < <= > >=)"},
    {kRequest, "modop", "bad modify: unknown operation, or +/- on a date, time or bit "
                        "column"},
    {kRequest, "filtertype", "filter type must be F (skip) or W (stop)"},
    {kRequest, "filterfld", "filter column number beyond the opened filter columns"},
    {kRequest, "filterblob", "a filter compares a BLOB or TEXT column with a value other "
                             "than NULL"},
    {kRequest, "invalueslen", "a bad IN count, or fewer IN values than announced"},
    {kRequest, "linelen", "request line longer than rowsocket_max_line_length; the server "
                          "closed the connection"},
    {kRequest, "forbidden", "system schemas cannot be opened (see "
                            "rowsocket_allowed_system_schemas)"},
    {kRequest, "answersize", "the answer would exceed rowsocket_max_answer_size"},
    {kRequest, "rowsexamined", "the request would read more than "
                               "rowsocket_max_rows_examined rows"},
    {kAuth, "unauth", "not authenticated: wrong or missing secret (A 1, --secret), or "
                      "wrong account or password (A 3, A 4, --user)"},
    {kAuth, "authtype", "authentication type unknown, or not the one this listener uses "
                        "(rowsocket_auth: 1 = secret, 2 to 4 = account)"},
    {kAuth, "nonce", "A 3 without an A 2 for the same user just before it"},
    {kAuth, "locked", "the account is locked (ALTER USER ... ACCOUNT LOCK)"},
    {kAuth, "expired", "the account's password has expired; change it with SQL"},
    {kAuth, "authplugin", "the account authenticates with a plugin rowsocket cannot check "
                          "(only mysql_native_password accounts can log in)"},
    {kAuth, "tlsrequired", "this needs a TLS connection: a password in clear (A 4), an "
                           "account that REQUIRE SSL, or any request while "
                           "rowsocket_require_secure_transport=ON (the server then closes "
                           "the connection)"},
    {kAuth, "maxconn", "the account has as many connections as MAX_USER_CONNECTIONS "
                       "(or max_user_connections) allows"},
    {kAuth, "blocked", "the account is blocked: max_password_errors wrong passwords in a "
                       "row (through rowsocket or SQL), or SQL's login blocked it"},
    {kAuth, "denied", "the account lacks the privilege this request needs (GRANT)"},
};

static_assert(sizeof(kErrors) / sizeof(kErrors[0]) ==
                  static_cast<size_t>(WireError::kDenied) + 1,
              "one entry per WireError, in order");

// Words only the original plugin sends.
constexpr WireErrorInfo kOriginalOnly[] = {
    {kRequest, "notimpl", "not implemented by this server"},
    {kRequest, "tblnum", "bad table"},
};

}  // namespace

const WireErrorInfo& Describe(WireError error) { return kErrors[static_cast<size_t>(error)]; }

std::string_view MeaningOf(int code, std::string_view word) {
  for (const WireErrorInfo& e : kErrors)
    if (e.code == code && e.word == word) return e.meaning;
  for (const WireErrorInfo& e : kOriginalOnly)
    if (e.code == code && e.word == word) return e.meaning;
  return {};
}

}  // namespace rowsocket
