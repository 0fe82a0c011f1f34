"""memcached's protocol on MariaDB tables (rowsocket_memcached_port): the default
container rowsocket.kv, through a real memcached client library (Debian's pymemcache)
and raw bytes, with SQL reading and writing the same rows.
"""

import base64
import subprocess
import socket
import struct
import threading
import time

import pytest
from pymemcache.client.base import Client

import harness
from memcached_support import Raw, binary_request, binary_response, wait_for_default_container
import servers
from db import Sql
import targets

pytestmark = targets.rowsocket_only


@pytest.fixture(scope="module")
def memcached_port():
    return harness.free_ports(1)[0]


@pytest.fixture(scope="module")
def server(memcached_port):
    plugin = targets.make_plugin({"memcached_port": memcached_port, "memcached_flush": "ON"})
    with servers.running_server([plugin], ["--log-bin=mc-bin", "--server-id=1",
                                           "--binlog-format=ROW"]) as srv:
        yield srv


@pytest.fixture(scope="module")
def container(sql, server):
    wait_for_default_container(sql)


@pytest.fixture
def mc(memcached_port, container, sql):
    sql.execute("DELETE FROM rowsocket.kv")
    client = Client(("127.0.0.1", memcached_port), connect_timeout=5, timeout=10,
                    default_noreply=False)
    yield client
    client.close()


@pytest.fixture
def raw(memcached_port, container, sql):
    sql.execute("DELETE FROM rowsocket.kv")
    r = Raw(memcached_port)
    yield r
    r.close()


def test_set_and_get_round_trip_and_sql_sees_the_row(mc, sql):
    assert mc.set("greeting", b"hello", expire=0)
    assert mc.get("greeting") == b"hello"
    assert sql.rows("SELECT k, v FROM rowsocket.kv") == [(b"greeting", b"hello")]


def test_sql_writes_are_seen_by_memcached(mc, sql):
    sql.execute("INSERT INTO rowsocket.kv (k, v, flags) VALUES ('from-sql', 'rows', 0)")
    assert mc.get("from-sql") == b"rows"


def test_values_of_every_byte_and_large_values_round_trip(mc):
    every = bytes(range(256)) * 4
    assert mc.set("bytes", every)
    assert mc.get("bytes") == every
    large = bytes((i * 7) % 256 for i in range(900 * 1024))
    assert mc.set("large", large)
    assert mc.get("large") == large


def test_multi_get_answers_the_hits_only(mc):
    mc.set_many({f"k{i}": str(i).encode() for i in range(16)})
    keys = [f"k{i}" for i in range(16)] + ["absent"]
    got = mc.get_many(keys)
    assert got == {f"k{i}": str(i).encode() for i in range(16)}


def test_a_get_reads_the_committed_item_without_waiting_for_row_locks(mc, server):
    """memcached never makes a get wait: a get reads the committed row even while a
    transaction holds it locked (a write of the same key waits, as SQL's would)."""
    mc.set_many({"held": b"committed", "free": b"other"})
    holder = Sql(server)
    holder.execute("BEGIN")
    holder.execute("UPDATE rowsocket.kv SET v = 'uncommitted' WHERE k = 'held'")
    try:
        # (A get that waited would run into the client's 10 s timeout, or answer the
        # lock wait timeout's error.)
        assert mc.get_many(["held", "free"]) == {"held": b"committed", "free": b"other"}
        assert mc.get("held") == b"committed"
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_add_replace_append_prepend(mc):
    assert mc.add("a", b"1", noreply=False)
    assert not mc.add("a", b"2", noreply=False)
    assert mc.replace("a", b"3", noreply=False)
    assert not mc.replace("missing", b"x", noreply=False)
    assert mc.append("a", b"tail", noreply=False)
    assert mc.prepend("a", b"head", noreply=False)
    assert mc.get("a") == b"head3tail"
    assert not mc.append("missing", b"x", noreply=False)


def test_delete_and_touch(mc):
    mc.set("d", b"v")
    assert mc.delete("d", noreply=False)
    assert not mc.delete("d", noreply=False)
    assert mc.get("d") is None
    mc.set("t", b"v")
    assert mc.touch("t", expire=100, noreply=False)
    assert not mc.touch("absent", expire=100, noreply=False)


