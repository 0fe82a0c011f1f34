"""The machinery behind test_differential.py: one HandlerSocket request, done twice.

A `Shape` is a table definition with its rows and the sample values the operations
use; the test turns each operation into `Find`/`Insert` requests for one shape.
`Twins` keeps two copies of every shape's tables, `<shape>_sql` and `<shape>_rs` in
database `diff`: `sql_side` performs a case's requests as SQL statements on the first
copy and answers what HandlerSocket should answer, and `rowsocket_side` sends the same
requests as bytes to rowsocket's write listener for the second copy. Both end with a
`Snapshot` (rows and CHECK TABLE) to compare.

How a request becomes SQL (the rules the test's docstring explains):
- The rows a find-and-modify visits are selected with one SELECT per IN value, in
  index order (`Shape.order`, reversed for `<`/`<=`); the key condition compares in
  index order, where NULL sorts first. Which of those rows count is HandlerSocket's
  walk: filters (verdict computed by SQL), offset, limit (0 or absent means 1), IN
  values one after the other.
- The change is then one UPDATE or DELETE statement on exactly those rows (named by
  `Shape.rowid`), applied in the order the scan met them. SQL's UPDATE has no OFFSET,
  and this keeps every form (IN, W filters, offsets) one statement.
- `-` leaves a row alone when it would move the value across zero; the SELECT computes
  that per row in exact decimal arithmetic and the UPDATE skips such rows.
- A statement SQL refuses has no effect: the copy is put back as it was before the
  statement (a non-transactional engine keeps the rows changed before the error).

Runs in the pytest process; not thread-safe.
"""

import dataclasses
import socket
import time

import pymysql

import hs
from db import Sql

DB = "diff"
# A request of a case answers in milliseconds; silence this long means a hung worker.
ANSWER_TIMEOUT = 10.0

# Index ids of the `P` requests a case sends; which columns each opens.
HANDLE_IDS = {"cols": 1, "num": 2, "key": 3, "ins": 4}


# -- shapes and requests -------------------------------------------------------------

@dataclasses.dataclass
class Shape:
    """A table definition, its rows, and the values the operation table refers to.

    `body` and the aux tables' bodies may say {t} for the subject table's own name,
    so that each copy's foreign keys stay within that copy."""
    name: str
    body: str
    options: str = "ENGINE=InnoDB"
    index: str = "kk"               # the index every request scans
    key: tuple = ("k",)             # its key parts, as SQL compares them
    order: tuple = None             # SQL ORDER BY giving the index order; key + rowid
    rowid: tuple = ("id",)          # columns that name one row
    cols: tuple = ("n", "v")        # columns U sets and finds return
    num: str = "n"                  # the column + and - change
    fcols: tuple = ("n",)           # filter columns
    ins: tuple = ("id", "k", "n", "v")  # insert columns; `rows` are in this order
    rows: tuple = ()
    aux: tuple = ()                 # Aux tables (parents first, then children)
    view: str = "*"                 # what the comparison selects
    history: bool = False           # system-versioned: compare FOR SYSTEM_TIME ALL
    values: dict = dataclasses.field(default_factory=dict)  # K0.., U0.., D0.., ...

    def __post_init__(self):
        if self.order is None:
            self.order = tuple(self.key) + tuple(c for c in self.rowid if c not in self.key)

    def slot(self, name):
        return self.values[name]

    def handle_columns(self, handle):
        return {"cols": self.cols, "num": (self.num,), "key": (self.key[0],),
                "ins": self.ins}[handle]


@dataclasses.dataclass
class Aux:
    """A table that belongs with a shape (a foreign key's parent or child)."""
    suffix: str
    body: str
    rows: tuple
    child: bool = False             # created after the subject table


@dataclasses.dataclass
class Find:
    """A find-and-modify request, with values resolved for one shape."""
    handle: str
    op: str
    keys: list
    limit: int
    offset: int
    mop: str
    values: list = dataclasses.field(default_factory=list)
    in_values: list = None          # IN on key part 0
    filters: list = dataclasses.field(default_factory=list)  # (kind, fop, fcol, value)


@dataclasses.dataclass
class Insert:
    values: list
    handle: str = "ins"


def hs_tokens(request):
    """The request's tokens as rowsocket receives them (after its `P`)."""
    hid = HANDLE_IDS[request.handle]
    if isinstance(request, Insert):
        return [hid, "+", len(request.values), *map(token, request.values)]
    tokens = [hid, request.op, len(request.keys), *map(token, request.keys),
              request.limit, request.offset]
    if request.in_values is not None:
        tokens += ["@", 0, len(request.in_values), *map(token, request.in_values)]
    for kind, fop, fcol, value in request.filters:
        tokens += [kind, fop, fcol, token(value)]
    return tokens + [request.mop, *map(token, request.values)]


