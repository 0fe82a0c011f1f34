"""No client can grow the server's memory past the bounds the README states.

A client that pipelines big finds and does not read gets no more than
rowsocket_max_output_buffer + rowsocket_max_answer_size of answers built for it; clients
that send endless lines hold no more than rowsocket_max_input_memory of a listener's
memory (beyond one read each); everyone else keeps being served meanwhile. Memory is
the server's resident set (VmRSS), read before and during each attack.
"""

import socket
import threading
import time

import pytest

import hs
from targets import rowsocket_only

pytestmark = rowsocket_only

ROWS = 20000
VALUE = "x" * 100             # a full-table find answers about 2.1 MB
MIB = 1 << 20
MAX_OUTPUT_BUFFER = 1 * MIB
MAX_ANSWER_SIZE = 4 * MIB
MAX_INPUT_MEMORY = 8 * MIB
READSIZE = 65536
# What the server allocates besides the buffers the bounds are about (allocator
# arenas of the threads at work, the scan's buffers): a fixed allowance, far below
# what either attack grows memory by without its bound (100 MB and more).
ALLOWANCE = 24 * MIB


@pytest.fixture(scope="module")
def server_options():
    return {"max_output_buffer": MAX_OUTPUT_BUFFER, "max_answer_size": MAX_ANSWER_SIZE,
            "max_input_memory": MAX_INPUT_MEMORY, "readsize": READSIZE}


@pytest.fixture(scope="module")
def wide(sql):
    sql.create_table("wide", "id INT PRIMARY KEY, v VARCHAR(100)",
                     [(i, VALUE) for i in range(ROWS)])


