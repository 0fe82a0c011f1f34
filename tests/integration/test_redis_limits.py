"""The Redis listener within its bounds: the Rowsocket_redis_* counters are INFO's,
hostile clients (huge bulk headers, endless inline lines, huge argument counts,
pipelines never read, MULTIs that queue without end) keep the server's memory and
descriptors bounded while others are served, a slow reader of big MGET replies does
not stall the worker's other clients, and a client gone mid-MULTI or mid-EXEC leaves
no transaction or row lock behind.

Memory is counted where the plugin counts it (rowsocket_max_input_memory's budget,
answers held to rowsocket_max_answer_size) and else read from the server's resident
set (VmRSS). One worker: every connection is served by the same one.
"""

import os
import socket
import threading
import time

import pytest

import harness
from db import Sql
from memcached_support import wait_for_default_container
from redis_reference import Resp, encode
from targets import rowsocket_only
from test_memory_bounds import rss, status

pytestmark = rowsocket_only

MIB = 1 << 20
MAX_ANSWER_SIZE = 4 * MIB
MAX_OUTPUT_BUFFER = 1 * MIB
MAX_INPUT_MEMORY = 16 * MIB
BIG = bytes((i * 7) % 251 for i in range(900_000))  # under proto-max-bulk-len (1 MiB)
# What the server allocates besides the buffers the bounds are about (allocator
# arenas, socket buffers): far below what each attack grows memory by unbounded.
ALLOWANCE = 32 * MIB


@pytest.fixture(scope="module")
def redis_port():
    return harness.free_ports(1)[0]


@pytest.fixture(scope="module")
def server_options(redis_port):
    return {"redis_port": redis_port, "redis_threads": 1, "max_answer_size": MAX_ANSWER_SIZE,
            "max_output_buffer": MAX_OUTPUT_BUFFER, "max_input_memory": MAX_INPUT_MEMORY}


@pytest.fixture(scope="module")
def container(sql):
    wait_for_default_container(sql)


@pytest.fixture
def raw(redis_port, container, sql):
    sql.execute("DELETE FROM rowsocket.kv")
    conn = Resp(redis_port)
    # Accepted (and counted) once it has been answered.
    assert conn.command("PING") == b"+PONG\r\n"
    yield conn
    conn.close()


def descriptors(server):
    return len(os.listdir(f"/proc/{server.proc.pid}/fd"))


def wait_for(predicate, what, bound=30.0):
    deadline = time.monotonic() + bound
    while not predicate():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def connect(port):
    return socket.create_connection(("127.0.0.1", port), timeout=30)


def read_to_end(sock, limit=1 << 16):
    """What the server sends until it closes the connection (at most `limit` bytes)."""
    got = b""
    try:
        while len(got) < limit:
            chunk = sock.recv(65536)
            if not chunk:
                break
            got += chunk
    except (ConnectionResetError, socket.timeout):
        pass
    return got


def info_stats(raw):
    reply = raw.command("INFO", "stats")
    fields = {}
    for line in reply.split(b"\r\n")[1:]:
        if b":" in line:
            name, value = line.decode().split(":", 1)
            fields[name] = int(value) if value.isdigit() else value
    return fields


# -- the counters ------------------------------------------------------------------

REDIS_STATUS = ["redis_commands_processed", "redis_connections_received",
                "redis_connections_rejected", "redis_keyspace_hits", "redis_keyspace_misses",
                "redis_bytes_received", "redis_bytes_sent", "redis_errors"]

def test_redis_status_counters_count_and_are_what_INFO_shows(raw, sql, redis_port):
    before = {n: status(sql, n) for n in REDIS_STATUS}
    other = Resp(redis_port)
    try:
        assert other.command("SET", "a", "1") == b"+OK\r\n"
        assert other.command("GET", "a") == b"$1\r\n1\r\n"
        assert other.command("GET", "nosuch") == b"$-1\r\n"
        assert other.command("MGET", "a", "nosuch", "a") == b"*3\r\n$1\r\n1\r\n$-1\r\n$1\r\n1\r\n"
        assert other.command("NOSUCHCOMMAND").startswith(b"-ERR unknown command")
        assert other.command("INCR", "a", "b").startswith(b"-ERR wrong number")
    finally:
        other.close()
    info = info_stats(raw)
    after = {n: status(sql, n) for n in REDIS_STATUS}
    grown = {n: after[n] - before[n] for n in REDIS_STATUS}
    assert grown["redis_connections_received"] == 1
    assert grown["redis_keyspace_hits"] == 3 and grown["redis_keyspace_misses"] == 2
    assert grown["redis_errors"] == 2
    # INFO included; the unknown command and the wrong arity are refused unrun.
    assert grown["redis_commands_processed"] == 5
    assert grown["redis_bytes_received"] > 0 and grown["redis_bytes_sent"] > 0
    # INFO reads the same counters (its own command and reply counted after it).
    assert info["total_commands_processed"] == after["redis_commands_processed"] - 1
    assert info["total_connections_received"] == after["redis_connections_received"]
    assert info["rejected_connections"] == after["redis_connections_rejected"]
    assert info["keyspace_hits"] == after["redis_keyspace_hits"]
    assert info["keyspace_misses"] == after["redis_keyspace_misses"]
    assert info["total_error_replies"] == after["redis_errors"]
    assert info["total_net_input_bytes"] == after["redis_bytes_received"]
    assert info["total_net_output_bytes"] < after["redis_bytes_sent"]