def token(value):
    return None if value is None else str(value)


def hs_line(request):
    return hs.encode_line(hs_tokens(request))


# -- outcomes ---------------------------------------------------------------------------

@dataclasses.dataclass
class Outcome:
    """What one request answered: ok with its answer tokens, or an error."""
    ok: bool
    answer: list = None             # tokens of a success, e.g. ['0', '1', '3']
    error: str = None               # the error, as SQL or rowsocket said it
    statement: str = None           # the SQL statement that did the change

    def __str__(self):
        if self.ok:
            return "ok " + "\t".join("NULL" if t is None else t for t in self.answer)
        return f"error: {self.error}"


@dataclasses.dataclass
class Snapshot:
    """The tables of one copy after a case: rows per table, CHECK TABLE per table."""
    rows: dict
    check: dict


# -- SQL helpers ----------------------------------------------------------------------

def text(value):
    """A SQL value as the raw client decodes an answer token: str when UTF-8."""
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return value
    return value


def sort_rows(rows):
    return sorted(rows, key=lambda r: tuple((0, "") if v is None else (1, str(v)) for v in r))


def part_condition(col, op, value):
    """One key part against a value, in index order (NULL sorts before every value)."""
    if op == "=":
        return f"{col} <=> %s", [value]
    if value is None:
        return {">": f"{col} IS NOT NULL", ">=": "TRUE", "<": "FALSE",
                "<=": f"{col} IS NULL"}[op], []
    if op in (">", ">="):
        return f"{col} {op} %s", [value]
    return f"({col} {op} %s OR {col} IS NULL)", [value]


def key_condition(key, values, op):
    """The rows an index scan from `values` (a prefix of `key`) meets, for `op`."""
    if op == "=":
        parts = [part_condition(c, "=", v) for c, v in zip(key, values)]
        return " AND ".join(p for p, _ in parts), [a for _, args in parts for a in args]
    strict = {">=": ">", "<=": "<"}.get(op, op)
    ors, args = [], []
    for i, value in enumerate(values):
        conds = [part_condition(key[j], "=", values[j]) for j in range(i)]
        conds.append(part_condition(key[i], op if i == len(values) - 1 else strict, value))
        ors.append("(" + " AND ".join(c for c, _ in conds) + ")")
        args += [a for _, cargs in conds for a in cargs]
    return "(" + " OR ".join(ors) + ")", args


