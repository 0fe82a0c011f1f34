"""rowsocket against SQL: every table shape the server supports × every operation.

Each case runs twice from the same rows: as SQL statements on one copy of the table
(`<shape>_sql`) and as HandlerSocket bytes through rowsocket's write listener on a twin
with the same definition (`<shape>_rs`). Then, for every request, SQL's success or
error and answer (count, or the rows as they were for a `?` form) must be rowsocket's;
the twin's final rows must be the copy's (history rows too for system-versioned
tables; an ON UPDATE timestamp as "kept or changed"); and CHECK TABLE ... EXTENDED of
the twin must answer what it answers for the copy. The SQL side runs with the server's
default sql_mode (STRICT_TRANS_TABLES): where SQL refuses a value, rowsocket must
answer an error and change nothing.

How a request is said in SQL (differential.py does it):
- find-and-modify `<op> <key> <limit> <offset> [@ IN] [F/W filters] <mop> <values>`:
  SELECT the rows the index scan meets (WHERE the key compares as the index orders it,
  NULL first; ORDER BY the index order, descending for `<`/`<=`), one SELECT per IN
  value; HandlerSocket's own rules pick the rows (a failing F skips a row, a failing W
  ends that scan; skipped rows count toward neither offset nor limit; limit 0 or none
  means 1). Then one statement changes exactly those rows, in the order the scan met
  them: `UPDATE t SET c = v` (U), `SET c = c + v` (+), `SET c = c - v` (-) or
  `DELETE` ... `WHERE <those rows> ORDER BY <that order>` (rows named by their primary
  key, or by all their columns where there is none: those shapes keep rows distinct).
  SQL's UPDATE has no OFFSET; naming the rows keeps offsets, IN and W one statement.
- `-` is HandlerSocket's: a row whose value would cross zero (positive or zero to
  negative, negative to zero or positive) is left alone and not counted, as if the
  statement said `AND (c >= 0) = (c - v >= 0)` (computed exactly, in DECIMAL(65,10)).
- insert `+ <values>`: `INSERT INTO t (<first n columns>) VALUES (...)`.
- An error has no effect: the copy is put back as it was before the failing
  statement, also on engines that keep the rows changed before an error.
- A pipeline is its requests one after the other, each its own statement.

Passes: `warm` (the copy and the twin are refilled through SQL before each case, and
rowsocket keeps the twin open from case to case), `after_restart` (mariadbd restarted
with the twins already filled, so each shape's first case is rowsocket's first open of
its table since the start) and `after_flush`; in both, every case but that first one
refills the twin and then runs FLUSH TABLES on it, so rowsocket opens it first.
One test per pass and shape; a failure lists every case that disagreed, with the
exact request bytes, the SQL statement and both outcomes. A case that crashes or
hangs mariadbd ends its shape (the next test starts the server again); after
MAX_SERVER_LOSSES such losses the remaining tests fail without running.
ROWSOCKET_DIFF_REPORT=<file> also appends every disagreement there, one JSON per line.
"""

import dataclasses
import json
import os
from collections import Counter

import pytest

import hs
import targets
from differential import Aux, Find, Insert, Shape, Twins, hs_line

pytestmark = targets.rowsocket_only

NA = object()    # a slot a shape has no value for: operations that need it are skipped

# -- the shapes -----------------------------------------------------------------------------

# The common layout: id, an indexed k (the scanned index kk), a numeric n, a UNIQUE v.
BASE = "id INT PRIMARY KEY, k INT, n INT NOT NULL, v VARCHAR(20), KEY kk (k), UNIQUE KEY kv (v)"
ROWS = ((1, 10, 5, "a"), (2, 20, 0, "b"), (3, 30, -5, "c"), (4, 40, 7, "d"),
        (5, 50, 20, "e"), (6, 60, 3, "f"))
# Equal keys, for InnoDB only: other engines order equal keys by where the row lies.
ROWS_TIES = ((1, 10, 5, "a"), (2, 20, 0, "b"), (3, 20, -5, "c"), (4, 40, 7, "d"),
             (5, 50, 20, "e"), (6, 50, 3, "f"), (7, 60, 12, "g"))
PRIMARY_KEYS = dict(K0=0, K1=2, K2=3, K3=5, K4=99, KD=10, KU=(2,))

