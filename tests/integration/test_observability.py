"""What a DBA sees: status counters, the connections table, the latency histogram,
and which variables SET GLOBAL may change."""

import time

import pymysql
import pytest

import hs
import targets

pytestmark = targets.rowsocket_only

OPEN = b"P\t0\ttest\tuser\tPRIMARY\tuser_name\n"
FIND = b"0\t=\t1\t101\n"


def status(sql):
    """The counters and gauges (Rowsocket_galera, a word, is test_galera.py's)."""
    return {name: int(value) for name, value in
            sql.rows("SHOW GLOBAL STATUS LIKE 'rowsocket%'") if name != "Rowsocket_galera"}


def test_status_counts_requests_errors_rows_and_connections(reader, writer, sql):
    before = status(sql)
    reader.raw(OPEN)
    for _ in range(5):
        assert reader.raw(FIND) == b"0\t1\tYukari Takeba\n"
    assert reader.raw(b"9\t=\t1\t101\n") == b"2\t1\tstmtnum\n"
    writer.raw(b"P\t1\ttest\tuser\tPRIMARY\tuser_id,user_name\n")
    assert writer.raw(b"1\t+\t2\t990\tobserver\n") == b"0\t1\n"
    assert writer.raw(b"1\t=\t1\t990\t1\t0\tD\n") == b"0\t1\t1\n"
    after = status(sql)
    delta = {k: after[k] - before.get(k, 0) for k in after}
    assert delta["Rowsocket_requests_open"] == 2
    assert delta["Rowsocket_requests_find"] == 6
    assert delta["Rowsocket_requests_insert"] == 1
    assert delta["Rowsocket_requests_delete"] == 1
    assert delta["Rowsocket_errors_request"] == 1
    assert delta["Rowsocket_rows_read"] >= 5
    assert delta["Rowsocket_rows_inserted"] == 1
    assert delta["Rowsocket_rows_deleted"] == 1
    assert delta["Rowsocket_commits"] >= 2
    assert delta["Rowsocket_log_flushes"] >= 1  # the write commits were made durable
    assert delta["Rowsocket_log_flush_microseconds"] > 0  # a sync takes time
    assert delta["Rowsocket_log_flush_wait_microseconds"] > 0  # and the answers waited for it
    assert delta["Rowsocket_batches"] >= 9
    assert delta["Rowsocket_bytes_received"] > 0 and delta["Rowsocket_bytes_sent"] > 0
    assert after["Rowsocket_connections_read"] >= 1
    assert after["Rowsocket_connections_write"] >= 1


def test_connections_table_lists_each_client_with_its_traffic(reader, sql):
    reader.raw(OPEN)
    reader.raw(FIND)
    local_port = reader.sock.getsockname()[1]
    expected = ("read", "NO", 1, 2, len(OPEN) + len(FIND), len(b"0\t1\n0\t1\tYukari Takeba\n"))
    # The worker counts a write just after the client may already have read it:
    # look again briefly before judging.
    for _ in range(50):
        rows = sql.rows("SELECT LISTENER, AUTHENTICATED, OPEN_INDEXES, REQUESTS, BYTES_RECEIVED, "
                        "BYTES_SENT FROM information_schema.ROWSOCKET_CONNECTIONS "
                        "WHERE PEER = %s", (f"127.0.0.1:{local_port}",))
        assert len(rows) == 1
        row = (rows[0][0], rows[0][1], *(int(v) for v in rows[0][2:]))
        if row == expected:
            break
        time.sleep(0.02)
    assert row == expected


def test_latency_histogram_counts_every_request_by_kind(reader, sql):
    def finds():
        return sum(int(n) for (n,) in sql.rows(
            "SELECT REQUESTS FROM information_schema.ROWSOCKET_LATENCY WHERE KIND = 'find'"))

    before = finds()
    reader.raw(OPEN)
    for _ in range(7):
        reader.raw(FIND)
    assert finds() - before == 7
    bounds = sql.flat("SELECT UPPER_BOUND_MICROSECONDS FROM information_schema.ROWSOCKET_LATENCY "
                      "WHERE KIND = 'find'")
    assert bounds[-1] is None and all(b is not None for b in bounds[:-1])