SQL_FOP = {"=": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def verdict_expression(filters, fcols):
    """0 take, 1 skip (F fails), 2 stop (W fails); the first failing filter decides."""
    if not filters:
        return "0", []
    whens, args = [], []
    for kind, fop, fcol, value in filters:
        whens.append(f"WHEN ({fcols[fcol]} {SQL_FOP[fop]} %s) IS NOT TRUE "
                     f"THEN {1 if kind == 'F' else 2}")
        args.append(value)
    return "CASE " + " ".join(whens) + " ELSE 0 END", args


def rows_condition(rowid, rows):
    """SQL naming exactly `rows` (tuples of rowid values), and ORDER BY in that order."""
    if not rows:
        return "FALSE", [], "", []
    one = "(" + " AND ".join(f"{c} <=> %s" for c in rowid) + ")"
    where = " OR ".join([one] * len(rows))
    args = [v for r in rows for v in r]
    order = "ORDER BY CASE " + " ".join(f"WHEN {one} THEN {i}" for i in range(len(rows))) + " END"
    return where, args, order, list(args)


# -- the two copies ----------------------------------------------------------------------

class Twins:
    """Both copies of every shape, and the server they live on.

    After a restart (planned or after a crash) `reconnect` must be called."""

    def __init__(self, server, shapes):
        self.server = server
        self.shapes = shapes
        self.reconnect()
        self.sql.execute(f"DROP DATABASE IF EXISTS {DB}")
        self.sql.execute(f"CREATE DATABASE {DB}")
        for shape in shapes:
            for copy in ("sql", "rs"):
                self.create(shape, copy)

    def reconnect(self):
        """A new SQL connection; the old one ended with its server."""
        self.sql = Sql(self.server)

    def close(self):
        self.sql.close()

    # -- tables -----------------------------------------------------------------------

    @staticmethod
    def table(shape, copy, suffix=""):
        return f"{DB}.{shape.name}_{copy}{suffix}"

    def tables(self, shape, copy):
        """(role, full name) of the copy's tables in creation order."""
        out = [(a.suffix, self.table(shape, copy, a.suffix)) for a in shape.aux if not a.child]
        out.append(("", self.table(shape, copy)))
        out += [(a.suffix, self.table(shape, copy, a.suffix)) for a in shape.aux if a.child]
        return out

    def create(self, shape, copy):
        t = self.table(shape, copy)
        for role, name in self.tables(shape, copy):
            if role == "":
                body, options = shape.body, shape.options
            else:
                aux = next(a for a in shape.aux if a.suffix == role)
                body, options = aux.body, "ENGINE=InnoDB"
            self.sql.execute(f"CREATE TABLE {name} ({body.format(t=t)}) {options}")

    def recreate(self, shape, copy):
        """Drops and creates the copy's tables again: a table whose index a case
        corrupted would fail every later case of its shape."""
        for _, name in reversed(self.tables(shape, copy)):
            self.sql.execute(f"DROP TABLE IF EXISTS {name}")
        self.create(shape, copy)

    def reset(self, shape, copy):
        """Gives the copy its shape's rows (and no history)."""
        tables = self.tables(shape, copy)
        self.sql.execute("BEGIN")
        for role, name in reversed(tables):
            self.sql.execute(f"DELETE FROM {name}")
            if role == "" and shape.history:
                self.sql.execute(f"DELETE HISTORY FROM {name}")
        for role, name in tables:
            if role == "":
                cols, rows = shape.ins, shape.rows
            else:
                aux = next(a for a in shape.aux if a.suffix == role)
                cols, rows = None, aux.rows
            for row in rows:
                names = f"({', '.join(cols[:len(row)])})" if cols else ""
                marks = ", ".join(["%s"] * len(row))
                self.sql.execute(f"INSERT INTO {name} {names} VALUES ({marks})", list(row))
        self.sql.execute("COMMIT")

    def flush(self, shape, copy):
        names = ", ".join(name for _, name in self.tables(shape, copy))
        self.sql.execute(f"FLUSH TABLES {names}")

    def snapshot(self, shape, copy):
        rows, check = {}, {}
        for role, name in self.tables(shape, copy):
            if role == "":
                history = " FOR SYSTEM_TIME ALL" if shape.history else ""
                rows[role] = sort_rows(self.sql.rows(f"SELECT {shape.view} FROM {name}{history}"))
            else:
                rows[role] = sort_rows(self.sql.rows(f"SELECT * FROM {name}"))
            result = self.sql.rows(f"CHECK TABLE {name} EXTENDED")
            check[role] = [(r[2], r[3].replace(name.split(".")[1], "{t}")) for r in result]
        return Snapshot(rows, check)

    # -- the SQL side -------------------------------------------------------------------

    def sql_side(self, shape, requests, expected_difference):
        """Runs the requests as SQL on the `_sql` copy; returns (outcomes, snapshot).

        `expected_difference(shape, request)` names a listed difference (its reason)
        or returns None; a listed request is answered with an error and not run."""
        self.reset(shape, "sql")
        done = []           # (statement, args) that took effect, for putting back
        outcomes = []
        for request in requests:
            reason = expected_difference(shape, request)
            statement = None
            if reason:
                outcomes.append(Outcome(False, error=f"(listed difference) {reason}"))
                continue
            try:
                if isinstance(request, Insert):
                    outcome, statement = self._sql_insert(shape, request)
                else:
                    outcome, statement = self._sql_find(shape, request)
                self.sql.execute(*statement)
                done.append(statement)
                outcomes.append(outcome)
            except pymysql.MySQLError as e:
                outcomes.append(Outcome(False, error=f"{e.args[0]} {e.args[-1]}",
                                        statement=statement and self._show(statement)))
                # No effect, whatever the engine kept: the copy as before this request.
                self.reset(shape, "sql")
                for s in done:
                    self.sql.execute(*s)
        return outcomes, self.snapshot(shape, "sql")

    def _show(self, statement):
        sql, args = statement
        return sql.replace("%s", "{}").format(*(repr(a) for a in args))

    def _sql_insert(self, shape, request):
        t = self.table(shape, "sql")
        cols = shape.ins[:len(request.values)]
        marks = ", ".join(["%s"] * len(cols))
        statement = (f"INSERT INTO {t} ({', '.join(cols)}) VALUES ({marks})",
                     list(request.values))
        return Outcome(True, ["0", "1"], statement=self._show(statement)), statement

    def _sql_find(self, shape, request):
        """(what HandlerSocket should answer, the statement that makes the change)."""
        columns = shape.handle_columns(request.handle)
        taken = self._visited_rows(shape, request, columns)
        nrowid = len(shape.rowid)
        changing = [r for r in taken if r[-1] == "1"]
        statement = self._change_statement(shape, request, columns,
                                           [r[:nrowid] for r in changing])
        if request.mop.endswith("?"):
            answer = ["0", str(len(columns))] + [text(v) for r in taken for v in r[nrowid:-2]]
        else:
            answer = ["0", "1", str(len(changing))]
        return Outcome(True, answer, statement=self._show(statement)), statement

    def _visited_rows(self, shape, request, columns):
        """The rows the request takes, in the order its scans meet them, each as
        (rowid..., columns..., verdict, ok): SQL selects and orders the rows of each
        scan, HandlerSocket's rules (filters, offset, limit, IN) pick among them.
        `ok` is "1" unless a `-` would move the value across zero."""
        t = self.table(shape, "sql")
        descending = request.op in ("<", "<=")
        order = ", ".join(f"{c}{' DESC' if descending else ''}" for c in shape.order)
        verdict, verdict_args = verdict_expression(request.filters, shape.fcols)
        ok, ok_args = "1", []
        if request.mop.startswith("-"):
            ok = (f"(({columns[0]} >= 0) = "
                  f"(CAST({columns[0]} AS DECIMAL(65,10)) - %s >= 0)) IS TRUE")
            ok_args = [request.values[0]]
        select = (f"SELECT {', '.join(shape.rowid)}, {', '.join(columns)}, "
                  f"{verdict}, {ok} FROM {t} WHERE {{cond}} ORDER BY {order}")
        limit = request.limit or 1
        variants = request.in_values if request.in_values is not None else [request.keys[0]]
        skipped, taken = 0, []
        for first in variants:
            if len(taken) >= limit:
                break
            cond, cond_args = key_condition(shape.key, [first, *request.keys[1:]], request.op)
            for row in self.sql.rows(select.format(cond=cond),
                                     verdict_args + ok_args + cond_args):
                if row[-2] == "2":          # a W filter failed: this scan ends
                    break
                if row[-2] == "1":          # an F filter failed: not counted
                    continue
                if skipped < request.offset:
                    skipped += 1
                    continue
                taken.append(row)
                if len(taken) >= limit:
                    break
        return taken

    def _change_statement(self, shape, request, columns, rowids):
        """One UPDATE or DELETE of exactly the rows `rowids`, in that order."""
        t = self.table(shape, "sql")
        where, args, order_by, order_args = rows_condition(shape.rowid, rowids)
        mop = request.mop.rstrip("?")
        if mop == "D":
            return f"DELETE FROM {t} WHERE {where} {order_by}", args + order_args
        given = columns[:len(request.values)]
        if mop == "U":
            sets = [f"{c} = %s" for c in given]
        else:
            sets = [f"{c} = {c} {mop} %s" for c in given]
        return (f"UPDATE {t} SET {', '.join(sets)} WHERE {where} {order_by}",
                list(request.values) + args + order_args)

    # -- the rowsocket side ---------------------------------------------------------------

    def rowsocket_side(self, shape, requests, port):
        """Sends the requests to rowsocket for the `_rs` copy, pipelined after the `P`s.

        Returns (outcomes, [(P tokens, answer)], failure): failure is None, or says how
        mariadbd went away (a crash, or no answer in time: then it is killed, so that
        the next shape runs on a fresh server)."""
        handles = sorted({r.handle for r in requests}, key=HANDLE_IDS.get)
        opens = []
        for handle in handles:
            fcols = shape.fcols if handle != "ins" else None
            opens.append(hs.open_request(HANDLE_IDS[handle], f"{shape.name}_rs",
                                         list(shape.handle_columns(handle)),
                                         shape.index, fcols and list(fcols), DB))
        answers = []
        try:
            with hs.Connection(port, timeout=ANSWER_TIMEOUT) as conn:
                conn.send_lines(opens)
                answers += [conn.read_answer() for _ in opens]
                conn.send_raw(b"".join(hs_line(r) for r in requests))
                for _ in requests:
                    answers.append(conn.read_answer())
        except (ConnectionError, OSError) as e:
            if self.wait_dead():
                return None, None, f"mariadbd crashed ({self.server.exit_status()})"
            if isinstance(e, socket.timeout):
                self.server.kill()
                return None, None, (f"no answer within {ANSWER_TIMEOUT:.0f}s after "
                                    f"{len(answers)} of {len(opens) + len(requests)} "
                                    f"(P and requests); mariadbd killed")
            raise
        outcomes = []
        for answer in answers[len(opens):]:
            if answer[0] == "0":
                outcomes.append(Outcome(True, answer))
            else:
                outcomes.append(Outcome(False, error="\t".join(
                    "NULL" if t is None else t for t in answer)))
        return outcomes, list(zip(opens, answers)), None

    def wait_dead(self, seconds=5.0):
        """True when mariadbd has ended (a crash takes a moment to finish dying)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if not self.server.alive():
                return True
            time.sleep(0.05)
        return False
