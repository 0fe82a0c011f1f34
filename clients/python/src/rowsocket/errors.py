"""Errors: what a request can meet, as exceptions, and the server's words explained.

Three kinds, all subclasses of `Error`:

- `ServerError`: the server answered `<code> 1 <word>` (code 1 the table or storage
  engine, 2 the request, 3 authentication). The connection stays usable (except
  after `linelen`, when the server closes it).
- `IoError`: the connection could not be made, was lost, timed out or received
  something that is not an answer. That connection is closed for good (a Pool
  replaces it). A write that met an IoError may or may not have been applied.
- `UsageError` (also a ValueError): the request was refused before anything was
  sent, e.g. an unknown operator.

`EXPLANATIONS` is the one table of the words' meanings, copied from the server's own
vocabulary (src/protocol/wire_errors.cc) and librowsocket's list of engine and SQL
error numbers (src/client/error.cc); the test suite checks that the copies agree.
"""

from typing import Dict, Tuple

# (code, word) -> meaning.
EXPLANATIONS: Dict[Tuple[int, str], str] = {
    # Code 1: the table or the storage engine.
    (1, "open_table"): "the table does not exist or cannot be opened (or its metadata "
                       "lock stayed taken for rowsocket_lock_wait_timeout)",
    (1, "lock_tables"): "the table could not be locked (LOCK TABLES or DDL held it for "
                        "rowsocket_lock_wait_timeout)",
    (1, "commit"): "the transaction could not be committed",
    (1, "triggers"): "the table has SQL triggers, which rowsocket cannot run; writes "
                     "are refused",
    (1, "killed"): "an administrator's KILL ended the worker's batch",
    # Code 2: the request.
    (2, "cmd"): "unknown command: a request starts with P, A or an index id",
    (2, "syntax"): "malformed request (missing or extra tokens, or a bad number)",
    (2, "readonly"): "writes are refused on the read-only listener; use the write port",
    (2, "stmtnum"): "index id not opened on this connection, or above "
                    "rowsocket_max_open_indexes",
    (2, "idxnum"): "no index of that name on the table",
    (2, "idxtype"): "the index cannot be read by key (FULLTEXT, SPATIAL, or a UNIQUE "
                    "over long values)",
    (2, "idxop"): "the index cannot do that operation (a range, or a partial key, on "
                  "a HASH index)",
    (2, "kpnum"): "more key values than the index has key parts",
    (2, "klen"): "a key or insert count that the values do not fill",
    (2, "fld"): "unknown column, or a column list longer than the table is wide",
    (2, "op"): "unknown operator (find: = > >= < <=; filter: = != < <= > >=)",
    (2, "modop"): "bad modify: unknown operation, or +/- on a date, time or bit column",
    (2, "filtertype"): "filter type must be F (skip) or W (stop)",
    (2, "filterfld"): "filter column number beyond the opened filter columns",
    (2, "filterblob"): "a filter compares a BLOB or TEXT column with a value other "
                       "than NULL",
    (2, "invalueslen"): "a bad IN count, or fewer IN values than announced",
    (2, "linelen"): "request line longer than rowsocket_max_line_length; the server "
                    "closed the connection",
    (2, "forbidden"): "system schemas cannot be opened (see "
                      "rowsocket_allowed_system_schemas)",
    (2, "answersize"): "the answer would exceed rowsocket_max_answer_size",
    (2, "rowsexamined"): "the request would read more than "
                         "rowsocket_max_rows_examined rows",
    # Code 3: authentication.
    (3, "unauth"): "not authenticated: wrong or missing secret (A 1, --secret), or "
                   "wrong account or password (A 3, A 4, --user)",
    (3, "authtype"): "authentication type unknown, or not the one this listener uses "
                     "(rowsocket_auth: 1 = secret, 2 to 4 = account)",
    (3, "nonce"): "A 3 without an A 2 for the same user just before it",
    (3, "locked"): "the account is locked (ALTER USER ... ACCOUNT LOCK)",
    (3, "expired"): "the account's password has expired; change it with SQL",
    (3, "authplugin"): "the account authenticates with a plugin rowsocket cannot check "
                       "(only mysql_native_password accounts can log in)",
    (3, "tlsrequired"): "this needs a TLS connection: a password in clear (A 4), an "
                        "account that REQUIRE SSL, or any request while "
                        "rowsocket_require_secure_transport=ON (the server then closes "
                        "the connection)",
    (3, "maxconn"): "the account has as many connections as MAX_USER_CONNECTIONS "
                    "(or max_user_connections) allows",
    (3, "blocked"): "the account is blocked: max_password_errors wrong passwords in a "
                    "row (through rowsocket or SQL), or SQL's login blocked it",
    (3, "denied"): "the account lacks the privilege this request needs (GRANT)",
    # Words only the original HandlerSocket plugin sends.
    (2, "notimpl"): "not implemented by this server",
    (2, "tblnum"): "bad table",
    # Code 1 with a number: the storage engine's or SQL's own error.
    (1, "120"): "row not found",
    (1, "121"): "duplicate key",
    (1, "122"): "internal storage engine error",
    (1, "123"): "the row changed since it was read",
    (1, "126"): "the index is corrupt",
    (1, "131"): "the storage engine does not support this",
    (1, "134"): "the row was deleted",
    (1, "135"): "the table is full",
    (1, "137"): "end of file",
    (1, "138"): "unsupported",
    (1, "139"): "the row is too big",
    (1, "146"): "lock wait timeout",
    (1, "147"): "the lock table is full",
    (1, "148"): "read-only transaction",
    (1, "149"): "deadlock; the request was rolled back",
    (1, "151"): "a foreign key refers to a missing parent row",
    (1, "152"): "a foreign key child row refers to this row",
    (1, "155"): "the table does not exist in the engine",
    (1, "165"): "the table is read-only",
    (1, "167"): "auto-increment value out of range",
    (1, "189"): "the disk is full",
    (1, "1047"): "the Galera node is not ready for clients (see wsrep_ready)",
    (1, "1048"): "NULL given for a NOT NULL column",
    (1, "1213"): "a Galera write to a table without a primary key "
                 "(wsrep_certify_nonPK)",
    (1, "1264"): "a value out of its column's range (strict sql_mode)",
    (1, "1290"): "writes are refused while the server runs with read_only",
    (1, "1292"): "a value that is not a number or date where one is needed (strict "
                 "sql_mode)",
    (1, "1366"): "a value that is not a number for a numeric column (strict sql_mode)",
    (1, "1406"): "a value too long for its column (strict sql_mode)",
    (1, "1690"): "the result of + or - is out of range",
    (1, "1906"): "generated and period columns take no values",
    (1, "4025"): "a CHECK constraint refused the row",
}

