"""Binary log and replication of rowsocket writes; query cache; foreign keys; triggers.

Two private servers, both with rowsocket loaded: a primary with log_bin, server_id=1
and binlog_format=STATEMENT (rowsocket logs row events whatever the format says, as
the same change made by SQL in row format would be logged), and a replica with
server_id=2 replicating from it (MASTER_USE_GTID=slave_pos). Writes go through
rowsocket on the primary; after MASTER_GTID_WAIT the replica must hold the same rows,
read through SQL and through the replica's rowsocket.

What rowsocket writes do with SQL-level features, as pinned here:
- InnoDB foreign keys apply: a write that would break one answers `1 1 151` (child
  row without parent) or `1 1 152` (parent row still referenced) and changes
  nothing; ON DELETE CASCADE happens inside InnoDB, on the primary and again on the
  replica when it applies the parent's row event.
- SQL triggers do not fire: rowsocket writes rows through the handler API, below
  the SQL layer that runs triggers (and a replica applying row events does not run
  them either, by default). A table whose triggers must fire should be written
  through SQL.
- The query cache is invalidated by each rowsocket write's commit.
"""

import os
import shutil
import subprocess
import time

import pymysql
import pytest

import hs
import servers
import targets
from db import Sql

pytestmark = targets.rowsocket_only

MARIADB_BINLOG = shutil.which("mariadb-binlog") or "/usr/bin/mariadb-binlog"
SYNC_TIMEOUT = 30           # seconds the replica may take to catch up (liveness)

PRIMARY_ARGS = ["--log-bin=primary-bin", "--server-id=1", "--binlog-format=STATEMENT",
                "--query-cache-type=1", "--query-cache-size=16M"]
REPLICA_ARGS = ["--server-id=2", "--relay-log=replica-relay-bin"]

AI_TABLE = """id INT UNSIGNED AUTO_INCREMENT PRIMARY KEY, name VARCHAR(30) NOT NULL,
    n INT NOT NULL DEFAULT 0, note VARCHAR(30) NULL, b VARBINARY(16) NULL, KEY k_name (name)"""


# -- the two servers ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def primary():
    with servers.running_server([targets.make_plugin()], PRIMARY_ARGS) as srv:
        yield srv


@pytest.fixture(scope="module")
def psql(primary):
    conn = Sql(primary)
    yield conn
    conn.close()


@pytest.fixture(scope="module")
def replica(primary, psql):
    with servers.running_server([targets.make_plugin()], REPLICA_ARGS) as srv:
        conn = Sql(srv)
        try:
            conn.execute(
                "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, "
                "MASTER_USER='root', MASTER_PASSWORD='', MASTER_CONNECT_RETRY=1, "
                "MASTER_USE_GTID=slave_pos" % primary.sql_port)
            conn.execute("START SLAVE")
        finally:
            conn.close()
        yield srv
        conn = Sql(srv)
        try:
            conn.execute("STOP SLAVE")
        finally:
            conn.close()


@pytest.fixture(scope="module")
def rsql(replica):
    conn = Sql(replica)
    yield conn
    conn.close()


@pytest.fixture(scope="module")
def tables(psql, rsql):
    psql.create_table("ai", AI_TABLE)
    psql.create_table("qc", "k INT PRIMARY KEY, v VARCHAR(20)", [(1, "old"), (2, "two")])
    psql.create_table("parent", "id INT PRIMARY KEY, name VARCHAR(20)",
                      [(1, "p1"), (2, "p2"), (3, "p3"), (4, "p4")])
    psql.create_table("child", "id INT PRIMARY KEY, pid INT NOT NULL, KEY (pid), "
                               "FOREIGN KEY (pid) REFERENCES parent (id)",
                      [(10, 1), (11, 2)])
    psql.create_table("cchild", "id INT PRIMARY KEY, pid INT NOT NULL, KEY (pid), "
                                "FOREIGN KEY (pid) REFERENCES parent (id) ON DELETE CASCADE",
                      [(20, 4), (21, 4), (22, 3)])
    psql.create_table("trg", "k INT PRIMARY KEY, v VARCHAR(20)")
    psql.create_table("audit", "id INT AUTO_INCREMENT PRIMARY KEY, k INT, what VARCHAR(10)")
    for event in ("INSERT", "UPDATE", "DELETE"):
        row = "OLD" if event == "DELETE" else "NEW"
        psql.execute(f"CREATE TRIGGER test.trg_{event.lower()} AFTER {event} ON test.trg "
                     f"FOR EACH ROW INSERT INTO test.audit (k, what) VALUES ({row}.k, '{event}')")
    sync(psql, rsql)


