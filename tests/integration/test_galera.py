"""rowsocket on a one-node Galera cluster: writes are cluster transactions, and a node
that is not ready refuses what SQL refuses.

On a Galera node (wsrep_on=ON) each write batch of rowsocket is a wsrep transaction:
certified, replicated and committed in the cluster's order before it is answered
(test_galera_cluster.py writes on three nodes). A table without a primary key takes
writes as wsrep_certify_nonPK says, as SQL does. A node that is not ready for clients
(not synced, or wsrep_reject_queries set) refuses finds and writes as it refuses
SQL's queries, `1 1 1047`, unless wsrep_dirty_reads allows reads; Rowsocket_galera
says which of these holds. The node here is a one-node cluster (Debian's galera-4,
bootstrapped with an empty gcomm:// address on loopback ports).
"""

import os

import pytest

import hs
import servers
import targets
from db import Sql
from galera_support import PROVIDER, wsrep_args
from harness import free_ports

pytestmark = targets.rowsocket_only


@pytest.fixture(scope="module")
def server():
    if not os.path.exists(PROVIDER):
        pytest.skip(f"no Galera provider at {PROVIDER} (Debian's galera-4)")
    plugin = targets.make_plugin({})
    with servers.running_server([plugin], extra_args=wsrep_args(
            *free_ports(3), "gcomm://")) as srv:
        yield srv


def status(sql, name):
    return int(sql.rows(f"SHOW GLOBAL STATUS LIKE 'Rowsocket_{name}'")[0][1])


def galera_state(sql):
    return sql.rows("SHOW GLOBAL STATUS LIKE 'Rowsocket_galera'")[0][1]


def test_the_node_is_a_galera_node(sql):
    assert sql.value("SELECT @@wsrep_on") == "1"
    assert sql.rows("SHOW GLOBAL STATUS LIKE 'wsrep_ready'") == [("wsrep_ready", "ON")]
    assert galera_state(sql) == "READY"


def test_writes_are_cluster_transactions(target, sql):
    sql.create_table("kv", "k INT PRIMARY KEY, v VARCHAR(20)", [(1, "one"), (2, "two")])
    committed_before = int(sql.rows("SHOW GLOBAL STATUS LIKE 'wsrep_last_committed'")[0][1])
    with hs.Connection(target.port_wr) as w:
        w.open_index(0, "kv", ["k", "v"])
        assert w.request([0, "+", 2, 3, "three"]) == ["0", "1"]
        assert w.request(hs.find(0, "=", [1], 1, 0, ["U", 1, "uno"])) == ["0", "1", "1"]
        assert w.request(hs.find(0, "=", [2], 1, 0, ["D"])) == ["0", "1", "1"]
        assert w.request(hs.find(0, "=", [1], 1, 0, ["+", 1, "x"]))[:2] == ["1", "1"]
        assert w.request(hs.find(0, "=", [1])) == ["0", "2", "1", "uno"]
    assert sql.rows("SELECT k, v FROM test.kv ORDER BY k") == [("1", "uno"), ("3", "three")]
    # Each write was a transaction of the cluster, certified and given a seqno.
    committed = int(sql.rows("SHOW GLOBAL STATUS LIKE 'wsrep_last_committed'")[0][1])
    assert committed - committed_before >= 3


def test_a_table_without_primary_key_follows_wsrep_certify_nonpk(target, sql):
    sql.create_table("nopk", "k INT, v VARCHAR(20), KEY (k)", [(1, "one")])
    with hs.Connection(target.port_wr) as w:
        w.open_index(0, "nopk", ["k", "v"], index="k")
        assert w.request([0, "+", 2, 2, "two"]) == ["0", "1"]
        sql.execute("SET GLOBAL wsrep_certify_nonPK = OFF")
        try:
            refused_before = status(sql, "galera_writes_refused")
            assert w.request([0, "+", 2, 3, "three"]) == ["1", "1", "1213"]
            assert w.request(hs.find(0, "=", [1], 1, 0, ["D"])) == ["1", "1", "1213"]
            assert status(sql, "galera_writes_refused") - refused_before == 2
            assert w.request(hs.find(0, "=", [1])) == ["0", "2", "1", "one"]
        finally:
            sql.execute("SET GLOBAL wsrep_certify_nonPK = ON")
    assert sql.rows("SELECT k, v FROM test.nopk ORDER BY k") == [("1", "one"), ("2", "two")]


def test_reads_and_sql_go_on(target, sql):
    with hs.Connection(target.port) as r:
        r.open_index(0, "user", ["user_name"])
        assert r.request(hs.find(0, "=", [101])) == ["0", "1", "Yukari Takeba"]
    sql.execute("INSERT INTO test.kv VALUES (5, 'five')")   # SQL writes replicate as usual
    with hs.Connection(target.port) as r:
        r.open_index(0, "kv", ["v"])
        assert r.request(hs.find(0, "=", [5])) == ["0", "1", "five"]


def test_a_node_that_rejects_queries_refuses_writes_and_finds_unless_dirty_reads(target, sql):
    sql.create_table("rq", "k INT PRIMARY KEY, v VARCHAR(20)", [(1, "one")])
    reads_before = status(sql, "galera_reads_refused")
    writes_before = status(sql, "galera_writes_refused")
    with hs.Connection(target.port) as r, hs.Connection(target.port_wr) as w:
        r.open_index(0, "user", ["user_name"])
        w.open_index(0, "rq", ["k", "v"])
        sql.execute("SET GLOBAL wsrep_reject_queries = ALL")
        try:
            assert galera_state(sql) == "REFUSED"
            assert r.request(hs.find(0, "=", [101])) == ["1", "1", "1047"]
            assert w.request([0, "+", 2, 2, "two"]) == ["1", "1", "1047"]
            sql.execute("SET GLOBAL wsrep_dirty_reads = ON")
            assert galera_state(sql) == "DIRTY_READS"
            assert r.request(hs.find(0, "=", [101])) == ["0", "1", "Yukari Takeba"]
            # Dirty reads are reads: writes stay refused.
            assert w.request(hs.find(0, "=", [1], 1, 0, ["D"])) == ["1", "1", "1047"]
        finally:
            sql.execute("SET GLOBAL wsrep_dirty_reads = OFF")
            sql.execute("SET GLOBAL wsrep_reject_queries = NONE")
        assert galera_state(sql) == "READY"
        assert r.request(hs.find(0, "=", [101])) == ["0", "1", "Yukari Takeba"]
        assert w.request([0, "+", 2, 2, "two"]) == ["0", "1"]
    assert status(sql, "galera_reads_refused") - reads_before == 1
    assert status(sql, "galera_writes_refused") - writes_before == 2
    assert sql.rows("SELECT k, v FROM test.rq ORDER BY k") == [("1", "one"), ("2", "two")]


def test_a_server_without_galera_says_so(server):
    """(The module's server is a Galera node; the state of a plain server is OFF.)"""
    plugin = targets.make_plugin({})
    with servers.running_server([plugin]) as plain:
        conn = Sql(plain)
        try:
            assert galera_state(conn) == "OFF"
        finally:
            conn.close()
