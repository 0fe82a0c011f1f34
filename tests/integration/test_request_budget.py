"""Every request has a budget, and no lock wait outlasts rowsocket_lock_wait_timeout.

A find may read at most rowsocket_max_rows_examined rows (each key it looks up counts
as one) and answer at most rowsocket_max_answer_size bytes; past either it answers an
error and changes nothing. `P` may list no more columns than the table has. A table
that LOCK TABLES (or DDL) holds makes a request wait at most the lock wait, and other
connections' requests are not failed with it. KILL of a worker's process-list id ends
its batch. Tables rowsocket keeps open give way when the server's table cache is full.
"""

import threading
import select
import time

import pytest

import hs
from db import Sql
from targets import rowsocket_only

pytestmark = rowsocket_only

ROWS = 40


@pytest.fixture(scope="module")
def server_options():
    return {"lock_wait_timeout": 1}


@pytest.fixture(scope="module")
def tables(sql):
    sql.create_table("big", "id INT PRIMARY KEY, v VARCHAR(100)",
                     [(i, "x" * 100) for i in range(ROWS)])
    sql.create_table("held", "id INT PRIMARY KEY, v INT", [(1, 1)])
    sql.create_table("free", "id INT PRIMARY KEY, v INT", [(1, 1)])
    for i in range(30):
        sql.execute(f"DROP TABLE IF EXISTS test.many{i}")
        sql.execute(f"CREATE TABLE test.many{i} (id INT PRIMARY KEY) ENGINE=MyISAM")


@pytest.fixture
def global_var(sql):
    """Sets rowsocket's global variables for one test; restores them after."""
    saved = {}

    def set_var(name, value):
        saved.setdefault(name, sql.value(f"SELECT @@GLOBAL.{name}"))
        sql.execute(f"SET GLOBAL {name} = {value}")
    yield set_var
    for name, value in saved.items():
        sql.execute(f"SET GLOBAL {name} = {value}")


def test_a_find_past_its_rows_examined_answers_an_error_and_changes_nothing(
        writer, sql, tables, global_var):
    global_var("rowsocket_max_rows_examined", 10)
    writer.open_index(0, "big", ["id"])
    assert writer.request(hs.find(0, ">=", [0], 5, 0)) == ["0", "1", "0", "1", "2", "3", "4"]
    assert writer.request(hs.find(0, ">=", [0], 100, 0)) == ["2", "1", "rowsexamined"]
    # Rows skipped by the offset count too, and the deleted rows are put back.
    assert writer.request(hs.find(0, ">=", [0], 5, 20, ["D"])) == ["2", "1", "rowsexamined"]
    # Each key of an IN list counts as a read.
    in_list = ["@", 0, 12, *range(12)]
    assert writer.request(hs.find(0, "=", [0], 100, 0, in_list)) == ["2", "1", "rowsexamined"]
    assert sql.value("SELECT COUNT(*) FROM test.big") == str(ROWS)


def test_an_answer_past_its_size_limit_answers_an_error_and_changes_nothing(
        writer, sql, tables, global_var):
    global_var("rowsocket_max_answer_size", 1000)
    writer.open_index(0, "big", ["id", "v"])
    assert len(writer.request(hs.find(0, ">=", [0], 5, 0))) == 2 + 10
    assert writer.request(hs.find(0, ">=", [0], 100, 0)) == ["2", "1", "answersize"]
    assert writer.request(hs.find(0, ">=", [0], 100, 0, ["D?"])) == ["2", "1", "answersize"]
    assert sql.value("SELECT COUNT(*) FROM test.big") == str(ROWS)


def test_P_lists_no_more_columns_than_the_table_has(reader, tables):
    assert reader.request(hs.open_request(0, "big", ["v"] * 2)) == ["0", "1"]
    assert reader.request(hs.open_request(0, "big", ["v"] * 3)) == ["2", "1", "fld"]
    assert reader.request(hs.open_request(0, "big", ["v"], fcolumns=["id"] * 3)) == [
        "2", "1", "fld"]