# -- hostile clients ---------------------------------------------------------------

def test_hostile_framing_is_answered_and_closed_and_others_are_served(
        raw, sql, server, redis_port):
    # Rounds of hostile connections, each closed by the server: what a closed
    # connection held goes back at its close, so the rounds add nothing up.
    assert raw.command("SET", "small", "s") == b"+OK\r\n"
    fds_before = descriptors(server)
    before = rss(server)
    too_big = b"-ERR Protocol error: too big request\r\n"  # (past the input budget)
    attacks = {
        # A bulk header far past proto-max-bulk-len, then nothing.
        b"*2\r\n$3\r\nSET\r\n$1000000000\r\n": b"-ERR Protocol error: invalid bulk length\r\n",
        # An inline line without end.
        b"x" * 200_000: b"-ERR Protocol error: too big inline request\r\n",
        # A count of two billion arguments, each empty, without end.
        b"*2147483647\r\n" + b"$0\r\n\r\n" * 200_000: too_big,
    }
    answered = set()
    for _ in range(6):
        socks = []
        try:
            for data, answer in attacks.items():
                for _ in range(30):
                    s = connect(redis_port)
                    try:
                        s.sendall(data)
                    except OSError:  # closed by the server before all was sent
                        pass
                    socks.append((s, answer))
                assert raw.command("GET", "small") == b"$1\r\ns\r\n"
            for s, answer in socks:
                got = read_to_end(s)
                # (b"": the server's close reset the connection before its answer was read)
                assert got in (answer, too_big, b""), got[:100]
                if got:
                    answered.add(answer)
        finally:
            for s, _ in socks:
                s.close()
    assert answered == set(attacks.values())
    grown = rss(server) - before
    assert grown < MAX_INPUT_MEMORY + ALLOWANCE, f"mariadbd grew by {grown >> 20} MiB"
    wait_for(lambda: descriptors(server) <= fds_before + 2, "the closed connections' "
             "descriptors stayed open")
    assert raw.command("GET", "small") == b"$1\r\ns\r\n"


def test_multis_that_queue_without_end_stay_within_the_input_budget(raw, redis_port):
    # (Each command within one read: past the budget, a longer one still unfinished
    # after a read closes its connection.)
    value = b"q" * 50_000
    clients = [Resp(redis_port) for _ in range(6)]
    queued = refused = 0
    try:
        for c in clients:
            assert c.command("MULTI") == b"+OK\r\n"
        for _ in range(80):  # 24 MB queued in all, without the budget
            for c in clients:
                reply = c.command("SET", "k", value)
                if reply == b"+QUEUED\r\n":
                    queued += 1
                else:
                    assert reply == b"-ERR rowsocket: the transaction is too large\r\n"
                    refused += 1
        # The listener's input budget (16 MiB) holds the queued commands too.
        assert refused > 0 and queued * len(value) <= MAX_INPUT_MEMORY + 6 * len(value)
        for c in clients:
            assert c.command("EXEC").startswith(b"-EXECABORT")
    finally:
        for c in clients:
            c.close()
    # Their queues and input given back, the budget serves again.
    def queues():
        assert raw.command("MULTI") == b"+OK\r\n"
        if raw.command("SET", "k", value) == b"+QUEUED\r\n":
            return raw.command("EXEC") == b"*1\r\n+OK\r\n"
        assert raw.command("DISCARD") == b"+OK\r\n"
        return False
    wait_for(queues, "the budget stayed spent after the MULTIs ended")


def test_an_EXEC_reply_is_held_to_the_answer_size(raw, sql):
    assert raw.command("SET", "big", BIG) == b"+OK\r\n"
    assert raw.command("MULTI") == b"+OK\r\n"
    assert raw.command("SET", "touched", "new") == b"+QUEUED\r\n"
    for _ in range(30):  # 27 MB of replies
        assert raw.command("GET", "big") == b"+QUEUED\r\n"
    assert raw.command("EXEC") == (
        b"-ERR rowsocket: the answer would pass rowsocket_max_answer_size\r\n")
    # All or nothing: the SET before the replies grew too big is undone.
    assert raw.command("EXISTS", "touched") == b":0\r\n"
    assert raw.command("MULTI") == b"+OK\r\n"
    assert raw.command("GET", "big") == b"+QUEUED\r\n"
    assert raw.command("EXEC") == b"*1\r\n$%d\r\n%s\r\n" % (len(BIG), BIG)


