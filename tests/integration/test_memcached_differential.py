"""The memcached listener against SQL: every command × every container shape × edge keys.

Each case runs twice from the same rows: as the SQL statements EQUIVALENT_SQL
(memcached_differential.py) says the command amounts to, on one copy of the table
(`<shape>_sql`, the server's strict sql_mode), and as memcached bytes — text, meta or
binary — through rowsocket's memcached listener on a twin mapped as the container
`<shape>` (`<shape>_rs`). Then SQL's outcome must be rowsocket's: ok, miss (an SQL
statement that matched no row or met a duplicate key; memcached's NOT_FOUND,
NOT_STORED, EXISTS, END alone, EN/NF/NS/EX, binary statuses 1, 2, 5), client_error
(a key, value or number memcached's rules refuse before any statement; CLIENT_ERROR,
binary 4 and 6, with the same reason: not a number, a value that does not split,
other) or server_error (SQL refused the statement; SERVER_ERROR, other binary
statuses); a hit with the same value and flags (and the CAS of `gets` where the
container has a CAS column), incr/decr with the same number. The twin's rows must be
the copy's exactly (each CAS the listener or the SQL side wrote shows as 'new';
system-versioned tables with their history), and CHECK TABLE ... EXTENDED of the twin
must answer what it answers for the copy.

The rule where memcached's semantics and SQL's differ: SQL's rules for the row win
and memcached's words answer. A key that is not exactly a value of the key column
(strict mode refuses it, or it does not read back as itself: `01` of INT) is a miss
to a retrieval, and every other command of it is refused with a CLIENT_ERROR.
ACCEPTED lists where the expectation departs from plain SQL on purpose, and why.
ROWSOCKET_DIFF_REPORT=<file> appends every disagreement there, one JSON object per
line.

One server for the module; tables and containers are made before any memcached
connection opens. Each case refills a copy only when the case before changed it.
"""

import json
import os
import time

import pytest

import harness
import servers
import targets
from memcached_differential import COMMANDS, Case, SqlSide, op_of, text_key
from memcached_shapes import SHAPES
from memcached_wire import McSide

pytestmark = targets.rowsocket_only

# -- where the expectation departs from plain SQL, on purpose ----------------------------

ACCEPTED = [
    ("NULL reads as empty", "memcached has no NULL: a value column's NULL is '' in the "
     "joined value (CONCAT_WS would drop it and its separator)"),
    ("the value splits at the separator", "a write's value is cut at the first n-1 "
     "separators into the n value columns (the last takes the rest); fewer fields is a "
     "CLIENT_ERROR, as there is no statement to run"),
    ("append/prepend change one column", "append concatenates to the last value column, "
     "prepend to the first (a NULL one taken as ''): the item's other columns keep their "
     "values, even where the joined value would split differently"),
    ("incr/decr are memcached's arithmetic", "the value must be memcached's number "
     "(digits, below 2^64) or CLIENT_ERROR; incr wraps at 2^64, decr stops at 0; the new "
     "number is then stored under SQL's rules for the column (strict: out of range is an "
     "error)"),
    ("expiry is memcached's", "an item whose expiry time has passed is a miss to every "
     "command; add and set replace it in place (an UPDATE: unmapped columns keep their "
     "values), delete deletes it and answers NOT_FOUND"),
    ("no flags or expiry column", "flags read as 0 and are dropped by writes; items "
     "never expire"),
    ("touch and gat keep the CAS", "as memcached's; a container without a CAS column "
     "derives it from the item, so there it moves"),
    ("a key that is not exactly a value of the key column", "the issue's rule: a "
     "retrieval misses and every other command is a CLIENT_ERROR, where SQL would "
     "convert the key (`01` into an INT, `1.4` rounded) or refuse it with its own "
     "error"),
    ("a write that finds nothing to do", "add of a live item, replace, cas, append or "
     "prepend of a missing one answer NOT_STORED/NOT_FOUND without SQL judging the value "
     "(the statement would change no row)"),
]

# -- the cases ---------------------------------------------------------------------------------

VALUE_COMMANDS = ("set", "add", "replace", "append", "prepend", "cas")


def cases(shape):
    for command, (framing, _, _) in COMMANDS.items():
        for label, key in shape.keys:
            if framing == "text" and not text_key(key):
                continue
            yield Case(command, label, key)
    for command in VALUE_COMMANDS:
        values = shape.more_values if command in ("set", "add", "replace", "cas") \
            else shape.appended_values
        for label in ("present", "absent"):
            for value_label, value in values:
                yield Case(command, label, shape.key_bytes(label), value_label, value)


ALL = [(s, c) for s in SHAPES for c in cases(s)]


def _param(shape, case):
    return pytest.param(shape, case, id=f"{shape.name}-{case.id()}")


# -- the module's server and copies -------------------------------------------------------------

@pytest.fixture(scope="module")
def memcached_port():
    return harness.free_ports(1)[0]