@pytest.mark.parametrize("name,value", [
    ("rowsocket_verbose", 2), ("rowsocket_timeout", 120), ("rowsocket_max_line_length", 65536),
    ("rowsocket_max_open_indexes", 64), ("rowsocket_max_connections", 5000),
    ("rowsocket_lock_wait_timeout", 3)])
def test_dynamic_variables_change_at_run_time(sql, name, value):
    old = sql.value(f"SELECT @@GLOBAL.{name}")
    try:
        sql.execute(f"SET GLOBAL {name} = {value}")
        assert int(sql.value(f"SELECT @@GLOBAL.{name}")) == value
    finally:
        sql.execute(f"SET GLOBAL {name} = {old}")


@pytest.mark.parametrize("name", ["rowsocket_port", "rowsocket_threads", "rowsocket_address"])
def test_start_up_variables_are_read_only(sql, name):
    with pytest.raises(pymysql.err.OperationalError):
        sql.execute(f"SET GLOBAL {name} = DEFAULT")


def test_secrets_are_not_visible_through_sql(sql):
    assert sql.rows("SHOW GLOBAL VARIABLES LIKE 'rowsocket%secret%'") == []


def test_max_open_indexes_applies_to_new_requests_at_once(writer, sql):
    sql.execute("SET GLOBAL rowsocket_max_open_indexes = 4")
    try:
        assert writer.raw(b"P\t4\ttest\tuser\tPRIMARY\tuser_name\n") == b"2\t1\tstmtnum\n"
        assert writer.raw(b"P\t3\ttest\tuser\tPRIMARY\tuser_name\n") == b"0\t1\n"
    finally:
        sql.execute("SET GLOBAL rowsocket_max_open_indexes = DEFAULT")


def test_connections_past_the_limit_are_closed_at_once_and_counted(target, sql):
    import socket
    for _ in range(100):   # earlier tests' connections may still be closing
        if status(sql)["Rowsocket_connections_read"] == 0:
            break
        time.sleep(0.05)
    sql.execute("SET GLOBAL rowsocket_max_connections = 3")
    kept = []
    try:
        refused_before = status(sql)["Rowsocket_connections_refused"]
        for _ in range(3):
            c = hs.Connection(target.port)
            c.raw(OPEN)          # served: the connection is really established
            kept.append(c)
        extra = socket.create_connection(("127.0.0.1", target.port), timeout=5)
        try:
            extra.sendall(OPEN)
            assert extra.recv(100) == b""   # closed without an answer
        except ConnectionResetError:
            pass
        finally:
            extra.close()
        assert status(sql)["Rowsocket_connections_refused"] == refused_before + 1
        assert kept[0].raw(FIND) == b"0\t1\tYukari Takeba\n"   # the others keep working
    finally:
        for c in kept:
            c.close()
        sql.execute("SET GLOBAL rowsocket_max_connections = DEFAULT")


def test_connections_table_names_the_worker_that_served_each_last(target, sql):
    """Connections belong to no worker between turns; WORKER is the one that served
    the connection's last request: one of the read listener's workers (its spares
    too, which serve while a worker waits for the disk), which come first in worker
    order."""
    workers = int(sql.value("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE STATE IN "
                            "('rowsocket: read worker', 'rowsocket: spare read worker')"))
    conns = [hs.Connection(target.port) for _ in range(8)]
    try:
        for c in conns:
            c.raw(OPEN)
        served_by = [int(w) for (w,) in sql.rows(
            "SELECT WORKER FROM information_schema.ROWSOCKET_CONNECTIONS "
            "WHERE LISTENER = 'read'")]
        assert len(served_by) == len(conns)
        assert all(0 <= w < workers for w in served_by), (served_by, workers)
    finally:
        for c in conns:
            c.close()