# K0..K4: key values for the first key part, from below the first row to past the last;
# U0/U1: values for the first columns of `cols` (U1 is refused, or collides when it
# reaches two rows); D0/D1: + and - amounts; KD/KU: + amount and U value for the
# scanned key column itself (moves rows within the scan); F0..F2: filter values on
# fcols[0]; I0 a new row, I1 a duplicate, I2 a row SQL refuses.
DEFAULTS = dict(K0=5, K1=20, K2=30, K3=50, K4=99, U0=(77,), U1=(-3, "zz"), D0=4, D1=6,
                KD=15, KU=(20,), F0=0, F1=10, F2=-1, I0=(8, 70, 1, "h"),
                I1=(9, 20, 2, "a"), I2=(10, 80, None, "i"))
TOO_LONG = "x" * 25


def shape(name, body=BASE, rows=ROWS, **fields):
    """A shape with the common layout's defaults; slot values go in as keywords too."""
    slots = {k: fields.pop(k) for k in list(fields) if k in DEFAULTS}
    return Shape(name, body, rows=rows, values={**DEFAULTS, **slots}, **fields)


def partitioned(name, partitioning, **fields):
    body = ("id INT, k INT, n INT NOT NULL, v VARCHAR(20), PRIMARY KEY (id, k), "
            "KEY kk (k)")
    return shape(name, body, options=f"ENGINE=InnoDB {partitioning}", rowid=("id", "k"),
                 U1=(-3, TOO_LONG), I1=(1, 10, 2, "a"), **fields)


def generated(name, kind, indexed):
    if indexed:     # the scanned index is on the generated column
        body = (f"id INT PRIMARY KEY, n INT NOT NULL, v VARCHAR(20), "
                f"g INT AS (n * 2) {kind}, KEY kg (g), UNIQUE KEY kv (v)")
        return shape(name, body, rows=tuple((i, n, v) for i, _, n, v in ROWS),
                     index="kg", key=("g",), cols=("n", "v", "g"), ins=("id", "n", "v", "g"),
                     K0=-20, K1=0, K2=6, K3=14, K4=99, U1=(1, "zz", 2), KU=(5,),
                     I0=(8, 9, "h"), I1=(1, 9, "x"), I2=(10, 9, "i", 18))
    body = BASE + f", g INT AS (n + k) {kind}"
    return shape(name, body, cols=("n", "v", "g"), ins=("id", "k", "n", "v", "g"),
                 U1=(1, "zz", 2), I2=(10, 80, 1, "i", 81))


def integer_edge(name, column_type, rows_n, **slots):
    body = BASE.replace("n INT NOT NULL", f"n {column_type} NOT NULL")
    rows = tuple((i, k, n, v) for (i, k, _, v), n in zip(ROWS, rows_n))
    return shape(name, body, rows=rows, **slots)


def no_primary_key(name, options):
    """Rows are named by all their columns: k stays unique, and no case makes two rows
    equal."""
    return shape(name, "k INT, n INT NOT NULL, v VARCHAR(20), KEY kk (k)", options=options,
                 rows=tuple(r[1:] for r in ROWS), ins=("k", "n", "v"), rowid=("k", "n", "v"),
                 U1=(-3, TOO_LONG), I0=(70, 1, "h"), I1=(20, 2, "b2"), I2=(80, None, "i"))


BIGINT_MAX, BIGINT_MIN = 2**63 - 1, -2**63
DECIMAL30_MAX = 10**30 - 1

