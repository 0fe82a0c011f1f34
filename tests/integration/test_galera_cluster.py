"""rowsocket's writes on a three-node Galera cluster are cluster transactions.

A write answered `0 1` has been certified and committed in the cluster's order: a
causal read (wsrep_sync_wait) on any node sees it, and rowsocket on that node then
reads it too. Two clients writing the same rows on two nodes meet certification
conflicts; each conflict rolls a batch back, which runs again or answers `1 1 149`,
so every success answer is in the final state of every node and every error answer
is not. The memcached and Redis listeners' writes (a MULTI/EXEC, hashes on rows) are
cluster transactions as well. A node killed with SIGKILL during writes rejoins and holds every answered
write; an isolated node (not in the primary component) refuses writes `1 1 1047`.
Under wsrep_sync_wait, rowsocket's finds are causal reads too.

The cluster (galera_support.py) is seeded without state transfer; it needs Debian's
galera-4 and takes about a minute on two cores.
"""

import os
import random
import threading
import time

import pytest

import hs
import servers
import targets
from db import Sql
from galera_support import PROVIDER, GaleraCluster
from harness import free_ports
from memcached_support import Raw
from redis_reference import Resp

pytestmark = targets.rowsocket_only


@pytest.fixture(scope="module")
def cluster():
    if not os.path.exists(PROVIDER):
        pytest.skip(f"no Galera provider at {PROVIDER} (Debian's galera-4)")

    def plugins():
        memcached, redis = free_ports(2)
        return [targets.make_plugin({"memcached_port": memcached, "redis_port": redis})]

    c = GaleraCluster(3, plugins)
    try:
        c.start(seed=servers.seed)
        for node in c.nodes:
            servers.RUNNING.append(node.server)
        yield c
    finally:
        for node in c.nodes:
            if node.server in servers.RUNNING:
                servers.RUNNING.remove(node.server)
        c.stop()


@pytest.fixture(scope="module")
def sqls(cluster):
    """A causal SQL session per node: each read waits until the node has applied
    everything committed in the cluster before it."""
    conns = [Sql(node.server) for node in cluster.nodes]
    for conn in conns:
        conn.execute("SET SESSION wsrep_sync_wait = 1")
    yield conns
    for conn in conns:
        try:
            conn.close()
        except Exception:    # a session of a node killed meanwhile
            pass


def memcached_port(node):
    return int(node.plugin.options["memcached_port"])


def redis_port(node):
    return int(node.plugin.options["redis_port"])


def table_rows(conn, table, columns="k, v"):
    return conn.rows(f"SELECT {columns} FROM test.{table} ORDER BY k")


def rowsocket_rows(node, table, columns, first_key=0, limit=1000):
    with hs.Connection(node.plugin.port) as r:
        r.open_index(0, table, columns)
        answer = r.request(hs.find(0, ">=", [first_key], limit))
    assert answer[0] == "0", answer
    width = int(answer[1])
    values = answer[2:]
    return [tuple(values[i:i + width]) for i in range(0, len(values), width)]


def assert_everywhere(cluster, sqls, table, expected):
    for node, conn in zip(cluster.nodes, sqls):
        assert table_rows(conn, table) == expected, node.name
        assert rowsocket_rows(node, table, ["k", "v"]) == expected, node.name


def test_writes_on_node1_are_seen_on_every_node(cluster, sqls):
    sqls[0].create_table("kv", "k INT PRIMARY KEY, v VARCHAR(20)")
    with hs.Connection(cluster.nodes[0].plugin.port_wr) as w:
        w.open_index(0, "kv", ["k", "v"])
        for k, v in [(1, "one"), (2, "two"), (3, "three")]:
            assert w.request([0, "+", 2, k, v]) == ["0", "1"]
        assert_everywhere(cluster, sqls, "kv", [("1", "one"), ("2", "two"), ("3", "three")])
        assert w.request(hs.find(0, "=", [1], 1, 0, ["U", 1, "uno"])) == ["0", "1", "1"]
        assert w.request(hs.find(0, "=", [2], 1, 0, ["D"])) == ["0", "1", "1"]
        assert_everywhere(cluster, sqls, "kv", [("1", "uno"), ("3", "three")])
    # A duplicate key is refused on the node, as before: nothing replicates.
    with hs.Connection(cluster.nodes[1].plugin.port_wr) as w:
        w.open_index(0, "kv", ["k", "v"])
        assert w.request([0, "+", 2, 3, "again"]) == ["1", "1", "121"]
        assert w.request([0, "+", 2, 4, "four"]) == ["0", "1"]
    assert_everywhere(cluster, sqls, "kv", [("1", "uno"), ("3", "three"), ("4", "four")])


