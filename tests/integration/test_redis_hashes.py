"""Redis hashes on rows (docs/REDIS.md, "Hashes"): a key `<container>:<key>` of a
container of rowsocket.containers is that container's row, each column but the key
column a field. Checked against SQL on the same table (what HGETALL answers is what
SELECT prints; what HSET, HDEL and HINCRBY did is what SQL then reads), the SQL row
rules, WRONGTYPE both ways, MULTI/EXEC; and side by side with a live redis-server
where the behaviour is Redis's own (reply shapes, errors).
"""

import contextlib
import random
import threading
import time

import pytest
import redis

from db import Sql
import redis_reference
import redis_support
import targets

pytestmark = targets.rowsocket_only

DB = "hashdb"
# The fields of test rows: every column but `id`, in the table's order.
USERS = (f"CREATE TABLE {DB}.users (id VARBINARY(64) PRIMARY KEY, name VARCHAR(50) NULL, "
         "email VARCHAR(100) NULL, visits INT NULL, score DOUBLE NULL, "
         "balance DECIMAL(10,2) NULL, tiny TINYINT NULL, nn VARCHAR(10) NOT NULL DEFAULT 'd', "
         "note VARCHAR(20) NULL, doubled INT AS (visits * 2) VIRTUAL, "
         "CONSTRAINT visits_positive CHECK (visits IS NULL OR visits >= 0)) ENGINE=InnoDB")
FIELDS = ["name", "email", "visits", "score", "balance", "tiny", "nn", "note", "doubled"]
# Text fields only: what redis-server would store, byte for byte (side by side).
TEXTS = (f"CREATE TABLE {DB}.texts (k VARBINARY(64) PRIMARY KEY, a VARBINARY(100) NULL, "
         "b VARBINARY(100) NULL, c VARBINARY(100) NULL) ENGINE=InnoDB")


def map_container(sql, name, table, key):
    sql.execute("REPLACE INTO rowsocket.containers (name, db_schema, db_table, key_column, "
                "value_columns) VALUES (%s, %s, %s, %s, %s)", (name, DB, table, key, key))


def wait_for(condition, seconds=10):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def rs():
    with redis_support.running_rowsocket_redis(
            extra_args=["--log-bin=redis-bin", "--server-id=1", "--binlog-format=ROW"]) as r:
        sql = Sql(r.server)
        try:
            sql.execute(f"CREATE DATABASE {DB}")
            sql.execute(USERS)
            sql.execute(TEXTS)
            sql.execute(f"CREATE TABLE {DB}.trig (k VARCHAR(20) PRIMARY KEY, v VARCHAR(20) NULL)")
            sql.execute(f"CREATE TABLE {DB}.trig_log (v VARCHAR(20))")
            sql.execute(f"CREATE TRIGGER {DB}.trig_ins AFTER INSERT ON {DB}.trig FOR EACH ROW "
                        f"INSERT INTO {DB}.trig_log VALUES (NEW.v)")
            sql.execute(f"INSERT INTO {DB}.trig VALUES ('t1', 'x')")
            map_container(sql, "user", "users", "id")
            map_container(sql, "t", "texts", "k")
            map_container(sql, "trig", "trig", "k")
            sql.execute(f"INSERT INTO {DB}.users (id, name) VALUES ('probe', 'p')")
            client = redis.Redis(host="127.0.0.1", port=r.port, socket_timeout=10)
            # (Each worker reads the mapping again a second after it last read a name.)
            wait_for(lambda: client.hget("user:probe", "name") == b"p")
            time.sleep(1.2)
            client.close()
        finally:
            sql.close()
        yield r


@pytest.fixture(scope="module")
def server(rs):
    return rs.server


@pytest.fixture
def clean(rs, sql):
    """Empty tables: the default container's and the hash containers'."""
    for table in ("rowsocket.kv", f"{DB}.users", f"{DB}.texts"):
        sql.execute(f"DELETE FROM {table}")


@pytest.fixture
def r(rs, clean):
    with contextlib.closing(redis.Redis(host="127.0.0.1", port=rs.port, socket_timeout=10)) as c:
        yield c


@pytest.fixture
def raw_sql(server):
    conn = Sql(server, raw_bytes=True)
    yield conn
    conn.close()


def selected(raw_sql, key):
    """The row of `key` as SELECT prints it: {field: bytes} of its non-NULL columns,
    or None without a row."""
    rows = raw_sql.rows(f"SELECT {', '.join(FIELDS)} FROM {DB}.users WHERE id = %s", (key,))
    if not rows:
        return None
    return {f.encode(): v.encode() if isinstance(v, str) else v
            for f, v in zip(FIELDS, rows[0]) if v is not None}