SHAPES = [
    shape("innodb", rows=ROWS_TIES, K2=40),
    shape("innodb_primary", index="PRIMARY", key=("id",), **PRIMARY_KEYS),
    shape("myisam", options="ENGINE=MyISAM"),
    shape("aria", options="ENGINE=Aria"),
    shape("memory_btree", BASE.replace("KEY kk (k)", "KEY kk (k) USING BTREE"),
          options="ENGINE=MEMORY"),
    shape("memory_hash", BASE.replace("KEY kk (k)", "KEY kk (k) USING HASH"),
          options="ENGINE=MEMORY"),
    partitioned("partition_key", "PARTITION BY KEY (id) PARTITIONS 3"),
    partitioned("partition_range", "PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS "
                "THAN (3), PARTITION p1 VALUES LESS THAN (6), PARTITION p2 VALUES LESS "
                "THAN MAXVALUE)", index="PRIMARY", key=("id",), **PRIMARY_KEYS),
    partitioned("partition_hash", "PARTITION BY HASH (id) PARTITIONS 4"),
    generated("virtual_indexed", "VIRTUAL", indexed=True),
    generated("stored_indexed", "STORED", indexed=True),
    generated("virtual", "VIRTUAL", indexed=False),
    generated("stored", "STORED", indexed=False),
    shape("unique_text", BASE.replace("v VARCHAR(20)", "v TEXT")),
    shape("unique_blob_myisam", BASE.replace("v VARCHAR(20)", "v BLOB"),
          options="ENGINE=MyISAM"),
    shape("check", BASE.replace("n INT NOT NULL", "n INT NOT NULL CHECK (n BETWEEN -10 AND 30)")
          + ", CONSTRAINT nv CHECK (n <> 13 OR v IS NULL)",
          U1=(31, "zz"), I2=(10, 80, 99, "i")),
    shape("json", BASE + ", j JSON", rows=tuple(r + ('{"a": %d}' % r[0],) for r in ROWS),
          ins=("id", "k", "n", "v", "j"), cols=("n", "j"), U1=(-3, "{bad"),
          I2=(10, 80, 1, "i", "[1,")),
    shape("prefix_unique", "id INT PRIMARY KEY, name VARCHAR(20), n INT NOT NULL, "
          "UNIQUE KEY kname (name(3))", index="kname", key=("name",), cols=("n", "name"),
          ins=("id", "name", "n"),
          rows=((1, "abcdef", 5), (2, "bcd", 0), (3, "cdexyz", -5), (4, "def", 7),
                (5, "efghij", 20), (6, "fgh", 3)),
          K0="ab", K1="abcQQQ", K2="cdexyz", K3="efgZZZ", K4="zzz", U1=(-3, "abcZZZ"),
          KD=NA, KU=("bcdXYZ",), I0=(7, "ghi", 1), I1=(8, "abcQQQ", 2), I2=(9, TOO_LONG, 1)),
    shape("prefix", "id INT PRIMARY KEY, name VARCHAR(20), n INT NOT NULL, "
          "KEY kname (name(2))", index="kname", key=("name",),
          order=("LEFT(name, 2)", "id"), cols=("n", "name"), ins=("id", "name", "n"),
          rows=((1, "aab", 5), (2, "aaa", 0), (3, "abz", -5), (4, "ab", 7), (5, "ba", 20),
                (6, "bab", 3), (7, "ca", 12)),
          K0="a", K1="aab", K2="ab", K3="bab", K4="z", U1=(-3, TOO_LONG), KD=NA,
          KU=("aaa",), I0=(8, "aac", 1), I1=(1, "dup", 2), I2=(9, TOO_LONG, 1)),
    shape("versioned", options="ENGINE=InnoDB WITH SYSTEM VERSIONING",
          view="id, k, n, v, ROW_END > NOW(6) AS current_row", history=True),
    shape("on_update", BASE + ", ts TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP "
          "ON UPDATE CURRENT_TIMESTAMP", rows=tuple(r + ("2000-01-01 00:00:00",) for r in ROWS),
          ins=("id", "k", "n", "v", "ts"),
          view="id, k, n, v, ts = '2000-01-01 00:00:00' AS ts_kept"),
    integer_edge("decimal", "DECIMAL(30,0)",
                 (-5, 0, 123456789012345678901234567890, 7, DECIMAL30_MAX, -DECIMAL30_MAX),
                 D0=0, D1=1, U1=(DECIMAL30_MAX + 1, "zz"), I2=(10, 80, DECIMAL30_MAX + 1, "i")),
    integer_edge("bigint_unsigned", "BIGINT UNSIGNED",
                 (2**64 - 1, 0, 2**64 - 1, 7, 2**64 - 2, 3),
                 D0=1, D1=6, F2=1, U1=(2**64, "zz"), I2=(10, 80, -1, "i")),
    integer_edge("int_unsigned", "INT UNSIGNED", (2**32 - 1, 0, 5, 7, 20, 3),
                 D0=-10, D1=1, F2=1, U1=(2**32, "zz"), I2=(10, 80, -1, "i")),
    integer_edge("bigint", "BIGINT", (5, 0, BIGINT_MIN, BIGINT_MAX, 20, 3),
                 D0=-1, D1=1, U1=(BIGINT_MAX + 1, "zz"), I2=(10, 80, BIGINT_MIN - 1, "i")),
    shape("null_keys", BASE.replace("k INT", "k INT NULL"),
          rows=((1, None, 5, "a"), (2, 20, 0, "b"), (3, None, -5, "c"), (4, 40, 7, "d"),
                (5, None, 20, "e"), (6, 60, 3, "f")),
          K0=None, K1=20, K2=None, K3=60, KU=(None,), I0=(8, None, 1, "h")),
    shape("foreign_key_child", BASE + ", FOREIGN KEY (k) REFERENCES {t}_p (id)",
          aux=(Aux("_p", "id INT PRIMARY KEY", tuple((k,) for k in range(10, 80, 10))),),
          KD=10, KU=(99,), I2=(10, 99, 1, "i")),
    shape("foreign_key_parent", index="PRIMARY", key=("id",), **PRIMARY_KEYS,
          aux=(Aux("_c", "id INT PRIMARY KEY, p INT, FOREIGN KEY (p) REFERENCES {t} (id) "
                   "ON DELETE CASCADE ON UPDATE RESTRICT",
                   ((1, 1), (2, 2), (3, 2), (4, 5)), child=True),)),
    no_primary_key("no_primary_key", "ENGINE=InnoDB"),
    no_primary_key("no_primary_key_myisam", "ENGINE=MyISAM"),
]