_OTHER_ENGINE_ERROR = "storage engine or SQL error number (see perror)"


def explain(code: int, word: str) -> str:
    """The meaning of the server's answer `<code> 1 <word>` in words, or '' when
    there is nothing to add to the word itself."""
    meaning = EXPLANATIONS.get((code, word))
    if meaning is not None:
        return meaning
    if code == 1 and word.isdigit():
        return _OTHER_ENGINE_ERROR
    return ""


class Error(Exception):
    """Every error of this library."""


class ServerError(Error):
    """The server refused a request: `<code> 1 <word>`. The connection stays usable."""

    def __init__(self, code: int, word: str) -> None:
        super().__init__(code, word)
        self.code = code        # 1 table or storage engine, 2 request, 3 authentication
        self.word = word        # the wire message: "kpnum", "121", ...
        self.explanation = explain(code, word)

    def __str__(self) -> str:
        text = f"{self.code} 1 {self.word}" if self.word else f"{self.code} 1"
        return f"{text} ({self.explanation})" if self.explanation else text


class IoError(Error):
    """The connection failed (refused, lost, timed out, or not an answer); it is
    closed. The cause, when there is one, is the exception's __cause__."""


class UsageError(Error, ValueError):
    """A request that cannot be sent as given; nothing was sent."""