@pytest.fixture(scope="module")
def server(memcached_port):
    # No sweep: the expired rows the cases read stay until a case deletes them.
    plugin = targets.make_plugin({"memcached_port": memcached_port, "memcached_sweep_rate": 0})
    with servers.running_server([plugin], ["--innodb-flush-log-at-trx-commit=2"]) as srv:
        yield srv


class Lab:
    """Both copies of every shape; which copies differ from their shape's rows."""

    def __init__(self, server, port):
        self.sql = SqlSide(server)
        mode = self.sql.rows("SELECT @@GLOBAL.sql_mode")[0][0]
        assert b"STRICT_TRANS_TABLES" in mode, mode
        wait_for_the_mapping_table(self.sql)
        self.sql.execute("DROP DATABASE IF EXISTS diffmc")
        self.sql.execute("CREATE DATABASE diffmc")
        self.pristine = {}
        for shape in SHAPES:
            self.sql.create(shape)
            for copy in ("sql", "rs"):
                self.sql.reset(shape, copy)
            self.pristine[shape.name] = self.sql.snapshot(shape, "sql")
        self.dirty = set()
        self.mc = McSide(port)      # after the tables: no connection holds them open first

    def close(self):
        self.mc.close()
        self.sql.close()

    def side(self, shape, copy, case, run):
        """run()'s result and the copy's snapshot after it, from the shape's rows. CHECK
        TABLE runs after every case that may write (a get's is its rows')."""
        if (shape.name, copy) in self.dirty:
            self.sql.reset(shape, copy)
            self.dirty.discard((shape.name, copy))
        result = run()
        pristine = self.pristine[shape.name]
        snapshot = self.sql.snapshot(shape, copy, check=op_of(case.command) != "get")
        if not snapshot.check:
            snapshot.check = pristine.check
        if snapshot.rows != pristine.rows:
            self.dirty.add((shape.name, copy))
        return result, snapshot


def wait_for_the_mapping_table(sql, seconds=20):
    """rowsocket.containers is made by the plugin at its first start."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if sql.rows("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = "
                    "'rowsocket' AND TABLE_NAME = 'containers'")[0][0] == b"1":
            return
        time.sleep(0.1)
    raise AssertionError("rowsocket.containers was not made")


@pytest.fixture(scope="module")
def lab(server, memcached_port):
    lab = Lab(server, memcached_port)
    yield lab
    lab.close()


# -- the comparison -------------------------------------------------------------------------------

def disagreements(shape, case, sql_outcome, sql_snap, rs_outcome, rs_snap):
    found = []
    rs_key = list(rs_outcome.key())
    if not shape.cas:
        rs_key[3] = None        # a derived CAS has no column to compare with
    if rs_key[5] is None and sql_outcome.reason in ("other", "split"):
        rs_key[5] = sql_outcome.reason  # binary Invalid arguments: a bad key or value
    if tuple(rs_key) != sql_outcome.key():
        found.append(f"outcome: SQL {sql_outcome} | rowsocket {rs_outcome}")
    if sql_snap.rows != rs_snap.rows:
        only_sql = [r for r in sql_snap.rows if r not in rs_snap.rows]
        only_rs = [r for r in rs_snap.rows if r not in sql_snap.rows]
        found.append(f"rows: only SQL has {only_sql}, only rowsocket has {only_rs}")
    if sql_snap.check != rs_snap.check:
        found.append(f"CHECK TABLE: {rs_snap.check} (SQL's copy: {sql_snap.check})")
    return found


def save_report(shape, case, sql_outcome, statements, rs_outcome, problems):
    path = os.environ.get("ROWSOCKET_DIFF_REPORT")
    if not path:
        return
    with open(path, "a") as f:
        f.write(json.dumps({
            "shape": shape.name, "command": case.command, "key": case.key.decode("latin-1"),
            "key_label": case.key_label, "value": (case.value or b"").decode("latin-1"),
            "sql": str(sql_outcome), "sql_statements": statements,
            "rowsocket": str(rs_outcome), "problems": problems}) + "\n")


@pytest.mark.parametrize("shape,case", [_param(s, c) for s, c in ALL])
def test_memcached_agrees_with_sql(lab, shape, case):
    (sql_outcome, statements), sql_snap = lab.side(shape, "sql", case,
                                                   lambda: lab.sql.run(shape, case))
    rs_outcome, rs_snap = lab.side(shape, "rs", case, lambda: lab.mc.run(shape, case))
    problems = disagreements(shape, case, sql_outcome, sql_snap, rs_outcome, rs_snap)
    if problems:
        save_report(shape, case, sql_outcome, statements, rs_outcome, problems)
    text = "\n  ".join([f"{shape.name} / {case.command} key {case.key!r}"
                        + (f" value {case.value!r}" if case.value is not None else "")]
                       + [f"SQL: {s}" for s in statements] + problems)
    assert not problems, text
