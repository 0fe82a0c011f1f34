"""No client holds up another: a request that meets a lock waits apart.

While SQL holds a row lock (an uncommitted transaction), a table lock (LOCK TABLES
... READ) or the global read lock (FLUSH TABLES WITH READ LOCK), client A's write
that needs it waits; the requests of other clients on other rows and tables are
answered meanwhile, and A is answered once SQL lets go, with the right result, or
with the lock error once rowsocket_lock_wait_timeout has passed. Each listener has
one worker here, so a worker that waited for A's lock would hold every other client
up. The tests assert order (B answered while the lock is held; A answered after it
is released), never a timing; the only time bounds are the clients' generous
socket timeouts.
"""

import select
import time

import pytest

import harness
import hs
import servers
import targets
from db import Sql
from memcached_support import Raw
from test_write_concurrency import wait_for

pytestmark = targets.rowsocket_only

LOCK_WAIT = 60         # rowsocket_lock_wait_timeout: past every client's socket timeout
OK1 = ["0", "1", "1"]
OK = ["0", "1"]
LOCK_TIMEOUT = ["1", "1", "146"]


@pytest.fixture(scope="module")
def memcached_port():
    return harness.free_ports(1)[0]


@pytest.fixture(scope="module")
def server(memcached_port):
    plugin = targets.make_plugin({"memcached_port": memcached_port, "threads": 1,
                                  "threads_wr": 1, "memcached_threads": 1,
                                  "lock_wait_timeout": LOCK_WAIT})
    with servers.running_server([plugin]) as srv:
        yield srv


@pytest.fixture(scope="module")
def tables(sql, server):
    wait_for(lambda: sql.value("SELECT COUNT(*) FROM information_schema.TABLES WHERE "
                               "TABLE_SCHEMA = 'rowsocket' AND TABLE_NAME = 'kv'") == "1",
             "the default container rowsocket.kv")
    sql.create_table("t1", "k INT PRIMARY KEY, n INT NOT NULL")
    sql.create_table("t2", "k INT PRIMARY KEY, n INT NOT NULL")


@pytest.fixture
def fresh(sql, tables):
    sql.execute("DELETE FROM rowsocket.kv")
    for k in ("locked", "other", "third"):
        sql.execute("INSERT INTO rowsocket.kv (k, v, flags, cas, expires) "
                    "VALUES (%s, 'old', 0, 1, 0)", (k,))
    sql.refill("t1", [(k, 0) for k in range(1, 11)])
    sql.refill("t2", [(k, 0) for k in range(1, 11)])
    yield
    sql.execute("SET GLOBAL rowsocket_lock_wait_timeout = %s", (LOCK_WAIT,))


@pytest.fixture
def holder(server):
    """A SQL session that takes locks and keeps them until it commits or unlocks."""
    h = Sql(server)
    h.execute("SET SESSION innodb_lock_wait_timeout = 60")
    yield h
    h.execute("ROLLBACK")
    h.execute("UNLOCK TABLES")
    h.close()


# -- helpers -------------------------------------------------------------------------

def status(sql, name):
    rows = sql.rows("SHOW GLOBAL STATUS LIKE %s", (name,))
    return int(rows[0][1]) if rows else 0


def waiting_for_lock(sql, waits_before):
    """A's request has met the lock: it waits apart (Rowsocket_lock_waits), or a
    worker waits inside its batch (what a server without waiting apart does)."""
    def met():
        if status(sql, "Rowsocket_lock_waits") > waits_before:
            return True
        return int(sql.value("SELECT COUNT(*) FROM information_schema.PROCESSLIST "
                             "WHERE STATE = 'rowsocket: executing batch'")) > 0
    wait_for(met, "the request to meet the lock")


def has_answer(conn):
    """True when an answer byte (or the connection's end) has arrived, without waiting."""
    if conn.buf:
        return True
    readable, _, _ = select.select([conn.sock], [], [], 0)
    return bool(readable)


def mc_value(sql, key):
    value = sql.value("SELECT v FROM rowsocket.kv WHERE k = %s", (key,))
    return value.decode() if isinstance(value, bytes) else value


def n_of(sql, table, k):
    return int(sql.value(f"SELECT n FROM test.{table} WHERE k = %s", (k,)))


def writer_on(target, table):
    conn = hs.Connection(target.port_wr)
    conn.open_index(1, table, ["n"])
    return conn