def test_ddl_on_another_node_passes_tables_rowsocket_holds_open(cluster, sqls):
    """A replicated ALTER needs the table's metadata lock on every node; rowsocket's
    workers on node 1, which keep the table open between batches, give it up."""
    node1 = cluster.nodes[0]
    sqls[0].create_table("ddl", "k INT PRIMARY KEY, v VARCHAR(20)", [(1, "one")])
    assert table_rows(sqls[1], "ddl") == [("1", "one")]
    with hs.Connection(node1.plugin.port) as r, hs.Connection(node1.plugin.port_wr) as w:
        r.open_index(0, "ddl", ["k", "v"])
        w.open_index(0, "ddl", ["k", "v"])
        assert r.request(hs.find(0, "=", [1])) == ["0", "2", "1", "one"]
        assert w.request([0, "+", 2, 2, "two"]) == ["0", "1"]
        started = time.monotonic()
        sqls[1].execute("ALTER TABLE test.ddl ADD COLUMN n INT NOT NULL DEFAULT 7")
        assert time.monotonic() - started < 20
        assert table_rows(sqls[0], "ddl", "k, v, n") == [("1", "one", "7"), ("2", "two", "7")]
        assert r.request(hs.find(0, "=", [1])) == ["0", "2", "1", "one"]
        assert w.request([0, "+", 2, 3, "three"]) == ["0", "1"]
    assert table_rows(sqls[2], "ddl", "k, v, n") == [("1", "one", "7"), ("2", "two", "7"),
                                                     ("3", "three", "7")]
    assert "KILL of worker" not in node1.server.error_log()


def test_memcached_sets_on_one_node_are_read_on_the_others(cluster, sqls):
    setter = Raw(memcached_port(cluster.nodes[0]))
    try:
        setter.send(b"set galera 0 0 5\r\nhello\r\n")
        assert setter.read_until(b"\r\n") == b"STORED\r\n"
    finally:
        setter.close()
    for conn in sqls:   # causal: every node has applied the set
        assert conn.rows("SELECT v FROM rowsocket.kv WHERE k = 'galera'") == [(b"hello",)]
    for node in cluster.nodes[1:]:
        getter = Raw(memcached_port(node))
        try:
            getter.send(b"get galera\r\n")
            assert getter.read_until(b"END\r\n") == b"VALUE galera 0 5\r\nhello\r\nEND\r\n"
        finally:
            getter.close()


def test_redis_transactions_and_hashes_are_cluster_transactions(cluster, sqls):
    writer = Resp(redis_port(cluster.nodes[0]))
    try:   # one transaction of two keys, certified as one
        assert writer.command("MULTI") == b"+OK\r\n"
        assert writer.command("SET", "rg:a", "one") == b"+QUEUED\r\n"
        assert writer.command("INCRBY", "rg:n", "5") == b"+QUEUED\r\n"
        assert writer.command("EXEC") == b"*2\r\n+OK\r\n:5\r\n"
    finally:
        writer.close()
    for conn in sqls:   # causal: every node has applied both
        assert conn.rows("SELECT v FROM rowsocket.kv WHERE k IN ('rg:a', 'rg:n') ORDER BY k") \
            == [(b"one",), (b"5",)]
    for node in cluster.nodes[1:]:
        reader = Resp(redis_port(node))
        try:
            assert reader.command("MGET", "rg:a", "rg:n") == b"*2\r\n$3\r\none\r\n$1\r\n5\r\n"
        finally:
            reader.close()
    # A hash on node 2: the row of a table SQL mapped on node 1.
    sqls[0].create_table("rgh", "id INT PRIMARY KEY, name VARCHAR(20), visits INT NOT NULL "
                         "DEFAULT 0")
    sqls[0].execute("REPLACE INTO rowsocket.containers (name, db_schema, db_table, key_column, "
                    "value_columns) VALUES ('rgh', 'test', 'rgh', 'id', 'name')")
    hasher = Resp(redis_port(cluster.nodes[1]))
    try:
        deadline = time.monotonic() + 30   # the workers read the mapping once a second
        while (answer := hasher.command("HSET", "rgh:1", "name", "ann")) != b":1\r\n":
            assert answer.startswith(b"-ERR rowsocket: ") and time.monotonic() < deadline, answer
            time.sleep(0.1)
        assert hasher.command("HINCRBY", "rgh:1", "visits", "3") == b":3\r\n"
    finally:
        hasher.close()
    for conn in sqls:
        assert conn.rows("SELECT id, name, visits FROM test.rgh") == [("1", "ann", "3")]
    reader = Resp(redis_port(cluster.nodes[2]))
    try:
        expected = b"*4\r\n$4\r\nname\r\n$3\r\nann\r\n$6\r\nvisits\r\n$1\r\n3\r\n"
        deadline = time.monotonic() + 30
        while (answer := reader.command("HGETALL", "rgh:1")) != expected:
            assert time.monotonic() < deadline, answer
            time.sleep(0.1)
    finally:
        reader.close()