def test_a_slow_reader_of_big_MGET_replies_does_not_stall_the_other_clients(
        raw, sql, server, redis_port):
    assert raw.command("SET", "big", BIG) == b"+OK\r\n"
    assert raw.command("SET", "small", "s") == b"+OK\r\n"
    before_rss = rss(server)
    before_deferred = status(sql, "requests_deferred")
    hogs = [connect(redis_port) for _ in range(3)]
    try:
        # Each asks for 200 replies of 3.6 MB (720 MB) and reads none of them.
        for h in hogs:
            h.sendall(encode("MGET", "big", "big", "big", "big") * 200)
        wait_for(lambda: status(sql, "requests_deferred") >= before_deferred + len(hogs),
                 "the server kept answering clients that do not read", bound=60)
        for _ in range(20):
            assert raw.command("GET", "small") == b"$1\r\ns\r\n"
        grown = rss(server) - before_rss
        bound = len(hogs) * 2 * (MAX_OUTPUT_BUFFER + MAX_ANSWER_SIZE) + ALLOWANCE
        assert grown < bound, f"mariadbd grew by {grown >> 20} MiB (bound {bound >> 20} MiB)"
        # What a hog reads is its first replies, whole.
        hogs[0].settimeout(30)
        head = b""
        while len(head) < 20:
            head += hogs[0].recv(20 - len(head))
        assert head.startswith(b"*4\r\n$%d\r\n" % len(BIG))
    finally:
        for h in hogs:
            h.close()


# -- clients gone mid-transaction --------------------------------------------------

def update_within_lock_wait(server, key):
    """A SQL UPDATE of `key`'s row that waits at most 2 s for its lock."""
    sql = Sql(server)
    try:
        sql.execute("SET SESSION innodb_lock_wait_timeout = 2")
        sql.execute("UPDATE rowsocket.kv SET v = 'sql' WHERE k = %s", (key,))
        sql.execute("COMMIT")
    finally:
        sql.close()


def test_a_client_gone_mid_MULTI_leaves_no_transaction(raw, sql, server, redis_port):
    assert raw.command("SET", "m", "0") == b"+OK\r\n"
    s = connect(redis_port)
    s.sendall(encode("MULTI") + encode("SET", "m", "1") + encode("INCR", "m"))
    got = b""
    while got.count(b"\r\n") < 3:
        got += s.recv(4096)
    assert got == b"+OK\r\n+QUEUED\r\n+QUEUED\r\n"
    s.close()
    update_within_lock_wait(server, "m")
    assert raw.command("GET", "m") == b"$3\r\nsql\r\n"


def test_a_client_gone_mid_EXEC_leaves_no_transaction_or_row_lock(raw, sql, server, redis_port):
    assert raw.command("SET", "e", "0") == b"+OK\r\n"
    waits_before = status(sql, "lock_waits")
    holder = Sql(server)
    s = connect(redis_port)
    try:
        # The row is held by SQL: the EXEC waits for it, and its client goes.
        holder.execute("BEGIN")
        holder.execute("UPDATE rowsocket.kv SET v = 'held' WHERE k = 'e'")
        s.sendall(encode("MULTI") + encode("SET", "e", "1") + encode("SET", "f", "1") +
                  encode("EXEC"))
        got = b""
        while got.count(b"\r\n") < 3:
            got += s.recv(4096)
        assert got == b"+OK\r\n+QUEUED\r\n+QUEUED\r\n"
        wait_for(lambda: status(sql, "lock_waits") > waits_before, "the EXEC met no lock")
        s.close()
        holder.execute("COMMIT")
    finally:
        s.close()
        holder.close()
    update_within_lock_wait(server, "e")
    update_within_lock_wait(server, "f")
    assert raw.command("PING") == b"+PONG\r\n"


def test_commands_and_errors_count_as_redis_counts_them(raw):
    # The same commands and transactions against a live redis-server (refused ones,
    # queued ones, ones an EXEC runs): INFO's figures grow alike.
    import redis_reference
    sequence = [("SET", "t:s", "abc"), ("NOSUCHCOMMAND",), ("GET",), ("MULTI",), ("SET", "t:a", "1"), ("INCR", "t:s"),
                ("GET", "t:a"), ("EXEC",), ("MULTI",), ("NOSUCHCOMMAND",), ("SET", "t:b", "2"),
                ("EXEC",), ("MULTI",), ("GET", "t:a"), ("DISCARD",), ("EXEC",)]

    def grown(conn):
        before = info_stats(conn)
        replies = [conn.command(*argv) for argv in sequence]
        after = info_stats(conn)
        return replies, {n: after[n] - before[n]
                         for n in ("total_commands_processed", "total_error_replies")}

    with redis_reference.running_redis() as reference:
        theirs = Resp(reference.port)
        try:
            expected = grown(theirs)
        finally:
            theirs.close()
    assert grown(raw) == expected
