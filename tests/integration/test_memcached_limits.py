"""The memcached listener within its bounds: one request's answer keeps within
rowsocket_max_answer_size however often a multi-get names a key, a client that does
not read stops being served, the names clients give containers are remembered within
a bound (every spelling of one container is that container, once), flush_all with a
delay flushes when the delay ends, and what flush_all logs is rate-limited.

Memory is counted where the plugin counts it (the container caches' status
variables) and else read from the server's resident set (VmRSS).
"""

import struct
import time

import pytest

import harness
from memcached_support import Raw, binary_request, binary_response
from targets import rowsocket_only

pytestmark = rowsocket_only

MIB = 1 << 20
MAX_ANSWER_SIZE = 4 * MIB
MAX_OUTPUT_BUFFER = 1 * MIB
WORKERS = 2
BIG = bytes((i * 7) % 251 for i in range(1_000_000))
# What the server allocates besides the answers the bounds are about (allocator
# arenas of the threads at work, socket buffers): far below what the attack below
# grows memory by without its bound (360 MB).
ALLOWANCE = 32 * MIB
# memcached's own answer when a get's answer cannot be built.
TOO_LARGE = b"SERVER_ERROR out of memory writing get response\r\n"


@pytest.fixture(scope="module")
def memcached_port():
    return harness.free_ports(1)[0]


@pytest.fixture(scope="module")
def server_options(memcached_port):
    return {"memcached_port": memcached_port, "memcached_flush": "ON",
            "memcached_threads": WORKERS, "max_answer_size": MAX_ANSWER_SIZE,
            "max_output_buffer": MAX_OUTPUT_BUFFER}


@pytest.fixture(scope="module")
def container(sql):
    deadline = time.monotonic() + 20
    while sql.value("SELECT COUNT(*) FROM information_schema.TABLES WHERE "
                    "TABLE_SCHEMA = 'rowsocket' AND TABLE_NAME = 'kv'") != "1":
        assert time.monotonic() < deadline, "the default container was not made"
        time.sleep(0.1)


@pytest.fixture
def raw(memcached_port, container, sql):
    sql.execute("DELETE FROM rowsocket.kv")
    r = Raw(memcached_port)
    yield r
    r.close()


def status(sql, name):
    return int(sql.rows(f"SHOW GLOBAL STATUS LIKE 'Rowsocket_{name}'")[0][1])