def increment(k, by=1):
    return [1, "=", 1, k, 1, 0, "+", by]


# -- row locks -----------------------------------------------------------------------

def test_memcached_write_of_a_locked_row_waits_apart_while_other_clients_are_served(
        memcached_port, sql, fresh, holder):
    waits_before = status(sql, "Rowsocket_lock_waits")
    holder.execute("BEGIN")
    holder.rows("SELECT * FROM rowsocket.kv WHERE k = 'locked' FOR UPDATE")
    a, b = Raw(memcached_port), Raw(memcached_port)
    try:
        a.send(b"set locked 0 0 3\r\nnew\r\n")
        waiting_for_lock(sql, waits_before)
        # B's get and set of other rows are answered while the row stays locked.
        b.send(b"get other\r\n")
        assert b.read_until(b"END\r\n") == b"VALUE other 0 3\r\nold\r\nEND\r\n"
        b.send(b"set third 0 0 3\r\nnew\r\n")
        assert b.read_until(b"\r\n") == b"STORED\r\n"
        assert mc_value(sql, "third") == "new"
        assert not has_answer(a), "A was answered while SQL still held its row"
        holder.execute("COMMIT")
        assert a.read_until(b"\r\n") == b"STORED\r\n"
        assert mc_value(sql, "locked") == "new"
    finally:
        a.close()
        b.close()


def test_memcached_get_of_a_locked_row_reads_what_sql_committed(memcached_port, sql, fresh,
                                                                 holder):
    """A plain read waits for no row lock, as SQL's consistent read does, even in a
    batch with another client's write: it does not even meet the lock (no lock wait
    is counted). (D's multi-get of 100,000 keys keeps the one worker busy while B's
    set and C's get arrive, so that the next batch has both.)"""
    waits_before = status(sql, "Rowsocket_lock_waits")
    holder.execute("BEGIN")
    holder.execute("UPDATE rowsocket.kv SET v = 'sql' WHERE k = 'locked'")
    b, c, d = (Raw(memcached_port) for _ in range(3))
    try:
        for _ in range(5):
            d.send(b"get " + b" ".join(b"m%d" % i for i in range(100000)) + b"\r\n")
            busy = False
            deadline = time.monotonic() + 5
            while not busy and time.monotonic() < deadline and not has_answer(d):
                busy = int(sql.value("SELECT COUNT(*) FROM information_schema.PROCESSLIST "
                                     "WHERE STATE = 'rowsocket: executing batch'")) > 0
            if busy:
                b.send(b"set other 0 0 3\r\nnew\r\n")
                c.send(b"get locked\r\n")
            assert d.read_until(b"END\r\n") == b"END\r\n"
            if busy:
                break
        assert busy, "the worker was never seen running D's batch"
        assert c.read_until(b"END\r\n") == b"VALUE locked 0 3\r\nold\r\nEND\r\n"
        assert b.read_until(b"\r\n") == b"STORED\r\n"
        assert status(sql, "Rowsocket_lock_waits") == waits_before, \
            "a get met the row lock SQL holds"
        holder.execute("COMMIT")
        c.send(b"get locked\r\n")
        assert c.read_until(b"END\r\n") == b"VALUE locked 0 3\r\nsql\r\nEND\r\n"
    finally:
        for conn in (b, c, d):
            conn.close()


def test_requests_behind_a_waiting_one_keep_their_order(memcached_port, sql, fresh, holder):
    """A's later requests wait behind its first: the write of a free row it sent after
    the locked one is not made before the locked one is."""
    waits_before = status(sql, "Rowsocket_lock_waits")
    holder.execute("BEGIN")
    holder.rows("SELECT * FROM rowsocket.kv WHERE k = 'locked' FOR UPDATE")
    a = Raw(memcached_port)
    try:
        a.send(b"set locked 0 0 3\r\nnew\r\nset other 0 0 5\r\nlater\r\nget locked other\r\n")
        waiting_for_lock(sql, waits_before)
        assert not has_answer(a)
        assert mc_value(sql, "other") == "old", "a request ran before the one it follows"
        holder.execute("COMMIT")
        assert a.read_until(b"END\r\n") == (b"STORED\r\nSTORED\r\nVALUE locked 0 3\r\nnew\r\n"
                                            b"VALUE other 0 5\r\nlater\r\nEND\r\n")
    finally:
        a.close()