# -- the operations ---------------------------------------------------------------------------


@dataclasses.dataclass
class Op:
    """A request in terms of a shape's slots: handle (which columns the `P` opens:
    cols, num = the + / - column, key = the scanned key's first column), find op,
    key slot, modify op and its value slot; or `insert` with a row slot."""
    name: str
    handle: str
    op: str = None
    key: str = None
    mop: str = None
    values: str = None
    limit: int = 1
    offset: int = 0
    in_: tuple = None
    filters: tuple = ()

    def request(self, shape):
        """The request for `shape`, or None when the shape lacks a slot it needs."""
        slots = [self.key, self.values, *(self.in_ or ()), *(f[3] for f in self.filters)]
        if any(s is not None and shape.slot(s) is NA for s in slots):
            return None

        def value(slot):        # a tuple slot gives several values, any other one
            v = shape.slot(slot)
            return list(v) if isinstance(v, tuple) else [v]

        if self.handle == "ins":
            return Insert(value(self.values))
        return Find(self.handle, self.op, [shape.slot(self.key)], self.limit, self.offset,
                    self.mop, value(self.values) if self.values else [],
                    [shape.slot(s) for s in self.in_] if self.in_ else None,
                    [(kind, fop, col, shape.slot(s)) for kind, fop, col, s in self.filters])


OPS = [
    Op("U =", "cols", "=", "K1", "U", "U1"),
    Op("U? = limit 0", "cols", "=", "K1", "U?", "U0", limit=0),
    Op("U? >= limit 3", "cols", ">=", "K1", "U?", "U0", limit=3),
    Op("U > limit 2 offset 1", "cols", ">", "K0", "U", "U0", limit=2, offset=1),
    Op("U < limit 3", "cols", "<", "K4", "U", "U1", limit=3),
    Op("U <= all", "cols", "<=", "K3", "U", "U0", limit=50),
    Op("+ =", "num", "=", "K2", "+", "D0", limit=5),
    Op("+? >= all", "num", ">=", "K0", "+?", "D1", limit=50),
    Op("- <= limit 3", "num", "<=", "K3", "-", "D0", limit=3),
    Op("-? > all", "num", ">", "K0", "-?", "D1", limit=50),
    Op("+ scanned key >= all", "key", ">=", "K0", "+", "KD", limit=50),
    Op("U? scanned key < limit 2 offset 1", "key", "<", "K4", "U?", "KU", limit=2, offset=1),
    Op("D =", "cols", "=", "K1", "D", limit=5),
    Op("D? >= limit 2 offset 1", "cols", ">=", "K1", "D?", limit=2, offset=1),
    Op("D <= all", "cols", "<=", "K3", "D", limit=50),
    Op("U @", "cols", "=", "K0", "U", "U1", limit=10, in_=("K3", "K1", "K4")),
    Op("D? @ offset 1", "cols", "=", "K0", "D?", limit=10, offset=1, in_=("K2", "K1", "K3")),
    Op("+ F", "num", ">=", "K0", "+", "D0", limit=50, filters=(("F", ">", 0, "F0"),)),
    Op("U? W", "cols", ">=", "K0", "U?", "U0", limit=50, filters=(("W", "<", 0, "F1"),)),
    Op("D F W offset 1", "cols", "<=", "K4", "D", limit=50, offset=1,
       filters=(("F", "!=", 0, "F0"), ("W", ">", 0, "F2"))),
    Op("insert", "ins", values="I0"),
    Op("insert duplicate", "ins", values="I1"),
    Op("insert refused", "ins", values="I2"),
]
OP_BY_NAME = {op.name: op for op in OPS}