KEYS = 8
ROUNDS = 60      # pipelined batches per client
PIPELINE = 6     # increments per batch


def increment_client(port, column, answers, errors, start):
    """Pipelines increments of `column` on random rows, from when every client is
    ready (`start`, a barrier); records every answer."""
    rng = random.Random(column)
    try:
        with hs.Connection(port) as w:
            w.open_index(0, "counters", [column])
            start.wait(timeout=30)
            for _ in range(ROUNDS):
                keys = [rng.randrange(KEYS) for _ in range(PIPELINE)]
                w.send_lines([hs.find(0, "=", [k], 1, 0, ["+", 1]) for k in keys])
                answers.extend((k, w.read_answer()) for k in keys)
    except Exception as e:       # reported by the test
        errors.append(e)


def test_concurrent_writers_on_two_nodes_tell_the_truth(cluster, sqls):
    sqls[0].create_table("counters", "k INT PRIMARY KEY, a INT NOT NULL, b INT NOT NULL",
                         [(k, 0, 0) for k in range(KEYS)])
    for conn in sqls:   # every node has applied the rows before rowsocket updates them
        assert int(conn.value("SELECT COUNT(*) FROM test.counters")) == KEYS
    conflicts_before = sum(int(n.status("Rowsocket_galera_conflicts")) for n in cluster.nodes)
    answers = {"a": [], "b": []}
    errors = []
    start = threading.Barrier(2)
    threads = [threading.Thread(target=increment_client,
                                args=(cluster.nodes[i].plugin.port_wr, column, answers[column],
                                      errors, start))
               for i, column in [(0, "a"), (1, "b")]]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    expected = {"a": [0] * KEYS, "b": [0] * KEYS}
    failed = 0
    for column, replies in answers.items():
        assert len(replies) == ROUNDS * PIPELINE
        for k, reply in replies:
            if reply == ["0", "1", "1"]:
                expected[column][k] += 1
            else:
                assert reply == ["1", "1", "149"], reply   # a conflict, rolled back
                failed += 1
    final = [(str(k), str(expected["a"][k]), str(expected["b"][k])) for k in range(KEYS)]
    for node, conn in zip(cluster.nodes, sqls):
        assert table_rows(conn, "counters", "k, a, b") == final, node.name
    conflicts = sum(int(n.status("Rowsocket_galera_conflicts")) for n in cluster.nodes)
    print(f"conflicts: {conflicts - conflicts_before} batches; {failed} requests answered 149")
    # Two nodes writing the same eight rows at once do meet certification conflicts.
    assert conflicts > conflicts_before


def insert_client(port, first, count, answered, stop):
    """Inserts keys first, first+1, ... one request at a time until `count` or `stop`;
    records the keys answered `0 1`. Connection errors end it (their writes may or may
    not have applied)."""
    try:
        with hs.Connection(port) as w:
            w.open_index(0, "log", ["k", "v"])
            for k in range(first, first + count):
                if stop.is_set():
                    return
                if w.request([0, "+", 2, k, f"v{k}"]) == ["0", "1"]:
                    answered.append(k)
    except (OSError, EOFError, AssertionError):
        pass


def test_a_killed_node_rejoins_with_every_answered_write(cluster, sqls):
    sqls[0].create_table("log", "k INT PRIMARY KEY, v VARCHAR(20)")
    victim = cluster.nodes[2]
    stop = threading.Event()
    on_node1, on_victim = [], []
    threads = [threading.Thread(target=insert_client,
                                args=(cluster.nodes[0].plugin.port_wr, 0, 100000, on_node1,
                                      stop)),
               threading.Thread(target=insert_client,
                                args=(victim.plugin.port_wr, 1000000, 100000, on_victim, stop))]
    for t in threads:
        t.start()
    time.sleep(1.5)
    victim.server.kill()
    time.sleep(1.0)          # node 1 goes on writing while node 3 is down
    victim.restart_after_crash()
    GaleraCluster.wait_synced(victim, 3)
    time.sleep(0.5)
    stop.set()
    for t in threads:
        t.join(timeout=60)
    assert on_node1 and on_victim, (len(on_node1), len(on_victim))
    rejoined = Sql(victim.server)     # the module's session died with the node
    rejoined.execute("SET SESSION wsrep_sync_wait = 1")
    sqls[2] = rejoined
    keys = {int(k) for (k,) in rejoined.rows("SELECT k FROM test.log")}
    missing = (set(on_node1) | set(on_victim)) - keys
    assert not missing, sorted(missing)[:10]
    counts = {int(conn.value("SELECT COUNT(*) FROM test.log")) for conn in sqls[:2]}
    assert counts == {len(keys)}