def gtid_binlog_pos(psql):
    return psql.value("SELECT @@GLOBAL.gtid_binlog_pos")


def sync(psql, rsql):
    """Waits until the replica has applied everything the primary has logged."""
    pos = gtid_binlog_pos(psql)
    if rsql.value("SELECT MASTER_GTID_WAIT(%s, %s)", (pos, SYNC_TIMEOUT)) != "0":
        with rsql.conn.cursor(pymysql.cursors.DictCursor) as cur:
            cur.execute("SHOW SLAVE STATUS")
            row = cur.fetchone() or {}
        raise AssertionError(
            f"replica did not reach {pos} within {SYNC_TIMEOUT}s: "
            f"IO {row.get('Slave_IO_Running')} {row.get('Last_IO_Error')!r}, "
            f"SQL {row.get('Slave_SQL_Running')} {row.get('Last_SQL_Error')!r}")


def seq_no(pos):
    """The sequence number of domain 0 in a GTID position like '0-1-42'."""
    for gtid in pos.split(","):
        domain, _server, seq = gtid.split("-")
        if domain == "0":
            return int(seq)
    return 0


def binary_rows(server, query):
    """Rows as the stored bytes (numbers as their text, as bytes), None for NULL."""
    conn = Sql(server, raw_bytes=True)
    try:
        return [tuple(v.encode() if isinstance(v, str) else v for v in row)
                for row in conn.rows(query)]
    finally:
        conn.close()


def rowsocket_rows(port, table, columns, ncols):
    """Every row of test.<table> in primary key order, read through rowsocket."""
    with hs.Connection(port) as conn:
        conn.open_index(9, table, columns)
        answer = conn.request_bytes([9, ">=", 1, 0, 100000, 0])
    assert answer[:2] == [b"0", str(ncols).encode()], answer
    values = answer[2:]
    return [tuple(values[i:i + ncols]) for i in range(0, len(values), ncols)]


def assert_same_everywhere(primary, replica, table, columns, order="id"):
    """SQL on both servers and rowsocket on both servers return the same rows."""
    query = f"SELECT {', '.join(columns)} FROM test.{table} ORDER BY {order}"
    on_primary = binary_rows(primary, query)
    assert binary_rows(replica, query) == on_primary
    ncols = len(columns)
    for server in (primary, replica):
        found = rowsocket_rows(server.plugins[0].port, table, columns, ncols)
        assert found == on_primary, f"rowsocket on {server is replica and 'replica' or 'primary'}"
    return on_primary


def write_conn(server):
    return hs.Connection(server.plugins[0].port_wr)


# -- replication -------------------------------------------------------------------------