def test_hset_of_a_new_key_inserts_the_row_with_defaults(r, raw_sql):
    assert r.hset("user:1", mapping={"name": "Ada", "visits": "3"}) == 2
    assert selected(raw_sql, "1") == {b"name": b"Ada", b"visits": b"3", b"nn": b"d",
                                      b"doubled": b"6"}
    assert r.hgetall("user:1") == selected(raw_sql, "1")
    assert r.hset("user:1", mapping={"name": "Grace", "email": "g@x"}) == 1
    assert r.hset("user:1", "email", "h@x") == 0
    assert selected(raw_sql, "1")[b"email"] == b"h@x"
    assert r.type("user:1") == b"hash"
    assert r.exists("user:1", "user:none", "user:1") == 2


def test_hgetall_is_what_select_prints(r, raw_sql):
    rng = random.Random(28)
    keys = [f"k{i}" for i in range(6)]
    values = {"name": ["Ada", "", "é", "x" * 50], "email": ["a@b", "c"], "visits": ["0", "7", "12"],
              "score": ["1.5", "-2", "1e3", "0.1"], "balance": ["3", "4.5", "-1.25"],
              "tiny": ["-128", "127", "5"], "nn": ["a", "b"], "note": ["n"]}
    for _ in range(150):
        key = rng.choice(keys)
        op = rng.random()
        if op < 0.4:
            fields = rng.sample(sorted(values), rng.randrange(1, 4))
            r.hset(f"user:{key}", mapping={f: rng.choice(values[f]) for f in fields})
        elif op < 0.55:
            r.hdel(f"user:{key}", *rng.sample(["name", "email", "score", "note", "balance"], 2))
        elif op < 0.7:
            r.hincrby(f"user:{key}", "visits", rng.randrange(0, 5))
        elif op < 0.8:
            r.hsetnx(f"user:{key}", rng.choice(["name", "note"]), "nx")
        elif op < 0.9:
            r.delete(f"user:{key}")
        else:
            r.hincrbyfloat(f"user:{key}", "score", "0.25")
        want = selected(raw_sql, key) or {}
        assert r.hgetall(f"user:{key}") == want
        assert r.hlen(f"user:{key}") == len(want)
        assert r.hkeys(f"user:{key}") == [f.encode() for f in FIELDS if f.encode() in want]
        assert r.hvals(f"user:{key}") == [want[f.encode()] for f in FIELDS if f.encode() in want]
        assert r.exists(f"user:{key}") == (selected(raw_sql, key) is not None)


def test_field_reads(r, sql):
    sql.execute(f"INSERT INTO {DB}.users (id, name, score, balance) VALUES ('2', 'Bob', 2.5, 7)")
    assert r.hget("user:2", "name") == b"Bob"
    assert r.hget("user:2", "NAME") == b"Bob"          # as SQL matches column names
    assert r.hget("user:2", "email") is None           # NULL: an absent field
    assert r.hget("user:2", "nosuch") is None          # an unknown column too
    assert r.hget("user:2", "id") is None              # the key column is no field
    assert r.hget("user:none", "name") is None
    assert r.hmget("user:2", ["name", "email", "balance", "nosuch"]) == [b"Bob", None, b"7.00", None]
    assert r.hexists("user:2", "name") and not r.hexists("user:2", "email")
    assert r.hstrlen("user:2", "name") == 3 and r.hstrlen("user:2", "email") == 0
    assert r.hgetall("user:none") == {} and r.hlen("user:none") == 0
    assert r.hkeys("user:none") == [] and r.hvals("user:none") == []


def test_reads_of_a_row_are_held_to_the_answer_size(r, sql):
    sql.execute(f"INSERT INTO {DB}.users (id, name, email) VALUES ('big', %s, %s)",
                ("n" * 50, "e" * 100))
    sql.execute("SET GLOBAL rowsocket_max_answer_size = 110")
    try:
        for read in (lambda: r.hgetall("user:big"), lambda: r.hvals("user:big"),
                     lambda: r.hmget("user:big", ["name", "email"]),
                     lambda: r.hget("user:big", "email")):
            with pytest.raises(redis.ResponseError, match="rowsocket_max_answer_size"):
                read()
        assert r.hget("user:big", "name") == b"n" * 50      # within it
        assert r.hkeys("user:big") == [b"name", b"email", b"nn"]
        assert r.ping()
    finally:
        sql.execute("SET GLOBAL rowsocket_max_answer_size = DEFAULT")
    assert r.hget("user:big", "email") == b"e" * 100


