"""librowsocket's Pool with a primary and one replica: reads go to the replica,
fail over to the primary while the replica restarts and come back after, and a
Pool::Session reads its own writes on the primary.

The servers are test_replication.py's (its fixtures: a primary with a binary log, a
replica replicating from it). One Pool lives through the whole module inside
tests/integration/client/pool_driver, which answers one line per command (its
header lists them), so that the replica can be restarted between two calls.

Where a read went is proven by test.origin, made on each server apart (not
replicated): its row 1 says "primary" on the primary and "replica" on the replica.
"""

import select
import subprocess
import time

import pytest

import client_tools
import targets
from db import Sql
from test_replication import primary, psql, replica, sync  # noqa: F401 (fixtures)

pytestmark = targets.rowsocket_only

BACKOFF_MS = 100         # the driver's backoff: a restarted replica is back within it
READ_YOUR_WRITES_MS = 600
ANSWER_TIMEOUT = 30      # seconds for one driver command (liveness)
BACK_TIMEOUT = 30        # seconds for reads to reach the restarted replica
DRIVER = "tests/integration/client/pool_driver"
ROWS = "k INT PRIMARY KEY, v VARCHAR(20) NOT NULL"


class Driver:
    """pool_driver as a subprocess: ask() sends one command and returns its answer."""

    def __init__(self, readers, writers):
        cmd = [client_tools.program(DRIVER), "--backoff-ms", str(BACKOFF_MS),
               "--read-your-writes-ms", str(READ_YOUR_WRITES_MS)]
        for port in readers:
            cmd += ["--reader", f"127.0.0.1:{port}"]
        for port in writers:
            cmd += ["--writer", f"127.0.0.1:{port}"]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, bufsize=1)

    def ask(self, command):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], ANSWER_TIMEOUT)
        assert ready, f"pool_driver did not answer {command!r} within {ANSWER_TIMEOUT}s"
        answer = self.proc.stdout.readline()
        assert answer, f"pool_driver exited ({self.proc.poll()}) at {command!r}"
        return answer.rstrip("\n")

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def on_replica(replica, query):
    """Runs one statement on the replica over a connection of its own (the replica is
    restarted in this module, so no connection to it is kept)."""
    conn = Sql(replica)
    try:
        conn.execute(query)
    finally:
        conn.close()


def finds(server):
    conn = Sql(server)
    try:
        return int(conn.rows("SHOW GLOBAL STATUS LIKE 'Rowsocket_requests_find'")[0][1])
    finally:
        conn.close()


@pytest.fixture(scope="module")
def tables(primary, psql, replica):  # noqa: F811 (fixtures imported above)
    psql.create_table("pool_rows", ROWS)
    psql.execute("SET SESSION sql_log_bin = 0")
    try:
        psql.create_table("origin", ROWS, [(1, "primary")])
    finally:
        psql.execute("SET SESSION sql_log_bin = 1")
    rsql = Sql(replica)
    try:
        sync(psql, rsql)
        rsql.create_table("origin", ROWS, [(1, "replica")])
    finally:
        rsql.close()


@pytest.fixture(scope="module")
def pool(primary, replica, tables):  # noqa: F811
    driver = Driver(readers=[replica.plugins[0].port], writers=[primary.plugins[0].port_wr])
    yield driver
    driver.close()


def test_reads_go_to_the_replica_and_writes_to_the_primary(pool, primary, psql,  # noqa: F811
                                                            replica):
    before = finds(primary), finds(replica)
    assert [pool.ask("find origin 1") for _ in range(3)] == ["replica"] * 3
    assert (finds(primary), finds(replica)) == (before[0], before[1] + 3)
    assert pool.ask("insert pool_rows 1 one") == "ok"
    assert psql.flat("SELECT v FROM test.pool_rows WHERE k = 1") == ["one"]
    assert pool.ask("health") == f"{replica.plugins[0].port}:up {primary.plugins[0].port_wr}:up"


def test_reads_fail_over_to_the_primary_while_the_replica_restarts(pool, primary, psql,  # noqa: F811,E501
                                                                   replica):
    port = replica.plugins[0].port
    replica.stop(keep_files=True)
    try:
        assert pool.ask("find origin 1") == "primary"
        assert pool.ask("health").split()[0] == f"{port}:out"
        assert [pool.ask("find origin 1") for _ in range(3)] == ["primary"] * 3
        assert pool.ask("insert pool_rows 2 two") == "ok"  # writes never needed it
    finally:
        replica.restart()
    assert replica.plugins[0].port == port, "the replica came back on another port"
    deadline = time.monotonic() + BACK_TIMEOUT
    answers = []
    while time.monotonic() < deadline:
        answers.append(pool.ask("find origin 1"))
        if answers[-1] == "replica":
            break
        time.sleep(BACKOFF_MS / 1000)
    assert answers[-1] == "replica", answers
    assert set(answers) <= {"primary", "replica"}, answers
    assert pool.ask("health").split()[0] == f"{port}:up"
    rsql = Sql(replica)
    try:
        sync(psql, rsql)   # replication resumed by itself after the restart
    finally:
        rsql.close()
    assert pool.ask("find pool_rows 2") == "two"


def test_a_session_reads_its_own_writes_with_replication_stopped(pool, psql,  # noqa: F811
                                                                 replica):
    on_replica(replica, "STOP SLAVE")
    try:
        assert pool.ask("session insert pool_rows 3 mine") == "ok"
        assert pool.ask("session find pool_rows 3") == "mine"    # on the primary
        assert pool.ask("find pool_rows 3") == "-"               # the replica lags
        assert pool.ask("session find origin 1") == "primary"
        time.sleep(READ_YOUR_WRITES_MS / 1000 + 0.1)
        assert pool.ask("session find origin 1") == "replica"    # back on the replica
        assert pool.ask("session find pool_rows 3") == "-"
    finally:
        on_replica(replica, "START SLAVE")
    rsql = Sql(replica)
    try:
        sync(psql, rsql)
    finally:
        rsql.close()
    assert pool.ask("find pool_rows 3") == "mine"
