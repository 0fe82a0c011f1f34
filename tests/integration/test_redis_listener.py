"""Redis's protocol on MariaDB tables (rowsocket_redis_port): strings on the default
container rowsocket.kv, through redis-py (Debian's python3-redis), redis-cli and raw
bytes, with SQL and the memcached listener reading and writing the same rows; and the
reference cases of the protocol layer (tests/unit/protocol/data/, what redis-server 7
answered), replayed against rowsocket.
"""

import contextlib
import fnmatch
import os
import random
import socket
import subprocess
import time

import pytest
import redis

from db import Sql
import redis_reference
import redis_support
import targets

pytestmark = targets.rowsocket_only

MAX_LINE = 1 << 20  # rowsocket_max_line_length's default: Redis's proto-max-bulk-len here


@pytest.fixture(scope="module")
def rs():
    with redis_support.running_rowsocket_redis(
            extra_args=["--log-bin=redis-bin", "--server-id=1", "--binlog-format=ROW"]) as r:
        yield r


@pytest.fixture(scope="module")
def server(rs):
    return rs.server


@pytest.fixture
def clean(rs, sql):
    sql.execute("DELETE FROM rowsocket.kv")


@pytest.fixture
def r(rs, clean):
    client = redis.Redis(host="127.0.0.1", port=rs.port, socket_timeout=10)
    yield client
    client.close()


@pytest.fixture
def raw(rs, clean):
    conn = redis_reference.Resp(rs.port)
    yield conn
    conn.close()