# Several requests in one write; each still answers, and an error undoes only its own.
PIPELINES = {
    "pipeline": ["insert", "U? >= limit 3", "- <= limit 3", "D =", "+ scanned key >= all"],
    "pipeline with errors": ["U < limit 3", "insert duplicate", "+ =", "insert refused",
                             "D? >= limit 2 offset 1"],
}


def cases(shape):
    """(name, requests) of every operation and pipeline that applies to `shape`."""
    for op in OPS:
        request = op.request(shape)
        if request is not None:
            yield op.name, [request]
    for name, op_names in PIPELINES.items():
        requests = [OP_BY_NAME[n].request(shape) for n in op_names]
        yield name, [r for r in requests if r is not None]


# -- where rowsocket is right to differ --------------------------------------------------------

# (shape names, which requests, what rowsocket answers instead, why). The SQL side
# answers a listed request with an error and does not run it.
EXPECTED_DIFFERENCES = [
    (("memory_hash",), lambda r: isinstance(r, Find) and r.op != "=",
     "error",
     "a HASH index has no order: a range find on it cannot be served by the index, "
     "so rowsocket refuses it (SQL would scan the whole table)"),
    (("partition_key", "partition_hash", "partition_range"),
     lambda r: isinstance(r, Find) and r.op == "<=",
     "error",
     "a partitioned table's handler merges the rows of a backward scan that starts at "
     "an existing key out of order (the server's own HANDLER ... READ idx <= (...) "
     "shows it too); rowsocket refuses `<=` there rather than answer the wrong rows"),
]


def expected_difference(shape, request):
    for names, applies, _, reason in EXPECTED_DIFFERENCES:
        if shape.name in names and applies(request):
            return reason
    return None


# -- the comparison ------------------------------------------------------------------------------

def disagreements(sql_outcomes, sql_snapshot, rs_outcomes, rs_snapshot):
    """Every way rowsocket's run of a case differs from SQL's; empty when they agree."""
    found = []
    for i, (s, r) in enumerate(zip(sql_outcomes, rs_outcomes), 1):
        if s.ok != r.ok or (s.ok and s.answer != r.answer):
            found.append(f"request {i}: SQL {s} | rowsocket {r}")
    for table in sql_snapshot.rows:
        want, got = Counter(sql_snapshot.rows[table]), Counter(rs_snapshot.rows[table])
        if want != got:
            found.append(f"rows{' of ' + table if table else ''}: "
                         f"only SQL has {sorted((want - got).elements(), key=str)}, "
                         f"only rowsocket has {sorted((got - want).elements(), key=str)}")
        if sql_snapshot.check[table] != rs_snapshot.check[table]:
            found.append(f"CHECK TABLE{' of ' + table if table else ''}: "
                         f"{rs_snapshot.check[table]} (SQL's copy: {sql_snapshot.check[table]})")
    return found


# -- the test -----------------------------------------------------------------------------------

MODES = ("warm", "after_restart", "after_flush")
# Each crash or hang costs a restart; past this many the module stops trying (bounded time).
MAX_SERVER_LOSSES = 6
# Engines whose rows survive a restart: the twin needs no refill (rowsocket opens it first).
DURABLE = ("InnoDB", "MyISAM", "Aria")


class Lab:
    """The module's state: both copies of every shape, SQL's answers (computed once per
    case), and which twins still hold their rows untouched since a restart."""

    def __init__(self, server):
        self.server = server
        self.twins = Twins(server, SHAPES)
        self.sql_answers = {}
        self.restarted = False
        self.untouched = set()
        self.losses = 0             # crashes and hangs so far

    def ensure_running(self):
        if not self.server.alive():        # a case crashed it: the next shape goes on
            self.server.restart()
            self.twins.reconnect()

    def restart_with_filled_twins(self):
        for s in SHAPES:
            self.twins.reset(s, "rs")
        self.server.stop(keep_files=True)
        self.server.restart()
        self.twins.reconnect()
        self.restarted = True
        self.untouched = {s.name for s in SHAPES
                          if any(f"ENGINE={e}" in s.options for e in DURABLE)}

    def sql_side(self, shape, name, requests):
        if (shape.name, name) not in self.sql_answers:
            self.sql_answers[(shape.name, name)] = self.twins.sql_side(
                shape, requests, expected_difference)
        return self.sql_answers[(shape.name, name)]


