"""A worker closes tables it has not used for rowsocket_idle_table_close seconds, so
their metadata locks and file handles go away, and reopens them when asked again."""

import time

import pytest

import targets

pytestmark = targets.rowsocket_only


@pytest.fixture(scope="module")
def server_options():
    return {"idle_table_close": 1}


def in_use(sql, table):
    rows = sql.rows("SHOW OPEN TABLES FROM test LIKE %s", (table,))
    return sum(int(r[2]) for r in rows)


def test_unused_tables_are_closed_and_reopened_on_demand(reader, sql):
    sql.create_table("idle", "id INT PRIMARY KEY, v VARCHAR(10)", [(1, "one")])
    reader.open_index(0, "idle", ["v"])
    assert reader.request([0, "=", 1, 1]) == ["0", "1", "one"]
    assert in_use(sql, "idle") >= 1
    for _ in range(100):          # closed within a few seconds; bounded wait
        if in_use(sql, "idle") == 0:
            break
        time.sleep(0.1)
    assert in_use(sql, "idle") == 0
    assert reader.request([0, "=", 1, 1]) == ["0", "1", "one"]
    assert in_use(sql, "idle") >= 1