def memcached(port, data):
    """memcached's text answer to `data` on a fresh connection, up to END/STORED/..."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(data)
        out = b""
        while not out.endswith((b"END\r\n", b"STORED\r\n", b"DELETED\r\n", b"NOT_FOUND\r\n")):
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
        return out


# --- connection commands --------------------------------------------------------------

def test_connection_commands_answer_as_redis(raw):
    assert raw.command("PING") == b"+PONG\r\n"
    assert raw.command("PING", "hi") == b"$2\r\nhi\r\n"
    assert raw.command("ECHO", b"a\r\nb") == b"$4\r\na\r\nb\r\n"
    assert raw.command("SELECT", "0") == b"+OK\r\n"
    assert raw.command("SELECT", "1") == b"-ERR DB index is out of range\r\n"
    assert raw.command("SELECT", "x") == b"-ERR value is not an integer or out of range\r\n"
    assert raw.command("CLIENT", "GETNAME") == b"$-1\r\n"
    assert raw.command("CLIENT", "SETNAME", "worker-1") == b"+OK\r\n"
    assert raw.command("CLIENT", "GETNAME") == b"$8\r\nworker-1\r\n"
    assert raw.command("CLIENT", "SETNAME", "a b").startswith(b"-ERR Client names cannot")
    assert raw.command("CLIENT", "SETINFO", "lib-name", "redis-py") == b"+OK\r\n"
    assert raw.command("CLIENT", "ID").startswith(b":")
    assert raw.command("NOSUCH", "a") == (
        b"-ERR unknown command 'NOSUCH', with args beginning with: 'a' \r\n")
    assert raw.command("GET") == b"-ERR wrong number of arguments for 'get' command\r\n"
    assert raw.command("CLIENT", "NOPE") == (
        b"-ERR unknown subcommand 'NOPE'. Try CLIENT HELP.\r\n")
    assert raw.command("PING") == b"+PONG\r\n"  # the connection goes on after errors


def test_client_ids_are_distinct(rs):
    a, b = redis_reference.Resp(rs.port), redis_reference.Resp(rs.port)
    try:
        assert a.command("CLIENT", "ID") != b.command("CLIENT", "ID")
    finally:
        a.close()
        b.close()


def test_hello_switches_to_resp3_and_back(raw):
    hello = raw.command("HELLO", "3")
    assert hello.startswith(b"%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n")
    assert b"$5\r\nproto\r\n:3\r\n" in hello
    assert raw.command("GET", "missing") == b"_\r\n"
    assert raw.command("SET", "k", "v") == b"+OK\r\n"
    assert raw.command("CONFIG", "GET", "databases") == b"%1\r\n$9\r\ndatabases\r\n$1\r\n1\r\n"
    hello = raw.command("HELLO", "2")
    assert hello.startswith(b"*14\r\n")
    assert raw.command("GET", "missing") == b"$-1\r\n"
    assert raw.command("HELLO", "4") == b"-NOPROTO unsupported protocol version\r\n"
    assert raw.command("HELLO", "3", "FOO") == b"-ERR Syntax error in HELLO option 'FOO'\r\n"
    raw.command("HELLO", "3")
    assert raw.command("RESET") == b"+RESET\r\n"
    assert raw.command("GET", "missing") == b"$-1\r\n"  # RESET is back to RESP2


def test_command_info_is_the_command_table(rs):
    rows = redis_reference.command_rows(rs.port)
    committed = open(os.path.join(redis_reference.DATA, "redis_commands.tsv")).read()
    assert redis_reference.render("commands", rows) == committed


def test_command_count_docs_and_config_get(raw):
    count = int(raw.command("COMMAND", "COUNT")[1:-2])
    assert count > 50
    assert raw.command("COMMAND", "DOCS") == b"*0\r\n"
    got = redis_reference.parse_reply(raw.command("CONFIG", "GET", "proto-max-bulk-len", "max*"))[0]
    pairs = dict(zip(got[::2], got[1::2]))
    assert pairs[b"proto-max-bulk-len"] == str(MAX_LINE).encode()
    assert pairs[b"maxmemory"] == b"0"
    assert b"maxclients" in pairs


def test_info_has_honest_figures(r, sql):
    r.set("a", "1")
    r.set("b", "2", ex=100)
    r.get("a")
    r.get("nope")
    info = r.info()
    assert info["redis_version"] == "7.0.15"
    assert info["connected_clients"] >= 1
    assert info["db0"]["keys"] == 2
    assert info["db0"]["expires"] == 1
    assert info["keyspace_hits"] >= 1 and info["keyspace_misses"] >= 1
    sql.execute("INSERT INTO rowsocket.kv (k, v, cas, flags, expires) VALUES ('c', 'x', 0, 0, 0)")
    assert r.info("keyspace")["db0"]["keys"] == 3
    assert r.dbsize() == 3


def test_quit_answers_and_closes(rs):
    out = redis_reference.exchange_to_eof(rs.port, b"PING\r\nQUIT\r\nPING\r\n")
    assert out == b"+PONG\r\n+OK\r\n"


# --- strings --------------------------------------------------------------------------

def test_set_is_a_row_sql_sees_at_once(r, sql):
    assert r.set("greeting", "hello") is True
    assert sql.rows("SELECT k, v, flags, expires FROM rowsocket.kv") == [
        (b"greeting", b"hello", "0", "0")]
    sql.execute("INSERT INTO rowsocket.kv (k, v, cas, flags, expires) VALUES ('sql', 'rows', 1, 0, 0)")
    assert r.get("sql") == b"rows"


def test_redis_and_memcached_share_the_default_container(rs, r):
    r.set("shared", "from-redis")
    assert memcached(rs.memcached_port, b"get shared\r\n") == (
        b"VALUE shared 0 10\r\nfrom-redis\r\nEND\r\n")
    assert memcached(rs.memcached_port, b"set mc 0 0 7\r\nfrom-mc\r\n") == b"STORED\r\n"
    assert r.get("mc") == b"from-mc"
    # Every write gives the item a new CAS, which memcached's gets shows.
    first = memcached(rs.memcached_port, b"gets shared\r\n").split(b"\r\n")[0]
    r.append("shared", "!")
    second = memcached(rs.memcached_port, b"gets shared\r\n").split(b"\r\n")[0]
    assert first.split()[-1] != second.split()[-1]


def test_set_options(r):
    assert r.set("k", "v1", nx=True) is True
    assert r.set("k", "v2", nx=True) is None
    assert r.get("k") == b"v1"
    assert r.set("k", "v3", xx=True) is True
    assert r.set("other", "x", xx=True) is None
    assert r.exists("other") == 0
    assert r.set("k", "v4", get=True) == b"v3"
    assert r.set("k", "v5", ex=100)
    assert 99 <= r.ttl("k") <= 100
    assert r.set("k", "v6", keepttl=True)
    assert 99 <= r.ttl("k") <= 100
    assert r.set("k", "v7")
    assert r.ttl("k") == -1
    assert r.set("k", "v8", px=5500)
    assert 5000 <= r.pttl("k") <= 6500  # (kept to the second: rounded up)
    assert r.set("k", "v9", exat=int(time.time()) + 50)
    assert 48 <= r.ttl("k") <= 50
    with pytest.raises(redis.ResponseError, match="invalid expire time in 'set' command"):
        r.set("k", "v", ex=0)
    with pytest.raises(redis.ResponseError, match="syntax error"):
        r.execute_command("SET", "k", "v", "NX", "XX")


def test_string_commands(r):
    assert r.setnx("n", "10") is True
    assert r.setnx("n", "11") is False
    assert r.incr("n") == 11
    assert r.decr("n") == 10
    assert r.incrby("n", 5) == 15
    assert r.decrby("n", 20) == -5
    assert r.incr("fresh") == 1
    r.set("t", "abc")
    with pytest.raises(redis.ResponseError, match="not an integer"):
        r.incr("t")
    assert r.append("t", "def") == 6
    assert r.append("new", "x") == 1
    assert r.strlen("t") == 6
    assert r.strlen("none") == 0
    assert r.getrange("t", 1, 3) == b"bcd"
    assert r.getrange("t", -2, -1) == b"ef"
    assert r.getrange("t", 5, 1) == b""
    assert r.getrange("none", 0, -1) == b""
    assert r.incrbyfloat("f", 1.5) == 1.5
    assert r.incrbyfloat("f", "0.25") == 1.75
    assert r.getset("t", "new") == b"abcdef"
    assert r.getset("absent", "x") is None
    assert r.getdel("t") == b"new"
    assert r.get("t") is None
    assert r.getdel("t") is None
    assert r.setex("e", 100, "v") is True
    assert 99 <= r.ttl("e") <= 100
    assert r.type("e") == b"string"
    assert r.type("none") == b"none"


def test_multi_key_commands(r):
    assert r.mset({"a": "1", "b": "2", "c": "3"}) is True
    assert r.mget("a", "nope", "c", "a") == [b"1", None, b"3", b"1"]
    assert r.exists("a", "b", "nope", "a") == 3
    assert r.msetnx({"x": "1", "a": "9"}) is False
    assert r.get("x") is None and r.get("a") == b"1"
    assert r.msetnx({"x": "1", "y": "2"}) is True
    assert r.delete("a", "b", "nope", "a") == 2
    assert r.unlink("c", "x") == 2
    assert r.mget("a", "b", "c", "x", "y") == [None, None, None, None, b"2"]
    with pytest.raises(redis.ResponseError, match="wrong number of arguments for 'mset'"):
        r.execute_command("MSET", "a", "1", "b")


def test_expiry_commands(r, sql):
    r.set("k", "v")
    assert r.ttl("k") == -1
    assert r.ttl("none") == -2
    assert r.pttl("none") == -2
    assert r.expire("k", 100) is True
    assert 99 <= r.ttl("k") <= 100
    assert r.expire("k", 200, nx=True) is False
    assert r.expire("k", 50, gt=True) is False
    assert r.expire("k", 300, gt=True) is True
    assert r.persist("k") is True
    assert r.persist("k") is False
    assert r.ttl("k") == -1
    assert r.pexpire("k", 100000) is True
    assert 99000 <= r.pttl("k") <= 101000  # (kept to the second: rounded up)
    assert r.expireat("k", int(time.time()) + 60) is True
    assert r.pexpireat("k", int(time.time() * 1000) + 60000) is True
    assert sql.value("SELECT expires FROM rowsocket.kv WHERE k = 'k'") != "0"
    assert r.expire("none", 10) is False
    with pytest.raises(redis.ResponseError, match="Unsupported option FOO"):
        r.execute_command("EXPIRE", "k", "10", "FOO")
    # A time already past deletes the key.
    assert r.expire("k", -1) is True
    assert r.exists("k") == 0
    assert sql.value("SELECT COUNT(*) FROM rowsocket.kv WHERE k = 'k'") == "0"


def test_expired_rows_are_misses_and_writes_replace_them(r, sql):
    sql.execute("INSERT INTO rowsocket.kv (k, v, cas, flags, expires) VALUES "
                "('old', 'stale', 1, 0, 1000), ('n', '5', 1, 0, 1000)")
    assert r.get("old") is None
    assert r.exists("old") == 0
    assert r.ttl("old") == -2
    assert r.setnx("old", "fresh") is True
    assert r.get("old") == b"fresh"
    assert r.incr("n") == 1  # the expired value counts as absent
    assert r.dbsize() == 2


def test_getex(r):
    r.set("k", "v", ex=100)
    assert r.getex("k") == b"v"
    assert 99 <= r.ttl("k") <= 100
    assert r.getex("k", persist=True) == b"v"
    assert r.ttl("k") == -1
    assert r.getex("k", ex=50) == b"v"
    assert 49 <= r.ttl("k") <= 50
    assert r.getex("none", ex=50) is None


def test_binary_keys_and_values_round_trip(r, sql):
    key = bytes(range(256))[:200]
    value = bytes(range(256)) * 64
    assert r.set(key, value)
    assert r.get(key) == value
    assert sql.rows("SELECT k, v FROM rowsocket.kv") == [(key, value)]
    large = os.urandom(900 * 1024)
    assert r.set(b"large", large)
    assert r.get(b"large") == large


def test_a_key_longer_than_the_key_column_is_refused_and_a_miss(r):
    key = b"k" * 251  # rowsocket.kv.k is VARBINARY(250)
    with pytest.raises(redis.ResponseError, match="not a value of the key column"):
        r.set(key, "v")
    assert r.get(key) is None
    assert r.mget(key, b"k" * 250) == [None, None]
    assert r.set(key[:250], "v")  # the column's whole length
    assert r.mget(key, key[:250]) == [None, b"v"]
    assert r.ping()


def test_pipelines_of_any_depth(r):
    with r.pipeline(transaction=False) as p:
        for i in range(2000):
            p.set(f"k{i}", i)
        for i in range(2000):
            p.get(f"k{i}")
        replies = p.execute()
    assert replies[:2000] == [True] * 2000
    assert replies[2000:] == [str(i).encode() for i in range(2000)]
    assert r.dbsize() == 2000


def test_concurrent_increments_are_atomic(rs, r):
    import threading

    def worker():
        c = redis.Redis(host="127.0.0.1", port=rs.port, socket_timeout=30)
        for _ in range(100):
            c.incr("counter")
        c.close()

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert r.get("counter") == b"800"


def wait_for(condition, seconds=10):
    """Until `condition()` holds; a Redis error counts as not yet."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if condition():
                return
        except redis.ResponseError:
            pass
        assert time.monotonic() < deadline
        time.sleep(0.05)