def test_hincrby_and_hincrbyfloat_as_the_columns_store_them(r, raw_sql):
    assert r.hincrby("user:3", "visits", 5) == 5            # a new row
    assert r.hincrby("user:3", "visits", -2) == 3
    assert selected(raw_sql, "3")[b"visits"] == b"3"
    assert r.hincrbyfloat("user:3", "score", "0.1") == 0.1
    assert r.hincrbyfloat("user:3", "score", "0.2") == float(selected(raw_sql, "3")[b"score"])
    # A DECIMAL(10,2) keeps two decimals: the answer is what the column holds.
    assert r.hincrbyfloat("user:3", "balance", "1.004") == 1.0
    assert r.hget("user:3", "balance") == selected(raw_sql, "3")[b"balance"] == b"1.00"
    assert r.hincrbyfloat("user:3", "balance", "1") == float(selected(raw_sql, "3")[b"balance"])
    with pytest.raises(redis.ResponseError, match="^hash value is not an integer$"):
        r.hincrby("user:3", "balance", 1)                   # "2.01" is no integer
    r.hset("user:3", "name", "abc")
    with pytest.raises(redis.ResponseError, match="^hash value is not a float$"):
        r.hincrbyfloat("user:3", "name", 1)
    # TINYINT: the strict sql_mode refuses what it cannot hold, as SQL does.
    r.hset("user:3", "tiny", "126")
    assert r.hincrby("user:3", "tiny", 1) == 127
    with pytest.raises(redis.ResponseError, match="1264"):
        r.hincrby("user:3", "tiny", 1)
    assert selected(raw_sql, "3")[b"tiny"] == b"127"


def test_hdel_nulls_a_nullable_column_and_refuses_a_not_null_one(r, raw_sql):
    r.hset("user:4", mapping={"name": "Ada", "email": "a@x", "note": "n"})
    assert r.hdel("user:4", "email", "note", "email", "nosuch") == 2
    assert selected(raw_sql, "4") == {b"name": b"Ada", b"nn": b"d"}
    assert r.hdel("user:4", "email") == 0
    with pytest.raises(redis.ResponseError, match="NOT NULL"):
        r.hdel("user:4", "name", "nn")
    assert selected(raw_sql, "4") == {b"name": b"Ada", b"nn": b"d"}   # nothing changed
    assert r.hdel("user:none", "name") == 0
    # A row without fields stays a row (DEL deletes it).
    assert r.hdel("user:4", "name") == 1
    assert r.hgetall("user:4") == {b"nn": b"d"}
    assert r.delete("user:4") == 1 and selected(raw_sql, "4") is None


def test_the_sql_row_rules_apply(r, sql):
    with pytest.raises(redis.ResponseError, match="is no column of hashdb.users"):
        r.hset("user:5", mapping={"name": "Ada", "nosuch": "1"})
    with pytest.raises(redis.ResponseError, match="is no column"):
        r.hsetnx("user:5", "nosuch", "1")
    with pytest.raises(redis.ResponseError, match="is no column"):
        r.hincrby("user:5", "id", 1)
    assert sql.rows(f"SELECT id FROM {DB}.users WHERE id = '5'") == []
    with pytest.raises(redis.ResponseError, match="1406|too long"):
        r.hset("user:5", "nn", "far too long for ten")       # strict sql_mode
    with pytest.raises(redis.ResponseError, match="1366"):
        r.hset("user:5", "visits", "abc")
    with pytest.raises(redis.ResponseError, match="4025"):
        r.hset("user:5", "visits", "-1")                     # the CHECK constraint
    with pytest.raises(redis.ResponseError, match="1906|generated"):
        r.hset("user:5", "doubled", "4")                     # a generated column
    with pytest.raises(redis.ResponseError, match="trigger"):
        r.hset("trig:t2", "v", "y")                          # a table with triggers
    assert r.hget("trig:t1", "v") == b"x"                    # (reads are fine)
    assert sql.rows(f"SELECT id FROM {DB}.users WHERE id = '5'") == []
    with pytest.raises(redis.ResponseError, match="not a value of the key column"):
        r.hset("user:" + "x" * 65, "name", "Ada")
    assert r.hget("user:" + "x" * 65, "name") is None


