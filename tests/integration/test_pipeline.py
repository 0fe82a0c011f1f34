"""Pipelining and concurrency: many requests in one write, many connections at once."""

import socket
import struct
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

import hs

KEYS = 500


@pytest.fixture(scope="module")
def pipe(sql):
    sql.create_table("pipe", "k INT PRIMARY KEY, v VARCHAR(20)",
                     [(k, f"v{k}") for k in range(1, KEYS + 1)])
    sql.create_table("sink", "k INT PRIMARY KEY, v VARCHAR(20)")


def request_and_answer(i):
    """The i-th request of the mixed pipeline and the answer it must get."""
    if i % 10 == 9:
        return [9, "=", 1, i], ["2", "1", "stmtnum"]
    if i % 10 == 4:
        return [1, "=", 1, 10000 + i], ["0", "1"]
    k = i % KEYS + 1
    return [1, "=", 1, k], ["0", "1", f"v{k}"]


def test_thousand_pipelined_requests_answer_in_order(reader, pipe):
    pairs = [request_and_answer(i) for i in range(1000)]
    reader.send_lines([hs.open_request(1, "pipe", ["v"])] + [r for r, _ in pairs])
    assert reader.read_answer() == ["0", "1"]
    answers = [reader.read_answer() for _ in pairs]
    assert answers == [a for _, a in pairs]