@contextlib.contextmanager
def short_value_container(r, sql):
    """The default container mapped to a table whose value column holds 10 bytes (and
    a row b = 'before'), for as long as the block runs; then rowsocket.kv again."""
    sql.execute("CREATE DATABASE IF NOT EXISTS redis_test")
    sql.execute("CREATE TABLE redis_test.short_kv (k VARBINARY(64) PRIMARY KEY, "
                "v VARBINARY(10) NOT NULL, cas BIGINT UNSIGNED NOT NULL DEFAULT 0, "
                "flags INT UNSIGNED NOT NULL DEFAULT 0, expires INT UNSIGNED NOT NULL DEFAULT 0)")
    sql.execute("INSERT INTO redis_test.short_kv (k, v) VALUES ('b', 'before')")
    sql.execute("INSERT INTO rowsocket.containers (name, db_schema, db_table, key_column, "
                "value_columns, flags_column, cas_column, expires_column) VALUES "
                "('default', 'redis_test', 'short_kv', 'k', 'v', 'flags', 'cas', 'expires')")
    try:
        wait_for(lambda: r.get("b") == b"before")  # (the mapping is read again each second)
        yield
    finally:
        sql.execute("DELETE FROM rowsocket.containers WHERE name = 'default'")
        sql.execute("DROP DATABASE redis_test")
    # Every worker reads the mapping again a second after it last read it at most.
    time.sleep(1.5)
    assert r.set("back", "on rowsocket.kv")
    assert sql.value("SELECT v FROM rowsocket.kv WHERE k = 'back'") == b"on rowsocket.kv"