def test_rowsocket_writes_replicate_as_row_events(primary, replica, psql, rsql, tables):
    with write_conn(primary) as w:
        w.open_index(1, "ai", ["name", "n", "note", "b"])          # id from AUTO_INCREMENT
        w.open_index(2, "ai", ["id", "name", "n", "note", "b"])
        w.open_index(3, "ai", ["n"])
        w.open_index(4, "ai", ["name", "note"])

        # Inserts with AUTO_INCREMENT ids, NULL and binary bytes.
        rows = [("ann", 10, "first", b"\x00\x01\t\n\xff"), ("bob", 20, None, None),
                ("cid", 30, "", b""), ("dee", 40, "x", b"\xfe"), ("eve", 50, "y", None)]
        for i, row in enumerate(rows, start=1):
            assert w.request([1, "+", 4, *row]) == ["0", "1", str(i)]
        assert w.request([2, "+", 5, 100, "hal", 60, "explicit", None])[:2] == ["0", "1"]
        assert w.request([1, "+", 4, "ivy", 70, None, None]) == ["0", "1", "101"]

        # A pipeline of inserts in one write is one batch: one transaction, one GTID.
        before = seq_no(gtid_binlog_pos(psql))
        w.send_lines([[2, "+", 3, 200 + i, f"bulk{i}", i] for i in range(20)])
        assert [w.read_answer() for _ in range(20)] == [["0", "1", str(200 + i)]
                                                       for i in range(20)]
        assert seq_no(gtid_binlog_pos(psql)) == before + 1

        # Updates, increments, decrements, deletes, and their ? forms.
        assert w.request([4, "=", 1, 2, 1, 0, "U", "bobby", None]) == ["0", "1", "1"]
        assert w.request([3, "=", 1, 3, 1, 0, "+", 5]) == ["0", "1", "1"]
        assert w.request([3, "=", 1, 4, 1, 0, "-", 2]) == ["0", "1", "1"]
        assert w.request([4, "=", 1, 5, 1, 0, "U?", "eva", "z"]) == ["0", "2", "eve", "y"]
        assert w.request([3, "=", 1, 1, 1, 0, "+?", 1]) == ["0", "1", "10"]
        assert w.request([3, "=", 1, 2, 1, 0, "-?", 1]) == ["0", "1", "20"]
        assert w.request([3, ">=", 1, 200, 5, 0, "+", 1000]) == ["0", "1", "5"]
        assert w.request([4, "=", 1, 101, 1, 0, "D?"]) == ["0", "2", "ivy", None]
        assert w.request([3, "=", 1, 3, 1, 0, "D"]) == ["0", "1", "1"]
        assert w.request([3, ">=", 1, 215, 3, 0, "D"]) == ["0", "1", "3"]
        assert w.request([2, "=", 1, 4, 1, 0, "U", 400, "dee", 38, "moved", b"\xfe"]) == \
            ["0", "1", "1"]

    sync(psql, rsql)
    found = assert_same_everywhere(primary, replica, "ai", ["id", "name", "n", "note", "b"])
    assert found[:6] == [
        (b"1", b"ann", b"11", b"first", b"\x00\x01\t\n\xff"),
        (b"2", b"bobby", b"19", None, None),
        (b"5", b"eva", b"50", b"z", None),
        (b"100", b"hal", b"60", b"explicit", None),
        (b"200", b"bulk0", b"1000", None, None),
        (b"201", b"bulk1", b"1001", None, None),
    ]
    assert (b"400", b"dee", b"38", b"moved", b"\xfe") in found
    assert len(found) == 4 + 17 + 1
    assert rsql.value("SELECT @@GLOBAL.gtid_slave_pos") == gtid_binlog_pos(psql)