def test_flags_are_kept(memcached_port, container, sql):
    sql.execute("DELETE FROM rowsocket.kv")
    r = Raw(memcached_port)
    try:
        r.send(b"set f 4242 0 2\r\nab\r\nget f\r\n")
        assert r.read_until(b"\r\n") == b"STORED\r\n"
        assert r.read_until(b"END\r\n") == b"VALUE f 4242 2\r\nab\r\nEND\r\n"
    finally:
        r.close()
    assert sql.value("SELECT flags FROM rowsocket.kv WHERE k = 'f'") == "4242"


def test_expired_items_are_misses(mc, sql):
    mc.set("gone", b"v", expire=1)
    sql.execute("UPDATE rowsocket.kv SET expires = UNIX_TIMESTAMP() - 10 WHERE k = 'gone'")
    assert mc.get("gone") is None
    assert mc.add("gone", b"new", noreply=False)
    assert mc.get("gone") == b"new"


def memcached_status(sql, name):
    return int(sql.rows(f"SHOW GLOBAL STATUS LIKE 'Rowsocket_{name}'")[0][1])


def test_the_sweep_deletes_expired_items_and_only_them(mc, sql):
    """rowsocket_memcached_sweep_rate: expired rows are deleted in the background (as
    binlogged row deletes), live ones stay; at 0 nothing is swept."""
    sql.execute("SET GLOBAL rowsocket_memcached_sweep_rate = 0")
    try:
        mc.set_many({f"live{i}": b"v" for i in range(50)}, expire=0)
        mc.set_many({f"later{i}": b"v" for i in range(50)}, expire=3600)
        sql.execute("INSERT INTO rowsocket.kv (k, v, expires) SELECT CONCAT('dead', seq), 'v', "
                    "UNIX_TIMESTAMP() - 5 FROM test.seq_1_to_300")
        swept_before = memcached_status(sql, "memcached_items_expired")
        time.sleep(1)   # a sweep that ran would have had ten steps by now
        assert sql.value("SELECT COUNT(*) FROM rowsocket.kv WHERE k LIKE 'dead%'") == "300"
        assert memcached_status(sql, "memcached_items_expired") == swept_before
        binlog_before = sql.rows("SHOW MASTER STATUS")[0]
        sql.execute("SET GLOBAL rowsocket_memcached_sweep_rate = 1000")
        deadline = time.monotonic() + 30
        while (sql.value("SELECT COUNT(*) FROM rowsocket.kv WHERE k LIKE 'dead%'") != "0"
               and time.monotonic() < deadline):
            time.sleep(0.1)
        assert sql.value("SELECT COUNT(*) FROM rowsocket.kv WHERE k LIKE 'dead%'") == "0"
        assert sql.value("SELECT COUNT(*) FROM rowsocket.kv") == "100"
        assert memcached_status(sql, "memcached_items_expired") - swept_before == 300
        events = sql.rows(f"SHOW BINLOG EVENTS IN '{binlog_before[0]}' FROM {binlog_before[1]}")
        assert any(e[2] == "Delete_rows_v1" for e in events), events
    finally:
        sql.execute("SET GLOBAL rowsocket_memcached_sweep_rate = DEFAULT")



def test_the_sweep_keeps_within_max_rows_examined(mc, sql):
    """A sweep step is one find: under a rowsocket_max_rows_examined smaller than the
    step (the rate's tenth), the step shrinks to fit and expired rows still go."""
    sql.execute("INSERT INTO rowsocket.kv (k, v, expires) SELECT CONCAT('gone', seq), 'v', "
                "UNIX_TIMESTAMP() - 5 FROM test.seq_1_to_200")
    sql.execute("SET GLOBAL rowsocket_max_rows_examined = 20")
    sql.execute("SET GLOBAL rowsocket_memcached_sweep_rate = 10000")
    try:
        deadline = time.monotonic() + 30
        while (sql.value("SELECT COUNT(*) FROM rowsocket.kv WHERE k LIKE 'gone%'") != "0"
               and time.monotonic() < deadline):
            time.sleep(0.1)
        assert sql.value("SELECT COUNT(*) FROM rowsocket.kv WHERE k LIKE 'gone%'") == "0"
    finally:
        sql.execute("SET GLOBAL rowsocket_max_rows_examined = DEFAULT")
        sql.execute("SET GLOBAL rowsocket_memcached_sweep_rate = DEFAULT")