def test_thousand_pipelined_inserts_all_land(writer, sql, pipe):
    sql.refill("sink", [])
    lines = [hs.open_request(1, "sink", ["k", "v"])]
    lines += [[1, "+", 2, k, f"s{k}"] for k in range(1, 1001)]
    writer.send_lines(lines)
    answers = [writer.read_answer() for _ in lines]
    assert answers == [["0", "1"]] * len(lines)
    assert sql.value("SELECT COUNT(*) FROM test.sink") == "1000"
    assert sql.value("SELECT SUM(k) FROM test.sink") == str(1000 * 1001 // 2)


def test_pipeline_split_at_every_byte_boundary_still_parses(reader, pipe):
    data = hs.encode_line(hs.open_request(1, "pipe", ["v"])) + b"1\t=\t1\t7\n" * 3
    for i in range(len(data)):
        reader.send_raw(data[i:i + 1])
    answers = [reader.read_answer() for _ in range(4)]
    assert answers == [["0", "1"]] + [["0", "1", "v7"]] * 3


def test_500_concurrent_connections_each_get_their_own_answer(target, pipe):
    count = 500
    barrier = threading.Barrier(count, timeout=120)

    def one(k):
        with hs.Connection(target.port) as conn:
            barrier.wait()      # all connections are open before anyone asks
            conn.send_lines([hs.open_request(1, "pipe", ["k", "v"]), [1, "=", 1, k]])
            return conn.read_answer(), conn.read_answer()

    with ThreadPoolExecutor(max_workers=count) as pool:
        results = list(pool.map(one, range(1, count + 1)))
    for k, (opened, found) in enumerate(results, start=1):
        assert opened == ["0", "1"]
        assert found == ["0", "2", str(k), f"v{k}"]


def pipe_reader(target):
    """A new read connection with index id 1 open on test.pipe's v."""
    conn = hs.Connection(target.port)
    conn.send_lines([hs.open_request(1, "pipe", ["v"])])
    assert conn.read_answer() == ["0", "1"]
    return conn


def test_requests_that_arrive_while_their_connection_is_served_are_answered(target, pipe):
    """Any free worker serves a connection, and only one at a time: bytes that arrive
    while one serves it must make that worker serve it again, not be left unread.
    16 connections each send 300 requests in two pieces, the second while the first
    may be in a batch, mixed with pipelined bursts; every answer arrives, in order."""
    def one(t):
        with pipe_reader(target) as conn:
            for i in range(300):
                k = (t * 300 + i) % KEYS + 1
                line = hs.encode_line([1, "=", 1, k])
                if i % 50 == 49:
                    conn.send_raw(line * 20)
                    assert [conn.read_answer() for _ in range(20)] == [["0", "1", f"v{k}"]] * 20
                    continue
                conn.send_raw(line[:3])
                conn.send_raw(line[3:])
                assert conn.read_answer() == ["0", "1", f"v{k}"]
        return True

    with ThreadPoolExecutor(max_workers=16) as pool:
        assert all(pool.map(one, range(16)))


def test_connections_that_come_and_go_leave_the_others_served(target, pipe):
    """A closed connection is freed only once no worker can still hold an event for
    it. 4 clients open connections, ask, and close them (half with a reset, half after
    the answer) 300 times each, while 4 others keep pipelining on theirs: every
    answer arrives (under the ASan job, a connection freed too early aborts the
    server)."""
    def steady(t):
        with pipe_reader(target) as conn:
            for i in range(500):
                k = (t * 500 + i) % KEYS + 1
                conn.send_raw(hs.encode_line([1, "=", 1, k]) * 4)
                assert [conn.read_answer() for _ in range(4)] == [["0", "1", f"v{k}"]] * 4
        return True

    def churn(t):
        for i in range(300):
            conn = hs.Connection(target.port)
            conn.send_lines([hs.open_request(1, "pipe", ["v"]), [1, "=", 1, 7]])
            if i % 2:
                conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            else:
                assert [conn.read_answer(), conn.read_answer()] == [["0", "1"], ["0", "1", "v7"]]
            conn.close()
        return True

    with ThreadPoolExecutor(max_workers=8) as pool:
        done = [pool.submit(steady, t) for t in range(4)] + [pool.submit(churn, t) for t in range(4)]
        assert all(f.result() for f in done)


def modify(index_id, op, keys, mop, values=()):
    return hs.find(index_id, op, keys, 1, 0, [mop, *values])


def test_pipelined_changes_through_open_indexes_of_one_table_each_use_their_own_index(
        writer, sql):
    # Changes through several open indexes of one table run in one batch (one write,
    # one connection) and may share one index scan: ids 1, 2 and 4 open PRIMARY with
    # different columns, id 3 the unique index u, whose values name other rows' keys.
    sql.create_table("multi", "k INT PRIMARY KEY, u INT NOT NULL, a VARCHAR(10), "
                     "b VARCHAR(10), UNIQUE KEY u (u)",
                     [(k, 11 - k, f"a{k}", f"b{k}") for k in range(1, 11)])
    lines = [hs.open_request(1, "multi", ["a"]), hs.open_request(2, "multi", ["b"]),
             hs.open_request(3, "multi", ["a"], index="u"),
             hs.open_request(4, "multi", ["a", "b"])]
    lines += [modify(1, "=", [1], "U", ["A1"]), modify(2, "=", [2], "U", ["B2"]),
              modify(3, "=", [3], "U", ["U3"]), modify(1, "=", [4], "U", ["A4"]),
              modify(3, "=", [5], "D"), modify(4, "=", [7], "U", ["A7", "B7"]),
              modify(2, "=", [9], "U", ["B9"])]
    writer.send_lines(lines)
    answers = [writer.read_answer() for _ in lines]
    assert answers == [["0", "1"]] * 4 + [["0", "1", "1"]] * 7
    rows = {int(k): (a, b) for k, a, b in sql.rows("SELECT k, a, b FROM test.multi")}
    expected = {k: (f"a{k}", f"b{k}") for k in range(1, 11)}
    expected[1] = ("A1", "b1")
    expected[2] = ("a2", "B2")
    expected[8] = ("U3", "b8")  # u = 3 is k = 8
    expected[4] = ("A4", "b4")
    del expected[6]             # u = 5 is k = 6
    expected[7] = ("A7", "B7")
    expected[9] = ("a9", "B9")
    assert rows == expected


def test_pipelined_finds_through_open_indexes_of_one_table_each_read_their_own_columns(
        reader, sql):
    # Finds through several open indexes of one table run in one batch and share an
    # index scan where they read the same columns of the same index: ids 1 and 3 open
    # PRIMARY with column a, id 2 with b, id 4 with b and a, id 5 the unique index u
    # with a; each answer holds its own index's columns.
    sql.create_table("multiread", "k INT PRIMARY KEY, u INT NOT NULL, a VARCHAR(10), "
                     "b VARCHAR(10), UNIQUE KEY u (u)",
                     [(k, 11 - k, f"a{k}", f"b{k}") for k in range(1, 11)])
    opens = [hs.open_request(1, "multiread", ["a"]), hs.open_request(2, "multiread", ["b"]),
             hs.open_request(3, "multiread", ["a"]),
             hs.open_request(4, "multiread", ["b", "a"]),
             hs.open_request(5, "multiread", ["a"], index="u")]
    finds = [(1, 1), (2, 2), (3, 3), (1, 4), (4, 5), (5, 3), (2, 7), (3, 8), (4, 9), (1, 10)]
    lines = opens + [hs.find(i, "=", [k]) for i, k in finds]
    reader.send_lines(lines)
    answers = [reader.read_answer() for _ in lines]
    columns = {1: lambda k: [f"a{k}"], 2: lambda k: [f"b{k}"], 3: lambda k: [f"a{k}"],
               4: lambda k: [f"b{k}", f"a{k}"], 5: lambda u: [f"a{11 - u}"]}
    expected = [["0", "1"]] * len(opens)
    expected += [["0", str(len(columns[i](k)))] + columns[i](k) for i, k in finds]
    assert answers == expected