def test_a_command_of_several_rows_is_all_or_nothing(r, sql):
    # The second write of an MSET fails, and the first is put back.
    with short_value_container(r, sql):
        with pytest.raises(redis.ResponseError, match="too long for its column"):
            r.mset({"a": "fits", "b": "fits too", "c": "far too long for it"})
        assert sql.rows("SELECT k, v FROM redis_test.short_kv ORDER BY k") == [(b"b", b"before")]
        with pytest.raises(redis.ResponseError, match="too long for its column"):
            r.set("b", "far too long for it")
        assert r.get("b") == b"before"
        assert r.mset({"a": "fits", "b": "fits too"}) is True
        assert r.delete("a", "b", "none") == 2


def test_flushdb_is_gated_as_flush_all(r, sql):
    r.mset({"a": "1", "b": "2"})
    with pytest.raises(redis.ResponseError, match="FLUSHDB is off"):
        r.flushdb()
    assert r.dbsize() == 2
    sql.execute("SET GLOBAL rowsocket_memcached_flush = ON")
    try:
        with pytest.raises(redis.ResponseError, match="syntax error"):
            r.execute_command("FLUSHDB", "NOW")
        assert r.flushdb() is True
        assert r.dbsize() == 0
        assert sql.value("SELECT COUNT(*) FROM rowsocket.kv") == "0"
    finally:
        sql.execute("SET GLOBAL rowsocket_memcached_flush = OFF")


def test_many_clients_writing_overlapping_keys(rs, r):
    import threading
    errors = []

    def worker(n):
        c = redis.Redis(host="127.0.0.1", port=rs.port, socket_timeout=30)
        try:
            with c.pipeline(transaction=False) as p:
                for i in range(200):
                    p.set(f"k{(i * 7 + n) % 50}", f"{n}-{i}")
                    p.incr("shared")
                    p.mset({f"m{i % 10}": n, f"m{(i + 3) % 10}": n})
                for reply in p.execute(raise_on_error=False):
                    if isinstance(reply, Exception):
                        errors.append(reply)
        finally:
            c.close()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert r.get("shared") == b"1600"
    assert r.dbsize() == 50 + 1 + 10


def test_multi_exec_is_one_transaction(r, sql):
    with r.pipeline(transaction=True) as p:
        p.set("a", "1").incr("a").get("a").mset({"b": "2", "c": "3"}).delete("c")
        assert p.execute() == [True, 2, b"2", True, 1]
    assert sql.rows("SELECT k, v FROM rowsocket.kv ORDER BY k") == [(b"a", b"2"), (b"b", b"2")]
    # A command's own error takes its place in the replies; the others are made.
    with r.pipeline(transaction=True) as p:
        p.set("t", "text").incr("t").set("d", "4")
        replies = p.execute(raise_on_error=False)
    assert replies[0] is True and isinstance(replies[1], redis.ResponseError) and replies[2] is True
    assert r.get("d") == b"4"


def test_a_failed_change_undoes_the_whole_exec(r, sql):
    # A value too long for its column fails the change, and EXEC puts back what ran
    # before it.
    with short_value_container(r, sql):
        with r.pipeline(transaction=True) as p:
            p.set("a", "fits").delete("b").set("c", "far too long for it").set("d", "x")
            with pytest.raises(redis.ResponseError, match="too long for its column"):
                p.execute()
        assert sql.rows("SELECT k, v FROM redis_test.short_kv ORDER BY k") == [(b"b", b"before")]


def test_scan_visits_every_key_once_in_key_order(rs, r, sql):
    keys = {f"user:{i:04d}".encode() for i in range(1500)} | {f"item:{i}".encode() for i in range(700)}
    with r.pipeline(transaction=False) as p:
        for k in keys:
            p.set(k, "v")
        p.execute()
    sql.execute("INSERT INTO rowsocket.kv (k, v, cas, flags, expires) VALUES ('user:gone', 'x', 1, 0, 1000)")
    seen = list(r.scan_iter(count=100))
    assert len(seen) == len(set(seen)) == len(keys)
    assert set(seen) == keys
    assert seen == sorted(seen)
    assert set(r.scan_iter(match="user:*", count=37)) == {k for k in keys if k.startswith(b"user:")}
    assert set(r.scan_iter(match="*:0?9*")) == {
        k for k in keys if fnmatch.fnmatchcase(k.decode(), "*:0?9*")}
    assert list(r.scan_iter(_type="hash")) == []
    # A cursor goes on from any connection of the listener.
    cursor, first = r.scan(0, count=10)
    other = redis.Redis(host="127.0.0.1", port=rs.port)
    cursor2, second = other.scan(cursor, count=10)
    other.close()
    assert len(first) == len(second) == 10 and max(first) < min(second)
    # An unknown cursor starts again from the first key.
    assert r.scan(123456789, count=5)[1] == sorted(keys)[:5]


