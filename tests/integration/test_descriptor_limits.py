"""Descriptors: rowsocket leaves the server its own, and survives running out.

The server runs with 1,024 descriptors. By default each listener takes at most its
share of what the server leaves (rowsocket_max_connections = 0), so SQL clients still
connect while HandlerSocket clients crowd in; with a limit set past what the process
has, accepting pauses when descriptors run out instead of spinning, the error log
gets a line a second at most, and the clients already connected keep being served.
"""

import socket
import time

import pytest

import hs
import servers
import targets
from db import Sql
from targets import rowsocket_only

pytestmark = rowsocket_only

OPEN_FILES = 1024
CROWD = 1100          # more connections than the server has descriptors


@pytest.fixture(scope="module")
def server():
    plugin = targets.make_plugin({"verbose": 2})
    with servers.running_server(
            [plugin], open_files=OPEN_FILES,
            extra_args=["--max-connections=50", "--table-open-cache=100",
                        "--table-open-cache-instances=1"]) as srv:
        yield srv


def status(sql, name):
    return int(sql.rows(f"SHOW GLOBAL STATUS LIKE 'Rowsocket_{name}'")[0][1])


def log_lines(server, text):
    return sum(text in line for line in server.error_log().splitlines())


def crowd(port):
    """CROWD connections to `port`, opened as fast as the kernel takes them."""
    socks = []
    for _ in range(CROWD):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        socks.append(s)
    return socks


def close_all(socks):
    for s in socks:
        s.close()


def wait_for(predicate, bound=20.0):
    start = time.monotonic()
    while not predicate() and time.monotonic() - start < bound:
        time.sleep(0.1)
    return predicate()


def served(port):
    with hs.Connection(port) as c:
        return c.request(hs.open_request(1, "user", ["user_name"])) == ["0", "1"]


def test_by_default_rowsocket_leaves_descriptors_for_sql_clients(server, target, sql):
    assert int(sql.value("SELECT @@GLOBAL.rowsocket_max_connections")) == 0
    refused_before = status(sql, "connections_refused")
    socks = crowd(target.port)
    try:
        assert wait_for(lambda: status(sql, "connections_refused") - refused_before
                        + status(sql, "connections_read") >= CROWD)
        assert status(sql, "connections_refused") > refused_before
        assert status(sql, "accept_pauses") == 0
        fresh = Sql(server)                       # a new SQL client gets a descriptor
        assert fresh.value("SELECT 1") == "1"
        fresh.close()
        assert served(target.port_wr)
        # Refusals are logged a line a second at most, not once each.
        assert log_lines(server, "connection refused") <= 10
    finally:
        close_all(socks)


def test_running_out_of_descriptors_pauses_accepting_without_flooding_the_log(
        server, target, sql):
    sql.execute("SET GLOBAL rowsocket_max_connections = 100000")
    early = hs.Connection(target.port)
    socks = []
    try:
        early.open_index(1, "user", ["user_name"])
        socks = crowd(target.port)
        assert wait_for(lambda: status(sql, "accept_pauses") >= 4)
        # Pauses of 100, 200, 400, 800 ms: a second and a half, a line or two.
        assert log_lines(server, "accept on read port") <= 5
        assert early.request(hs.find(1, "=", [101])) == ["0", "1", "Yukari Takeba"]
        assert sql.value("SELECT COUNT(*) FROM test.user") == "1"
    finally:
        close_all(socks)
        early.close()
        sql.execute("SET GLOBAL rowsocket_max_connections = DEFAULT")
    # Descriptors are free again: SQL and HandlerSocket clients connect.
    assert wait_for(lambda: status(sql, "connections_read") == 0)
    fresh = Sql(server)
    assert fresh.value("SELECT 1") == "1"
    fresh.close()
    assert served(target.port)   # accepted once the pause is over