def test_finds_wait_for_the_cluster_under_wsrep_sync_wait(cluster, sqls):
    """With wsrep_sync_wait=1 a find first waits until its node has applied what the
    cluster had committed, as SQL's SELECT does; with 0 it reads what the node has.
    FLUSH TABLES WITH READ LOCK on node 2 pauses its applying meanwhile."""
    node1, node2 = cluster.nodes[0], cluster.nodes[1]
    sqls[0].create_table("causal", "k INT PRIMARY KEY, v VARCHAR(20)", [(1, "one")])
    assert table_rows(sqls[1], "causal") == [("1", "one")]
    admin, pauser = Sql(node2.server), Sql(node2.server)
    answers = []
    try:
        with hs.Connection(node2.plugin.port) as r, hs.Connection(node1.plugin.port_wr) as w:
            r.open_index(0, "causal", ["k", "v"])
            w.open_index(0, "causal", ["k", "v"])
            pauser.execute("FLUSH TABLES WITH READ LOCK")
            assert w.request(hs.find(0, "=", [1], 1, 0, ["U", 1, "uno"])) == ["0", "1", "1"]
            # Node 2 has not applied the update: without the check it reads the old row.
            assert r.request(hs.find(0, "=", [1])) == ["0", "2", "1", "one"]
            admin.execute("SET GLOBAL wsrep_sync_wait = 1")
            waits = int(node2.status("Rowsocket_galera_causal_waits"))
            reader = threading.Thread(target=lambda: answers.append(r.request(hs.find(0, "=", [1]))))
            reader.start()
            reader.join(1.5)
            assert reader.is_alive(), f"the find did not wait for the cluster: {answers}"
            pauser.execute("UNLOCK TABLES")
            reader.join(30)
            assert answers == [["0", "2", "1", "uno"]]
            assert int(node2.status("Rowsocket_galera_causal_waits")) == waits + 1
    finally:
        admin.execute("SET GLOBAL wsrep_sync_wait = 0")
        pauser.close()
        admin.close()


def test_an_isolated_node_refuses_writes(cluster, sqls):
    node = cluster.nodes[0]
    sqls[0].create_table("iso", "k INT PRIMARY KEY, v VARCHAR(20)", [(1, "one")])
    redis = Resp(redis_port(node))
    with hs.Connection(node.plugin.port_wr) as w:
        w.open_index(0, "iso", ["k", "v"])
        admin = Sql(node.server)
        try:
            admin.execute("SET GLOBAL wsrep_provider_options = 'gmcast.isolate=1'")
            deadline = time.monotonic() + 30
            while node.status("wsrep_cluster_status") == "Primary":
                assert time.monotonic() < deadline, "node 1 stayed in the primary component"
                time.sleep(0.2)
            assert w.request([0, "+", 2, 2, "two"]) == ["1", "1", "1047"]
            assert w.request(hs.find(0, "=", [1], 1, 0, ["D"])) == ["1", "1", "1047"]
            assert w.request(hs.find(0, "=", [1])) == ["1", "1", "1047"]
            refused = redis.command("SET", "iso", "1")
            assert refused.startswith(b"-ERR ") and b"1047" in refused, refused
            assert node.status("Rowsocket_galera") == "REFUSED"
            admin.execute("SET GLOBAL wsrep_provider_options = 'gmcast.isolate=0'")
            GaleraCluster.wait_synced(node, 3)
        finally:
            admin.close()
        assert w.request([0, "+", 2, 2, "two"]) == ["0", "1"]
    assert redis.command("SET", "iso", "1") == b"+OK\r\n"
    redis.close()
    for conn in sqls:
        assert table_rows(conn, "iso") == [("1", "one"), ("2", "two")]
        assert conn.rows("SELECT v FROM rowsocket.kv WHERE k = 'iso'") == [(b"1",)]