def rss(server):
    """The server's resident set size in bytes."""
    with open(f"/proc/{server.proc.pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def status(sql, name):
    return int(sql.rows(f"SHOW GLOBAL STATUS LIKE 'Rowsocket_{name}'")[0][1])


def settled(sql, name, quiet=1.0, bound=60.0):
    """Waits until status counter `name` has not moved for `quiet` seconds (at most
    `bound` seconds in all); returns its value."""
    value, since, start = status(sql, name), time.monotonic(), time.monotonic()
    while time.monotonic() - start < bound:
        time.sleep(0.2)
        now = status(sql, name)
        if now != value:
            value, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            break
    return value


def read_lines(conn, n):
    """The next n answer lines of `conn` (without LF), read in large pieces."""
    data = bytearray(conn.buf)
    seen = data.count(b"\n")
    while seen < n:
        chunk = conn.sock.recv(1 << 20)
        assert chunk, "connection closed"
        data += chunk
        seen += chunk.count(b"\n")
    return bytes(data).split(b"\n")[:n]


def full_find(index_id):
    return hs.find(index_id, ">=", [0], ROWS, 0)


def assert_served(target):
    """A fresh client gets its answer."""
    with hs.Connection(target.port) as c:
        c.open_index(1, "wide", ["v"])
        assert c.request(hs.find(1, "=", [7])) == ["0", "1", VALUE]


def test_pipelined_full_table_finds_to_a_client_that_does_not_read_stay_within_the_output_bound(
        server, target, sql, wide):
    with hs.Connection(target.port) as warm:          # scan buffers, pages: touched once
        warm.open_index(1, "wide", ["id", "v"])
        assert warm.request_bytes(full_find(1))[:2] == [b"0", b"2"]
    before = rss(server)
    stuck = hs.Connection(target.port)
    try:
        stuck.send_lines([hs.open_request(1, "wide", ["id", "v"])] + [full_find(1)] * 100)
        settled(sql, "rows_read")
        grown = rss(server) - before
        bound = 2 * (MAX_OUTPUT_BUFFER + MAX_ANSWER_SIZE)   # a string's capacity: 2x its size
        assert grown <= bound + ALLOWANCE, f"grew {grown >> 20} MiB"
        assert status(sql, "requests_deferred") > 0
        assert_served(target)
        # Once the client reads, every answer arrives, in order.
        stuck.sock.settimeout(60)
        lines = read_lines(stuck, 101)
        assert lines[0] == b"0\t1"
        for line in lines[1:]:
            assert line.startswith(b"0\t2\t") and line.count(b"\t") == 1 + 2 * ROWS
    finally:
        stuck.close()


def test_many_connections_sending_endless_lines_are_closed_and_others_keep_being_served(
        server, target, sql, wide):
    assert_served(target)
    before = rss(server)
    limited_before = status(sql, "connections_input_limited")
    attackers = [socket.create_connection(("127.0.0.1", target.port), timeout=30)
                 for _ in range(100)]
    peak = [before]
    answers = []
    watching, serving = threading.Event(), threading.Event()

    def watch():
        while not watching.is_set():
            peak[0] = max(peak[0], rss(server))
            time.sleep(0.05)

    def serve_meanwhile():
        with hs.Connection(target.port) as c:
            c.open_index(1, "wide", ["v"])
            while not serving.is_set():
                answers.append(c.request(hs.find(1, "=", [7])))

    def attack(sock):
        chunk = b"x" * 50000
        try:
            for _ in range(20):                       # 1,000,000 bytes, no line end
                sock.sendall(chunk)
        except OSError:                               # closed by the server: expected
            pass

    watcher = threading.Thread(target=watch)
    server_user = threading.Thread(target=serve_meanwhile)
    attacks = [threading.Thread(target=attack, args=(s,)) for s in attackers]
    try:
        for t in [watcher, server_user] + attacks:
            t.start()
        for t in attacks:
            t.join(120)
        serving.set()
        server_user.join(30)
        settled(sql, "bytes_received")                # what was sent has been read
        peak[0] = max(peak[0], rss(server))
    finally:
        serving.set()
        watching.set()
        watcher.join(30)
        server_user.join(30)
    try:
        closed = 0
        for s in attackers:
            s.settimeout(0.2)
            try:
                got = s.recv(100)
            except ConnectionResetError:
                got = b""
            except socket.timeout:
                got = None                            # still open: within the budget
            if got in (b"", b"2\t1\tlinelen\n"):
                closed += 1
        limited = status(sql, "connections_input_limited") - limited_before
        assert limited > 0 and closed > 0
        bound = MAX_INPUT_MEMORY + 2 * 101 * 2 * READSIZE   # the budget, and a read or two each
        assert peak[0] - before <= bound + ALLOWANCE, f"grew {(peak[0] - before) >> 20} MiB"
        assert answers and all(a == ["0", "1", VALUE] for a in answers)
        assert_served(target)
    finally:
        for s in attackers:
            s.close()


def test_P_listing_a_column_over_and_over_is_refused_and_costs_no_memory(
        server, target, sql, wide):
    """Two attacks on the columns of `P`: finds through a `P` that names a 1,000-byte
    column 50,000 times (each answer would be 50 MB), and 20 `P` lines of 170,000
    columns each (7 MB of names) on one connection. `P` lists no more columns than
    the table has, so both are refused and nothing grows."""
    sql.create_table("fat", "id INT PRIMARY KEY, v VARCHAR(1000)", [(1, "y" * 1000)])
    assert_served(target)
    before = rss(server)
    with hs.Connection(target.port) as c:
        c.send_lines([hs.open_request(1, "fat", ["v"] * 50000)] + [hs.find(1, "=", [1])] * 2)
        assert c.read_answer() == ["2", "1", "fld"]
        assert [c.read_answer()[:2] for _ in range(2)] == [["2", "1"], ["2", "1"]]
        wide_open = hs.open_request(2, "fat", ["id", "v"] * 85000)
        c.send_lines([wide_open] * 20)
        assert [c.read_answer() for _ in range(20)] == [["2", "1", "fld"]] * 20
        grown = rss(server) - before
        assert grown <= ALLOWANCE, f"grew {grown >> 20} MiB"
        c.open_index(3, "fat", ["v"])           # the connection serves on
        assert c.request(hs.find(3, "=", [1])) == ["0", "1", "y" * 1000]
    assert_served(target)