def test_hs_write_of_a_locked_row_waits_apart_while_other_rows_and_tables_are_written(
        target, sql, fresh, holder):
    waits_before = status(sql, "Rowsocket_lock_waits")
    holder.execute("BEGIN")
    holder.rows("SELECT * FROM test.t1 WHERE k = 1 FOR UPDATE")
    with writer_on(target, "t1") as a, writer_on(target, "t1") as b, \
            writer_on(target, "t2") as c:
        a.send_lines([increment(1)])
        waiting_for_lock(sql, waits_before)
        assert b.request(increment(2)) == OK1
        assert c.request(increment(3)) == OK1
        assert (n_of(sql, "t1", 2), n_of(sql, "t2", 3)) == (1, 1)
        assert not has_answer(a), "A was answered while SQL still held its row"
        holder.execute("UPDATE test.t1 SET n = n + 100 WHERE k = 1")
        holder.execute("COMMIT")
        assert a.read_answer() == OK1
    assert n_of(sql, "t1", 1) == 101


def test_a_request_that_keeps_meeting_the_lock_answers_the_lock_wait_timeout(
        memcached_port, target, sql, fresh, holder):
    """SQL never commits: A's requests answer the lock error once
    rowsocket_lock_wait_timeout has passed, and change nothing; a connection waits
    once per batch (its later requests on locked rows answer at once)."""
    sql.execute("SET GLOBAL rowsocket_lock_wait_timeout = 1")
    holder.execute("BEGIN")
    holder.rows("SELECT * FROM rowsocket.kv WHERE k = 'locked' FOR UPDATE")
    holder.rows("SELECT * FROM test.t1 WHERE k = 1 FOR UPDATE")
    timeouts_before = status(sql, "Rowsocket_lock_wait_timeouts")
    a = Raw(memcached_port)
    try:
        with writer_on(target, "t1") as w:
            a.send(b"set locked 0 0 3\r\nnew\r\n")
            w.send_lines([increment(1), increment(1), increment(2)])
            assert a.read_until(b"\r\n") == b"SERVER_ERROR 1 146\r\n"
            assert [w.read_answer() for _ in range(3)] == [LOCK_TIMEOUT, LOCK_TIMEOUT, OK1]
        assert status(sql, "Rowsocket_lock_wait_timeouts") - timeouts_before == 3
        assert mc_value(sql, "locked") == "old"
        assert (n_of(sql, "t1", 1), n_of(sql, "t1", 2)) == (0, 1)
    finally:
        a.close()


# -- table locks ---------------------------------------------------------------------

def test_lock_tables_read_on_one_table_leaves_the_others_written(target, sql, fresh, holder):
    waits_before = status(sql, "Rowsocket_lock_waits")
    with writer_on(target, "t1") as a, writer_on(target, "t2") as b:
        assert a.request(increment(1)) == OK1  # t1 is open in the worker
        holder.execute("LOCK TABLES test.t1 READ")
        a.send_lines([increment(1)])
        waiting_for_lock(sql, waits_before)
        assert b.request(increment(2)) == OK1
        assert n_of(sql, "t2", 2) == 1
        assert not has_answer(a), "A was answered while t1 was locked"
        holder.execute("UNLOCK TABLES")
        assert a.read_answer() == OK1
    assert n_of(sql, "t1", 1) == 2


def test_flush_tables_with_read_lock_leaves_reads_served(memcached_port, target, sql, fresh,
                                                        holder):
    waits_before = status(sql, "Rowsocket_lock_waits")
    a, b = Raw(memcached_port), Raw(memcached_port)
    try:
        with writer_on(target, "t1") as w, writer_on(target, "t2") as r:
            holder.execute("FLUSH TABLES WITH READ LOCK")
            a.send(b"set locked 0 0 3\r\nnew\r\n")
            w.send_lines([increment(1)])
            waiting_for_lock(sql, waits_before)
            b.send(b"get other\r\n")
            assert b.read_until(b"END\r\n") == b"VALUE other 0 3\r\nold\r\nEND\r\n"
            assert r.request([1, "=", 1, 2]) == ["0", "1", "0"]
            assert not has_answer(a) and not has_answer(w), \
                "a write was answered under FLUSH TABLES WITH READ LOCK"
            holder.execute("UNLOCK TABLES")
            assert a.read_until(b"\r\n") == b"STORED\r\n"
            assert w.read_answer() == OK1
        assert mc_value(sql, "locked") == "new"
        assert n_of(sql, "t1", 1) == 1
    finally:
        a.close()
        b.close()
