"""The sweep of expired keys (rowsocket_memcached_sweep_rate) on a server where only
the Redis listener runs: its first worker deletes the rows of expired keys, on the
default container wherever rowsocket.containers maps it.
"""

import contextlib
import time

import pytest
import redis

import redis_support
import targets

pytestmark = targets.rowsocket_only


@pytest.fixture(scope="module")
def rs():
    with redis_support.running_rowsocket_redis(memcached=False) as r:
        yield r


@pytest.fixture(scope="module")
def server(rs):
    return rs.server


@pytest.fixture
def r(rs, sql):
    """A client, on an empty rowsocket.kv."""
    sql.execute("DELETE FROM rowsocket.kv")
    with contextlib.closing(redis.Redis(host="127.0.0.1", port=rs.port, socket_timeout=10)) as c:
        yield c


def swept(sql):
    return int(sql.rows("SHOW GLOBAL STATUS LIKE 'Rowsocket_memcached_items_expired'")[0][1])


def wait_until(condition, seconds=10):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_only_the_redis_listener_runs(rs, sql):
    assert sql.value("SELECT @@rowsocket_memcached_port") == ""
    assert rs.memcached_port is None


def test_the_sweep_deletes_the_rows_of_expired_keys(r, sql):
    before = swept(sql)
    assert r.set("dead", "v", px=2_000_000)
    assert r.set("live", "v")
    r.mset({f"gone{i}": "v" for i in range(20)})
    sql.execute("UPDATE rowsocket.kv SET expires = UNIX_TIMESTAMP() - 5 "
                "WHERE k = 'dead' OR k LIKE 'gone%'")
    assert r.get("dead") is None  # a miss at once; the sweep deletes its row
    wait_until(lambda: sql.value("SELECT COUNT(*) FROM rowsocket.kv") == "1")
    assert sql.rows("SELECT k FROM rowsocket.kv") == [(b"live",)]
    assert swept(sql) - before == 21


@contextlib.contextmanager
def remapped_default(r, sql):
    """The default container mapped to redis_test.other, whose row 'mark' stays, for as
    long as the block runs; then rowsocket.kv again, and the table is dropped."""
    sql.execute("CREATE DATABASE redis_test")
    sql.execute("CREATE TABLE redis_test.other (k VARBINARY(64) PRIMARY KEY, "
                "v VARBINARY(100) NOT NULL, cas BIGINT UNSIGNED NOT NULL DEFAULT 0, "
                "flags INT UNSIGNED NOT NULL DEFAULT 0, expires INT UNSIGNED NOT NULL DEFAULT 0)")
    sql.execute("INSERT INTO redis_test.other (k, v) VALUES ('mark', 'other')")
    sql.execute("INSERT INTO rowsocket.containers (name, db_schema, db_table, key_column, "
                "value_columns, flags_column, cas_column, expires_column) VALUES "
                "('default', 'redis_test', 'other', 'k', 'v', 'flags', 'cas', 'expires')")
    try:
        wait_until(lambda: r.get("mark") == b"other")  # (the mapping is read each second)
        yield
    finally:
        sql.execute("DELETE FROM rowsocket.containers WHERE name = 'default'")
        # (The workers that have the table open close it for the DROP; one that kept
        # it would fail the DROP here rather than hold it for ever.)
        sql.execute("SET SESSION lock_wait_timeout = 10")
        sql.execute("DROP DATABASE redis_test")


def test_the_sweep_follows_the_default_container_and_lets_its_table_go(r, sql):
    before = swept(sql)
    with remapped_default(r, sql):
        sql.execute("INSERT INTO redis_test.other (k, v, expires) VALUES "
                    "('dead', 'v', UNIX_TIMESTAMP() - 5)")
        wait_until(lambda: sql.value("SELECT COUNT(*) FROM redis_test.other") == "1")
        assert swept(sql) - before == 1
    # Every worker reads the mapping again a second after it last read it at most (a
    # client's connections may be on different workers): then the commands and the
    # sweep are on rowsocket.kv again.
    time.sleep(1.2)
    assert r.set("back", "on rowsocket.kv")
    assert sql.value("SELECT v FROM rowsocket.kv WHERE k = 'back'") == b"on rowsocket.kv"
    assert r.set("dead", "v")
    sql.execute("UPDATE rowsocket.kv SET expires = UNIX_TIMESTAMP() - 5 WHERE k = 'dead'")
    wait_until(lambda: sql.value("SELECT COUNT(*) FROM rowsocket.kv WHERE k = 'dead'") == "0")
    assert swept(sql) - before == 2