def rss(server):
    with open(f"/proc/{server.proc.pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def store(raw, key, value):
    raw.send(b"set %s 0 0 %d\r\n%s\r\n" % (key, len(value), value))
    assert raw.read_until(b"\r\n") == b"STORED\r\n"


def get(raw, key):
    """The value of `key`, or None."""
    raw.send(b"get %s\r\n" % key)
    line = raw.read_until(b"\r\n")
    if line == b"END\r\n":
        return None
    size = int(line.split()[3])
    value = raw.read_exactly(size + 2)[:-2]
    assert raw.read_until(b"\r\n") == b"END\r\n"
    return value


# -- one request's answer --------------------------------------------------------

def test_a_multi_get_naming_one_key_many_times_keeps_within_the_answer_size(raw):
    store(raw, b"big", BIG)
    store(raw, b"small", b"s")
    # Three copies fit rowsocket_max_answer_size: each is answered, as memcached does.
    raw.send(b"get big big big\r\n")
    for _ in range(3):
        assert raw.read_until(b"\r\n") == b"VALUE big 0 %d\r\n" % len(BIG)
        assert raw.read_exactly(len(BIG) + 2) == BIG + b"\r\n"
    assert raw.read_until(b"\r\n") == b"END\r\n"
    # Forty would pass it: memcached's answer for a get it cannot build, alone.
    raw.send(b"get " + b" ".join([b"big"] * 40) + b"\r\n")
    assert raw.read_until(b"\r\n") == TOO_LARGE
    raw.send(b"gets small " + b" ".join([b"big"] * 40) + b"\r\n")
    assert raw.read_until(b"\r\n") == TOO_LARGE
    assert get(raw, b"small") == b"s"  # the connection goes on


def test_clients_that_do_not_read_repeated_key_gets_cannot_grow_the_server(
        raw, sql, server, memcached_port):
    store(raw, b"big", BIG)
    store(raw, b"small", b"s")
    before_rss = rss(server)
    before_deferred = status(sql, "requests_deferred")
    # Each sends a get naming the item 120 times (120 MB of copies), then gets of
    # three copies (3 MB each) that it never reads.
    hogs = [Raw(memcached_port) for _ in range(3)]
    try:
        for h in hogs:
            h.sock.setblocking(True)
            h.send(b"get " + b" ".join([b"big"] * 120) + b"\r\n" +
                   b"get big big big\r\n" * 20)
        # Their later requests wait for them to read (rowsocket_max_output_buffer)...
        deadline = time.monotonic() + 60
        while status(sql, "requests_deferred") < before_deferred + len(hogs):
            assert time.monotonic() < deadline, "the server kept answering clients that do not read"
            time.sleep(0.1)
        # ...while everyone else is served,
        assert get(raw, b"small") == b"s"
        # and what was built for them is bounded: per client, the output buffer plus
        # one answer (its buffer may reserve twice that).
        grown = rss(server) - before_rss
        bound = len(hogs) * 2 * (MAX_OUTPUT_BUFFER + MAX_ANSWER_SIZE) + ALLOWANCE
        assert grown < bound, f"mariadbd grew by {grown >> 20} MiB (bound {bound >> 20} MiB)"
        # The first answer each one reads is memcached's refusal of the 120 copies.
        assert hogs[0].read_until(b"\r\n") == TOO_LARGE
    finally:
        for h in hogs:
            h.close()


# -- container names ---------------------------------------------------------------

def spellings(name, n):
    """n distinct case spellings of `name` (letters only), the stored one excluded."""
    out = []
    for bits in range(1, 2 ** len(name)):
        out.append("".join(c.upper() if bits >> i & 1 else c for i, c in enumerate(name)))
        if len(out) == n:
            return out
    raise AssertionError("name too short")


@pytest.fixture
def items(sql, container, memcached_port):
    sql.execute("DROP TABLE IF EXISTS test.mc_items")
    sql.execute("CREATE TABLE test.mc_items (k VARBINARY(64) PRIMARY KEY, v BLOB NOT NULL, "
                "cas BIGINT UNSIGNED NOT NULL DEFAULT 0, flags INT UNSIGNED NOT NULL DEFAULT 0, "
                "expires INT UNSIGNED NOT NULL DEFAULT 0) ENGINE=InnoDB")
    sql.execute("INSERT INTO test.mc_items (k, v) VALUES ('a', 'one')")
    sql.execute("REPLACE INTO rowsocket.containers (name, db_schema, db_table, key_column, "
                "value_columns, cas_column, flags_column, expires_column) VALUES "
                "('itemcontainer', 'test', 'mc_items', 'k', 'v', 'cas', 'flags', 'expires')")
    yield "itemcontainer"
    sql.execute("DELETE FROM rowsocket.containers WHERE name = 'itemcontainer'")
    sql.execute("DROP TABLE test.mc_items")


def pipelined(raw, requests, answer_end):
    """Sends the requests in pieces and returns their answers, each up to answer_end."""
    answers = []
    for start in range(0, len(requests), 200):
        chunk = requests[start:start + 200]
        raw.send(b"".join(chunk))
        answers += [raw.read_until(answer_end) for _ in chunk]
    return answers


def test_unknown_container_names_are_remembered_within_a_bound(raw, sql, server):
    names = [b"nosuch%d" % i for i in range(3000)]
    answers = pipelined(raw, [b"get @@%s.k\r\n" % n for n in names], b"\r\n")
    assert answers == [b"CLIENT_ERROR no container named '%s'\r\n" % n for n in names]
    # 150,000 more (about 50 MB where each one is kept).
    before = rss(server)
    for start in range(0, 150_000, 1000):
        raw.send(b"".join(b"get @@n%06d.k\r\n" % i for i in range(start, start + 1000)))
        for _ in range(1000):
            assert raw.read_until(b"\r\n").startswith(b"CLIENT_ERROR no container named")
    grown = rss(server) - before
    assert grown < 16 * MIB, f"mariadbd grew by {grown >> 20} MiB"
    raw.close()
    # Per worker: 256 names at most, and one mapping (the default container's).
    assert status(sql, "memcached_names_cached") <= 256 * WORKERS
    assert status(sql, "memcached_containers_cached") <= WORKERS


def test_every_spelling_of_one_container_is_that_container_once(raw, sql, items,
                                                                memcached_port):
    variants = [v.encode() for v in spellings(items, 1500)]
    # (The mapping reaches the workers within a second.)
    deadline = time.monotonic() + 10
    while get(raw, b"@@itemcontainer.a") != b"one":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    answers = pipelined(raw, [b"get @@%s.a\r\n" % v for v in variants], b"END\r\n")
    assert answers == [b"VALUE @@%s.a 0 3\r\none\r\nEND\r\n" % v for v in variants]
    # Trailing spaces too (the mapping's collation pads): a binary key may hold them
    # (on a connection of its own: a connection's first byte chooses its protocol).
    binary = Raw(memcached_port)
    binary.send(binary_request(0x0C, key=b"@@itemcontainer   .a"))
    assert binary_response(binary)["value"] == b"one"
    binary.close()
    store(raw, b"@@ITEMcontainer.b", b"two")
    assert sql.rows("SELECT k, v FROM test.mc_items ORDER BY k") == \
        [(b"a", b"one"), (b"b", b"two")]
    # One mapping per container and worker (the default one and this one), whatever
    # the spellings; the spellings themselves within the bound; and one binding per
    # container on the connection.
    assert status(sql, "memcached_containers_cached") <= 2 * WORKERS
    assert status(sql, "memcached_names_cached") <= 256 * WORKERS
    peer = "%s:%d" % raw.sock.getsockname()
    assert sql.rows("SELECT OPEN_INDEXES FROM information_schema.ROWSOCKET_CONNECTIONS "
                    "WHERE PEER = %s", (peer,)) == [("1",)]


# -- flush_all ---------------------------------------------------------------------

def rows_in_kv(sql):
    return int(sql.value("SELECT COUNT(*) FROM rowsocket.kv"))


def wait_for_rows(sql, expected, seconds=30):
    deadline = time.monotonic() + seconds
    while rows_in_kv(sql) != expected:
        assert time.monotonic() < deadline, f"rowsocket.kv kept {rows_in_kv(sql)} rows"
        time.sleep(0.1)


def sleep_until(when):
    time.sleep(max(0.0, when - time.time()))


def wait_for_miss(raw, key, when, seconds=20):
    """From `when` on, waits until `key` is a miss."""
    sleep_until(when)
    deadline = time.monotonic() + seconds
    while get(raw, key) is not None:
        assert time.monotonic() < deadline, f"{key} was not flushed"
        time.sleep(0.1)


def test_flush_all_with_a_delay_flushes_every_item_when_the_delay_ends(raw, sql):
    store(raw, b"a", b"1")
    # Rows SQL wrote (without a CAS of the listener's), more than one step deletes.
    sql.execute("INSERT INTO rowsocket.kv (k, v) SELECT CONCAT('r', LPAD(seq, 4, '0')), 'x' "
                "FROM test.seq_0_to_2499")
    start = time.time()
    raw.send(b"flush_all 3\r\n")
    assert raw.read_until(b"\r\n") == b"OK\r\n"
    store(raw, b"meanwhile", b"2")  # set before the delay ends: flushed too
    # The flush takes effect 3 s after the second the command arrived in: not
    # before start + 2 s, and by start + 4 s.
    if time.time() < start + 2:
        assert get(raw, b"a") == b"1"
        assert get(raw, b"meanwhile") == b"2"
    wait_for_miss(raw, b"a", start + 4.1)
    assert get(raw, b"meanwhile") is None
    assert get(raw, b"r1500") is None
    store(raw, b"after", b"3")  # set after it: kept
    store(raw, b"r1500z", b"4")  # (among the rows still to delete)
    assert get(raw, b"after") == b"3"
    # The flushed rows are deleted in the background.
    wait_for_rows(sql, 2)
    assert sql.rows("SELECT k FROM rowsocket.kv ORDER BY k") == [(b"after",), (b"r1500z",)]
    assert get(raw, b"r1500z") == b"4"


def test_a_new_flush_all_replaces_a_pending_one(raw, sql):
    store(raw, b"a", b"1")
    start = time.time()
    raw.send(b"flush_all 2\r\nflush_all 1000\r\n")
    assert raw.read_until(b"\r\n") + raw.read_until(b"\r\n") == b"OK\r\nOK\r\n"
    sleep_until(start + 3.1)
    assert get(raw, b"a") == b"1"
    # Without a delay: at once, and the pending one is dropped.
    raw.send(b"flush_all\r\n")
    assert raw.read_until(b"\r\n") == b"OK\r\n"
    assert get(raw, b"a") is None
    assert rows_in_kv(sql) == 0
    raw.send(b"flush_all 0\r\n")
    assert raw.read_until(b"\r\n") == b"OK\r\n"


def test_binary_flush_with_an_expiry_flushes_when_it_ends(raw, sql, memcached_port):
    # (The binary connection is a new one: a connection speaks one protocol.)
    store(raw, b"a", b"1")
    binary = Raw(memcached_port)
    try:
        start = time.time()
        binary.send(binary_request(0x08, extras=struct.pack(">I", 3)))
        assert binary_response(binary)["status"] == 0
        if time.time() < start + 2:
            assert get(raw, b"a") == b"1"
        wait_for_miss(raw, b"a", start + 4.1)
        wait_for_rows(sql, 0)
    finally:
        binary.close()


def test_flush_all_logs_a_line_a_second_at_most(raw, server):
    def flush_lines():
        return server.error_log().count("memcached flush_all")
    before = flush_lines()
    start = time.monotonic()
    for _ in range(10):
        raw.send(b"flush_all\r\n" * 50)
        for _ in range(50):
            assert raw.read_until(b"\r\n") == b"OK\r\n"
    elapsed = time.monotonic() - start
    assert flush_lines() - before <= elapsed + 2


@pytest.fixture
def default_without_cas(sql, container, memcached_port):
    """The default container on a table without a CAS column, for one test."""
    sql.execute("DROP TABLE IF EXISTS test.nocas")
    sql.execute("CREATE TABLE test.nocas (k VARBINARY(64) PRIMARY KEY, v BLOB NOT NULL) "
                "ENGINE=InnoDB")
    sql.execute("REPLACE INTO rowsocket.containers (name, db_schema, db_table, key_column, "
                "value_columns) VALUES ('default', 'test', 'nocas', 'k', 'v')")
    time.sleep(1.2)  # every worker reads the mapping again within a second
    r = Raw(memcached_port)
    yield r
    r.close()
    sql.execute("DELETE FROM rowsocket.containers WHERE name = 'default'")
    time.sleep(1.2)
    sql.execute("DROP TABLE test.nocas")


def test_a_delayed_flush_of_a_container_without_cas_flushes_every_row(default_without_cas,
                                                                      sql):
    r = default_without_cas
    store(r, b"a", b"1")
    assert sql.rows("SELECT k FROM test.nocas") == [(b"a",)]
    start = time.time()
    r.send(b"flush_all 2\r\n")
    assert r.read_until(b"\r\n") == b"OK\r\n"
    if time.time() < start + 1:
        assert get(r, b"a") == b"1"
    wait_for_miss(r, b"a", start + 3.1)
    deadline = time.monotonic() + 30
    while sql.value("SELECT COUNT(*) FROM test.nocas") != "0":
        assert time.monotonic() < deadline, "the flushed rows were not deleted"
        time.sleep(0.1)
    # Once they are, the flush is over: what is set is kept.
    deadline = time.monotonic() + 10
    while True:
        store(r, b"after", b"2")
        if get(r, b"after") == b"2":
            break
        assert time.monotonic() < deadline, "the flush did not end"
        time.sleep(0.1)