def test_binlog_shows_row_events_and_gtids(primary, psql, tables):
    with write_conn(primary) as w:
        w.open_index(2, "ai", ["id", "name", "n", "note", "b"])
        assert w.request([2, "+", 3, 900, "binlogged", 9]) == ["0", "1", "900"]
        assert w.request([2, "=", 1, 900, 1, 0, "U", 900, "rebinlogged", 10]) == ["0", "1", "1"]
        assert w.request([2, "=", 1, 900, 1, 0, "D"]) == ["0", "1", "1"]
    logs = [row[0] for row in psql.rows("SHOW BINARY LOGS")]
    text = ""
    for name in logs:
        result = subprocess.run([MARIADB_BINLOG, "--no-defaults", "-v",
                                 "--base64-output=decode-rows",
                                 os.path.join(primary.datadir, name)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                errors="replace", timeout=60)
        assert result.returncode == 0, result.stderr
        text += result.stdout
    assert "### INSERT INTO `test`.`ai`" in text
    assert "### UPDATE `test`.`ai`" in text
    assert "### DELETE FROM `test`.`ai`" in text
    assert "Table_map: `test`.`ai`" in text
    assert "###   @2='binlogged'" in text and "###   @2='rebinlogged'" in text
    assert "GTID 0-1-" in text
    # Under binlog_format=STATEMENT, rowsocket's writes still appear only as rows:
    # no statement text was logged for them.
    assert "binlogged'" not in "\n".join(l for l in text.splitlines() if not l.startswith("###"))


def test_a_failing_write_logs_nothing(primary, psql, tables):
    before = gtid_binlog_pos(psql)
    with write_conn(primary) as w:
        w.open_index(1, "child", ["id", "pid"])
        assert w.request([1, "+", 2, 50, 999]) == ["1", "1", "151"]
        w.open_index(2, "ai", ["id", "name"])
        assert w.request([2, "+", 2, 1, "dup"]) == ["1", "1", "121"]
        assert w.request([2, "=", 1, 123456, 1, 0, "D"]) == ["0", "1", "0"]
    assert gtid_binlog_pos(psql) == before


# -- query cache -------------------------------------------------------------------------

def test_query_cache_returns_new_data_after_rowsocket_writes(primary, psql, tables):
    def cached(query):
        """Runs the query twice: the second time must come from the query cache."""
        first = psql.rows(query)
        hits = int(psql.rows("SHOW GLOBAL STATUS LIKE 'Qcache_hits'")[0][1])
        assert psql.rows(query) == first
        assert int(psql.rows("SHOW GLOBAL STATUS LIKE 'Qcache_hits'")[0][1]) == hits + 1, \
            f"{query} was not served from the query cache"
        return first

    by_key = "SELECT v FROM test.qc WHERE k = 1"
    count = "SELECT COUNT(*) FROM test.qc"
    assert cached(by_key) == [("old",)]
    assert cached(count) == [("2",)]
    with write_conn(primary) as w:
        w.open_index(1, "qc", ["k", "v"])
        assert w.request([1, "=", 1, 1, 1, 0, "U", 1, "new"]) == ["0", "1", "1"]
        assert psql.rows(by_key) == [("new",)]
        assert cached(by_key) == [("new",)]
        assert w.request([1, "+", 2, 3, "three"]) == ["0", "1"]
        assert psql.rows(count) == [("3",)]
        assert cached(count) == [("3",)]
        assert w.request([1, "=", 1, 1, 1, 0, "D"]) == ["0", "1", "1"]
        assert psql.rows(count) == [("2",)]
        assert psql.rows(by_key) == []


# -- foreign keys and triggers -------------------------------------------------------------

def test_foreign_keys_refuse_writes_that_would_break_them(primary, replica, psql, rsql, tables):
    parents = psql.rows("SELECT * FROM test.parent ORDER BY id")
    children = psql.rows("SELECT * FROM test.child ORDER BY id")
    with write_conn(primary) as w:
        w.open_index(1, "child", ["id", "pid"])
        w.open_index(2, "parent", ["id", "name"])
        # A child without its parent; a child moved to no parent.
        assert w.request([1, "+", 2, 12, 99]) == ["1", "1", "151"]
        assert w.request([1, "=", 1, 10, 1, 0, "U", 10, 99]) == ["1", "1", "151"]
        # A parent that still has children: neither deleted nor re-keyed.
        assert w.request([2, "=", 1, 1, 1, 0, "D"]) == ["1", "1", "152"]
        assert w.request([2, "=", 1, 2, 1, 0, "U", 200, "p2"]) == ["1", "1", "152"]
        assert psql.rows("SELECT * FROM test.parent ORDER BY id") == parents
        assert psql.rows("SELECT * FROM test.child ORDER BY id") == children
        # In a pipeline, only the offending request fails.
        w.send_lines([[1, "+", 2, 13, 3], [1, "+", 2, 14, 98], [1, "+", 2, 15, 1]])
        assert [w.read_answer() for _ in range(3)] == [["0", "1"], ["1", "1", "151"],
                                                      ["0", "1"]]
        # ON DELETE CASCADE: InnoDB deletes the children of a deleted parent.
        assert w.request([2, "=", 1, 4, 1, 0, "D"]) == ["0", "1", "1"]
    assert psql.rows("SELECT id, pid FROM test.child ORDER BY id") == [
        ("10", "1"), ("11", "2"), ("13", "3"), ("15", "1")]
    assert psql.rows("SELECT id, pid FROM test.cchild ORDER BY id") == [("22", "3")]
    sync(psql, rsql)
    assert_same_everywhere(primary, replica, "parent", ["id", "name"])
    assert_same_everywhere(primary, replica, "child", ["id", "pid"])
    assert_same_everywhere(primary, replica, "cchild", ["id", "pid"])


def test_writes_to_a_table_with_triggers_are_refused_and_sql_fires_them(
        primary, replica, psql, rsql, tables):
    """rowsocket cannot run triggers, and a write that skipped them would leave the
    table out of step with what they promise: such writes answer `1 1 triggers`."""
    with write_conn(primary) as w:
        w.open_index(1, "trg", ["k", "v"])
        assert w.request([1, "+", 2, 1, "by rowsocket"]) == ["1", "1", "triggers"]
        assert w.request([1, "=", 1, 1, 1, 0, "U", 1, "changed"]) == ["1", "1", "triggers"]
        assert w.request([1, "=", 1, 1, 1, 0, "D"]) == ["1", "1", "triggers"]
        assert w.request([1, "=", 1, 1]) == ["0", "2"]
    assert psql.rows("SELECT k, v FROM test.trg ORDER BY k") == []
    psql.execute("INSERT INTO test.trg VALUES (3, 'by sql')")     # SQL does fire them
    assert psql.rows("SELECT k, what FROM test.audit ORDER BY id") == [("3", "INSERT")]
    sync(psql, rsql)
    assert rsql.rows("SELECT k, v FROM test.trg ORDER BY k") == [("3", "by sql")]
    assert rsql.rows("SELECT k, what FROM test.audit ORDER BY id") == [("3", "INSERT")]


# -- deadlocks ---------------------------------------------------------------------------

def test_a_batch_whose_request_waits_apart_for_a_lock_replicates_once(primary, replica, psql,
                                                                      rsql, tables):
    """A rowsocket connection's writes of rows 2, 1, 3, where SQL holds row 1: row 2's
    write commits, row 1's waits apart (with row 3's behind it) and runs once SQL has
    committed, after SQL's own change of row 2. The binary log carries each change
    once, in commit order, and the replica ends equal to the primary."""
    psql.create_table("dl", "k INT PRIMARY KEY, n INT NOT NULL", [(k, 0) for k in range(1, 101)])
    holder = Sql(primary)
    try:
        holder.execute("SET SESSION innodb_lock_wait_timeout = 60")
        holder.execute("BEGIN")
        holder.execute("UPDATE test.dl SET n = n + 100 WHERE k = 1")
        waits = int(psql.rows("SHOW GLOBAL STATUS LIKE 'Rowsocket_lock_waits'")[0][1])
        with write_conn(primary) as w:
            w.open_index(1, "dl", ["n"])
            w.send_lines([[1, "=", 1, k, 1, 0, "+", 1] for k in (2, 1, 3)])
            deadline = time.monotonic() + 30
            while int(psql.rows("SHOW GLOBAL STATUS LIKE 'Rowsocket_lock_waits'")[0][1]) == waits:
                assert time.monotonic() < deadline, "the write of row 1 never met the lock"
                time.sleep(0.01)
            assert w.read_answer() == ["0", "1", "1"]  # row 2's, while row 1 waits
            holder.execute("UPDATE test.dl SET n = n + 100 WHERE k = 2")
            holder.execute("COMMIT")
            answers = [w.read_answer() for _ in range(2)]
    finally:
        holder.close()
    assert answers == [["0", "1", "1"]] * 2
    assert psql.rows("SELECT k, n FROM test.dl WHERE k <= 3 ORDER BY k") == [
        ("1", "101"), ("2", "101"), ("3", "1")]
    sync(psql, rsql)
    assert_same_everywhere(primary, replica, "dl", ["k", "n"], order="k")