def test_a_locked_table_fails_its_requests_after_the_lock_wait_only(target, server, tables):
    locker = Sql(server)
    locker.execute("LOCK TABLES test.held WRITE")
    try:
        with hs.Connection(target.port) as blocked, hs.Connection(target.port) as other:
            blocked.open_index(0, "free", ["v"])   # the connection works
            blocked.send_lines([hs.open_request(1, "held", ["v"]), hs.find(1, "=", [1])])
            other.open_index(0, "free", ["v"])
            assert other.request(hs.find(0, "=", [1])) == ["0", "1", "1"]
            # Opening waits for the table's metadata lock in vain (the find then
            # names an id never opened); a table already open waits for its lock.
            assert [blocked.read_answer(), blocked.read_answer()] in (
                [["1", "1", "open_table"], ["2", "1", "stmtnum"]],
                [["0", "1"], ["1", "1", "lock_tables"]])
            assert blocked.request(hs.find(0, "=", [1])) == ["0", "1", "1"]
    finally:
        locker.execute("UNLOCK TABLES")
        locker.close()
    with hs.Connection(target.port) as conn:
        conn.open_index(1, "held", ["v"])
        assert conn.request(hs.find(1, "=", [1])) == ["0", "1", "1"]


def test_kill_of_a_worker_ends_its_batch_and_the_worker_serves_on(
        target, server, sql, tables):
    """KILL of the write worker while requests wait apart for a row lock: the batch
    that tries them next ends, answering `1 1 killed` (a KILL that lands between two
    batches is forgotten, so the test repeats it until the answers come), and the
    worker serves on."""
    sql.refill("held", [(1, 1)])
    locker = Sql(server)
    locker.execute("BEGIN")
    locker.execute("SELECT * FROM test.held WHERE id = 1 FOR UPDATE")
    sql.execute("SET GLOBAL rowsocket_lock_wait_timeout = 30")
    killed = ["1", "1", "killed"]
    try:
        with hs.Connection(target.port_wr) as conn:
            conn.open_index(0, "held", ["v"])
            waits_before = int(sql.rows("SHOW GLOBAL STATUS LIKE 'Rowsocket_lock_waits'")[0][1])
            conn.send_lines([hs.find(0, "=", [1], 1, 0, ["U", 5]),
                             hs.find(0, "=", [1], 1, 0, ["U", 6])])
            for _ in range(200):
                if int(sql.rows("SHOW GLOBAL STATUS LIKE 'Rowsocket_lock_waits'")[0][1]) > waits_before:
                    break
                time.sleep(0.05)
            for _ in range(100):
                for worker in sql.flat("SELECT ID FROM information_schema.PROCESSLIST "
                                       "WHERE STATE = 'rowsocket: write worker'"):
                    sql.execute(f"KILL {worker}")
                readable, _, _ = select.select([conn.sock], [], [], 0.1)
                if readable or conn.buf:
                    break
            first, second = conn.read_answer(), conn.read_answer()
            assert first == killed, first
            assert second == killed, second
            locker.execute("ROLLBACK")
            for _ in range(20):   # a KILL still in flight may end one more batch
                answer = conn.request(hs.find(0, "=", [1], 1, 0, ["U", 7]))
                if answer != killed:
                    break
            assert answer == ["0", "1", "1"]
    finally:
        sql.execute("SET GLOBAL rowsocket_lock_wait_timeout = 1")
        locker.close()
    assert sql.value("SELECT v FROM test.held") == "7"


def test_tables_kept_open_give_way_when_the_table_cache_is_full(reader, sql, tables,
                                                                global_var):
    global_var("table_open_cache", 10)
    for i in range(30):
        reader.open_index(i, f"many{i}", ["id"])
        assert reader.request(hs.find(i, ">=", [0], 1, 0)) == ["0", "1"]
    open_tables = int(sql.rows("SHOW GLOBAL STATUS LIKE 'Open_tables'")[0][1])
    assert open_tables <= 10 + 5, open_tables