def test_wrongtype_both_ways(r, sql):
    r.set("plain", "v")
    r.hset("user:6", "name", "Ada")
    wrong = "^WRONGTYPE Operation against a key holding the wrong kind of value$"
    for call in (lambda: r.hget("plain", "name"), lambda: r.hgetall("plain"),
                 lambda: r.hset("plain", "f", "v"), lambda: r.hincrby("plain", "f", 1),
                 lambda: r.get("user:6"), lambda: r.incr("user:6"), lambda: r.set("user:6", "v"),
                 lambda: r.append("user:6", "x"), lambda: r.mset({"a": "1", "user:6": "2"}),
                 lambda: r.getdel("user:6"), lambda: r.strlen("user:6"),
                 lambda: r.get("user:nosuch")):
        with pytest.raises(redis.ResponseError, match=wrong):
            call()
    assert r.get("a") is None and r.hget("user:6", "name") == b"Ada"
    # A hash command on a key of no hash container finds nothing, and cannot write.
    assert r.hget("nohash", "f") is None and r.hgetall("nohash") == {} and r.hlen("nohash") == 0
    assert r.hdel("nohash", "f") == 0
    with pytest.raises(redis.ResponseError, match="key of no hash container"):
        r.hset("nohash", "f", "v")
    with pytest.raises(redis.ResponseError, match="key of no hash container"):
        r.hset("session:abc", "f", "v")
    # The key commands take both kinds, in one command.
    assert r.mget("plain", "user:6", "none") == [b"v", None, None]
    assert r.type("plain") == b"string" and r.type("user:6") == b"hash"
    assert r.ttl("user:6") == -1 and r.ttl("user:none") == -2 and r.persist("user:6") is False
    with pytest.raises(redis.ResponseError, match="keeps no expiry"):
        r.expire("user:6", 100)
    assert r.exists("plain", "user:6", "user:none") == 2
    assert r.delete("plain", "user:6", "user:none") == 2
    assert sql.rows(f"SELECT id FROM {DB}.users WHERE id = '6'") == []
    assert sql.rows("SELECT k FROM rowsocket.kv WHERE k = 'plain'") == []


def test_keys_of_no_container_stay_strings(r, sql):
    assert r.set("session:abc", "v") is True
    assert r.set("default:abc", "w") is True     # `default` holds strings
    assert r.type("session:abc") == b"string" and r.type("default:abc") == b"string"
    assert sorted(k for (k,) in sql.rows("SELECT k FROM rowsocket.kv")) == [
        b"default:abc", b"session:abc"]
    # A container mapped later makes its keys hashes (within a second).
    sql.execute(f"CREATE TABLE {DB}.sessions (k VARCHAR(20) PRIMARY KEY, data VARCHAR(20))")
    try:
        map_container(sql, "session", "sessions", "k")
        # (Every worker reads a name's mapping again a second after it last read it.)
        time.sleep(1.1)
        assert r.type("session:abc") == b"none"
        assert r.hset("session:abc", "data", "x") == 1
        assert sql.rows(f"SELECT k, data FROM {DB}.sessions") == [("abc", "x")]
    finally:
        sql.execute("DELETE FROM rowsocket.containers WHERE name = 'session'")
        time.sleep(1.1)
        sql.execute(f"DROP TABLE {DB}.sessions")
    assert r.get("session:abc") == b"v"


def test_the_fields_follow_the_tables_columns(r, sql):
    sql.execute(f"CREATE TABLE {DB}.altered (k INT PRIMARY KEY, a VARCHAR(10))")
    try:
        map_container(sql, "alt", "altered", "k")
        time.sleep(1.1)  # (every worker reads the mapping again)
        assert r.hset("alt:1", "a", "x") == 1
        sql.execute(f"ALTER TABLE {DB}.altered ADD COLUMN b INT NULL, ADD COLUMN c INT "
                    "INVISIBLE NULL")
        assert r.hset("alt:1", "b", "2") == 1
        assert r.hgetall("alt:1") == {b"a": b"x", b"b": b"2"}   # (c: not in SELECT *)
        sql.execute(f"ALTER TABLE {DB}.altered DROP COLUMN a")
        assert r.hgetall("alt:1") == {b"b": b"2"}
        with pytest.raises(redis.ResponseError, match="is no column"):
            r.hset("alt:1", "a", "x")
        assert r.hget("alt:x", "b") is None          # `x` is no value of an INT key
        with pytest.raises(redis.ResponseError, match="not a value of the key column"):
            r.hset("alt:x", "b", "1")
    finally:
        sql.execute("DELETE FROM rowsocket.containers WHERE name = 'alt'")
        sql.execute(f"DROP TABLE {DB}.altered")