def test_gets_and_cas(mc, sql):
    mc.set("c", b"1")
    value, cas = mc.gets("c")
    assert value == b"1"
    assert mc.cas("c", b"2", cas, noreply=False)
    assert mc.cas("c", b"3", cas, noreply=False) is False  # EXISTS: the CAS moved on
    assert mc.get("c") == b"2"
    assert mc.cas("absent", b"x", 1, noreply=False) is None  # NOT_FOUND
    assert sql.value("SELECT cas FROM rowsocket.kv WHERE k = 'c'") != str(cas)


def test_incr_decr_follow_memcached_rules(mc):
    mc.set("n", b"10")
    assert mc.incr("n", 5) == 15
    assert mc.decr("n", 100) == 0
    mc.set("big", b"18446744073709551615")
    assert mc.incr("big", 2) == 1
    assert mc.incr("absent", 1) is None
    mc.set("text", b"abc")
    with pytest.raises(Exception, match="non-numeric"):
        mc.incr("text", 1)


def test_concurrent_incr_loses_no_update(memcached_port, mc):
    mc.set("counter", b"0")
    per_thread, threads = 100, 4

    def bump():
        c = Client(("127.0.0.1", memcached_port), timeout=30)
        for _ in range(per_thread):
            c.incr("counter", 1)
        c.close()

    workers = [threading.Thread(target=bump) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert mc.get("counter") == str(per_thread * threads).encode()


def test_cas_races_let_one_writer_win(memcached_port, mc):
    mc.set("race", b"0")
    wins = []

    def attempt(n):
        c = Client(("127.0.0.1", memcached_port), timeout=30)
        for _ in range(50):
            value, cas = c.gets("race")
            if c.cas("race", str(int(value) + 1).encode(), cas, noreply=False):
                wins.append(n)
        c.close()

    workers = [threading.Thread(target=attempt, args=(n,)) for n in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert mc.get("race") == str(len(wins)).encode()


def test_noreply_and_pipelining(raw):
    raw.send(b"set a 0 0 1 noreply\r\nx\r\nset b 0 0 1 noreply\r\ny\r\nget a b\r\n")
    assert raw.read_until(b"END\r\n") == b"VALUE a 0 1\r\nx\r\nVALUE b 0 1\r\ny\r\nEND\r\n"


def test_errors_and_admin_commands(raw):
    raw.send(b"bogus\r\n")
    assert raw.read_until(b"\r\n") == b"ERROR\r\n"
    raw.send(b"set k 0 0 x\r\n")
    assert raw.read_until(b"\r\n") == b"CLIENT_ERROR bad command line format\r\n"
    raw.send(b"version\r\n")
    assert raw.read_until(b"\r\n").startswith(b"VERSION ")
    raw.send(b"verbosity 1\r\n")
    assert raw.read_until(b"\r\n") == b"OK\r\n"
    raw.send(b"stats\r\n")
    assert b"STAT pid " in raw.read_until(b"END\r\n")
    raw.send(b"get k\r\n")  # the connection still works
    assert raw.read_until(b"END\r\n") == b"END\r\n"


def test_flush_all_when_allowed_empties_the_container_and_says_so(mc, sql, server):
    mc.set("x", b"1")
    assert mc.flush_all(noreply=False)
    assert sql.value("SELECT COUNT(*) FROM rowsocket.kv") == "0"
    assert "memcached flush_all deleted" in server.error_log()


def test_meta_commands(raw):
    raw.send(b"ms mk 2 T0 F5\r\nhi\r\n")
    assert raw.read_until(b"\r\n") == b"HD\r\n"
    raw.send(b"mg mk v f\r\n")
    assert raw.read_until(b"hi\r\n") == b"VA 2 f5\r\nhi\r\n"
    raw.send(b"mg absent v\r\nmn\r\n")
    assert raw.read_until(b"MN\r\n") == b"EN\r\nMN\r\n"
    raw.send(b"md mk\r\nmd mk\r\n")
    assert raw.read_until(b"\r\n") == b"HD\r\n"
    assert raw.read_until(b"\r\n") == b"NF\r\n"


def test_base64_keys_and_meta_debug(raw, sql):
    """`b`: a meta key in base64 stands for any bytes (the row's key column holds them);
    `k` echoes it in base64 with `b`. `me` tells an item's expiry, CAS and size."""
    key = bytes([0, 1, 0x7e, 0xff, 0x20])
    b64 = base64.b64encode(key)
    raw.send(b"ms " + b64 + b" 2 b T0 F3\r\nhi\r\n")
    assert raw.read_until(b"\r\n") == b"HD\r\n"
    assert sql.rows("SELECT v FROM rowsocket.kv WHERE k = %s", (key,)) == [(b"hi",)]
    raw.send(b"mg " + b64 + b" b k v f\r\n")
    assert raw.read_until(b"hi\r\n") == b"VA 2 k" + b64 + b" b f3\r\nhi\r\n"
    cas = sql.value("SELECT cas FROM rowsocket.kv WHERE k = %s", (key,))
    raw.send(b"me " + b64 + b" b\r\n")
    assert raw.read_until(b"\r\n") == (b"ME " + b64 + b" exp=-1 la=0 cas=" + cas.encode() +
                                         b" fetch=no cls=1 size=7\r\n")
    raw.send(b"me absent\r\nmg !!!! b v\r\n")
    assert raw.read_until(b"\r\n") == b"EN\r\n"
    assert raw.read_until(b"\r\n") == b"CLIENT_ERROR error decoding key\r\n"


def test_binary_protocol_set_get_delete(raw):
    raw.send(binary_request(0x01, b"bk", b"bv", struct.pack(">II", 7, 0), opaque=11))
    stored = binary_response(raw)
    assert (stored["status"], stored["opaque"]) == (0, 11) and stored["cas"] != 0
    raw.send(binary_request(0x00, b"bk", opaque=12))
    got = binary_response(raw)
    assert got["status"] == 0 and got["value"] == b"bv"
    assert struct.unpack(">I", got["extras"])[0] == 7 and got["cas"] == stored["cas"]
    raw.send(binary_request(0x04, b"bk"))
    assert binary_response(raw)["status"] == 0
    raw.send(binary_request(0x00, b"bk"))
    assert binary_response(raw)["status"] == 1


def test_writes_through_memcached_are_in_the_binlog_as_rows(mc, sql):
    log = sql.rows("SHOW MASTER STATUS")[0][0]
    mc.set("logged", b"v")
    mc.set("logged", b"w")
    mc.delete("logged")
    kinds = [row[2] for row in
             sql.rows(f"SHOW BINLOG EVENTS IN '{log}'")]
    for kind in ("Write_rows_v1", "Update_rows_v1", "Delete_rows_v1"):
        assert kind in kinds, kinds


@pytest.mark.parametrize("protocol", ["-a", "-b"], ids=["text", "binary"])
def test_memcapable_passes(memcached_port, container, protocol):
    """libmemcached's conformance suite (Debian's libmemcached-tools names it
    memccapable), every test of the text or binary protocol."""
    result = subprocess.run(["memccapable", "-h", "127.0.0.1", "-p", str(memcached_port),
                             "-t", "10", protocol], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "[FAIL]" not in result.stdout, result.stdout


@pytest.fixture
def users(sql, container, memcached_port):
    sql.execute("DROP TABLE IF EXISTS test.mc_users")
    sql.execute("CREATE TABLE test.mc_users (id INT AUTO_INCREMENT PRIMARY KEY, "
                "email VARCHAR(100) NOT NULL UNIQUE, name VARCHAR(50), city VARCHAR(50)) "
                "ENGINE=InnoDB")
    sql.execute("INSERT INTO test.mc_users (email, name, city) VALUES ('ann@x', 'Ann', 'Paris')")
    sql.execute("REPLACE INTO rowsocket.containers (name, db_schema, db_table, key_column, "
                "value_columns, value_separator) "
                "VALUES ('users', 'test', 'mc_users', 'email', 'name,city', '|')")
    # Mapping changes reach the listener's workers within a second.
    probe = Raw(memcached_port)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        probe.send(b"get @@users.ann@x\r\n")
        answer = probe.read_until(b"\r\n")
        if answer.startswith(b"VALUE"):
            answer += probe.read_until(b"END\r\n")
        if answer == b"VALUE @@users.ann@x 0 9\r\nAnn|Paris\r\nEND\r\n":
            break
        time.sleep(0.05)
    probe.close()
    yield
    sql.execute("DELETE FROM rowsocket.containers WHERE name = 'users'")


def test_a_container_maps_keys_onto_any_table(mc, sql, users):
    assert mc.get("@@users.ann@x") == b"Ann|Paris"
    assert mc.set("@@users.bob@y", b"Bob|Rome")
    assert sql.rows("SELECT name, city FROM test.mc_users WHERE email = 'bob@y'") == \
        [("Bob", "Rome")]
    sql.execute("UPDATE test.mc_users SET city = 'Lyon' WHERE email = 'ann@x'")
    assert mc.get("@@users.ann@x") == b"Ann|Lyon"
    with pytest.raises(Exception, match="fields separated by"):
        mc.set("@@users.cat@z", b"no separator")
    assert mc.get_many(["@@users.ann@x", "@@users.bob@y"]) == \
        {"@@users.ann@x": b"Ann|Lyon", "@@users.bob@y": b"Bob|Rome"}


def test_a_container_without_a_cas_column_derives_the_cas_from_the_row(mc, sql, users):
    value, cas = mc.gets("@@users.ann@x")
    sql.execute("UPDATE test.mc_users SET city = 'Nice' WHERE email = 'ann@x'")
    assert mc.cas("@@users.ann@x", b"Ann|Oslo", cas) is False  # SQL moved it on
    value, cas = mc.gets("@@users.ann@x")
    assert value == b"Ann|Nice"
    assert mc.cas("@@users.ann@x", b"Ann|Oslo", cas)
    assert mc.get("@@users.ann@x") == b"Ann|Oslo"


def test_unknown_containers_and_mixed_keys_are_client_errors(raw, users):
    raw.send(b"get @@nothing.k\r\n")
    assert raw.read_until(b"\r\n") == b"CLIENT_ERROR no container named 'nothing'\r\n"
    raw.send(b"get @@users.ann@x plain\r\n")
    assert raw.read_until(b"\r\n").startswith(b"CLIENT_ERROR the keys of one request")


def test_mapping_changes_take_effect_without_a_restart(mc, sql, users):
    assert mc.get("@@users.ann@x") == b"Ann|Paris"
    sql.execute("UPDATE rowsocket.containers SET value_columns = 'city', value_separator = '' "
                "WHERE name = 'users'")
    deadline = time.monotonic() + 30  # read again once a second; a busy machine is slower
    while mc.get("@@users.ann@x") != b"Paris" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert mc.get("@@users.ann@x") == b"Paris"


def test_once_a_mapping_change_is_seen_no_worker_answers_the_old_mapping(memcached_port,
                                                                        sql, users):
    """Clients on several connections (served by any of the listener's workers) get
    without pause while the mapping changes: once any of them got the new mapping's
    value, every get sent later gets it too."""
    stop = threading.Event()
    answers = []  # (sent, received, value) of every get, by every client
    lock = threading.Lock()

    def get_without_pause():
        client = Client(("127.0.0.1", memcached_port), connect_timeout=5, timeout=10)
        try:
            while not stop.is_set():
                sent = time.monotonic()
                value = client.get("@@users.ann@x")
                with lock:
                    answers.append((sent, time.monotonic(), value))
        finally:
            client.close()

    clients = [threading.Thread(target=get_without_pause) for _ in range(4)]
    for c in clients:
        c.start()
    try:
        time.sleep(0.5)  # every worker has read the mapping
        sql.execute("UPDATE rowsocket.containers SET value_columns = 'city', "
                    "value_separator = '' WHERE name = 'users'")
        deadline = time.monotonic() + 30  # read again once a second; a busy machine is slower
        while time.monotonic() < deadline:
            with lock:
                seen = [received for _, received, value in answers if value == b"Paris"]
            if seen and time.monotonic() > min(seen) + 2:
                break
            time.sleep(0.1)
    finally:
        stop.set()
        for c in clients:
            c.join()
    new = [received for _, received, value in answers if value == b"Paris"]
    assert new, "the mapping change never took effect"
    first_new = min(new)
    later = [value for sent, _, value in answers if sent > first_new]
    assert len(later) > 10
    assert set(later) == {b"Paris"}, (later.count(b"Ann|Paris"), len(later))


def test_containers_on_system_schemas_are_refused(raw, sql, users):
    sql.execute("REPLACE INTO rowsocket.containers (name, db_schema, db_table, key_column, "
                "value_columns) VALUES ('sys', 'mysql', 'db', 'Host', 'Db')")
    try:
        raw.send(b"get @@sys.localhost\r\n")
        assert raw.read_until(b"\r\n").startswith(b"SERVER_ERROR")
    finally:
        sql.execute("DELETE FROM rowsocket.containers WHERE name = 'sys'")


def test_unfinished_values_are_held_within_the_listeners_input_budget(memcached_port, mc,
                                                                       sql):
    """Clients that announce 1 MB values and send part of them hold no more than
    rowsocket_max_input_memory: past it, connections with more than one read of an
    unfinished command are closed (counted), and other clients are served."""
    before = int(sql.rows("SHOW GLOBAL STATUS LIKE 'Rowsocket_connections_input_limited'")[0][1])
    sql.execute("SET GLOBAL rowsocket_max_input_memory = 1048576")
    socks = []
    try:
        for n in range(16):
            s = socket.create_connection(("127.0.0.1", memcached_port), timeout=10)
            s.sendall(b"set big%d 0 0 1000000\r\n" % n + b"x" * 200000)
            socks.append(s)
        deadline = time.monotonic() + 10
        limited = before
        while limited == before and time.monotonic() < deadline:
            time.sleep(0.1)
            limited = int(sql.rows(
                "SHOW GLOBAL STATUS LIKE 'Rowsocket_connections_input_limited'")[0][1])
        assert limited > before
        assert mc.set("still", b"served")
        assert mc.get("still") == b"served"
    finally:
        sql.execute("SET GLOBAL rowsocket_max_input_memory = DEFAULT")
        for s in socks:
            s.close()


def test_kill_9_during_writes_loses_nothing_answered_stored(memcached_port, container, server,
                                                             sql):
    """Writers set keys until mariadbd is killed with SIGKILL; after crash recovery
    every key answered STORED holds the value it was stored with."""
    sql.execute("DELETE FROM rowsocket.kv")
    stored = {}
    done = threading.Event()

    def write(n):
        c = Client(("127.0.0.1", memcached_port), timeout=10, connect_timeout=5)
        i = 0
        try:
            while not done.is_set():
                key, value = f"w{n}-{i}", f"value-{n}-{i}".encode()
                if c.set(key, value, noreply=False):
                    stored[key] = value
                i += 1
        except Exception:
            pass  # the server went away

    writers = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for w in writers:
        w.start()
    deadline = time.monotonic() + 30
    while len(stored) < 500 and time.monotonic() < deadline:
        time.sleep(0.01)
    server.kill()
    done.set()
    for w in writers:
        w.join()
    assert len(stored) >= 500, "too few writes answered before the kill"
    server.restart()
    after = Sql(server)
    try:
        rows = dict(after.rows("SELECT k, v FROM rowsocket.kv"))
    finally:
        after.close()
    missing = [k for k, v in stored.items() if rows.get(k.encode()) != v]
    assert not missing, f"{len(missing)} of {len(stored)} answered writes lost: {missing[:5]}"