def test_an_exec_that_meets_a_lock_waits_and_runs_once(rs, r, server, sql):
    import threading
    r.set("b", "old")
    waits = lambda: int(sql.rows("SHOW GLOBAL STATUS LIKE 'Rowsocket_lock_waits'")[0][1])
    waited_before = waits()
    holder = Sql(server)
    holder.execute("BEGIN")
    holder.rows("SELECT v FROM rowsocket.kv WHERE k = 'b' FOR UPDATE")
    replies = []

    def exec_transaction():
        c = redis.Redis(host="127.0.0.1", port=rs.port, socket_timeout=30)
        with c.pipeline(transaction=True) as p:
            p.incr("n").mset({"m1": "1", "m2": "2"}).set("b", "new").incr("n")
            replies.append(p.execute())
        c.close()

    t = threading.Thread(target=exec_transaction)
    t.start()
    # The EXEC waits apart (its INCR and MSET put back), and nothing of it shows.
    wait_for(lambda: waits() > waited_before)
    assert r.get("n") is None and r.get("m1") is None
    holder.execute("COMMIT")
    holder.close()
    t.join()
    assert replies == [[1, True, True, 2]]
    assert r.mget("n", "m1", "m2", "b") == [b"2", b"1", b"2", b"new"]


@pytest.mark.parametrize("outcome", ["COMMIT", "ROLLBACK"])
def test_a_set_of_a_key_another_transaction_inserts_waits_and_wins(rs, r, server, sql, outcome):
    import threading
    waits = lambda: int(sql.rows("SHOW GLOBAL STATUS LIKE 'Rowsocket_lock_waits'")[0][1])
    waited_before = waits()
    holder = Sql(server)
    holder.execute("BEGIN")
    holder.execute("INSERT INTO rowsocket.kv (k, v, flags, expires) VALUES ('fresh', 'sql', 5, 0)")
    replies = []

    def set_it():
        c = redis.Redis(host="127.0.0.1", port=rs.port, socket_timeout=30)
        replies.append(c.set("fresh", "redis"))
        c.close()

    t = threading.Thread(target=set_it)
    t.start()
    wait_for(lambda: waits() > waited_before)
    assert replies == []
    holder.execute(outcome)
    holder.close()
    t.join()
    assert replies == [True]
    assert r.get("fresh") == b"redis"
    assert sql.rows("SELECT flags, expires FROM rowsocket.kv WHERE k = 'fresh'") == [("0", "0")]


def test_watch_answers_a_clear_error(r):
    with pytest.raises(redis.ResponseError, match="'watch' is not served"):
        r.execute_command("WATCH", "a")


def test_redis_cli(rs, clean, sql):
    cli = ["redis-cli", "-h", "127.0.0.1", "-p", str(rs.port)]
    assert subprocess.run(cli + ["SET", "cli", "hello world"], capture_output=True,
                          check=True, timeout=30).stdout == b"OK\n"
    assert subprocess.run(cli + ["GET", "cli"], capture_output=True, check=True,
                          timeout=30).stdout == b"hello world\n"
    piped = subprocess.run(cli + ["--pipe"], input=b"SET p1 a\r\nSET p2 b\r\nINCR p3\r\n",
                           capture_output=True, timeout=30)
    assert piped.returncode == 0, piped.stdout + piped.stderr
    assert b"errors: 0, replies: 3" in piped.stdout
    assert sql.rows("SELECT k, v FROM rowsocket.kv WHERE k LIKE 'p%' ORDER BY k") == [
        (b"p1", b"a"), (b"p2", b"b"), (b"p3", b"1")]


def test_writes_are_binlogged_as_rows(r, sql):
    r.set("binlogged", "yes")
    events = sql.rows("SHOW BINLOG EVENTS")
    kinds = {e[2] for e in events}
    assert "Write_rows_v1" in kinds or "Write_rows" in kinds


# --- bad input ------------------------------------------------------------------------

def test_protocol_error_answers_and_closes_and_others_go_on(rs, r):
    out = redis_reference.exchange_to_eof(rs.port, b"PING\r\n*1\r\n$-5\r\nPING\r\n")
    assert out == b"+PONG\r\n-ERR Protocol error: invalid bulk length\r\n"
    assert r.ping()