@pytest.fixture(scope="module")
def lab(server):
    lab = Lab(server)
    yield lab
    lab.twins.close()
    lab.ensure_running()    # a crash was reported by the test that caused it


def backtrace(log):
    """The frames of the last crash report in the error log, if there is one."""
    if "__restore_rt" not in log:
        return ""
    frames = log[log.rindex("__restore_rt"):].split("\n")[1:]
    frames = frames[:next((i for i, f in enumerate(frames) if not f.strip()
                           or f.startswith("Connection ID")), len(frames))]
    return "; backtrace:\n      " + "\n      ".join(frames[:14])


def describe(mode, shape, name, requests, sql_outcomes, rs_outcomes, opens, problems):
    lines = [f"[{mode}] {shape.name} / {name}"]
    for p, answer in opens or ():
        if answer != ["0", "1"]:
            lines.append(f"  P answered {answer}: {hs.encode_line(p)!r}")
    for i, request in enumerate(requests, 1):
        lines.append(f"  request {i}: {hs_line(request)!r}")
        s = sql_outcomes[i - 1]
        lines.append(f"    SQL: {s}" + (f"   <- {s.statement}" if s.statement else ""))
        if rs_outcomes:
            lines.append(f"    rowsocket: {rs_outcomes[i - 1]}")
    lines += [f"  {p}" for p in problems]
    return "\n".join(lines)


def save_report(mode, shape, name, requests, sql_outcomes, rs_outcomes, problems):
    path = os.environ.get("ROWSOCKET_DIFF_REPORT")
    if not path:
        return
    with open(path, "a") as f:
        f.write(json.dumps({
            "mode": mode, "shape": shape.name, "case": name,
            "requests": [hs_line(r).decode("latin-1") for r in requests],
            "sql": [str(o) for o in sql_outcomes],
            "sql_statements": [o.statement for o in sql_outcomes],
            "rowsocket": [str(o) for o in rs_outcomes or ()],
            "problems": problems}) + "\n")


@pytest.mark.parametrize("mode,shape", [(m, s) for m in MODES for s in SHAPES],
                         ids=[f"{m}-{s.name}" for m in MODES for s in SHAPES])
def test_rowsocket_agrees_with_sql(lab, mode, shape):
    if lab.losses >= MAX_SERVER_LOSSES:
        pytest.fail(f"not run: mariadbd went away {lab.losses} times in this module already")
    lab.ensure_running()
    if mode == "after_restart" and not lab.restarted:
        lab.restart_with_filled_twins()
    twins = lab.twins
    failures = []
    for name, requests in cases(shape):
        sql_outcomes, sql_snapshot = lab.sql_side(shape, name, requests)
        if mode == "after_restart" and shape.name in lab.untouched:
            lab.untouched.discard(shape.name)      # filled before the restart
        else:
            twins.reset(shape, "rs")
            if mode != "warm":
                twins.flush(shape, "rs")
        port = lab.server.plugins[0].port_wr
        rs_outcomes, opens, gone = twins.rowsocket_side(shape, requests, port)
        if gone:
            lab.losses += 1
            problems = [f"{gone} on this case{backtrace(lab.server.error_log())}"]
        else:
            rs_snapshot = twins.snapshot(shape, "rs")
            problems = disagreements(sql_outcomes, sql_snapshot, rs_outcomes, rs_snapshot)
            if rs_snapshot.check != sql_snapshot.check:
                twins.recreate(shape, "rs")     # the next case starts from a sound table
        if problems:
            save_report(mode, shape, name, requests, sql_outcomes, rs_outcomes, problems)
            failures.append(describe(mode, shape, name, requests, sql_outcomes,
                                     rs_outcomes, opens, problems))
        if gone:
            break
    assert not failures, f"{len(failures)} case(s) disagree with SQL:\n\n" + "\n\n".join(failures)