def test_concurrent_hincrby_and_hsetnx_are_atomic(rs, r, sql):
    winners = []

    def client(n):
        with contextlib.closing(redis.Redis(host="127.0.0.1", port=rs.port,
                                            socket_timeout=30)) as c:
            with c.pipeline(transaction=False) as p:
                for _ in range(50):
                    p.hincrby("user:c", "visits", 1)
                p.hsetnx("user:c", "note", f"client {n}")
                replies = p.execute()
            if replies[-1] == 1:
                winners.append(n)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sql.rows(f"SELECT visits, note FROM {DB}.users WHERE id = 'c'") == [
        ("400", f"client {winners[0]}")] and len(winners) == 1


def test_resp3_hgetall_is_a_map(rs, clean):
    conn = redis_reference.Resp(rs.port)
    try:
        conn.command("HSET", "t:m", "a", "1", "c", "3")
        assert conn.command("HGETALL", "t:m") == b"*4\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nc\r\n$1\r\n3\r\n"
        conn.command("HELLO", "3")
        assert conn.command("HGETALL", "t:m") == b"%2\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nc\r\n$1\r\n3\r\n"
        assert conn.command("HGET", "t:m", "b") == b"_\r\n"
        assert conn.command("HMGET", "t:m", "a", "b") == b"*2\r\n$1\r\n1\r\n_\r\n"
        assert conn.command("HGETALL", "t:none") == b"%0\r\n"
        assert conn.command("HEXISTS", "t:m", "a") == b":1\r\n"
    finally:
        conn.close()


def test_multi_exec_with_hashes_and_strings_is_one_transaction(r, raw_sql):
    with r.pipeline(transaction=True) as p:
        p.hset("user:7", mapping={"name": "Ada"}).incr("counter").hincrby("user:7", "visits", 2)
        p.hgetall("user:7").get("user:7").delete("counter", "user:none")
        replies = p.execute(raise_on_error=False)
    assert replies[:4] == [1, 1, 2, {b"name": b"Ada", b"visits": b"2", b"nn": b"d",
                                     b"doubled": b"4"}]
    assert isinstance(replies[4], redis.ResponseError) and replies[5] == 1
    assert selected(raw_sql, "7")[b"visits"] == b"2"
    # A change that fails undoes the whole EXEC: the hash rows and the strings.
    r.hset("user:8", mapping={"name": "Bob", "note": "before"})
    with r.pipeline(transaction=True) as p:
        p.hset("user:8", "note", "after").hdel("user:8", "name").delete("user:8")
        p.hset("user:9", "name", "new").set("s", "1").hset("user:10", "nn", "far too long for ten")
        with pytest.raises(redis.ResponseError, match="too long"):
            p.execute()
    assert selected(raw_sql, "8") == {b"name": b"Bob", b"note": b"before", b"nn": b"d"}
    assert selected(raw_sql, "9") is None and r.get("s") is None


def test_writes_are_row_events_and_refused_under_read_only(r, sql):
    r.hset("user:11", "name", "Ada")
    r.hset("user:11", "email", "a@x")
    r.delete("user:11")
    events = [(e[2], e[5]) for e in sql.rows("SHOW BINLOG EVENTS")]
    kinds = {kind.replace("_v1", "") for kind, _ in events}
    assert {"Write_rows", "Update_rows", "Delete_rows"} <= kinds
    assert any(kind == "Table_map" and "(hashdb.users)" in info for kind, info in events), [
        e for e in events if e[0] == "Table_map"]
    r.hset("user:11", "name", "Ada")
    sql.execute("SET GLOBAL read_only = ON")
    try:
        with pytest.raises(redis.ResponseError, match="read.only|1290"):
            r.hset("user:11", "name", "Grace")
        with pytest.raises(redis.ResponseError, match="read.only|1290"):
            r.delete("user:11")
        assert r.hget("user:11", "name") == b"Ada"
    finally:
        sql.execute("SET GLOBAL read_only = OFF")


# --- side by side with redis-server ---------------------------------------------------