def test_a_bulk_past_the_limit_is_a_protocol_error(rs, r):
    out = redis_reference.exchange_to_eof(
        rs.port, b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$%d\r\n" % (MAX_LINE + 1))
    assert out == b"-ERR Protocol error: invalid bulk length\r\n"
    assert r.exists("k") == 0


def test_append_past_the_limit_answers_an_error_and_the_connection_goes_on(r):
    r.set("big", b"x" * (MAX_LINE - 10))
    with pytest.raises(redis.ResponseError, match="string exceeds maximum allowed size"):
        r.append("big", b"y" * 20)
    assert r.strlen("big") == MAX_LINE - 10
    assert r.ping()


def test_mget_is_held_to_the_answer_size(r, sql):
    r.mset({"a": b"x" * 3000, "b": b"y" * 3000})
    sql.execute("SET GLOBAL rowsocket_max_answer_size = 4096")
    try:
        with pytest.raises(redis.ResponseError, match="rowsocket_max_answer_size"):
            r.mget("a", "b")
        assert r.mget("a") == [b"x" * 3000]
        # The refused answer had begun ("a"'s value) when "b" overflowed it: what was
        # written of it is dropped, and the replies after it are whole.
        with r.pipeline(transaction=False) as p:
            p.mget("a", "b").mget("nosuch", "a").ping()
            refused, after, pong = p.execute(raise_on_error=False)
        assert isinstance(refused, redis.ResponseError)
        assert "rowsocket_max_answer_size" in str(refused)
        assert (after, pong) == ([None, b"x" * 3000], True)
    finally:
        sql.execute("SET GLOBAL rowsocket_max_answer_size = DEFAULT")
    assert r.mget("a", "b") == [b"x" * 3000, b"y" * 3000]


def test_garbage_never_crashes_the_listener(rs, r):
    # Seeded, so that a failure can be replayed; the first byte is never 0x16, which
    # begins a TLS handshake (the case below).
    noise = random.Random(583).randbytes(4096).lstrip(b"\x16")
    inputs = [b"*-1\r\n", b"*2147483648\r\n", b"$5\r\nhello\r\n", b"\x00\x01\x02\r\n",
              b'SET "unbalanced\r\n', b"*1\r\n*1\r\n", b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\nabc\r\n",
              b"*1\r\n$4\r\nPI", noise]
    for data in inputs:
        redis_reference.exchange_to_eof(rs.port, data)
    assert r.ping()


def test_tls_handshake_on_a_plain_listener_is_closed(rs, r):
    # A first byte of 0x16 is a TLS handshake record; with TLS off the listener closes
    # at once, unread bytes and all, so the close may arrive as a reset.
    with socket.create_connection(("127.0.0.1", rs.port), timeout=10) as sock:
        sock.sendall(b"\x16\x03\x01" + random.Random(16).randbytes(4093))
        try:
            assert sock.recv(65536) == b""
        except ConnectionResetError:
            pass
    assert r.ping()


def test_unfinished_huge_command_is_refused(rs, r):
    # Many small arguments, never finished, just past the limit of one command
    # (max_line_length and 64 KiB): no byte is left unread when it closes.
    data = b"*100000000\r\n" + b"$1\r\na\r\n" * ((MAX_LINE + 65536 - 12) // 7 + 1)
    out = redis_reference.exchange_to_eof(rs.port, data)
    assert out == b"-ERR Protocol error: too big request\r\n"
    assert r.ping()


# --- the reference cases (what redis-server 7 answered) -------------------------------

def reference(name):
    rows = []
    with open(os.path.join(redis_reference.DATA, name), encoding="ascii") as f:
        for line in f:
            if line.startswith("#"):
                continue
            rows.append(line.rstrip("\n").split("\t"))
    return rows


# Cases whose rowsocket answer differs on purpose (docs/REDIS.md, "Differences"), with
# what rowsocket answers instead.
FRAMING_DIFFERENCES = {
    # proto-max-bulk-len is rowsocket_max_line_length (1 MiB), not 512 MiB.
    "bulk_512mb_waits": b"-ERR Protocol error: invalid bulk length\r\n",
}


def test_framing_reference_cases(rs):
    cases = reference("redis_framing.tsv")
    assert len(cases) > 50
    differ = []
    for name, data, answer in cases:
        got = redis_reference.exchange_to_eof(rs.port, redis_reference.unescape(data))
        if got != FRAMING_DIFFERENCES.get(name, redis_reference.unescape(answer)):
            differ.append((name, got[:200]))
    assert differ == []


# Cases whose rowsocket answer differs on purpose (docs/REDIS.md, "Differences").
ARGUMENT_DIFFERENCES = {}


def test_argument_reference_cases(rs, sql):
    import redis_reference_cases as cases
    setups = {name: setup for name, setup, _ in cases.ARGUMENTS}
    differ = []
    for name, argv, answer in reference("redis_arguments.tsv"):
        words = [redis_reference.unescape(w) for w in argv.split(" ")]
        sql.execute("DELETE FROM rowsocket.kv")
        conn = redis_reference.Resp(rs.port)
        try:
            for s in setups[name]:
                conn.command(*s)
            got = conn.command(*words)
        finally:
            conn.close()
        if got != redis_reference.unescape(answer) and name not in ARGUMENT_DIFFERENCES:
            differ.append((name, got, answer))
    assert differ == []


# --- side by side with redis-server ---------------------------------------------------

# Each a fresh connection on an empty database: every reply compared byte for byte.
SEQUENCES = [
    [["SET", "k", "v"], ["GET", "k"], ["SET", "k", "w", "XX", "GET"], ["SET", "k", "x", "NX"],
     ["SET", "k", "x", "NX", "GET"], ["SET", "n", "x", "XX", "GET"], ["GET", "k"],
     ["SET", "k", "v", "EX", "100"], ["TTL", "k"], ["SET", "k", "v", "KEEPTTL"], ["TTL", "k"],
     ["SET", "k", "v"], ["TTL", "k"], ["SET", "k", "v", "EX", "0"], ["SET", "k", "v", "EX", "x"],
     ["SET", "k", "v", "PX", "-1"], ["SET", "k", "v", "FOO"], ["SET", "k"]],
    [["GETSET", "g", "1"], ["GETSET", "g", "2"], ["GETDEL", "g"], ["GETDEL", "g"], ["GET", "g"],
     ["SETNX", "s", "1"], ["SETNX", "s", "2"], ["GET", "s"], ["SETEX", "e", "0", "v"],
     ["SETEX", "e", "-5", "v"], ["SETEX", "e", "abc", "v"], ["SETEX", "e", "100", "v"],
     ["TTL", "e"], ["TYPE", "e"], ["TYPE", "none"], ["STRLEN", "e"], ["STRLEN", "none"]],
    [["APPEND", "a", "x"], ["APPEND", "a", "yz"], ["GET", "a"], ["GETRANGE", "a", "0", "-1"],
     ["GETRANGE", "a", "-1", "-5"], ["GETRANGE", "a", "-100", "100"], ["GETRANGE", "a", "2", "1"],
     ["GETRANGE", "a", "1", "x"], ["GETRANGE", "none", "0", "1"], ["GETRANGE", "a", "5", "9"],
     ["SET", "empty", ""], ["GETRANGE", "empty", "0", "-1"], ["STRLEN", "empty"]],
    [["INCR", "i"], ["INCRBY", "i", "41"], ["DECR", "i"], ["DECRBY", "i", "-10"],
     ["DECRBY", "i", "-9223372036854775808"], ["INCRBY", "i", "9223372036854775807"],
     ["SET", "t", "abc"], ["INCR", "t"], ["SET", "t", " 1"], ["INCR", "t"],
     ["SET", "t", "9223372036854775807"], ["INCR", "t"], ["SET", "m", "-9223372036854775808"],
     ["DECR", "m"], ["INCRBY", "i", "x"]],
    [["INCRBYFLOAT", "f", "1.1"], ["INCRBYFLOAT", "f", "2.2"], ["INCRBYFLOAT", "f", "-3.3"],
     ["INCRBYFLOAT", "f", "1e10"], ["INCRBYFLOAT", "f", "abc"], ["INCRBYFLOAT", "f", "inf"],
     ["SET", "g", "x"], ["INCRBYFLOAT", "g", "1"], ["SET", "g", "5.0e3"], ["INCRBYFLOAT", "g", "1"],
     ["GET", "f"]],
    [["MSET", "a", "1", "b", "2"], ["MGET", "a", "b", "c", "a"], ["MSET", "a"],
     ["MSET", "a", "1", "b"], ["MSETNX", "c", "3", "a", "9"], ["MSETNX", "c", "3", "d", "4"],
     ["MGET", "a", "b", "c", "d"], ["EXISTS", "a", "a", "z"], ["DEL", "a", "a", "z"],
     ["UNLINK", "b", "c"], ["EXISTS", "a", "b", "c", "d"], ["DEL"]],
    [["SET", "k", "v"], ["EXPIRE", "k", "100", "NX"], ["EXPIRE", "k", "100", "NX"],
     ["EXPIRE", "k", "50", "GT"], ["EXPIRE", "k", "200", "GT"], ["EXPIRE", "k", "300", "LT"],
     ["EXPIRE", "k", "100", "LT"], ["TTL", "k"], ["EXPIRE", "k", "10", "XX", "NX"],
     ["EXPIRE", "k", "10", "GT", "LT"], ["EXPIRE", "k", "10", "BOGUS"], ["EXPIRE", "k", "x"],
     ["EXPIRE", "k", "9223372036854775807"], ["PEXPIRE", "k", "9223372036854775807"],
     ["EXPIREAT", "k", "-1"], ["EXISTS", "k"], ["EXPIRE", "none", "10"], ["PERSIST", "none"],
     ["SET", "p", "v", "EX", "100"], ["PERSIST", "p"], ["PERSIST", "p"], ["TTL", "p"],
     ["TTL", "none"], ["PTTL", "none"], ["PTTL", "p"], ["SET", "q", "v"], ["EXPIRE", "q", "0"],
     ["GET", "q"], ["SET", "q", "v"], ["EXPIRE", "q", "100", "XX"], ["EXPIRE", "q", "100", "GT"]],
    [["SET", "k", "v", "EX", "100"], ["GETEX", "k", "PERSIST"], ["TTL", "k"],
     ["GETEX", "k", "EX", "100"], ["TTL", "k"], ["GETEX", "k", "EX", "0"], ["GETEX", "none"],
     ["GETEX", "k", "PXAT", "1"], ["GET", "k"], ["GETEX", "k", "FOO"]],
    [["PING"], ["PING", "a"], ["PING", "a", "b"], ["ECHO"], ["ECHO", "x"], ["SELECT", "0"],
     ["SELECT", "16"], ["SELECT", "-1"], ["SELECT", "x"], ["CLIENT", "GETNAME"],
     ["CLIENT", "SETNAME", "a b"], ["CLIENT", "SETNAME", "ok"], ["CLIENT", "GETNAME"],
     ["CLIENT", "SETNAME", ""], ["CLIENT", "GETNAME"], ["CLIENT", "FOO"], ["CLIENT"],
     ["NOSUCH"], ["nosuch", "a", "b"], ["GET", "a", "b"], ["AUTH", "x"], ["AUTH", "a", "b", "c"],
     ["HELLO", "1"], ["HELLO", "x"], ["HELLO", "3", "AUTH", "a"], ["CONFIG", "GET", "databases"],
     ["CONFIG", "GET", "maxmemory"], ["CONFIG", "GET", "nosuch*"], ["COMMAND", "INFO", "get", "nosuch"],
     ["DBSIZE"]],
    [["EXEC"], ["DISCARD"], ["MULTI"], ["SET", "a", "1"], ["INCR", "a"], ["SET", "t", "x"],
     ["INCR", "t"], ["MGET", "a", "t", "none"], ["PING"], ["MULTI"], ["EXEC"], ["GET", "a"],
     ["MULTI"], ["SET", "a", "2"], ["DISCARD"], ["GET", "a"], ["MULTI"], ["SET", "a", "3"],
     ["NOSUCH"], ["GET"], ["EXEC"], ["GET", "a"], ["MULTI"], ["EXEC"], ["UNWATCH"],
     ["MULTI"], ["MSET", "a", "1", "b"], ["EXEC"], ["MULTI"], ["DEL", "a"], ["EXISTS", "a"],
     ["SET", "a", "5", "EX", "100"], ["TTL", "a"], ["EXEC"]],
]


# Commands whose replies differ on purpose (docs/REDIS.md, "Differences").
SIDE_BY_SIDE_DIFFERENCES = {
    ("CONFIG", "GET", "databases"),         # one database, not 16
    ("COMMAND", "INFO", "get", "nosuch"),   # no ACL categories, tips or key specs
}


@pytest.mark.skipif(not redis_reference.available(), reason="Debian's redis-server is not installed")
def test_side_by_side_with_redis_server(rs, sql):
    with redis_reference.running_redis() as reference_server:
        differ = []
        for sequence in SEQUENCES:
            sql.execute("DELETE FROM rowsocket.kv")
            ours, theirs = redis_reference.Resp(rs.port), redis_reference.Resp(reference_server.port)
            try:
                theirs.command("FLUSHALL")
                for argv in sequence:
                    a, b = ours.command(*argv), theirs.command(*argv)
                    if a != b and tuple(argv) not in SIDE_BY_SIDE_DIFFERENCES:
                        differ.append((argv, a, b))
            finally:
                ours.close()
                theirs.close()
    assert differ == []


# --- random input ---------------------------------------------------------------------

COMMAND_WORDS = [b"GET", b"SET", b"MSET", b"MGET", b"DEL", b"INCR", b"INCRBY", b"INCRBYFLOAT",
                 b"APPEND", b"GETRANGE", b"EXPIRE", b"PEXPIREAT", b"TTL", b"PERSIST", b"GETEX",
                 b"SCAN", b"MULTI", b"EXEC", b"DISCARD", b"PING", b"ECHO", b"HELLO", b"CLIENT",
                 b"COMMAND", b"CONFIG", b"INFO", b"SELECT", b"EXISTS", b"TYPE", b"SETEX",
                 b"GETSET", b"MSETNX", b"DBSIZE", b"NOSUCH", b"HGET", b"WATCH"]
WORDS = [b"", b"0", b"-1", b"1", b"9223372036854775807", b"NX", b"XX", b"GET", b"EX", b"PX",
         b"KEEPTTL", b"MATCH", b"COUNT", b"*", b"k", b"key:1", b"1.5", b"inf", b"\x00", b"\r\n",
         b"3", b"GETNAME", b"SETNAME", b"INFO", b"AUTH"]


def random_command(rng):
    argv = [rng.choice(COMMAND_WORDS)]
    for _ in range(rng.randrange(5)):
        argv.append(rng.choice(WORDS) if rng.random() < 0.7 else rng.randbytes(rng.randrange(20)))
    if rng.random() < 0.2:  # inline
        return b" ".join(a.replace(b"\r", b"").replace(b"\n", b"") for a in argv) + b"\r\n"
    return b"*%d\r\n" % len(argv) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in argv)


def random_damage(rng, data):
    kinds = [
        lambda d: d + b"*%d\r\n" % rng.choice([2147483647, 2147483648, -5, 1 << 40]),
        lambda d: d + b"*1\r\n$%d\r\nabc\r\n" % rng.choice([10, -7, 1 << 21, 99999999999]),
        lambda d: d + b"*2\r\n*1\r\n$4\r\nPING\r\n",
        lambda d: d + rng.randbytes(rng.randrange(1, 64)),
        lambda d: d[:rng.randrange(len(d) + 1)],
        lambda d: d + b'ECHO "unbalanced\r\n',
        lambda d: d,
    ]
    return rng.choice(kinds)(data)


def parse_all(out):
    at = 0
    replies = []
    while at < len(out):
        if out[at:at + 1] in b"_%~,#=":  # (a RESP3 reply after HELLO 3: not parsed here)
            return replies, True
        value, at = redis_reference.parse_reply(out, at)
        replies.append(value)
    return replies, at == len(out)


def test_random_input_answers_whole_replies_and_never_breaks_the_listener(rs, r, sql):
    import random
    rng = random.Random(28)
    for _ in range(300):
        data = b"".join(random_command(rng) for _ in range(rng.randrange(1, 8)))
        data = random_damage(rng, data)
        out = redis_reference.exchange_to_eof(rs.port, data)
        _, whole = parse_all(out)
        assert whole, (data, out)
    assert r.ping()
    assert int(sql.value("SELECT COUNT(*) FROM rowsocket.kv")) == r.dbsize() + int(sql.value(
        "SELECT COUNT(*) FROM rowsocket.kv WHERE expires != 0 AND expires <= UNIX_TIMESTAMP()"))