# On container `t` (fields a, b, c, text columns): the same commands on the same key
# names as on redis-server, whose hashes hold them as given. Fields are set in column
# order (rowsocket answers them in the table's order, Redis in insertion order).
SEQUENCES = [
    [["HSET", "t:h", "a", "1", "b", "x"], ["HGET", "t:h", "a"], ["HGET", "t:h", "c"],
     ["HMGET", "t:h", "a", "c", "b"], ["HGETALL", "t:h"], ["HLEN", "t:h"], ["HKEYS", "t:h"],
     ["HVALS", "t:h"], ["HEXISTS", "t:h", "b"], ["HEXISTS", "t:h", "c"], ["HSTRLEN", "t:h", "b"],
     ["HSTRLEN", "t:h", "c"], ["HSET", "t:h", "a", "2", "c", "3"], ["HSET", "t:h", "a"],
     ["HSET", "t:h"], ["HSETNX", "t:h", "a", "9"], ["HSETNX", "t:h", "x", "9", "y"],
     ["HGETALL", "t:h"], ["TYPE", "t:h"], ["EXISTS", "t:h"], ["TTL", "t:h"],
     ["HGETALL", "t:none"], ["HLEN", "t:none"], ["HGET", "t:none", "a"], ["HMGET", "t:none", "a"],
     ["HDEL", "t:none", "a"], ["HDEL", "t:h", "b", "b"], ["HDEL", "t:h", "b"], ["HDEL", "t:h"],
     ["HGETALL", "t:h"], ["DEL", "t:h"], ["HGETALL", "t:h"]],
    [["HINCRBY", "t:i", "a", "5"], ["HINCRBY", "t:i", "a", "-7"], ["HINCRBY", "t:i", "a", "x"],
     ["HINCRBY", "t:i", "a", "1.5"], ["HINCRBY", "t:i", "a", "9223372036854775807"],
     ["HINCRBY", "t:i", "a", "-9223372036854775808"], ["HSET", "t:i", "b", "abc"],
     ["HINCRBY", "t:i", "b", "1"], ["HSET", "t:i", "b", "9223372036854775807"],
     ["HINCRBY", "t:i", "b", "1"], ["HINCRBYFLOAT", "t:i", "c", "1.5"],
     ["HINCRBYFLOAT", "t:i", "c", "0.25"], ["HINCRBYFLOAT", "t:i", "c", "x"],
     ["HINCRBYFLOAT", "t:i", "c", "inf"], ["HINCRBYFLOAT", "t:i", "b", "1"],
     ["HSET", "t:i", "b", "abc"], ["HINCRBYFLOAT", "t:i", "b", "1"], ["HINCRBY", "t:i", "a"],
     ["HGETALL", "t:i"]],
    [["SET", "s", "v"], ["HGET", "s", "a"], ["HSET", "s", "a", "1"], ["HGETALL", "s"],
     ["HINCRBY", "s", "a", "x"], ["HINCRBY", "s", "a", "1"], ["HINCRBYFLOAT", "s", "a", "x"],
     ["HLEN", "s"], ["HDEL", "s", "a"], ["HSET", "t:w", "a", "1"], ["GET", "t:w"],
     ["INCR", "t:w"], ["APPEND", "t:w", "x"], ["MGET", "s", "t:w"], ["TYPE", "s"],
     ["TYPE", "t:w"], ["EXISTS", "s", "t:w", "t:none"], ["DEL", "s", "t:w", "t:none"],
     ["MULTI"], ["HSET", "t:m", "a", "1"], ["HGET", "t:m", "a"], ["HINCRBY", "t:m", "a", "1"],
     ["HGETALL", "t:m"], ["EXEC"], ["HGET", "t:m", "a"]],
]


@pytest.mark.skipif(not redis_reference.available(), reason="Debian's redis-server is not installed")
def test_side_by_side_with_redis_server(rs, sql):
    with redis_reference.running_redis() as reference_server:
        differ = []
        for sequence in SEQUENCES:
            sql.execute("DELETE FROM rowsocket.kv")
            sql.execute(f"DELETE FROM {DB}.texts")
            for resp in ("2", "3"):
                sql.execute(f"DELETE FROM {DB}.texts")
                sql.execute("DELETE FROM rowsocket.kv")
                ours = redis_reference.Resp(rs.port)
                theirs = redis_reference.Resp(reference_server.port)
                try:
                    theirs.command("FLUSHALL")
                    ours.command("HELLO", resp)
                    theirs.command("HELLO", resp)
                    for argv in sequence:
                        a, b = ours.command(*argv), theirs.command(*argv)
                        if a != b:
                            differ.append((resp, argv, a, b))
                finally:
                    ours.close()
                    theirs.close()
    assert differ == []
