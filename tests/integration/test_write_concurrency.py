"""Concurrent writers: row locks, lock-wait timeouts, duplicates, deadlocks, lost clients.

rowsocket has several write workers and no global lock: InnoDB's row locks decide
conflicts. A worker runs every write request it has ready as one transaction, commits,
then answers; each answer must tell the truth about its own request (success means
committed, an error means no effect), whatever its neighbours in the batch did.

The server runs three write workers and `rowsocket_lock_wait_timeout=2`. No worker
waits for a lock: a request that meets one waits apart, with its connection's later
requests behind it (`Rowsocket_lock_waits` counts each such wait), and is tried again
until the lock is gone or its lock wait timeout has passed; everything else goes on.
So rowsocket never holds a row lock while it waits for another, and takes no part in
a deadlock. No test asserts a timing; the only time bounds are generous liveness
bounds.
"""

import select
import socket
import struct
import threading
import time

import pytest

import hs
import targets
from db import Sql
from harness import MariaDB

pytestmark = targets.rowsocket_only

LOCK_WAIT_TIMEOUT = 2       # rowsocket_lock_wait_timeout of this module's server
LIVENESS = 30               # seconds: something is wrong, not slow, beyond this
OK1 = ["0", "1", "1"]       # one row changed
LOCK_TIMEOUT = ["1", "1", "146"]
DUP_KEY = ["1", "1", "121"]
HOT_ROWS = 200


@pytest.fixture(scope="module")
def server_options():
    return {"threads_wr": 3, "lock_wait_timeout": LOCK_WAIT_TIMEOUT}


@pytest.fixture(scope="module")
def tables(sql):
    # Whether rowsocket_lock_wait_timeout holds right after start-up is the concern of
    # test_lock_wait_timeout_is_in_effect_from_the_first_request alone (it once took a
    # worker about a second); the other tests start later, so such a regression
    # fails that test only.
    wait_for(lambda: status(sql, "Uptime") >= 3, "the server to be up for 2 s")
    sql.create_table("hot", "k INT PRIMARY KEY, n INT NOT NULL")
    sql.create_table("uniq", "k INT PRIMARY KEY, u INT, v VARCHAR(20) NOT NULL, UNIQUE KEY uu (u)")
    sql.create_table("gone", "k INT PRIMARY KEY, n INT NOT NULL")


@pytest.fixture
def hot(sql, tables):
    """test.hot with rows k = 1..HOT_ROWS, n = 0; no transaction left open."""
    sql.refill("hot", [(k, 0) for k in range(1, HOT_ROWS + 1)])
    yield
    wait_for(lambda: open_transactions(sql) == [], "every transaction to end (one was left open)",
             interval=TRX_POLL)


# -- helpers -------------------------------------------------------------------------

def wait_for(predicate, what, timeout=LIVENESS, interval=0.01):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting after {timeout}s for {what}")
        time.sleep(interval)


# InnoDB refreshes information_schema.innodb_trx only when it was last read more
# than 0.1 s ago: poll it more slowly than that, or it never changes.
TRX_POLL = 0.15


def wait_for_lock_waits(sql, before, n, what):
    """Until `n` requests more than `before` have met a lock and wait apart."""
    wait_for(lambda: status(sql, "Rowsocket_lock_waits") - before >= n, what)


def open_transactions(sql):
    return sql.rows("SELECT trx_id, trx_state, trx_mysql_thread_id, trx_rows_locked, "
                    "trx_rows_modified FROM information_schema.innodb_trx")


def status(sql, name):
    rows = sql.rows("SHOW GLOBAL STATUS LIKE %s", (name,))
    assert len(rows) == 1, f"no status variable {name}"
    return int(rows[0][1])


def n_values(sql, keys):
    found = dict(sql.rows("SELECT k, n FROM test.hot WHERE k IN (%s)" %
                          ",".join(str(int(k)) for k in keys)))
    return {k: int(found[str(k)]) for k in keys}


def increment(k, by=1):
    """`+` on test.hot's n, index id 1 = (n) on PRIMARY: answers `0 1 1`."""
    return [1, "=", 1, k, 1, 0, "+", by]


def in_request_order(requests):
    """`+` lines for (key, amount) pairs, the first asked as `>=` with LIMIT 1: the same
    row, but not a single-row key lookup, so the batch takes its row locks in
    request order (see the lock order tests), which a deadlock set-up relies on."""
    lines = [increment(k, by) for k, by in requests]
    lines[0][1] = ">="
    return lines


def has_answer(conn):
    """True when an answer byte has arrived on `conn`, without waiting for one."""
    if conn.buf:
        return True
    readable, _, _ = select.select([conn.sock], [], [], 0)
    return bool(readable)


class RowHolder:
    """A SQL transaction holding row locks until released."""

    def __init__(self, server):
        self.sql = Sql(server)
        self.sql.execute("SET SESSION innodb_lock_wait_timeout = 60")
        self.sql.execute("BEGIN")
        self.open = True

    def lock(self, table, k):
        self.sql.rows(f"SELECT * FROM test.{table} WHERE k = %s FOR UPDATE", (k,))

    def commit(self):
        self.sql.execute("COMMIT")
        self.open = False

    def close(self):
        if self.sql is None:
            return
        if self.open:
            self.sql.execute("ROLLBACK")
            self.open = False
        self.sql.close()
        self.sql = None


@pytest.fixture
def holder(server):
    h = RowHolder(server)
    yield h
    h.close()


def reset(conn):
    """Closes a socket with a RST: the client vanishes without a goodbye."""
    conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.close()


def update_without_waiting(server, statement):
    """Runs `statement` on a fresh SQL connection that gives up on a row lock after 5 s
    (rows rowsocket left locked would fail it); returns the rows it changed."""
    other = Sql(server)
    try:
        other.execute("SET SESSION innodb_lock_wait_timeout = 5")
        return other.execute(statement)
    finally:
        other.close()


def wait_until_nothing_is_left(sql, connections_before):
    """Waits until rowsocket has closed the vanished client's connection (which it
    does only once the batch in hand is done), then until InnoDB has no transaction."""
    wait_for(lambda: status(sql, "Rowsocket_connections_write") == connections_before,
             "rowsocket to close the vanished client's connection")
    wait_for(lambda: open_transactions(sql) == [], "information_schema.innodb_trx to be empty",
             interval=TRX_POLL)


def writer_on(target, table="hot", columns=("n",)):
    """A new write connection with index id 1 open."""
    conn = hs.Connection(target.port_wr)
    conn.open_index(1, table, list(columns))
    return conn


# -- row locks -----------------------------------------------------------------------

def test_blocked_row_answers_146_while_writes_to_other_rows_keep_flowing(target, sql, hot,
                                                                          holder):
    """Two rowsocket writers fight a SQL transaction over row 1; the writes of a third
    client complete while both wait apart; every request on row 1 answers `1 1 146`
    after rowsocket_lock_wait_timeout (a connection waits once: its later requests
    of the same batch answer at once) and changes nothing; the rows stay usable."""
    waits = 3
    timeouts_before = status(sql, "Rowsocket_lock_wait_timeouts")
    waits_before = status(sql, "Rowsocket_lock_waits")
    third = writer_on(target)
    assert third.request(increment(HOT_ROWS)) == OK1
    holder.lock("hot", 1)
    with writer_on(target) as first, third:
        first.send_lines([increment(1)] * waits)
        wait_for_lock_waits(sql, waits_before, 1, "the first writer to wait for row 1")
        second = writer_on(target)
        second.send_lines([increment(1, 10)] * waits)
        wait_for_lock_waits(sql, waits_before, 2, "the second writer to wait for row 1")

        # Both wait apart; the third client is served meanwhile.
        keys = list(range(2, HOT_ROWS))
        for start in range(0, len(keys), 50):
            chunk = keys[start:start + 50]
            third.send_lines([increment(k) for k in chunk])
            assert [third.read_answer() for _ in chunk] == [OK1] * len(chunk)
        # Still fighting: the third client did not wait for the row-1 writers.
        assert not has_answer(first) and not has_answer(second), \
            "a row-1 writer answered before the third client finished: the third " \
            "client's writes waited for the blocked row"
        assert n_values(sql, keys + [HOT_ROWS]) == {k: 1 for k in keys + [HOT_ROWS]}

        assert [first.read_answer() for _ in range(waits)] == [LOCK_TIMEOUT] * waits
        assert [second.read_answer() for _ in range(waits)] == [LOCK_TIMEOUT] * waits
        assert n_values(sql, [1]) == {1: 0}
        assert status(sql, "Rowsocket_lock_wait_timeouts") - timeouts_before == 2 * waits

        # The holder's own change commits; the same connections then write the row.
        holder.sql.execute("UPDATE test.hot SET n = n + 100 WHERE k = 1")
        holder.commit()
        assert first.request(increment(1)) == OK1
        assert second.request(increment(1, 10)) == OK1
        second.close()
    assert n_values(sql, [1]) == {1: 111}


def test_writers_waiting_apart_hold_up_no_other_clients_durable_answers(target, sql, hot,
                                                                          holder):
    """Two writers wait apart for row 1 (for an hour: rowsocket_lock_wait_timeout is
    raised for the test) while a third client sends 1600 batches of increments to
    other rows. The write workers take turns with the waiting writers' retries and
    with the log flush's wake-ups; whichever worker a wake-up reaches, also one that
    has committed nothing itself, sends the answers that became durable. Every batch
    of the third client is answered (a stall fails the read's timeout), and SQL shows
    every increment."""
    sql.execute("SET GLOBAL rowsocket_lock_wait_timeout = 3600")
    conns = []
    try:
        waits_before = status(sql, "Rowsocket_lock_waits")
        third = writer_on(target)
        conns.append(third)
        assert third.request(increment(HOT_ROWS)) == OK1
        holder.lock("hot", 1)
        for n, by in enumerate((1, 10), 1):
            waiter = writer_on(target)
            conns.append(waiter)
            waiter.send_lines([increment(1, by)] * 3)
            wait_for_lock_waits(sql, waits_before, n, f"writer {n} to wait for row 1")
        third.sock.settimeout(LIVENESS)
        keys = list(range(2, HOT_ROWS))
        rounds = 400
        for _ in range(rounds):
            for start in range(0, len(keys), 50):
                chunk = keys[start:start + 50]
                third.send_lines([increment(k) for k in chunk])
                assert [third.read_answer() for _ in chunk] == [OK1] * len(chunk)
        assert n_values(sql, keys) == {k: rounds for k in keys}
        assert n_values(sql, [1]) == {1: 0}
        holder.commit()
        for waiter in conns[1:]:
            assert [waiter.read_answer() for _ in range(3)] == [OK1] * 3
        assert n_values(sql, [1]) == {1: 33}
    finally:
        sql.execute(f"SET GLOBAL rowsocket_lock_wait_timeout = {LOCK_WAIT_TIMEOUT}")
        for conn in conns:
            conn.close()


def innodb_row_lock_waits(sql):
    return int(sql.rows("SHOW GLOBAL STATUS LIKE 'Innodb_row_lock_waits'")[0][1])


def test_a_batch_waits_for_row_locks_once(target, sql, hot, holder):
    """A pipeline of requests on a locked row waits one lock wait, not one each:
    after the first request's wait ends in vain, the batch's later requests that meet
    a locked row answer `1 1 146` at once. No thread of rowsocket ever sleeps on the
    lock (InnoDB counts no lock wait): the request waits apart and is tried again.
    Requests on free rows commit; the next batch waits again."""
    holder.lock("hot", 1)
    innodb_waits_before = innodb_row_lock_waits(sql)
    with writer_on(target) as conn:
        conn.send_lines([increment(1)] * 3 + [increment(2)])
        assert [conn.read_answer() for _ in range(4)] == [LOCK_TIMEOUT] * 3 + [OK1]
        assert innodb_row_lock_waits(sql) == innodb_waits_before
        waits_before = status(sql, "Rowsocket_lock_waits")
        conn.send_lines([increment(1)])
        wait_for_lock_waits(sql, waits_before, 1, "the next batch to wait for row 1")
        holder.commit()
        assert conn.read_answer() == OK1
    assert n_values(sql, [1, 2]) == {1: 1, 2: 1}


def test_lock_wait_timeout_is_in_effect_from_the_first_request(tmp_path):
    """A row lock met right after mariadbd starts is bounded too. (The table comes
    from --init-file so that the request can be sent within a second of start-up.)"""
    init = tmp_path / "init.sql"
    init.write_text("CREATE DATABASE IF NOT EXISTS test;\n"
                    "CREATE TABLE test.early (k INT PRIMARY KEY, n INT NOT NULL) ENGINE=InnoDB;\n"
                    "INSERT INTO test.early VALUES (1, 0);\n")
    plugin = targets.make_plugin({"lock_wait_timeout": 1})
    server = MariaDB([plugin], [f"--init-file={init}"]).start()
    try:
        holder = RowHolder(server)
        try:
            holder.lock("early", 1)
            with writer_on(plugin, "early") as conn:
                conn.send_lines([increment(1)])
                try:
                    answer = conn.read_answer()
                except socket.timeout:
                    pytest.fail(f"no answer within {hs.TIMEOUT:.0f}s: right after start-up the "
                                "request waited innodb_lock_wait_timeout (50 s), not "
                                "rowsocket_lock_wait_timeout (1 s)")
                assert answer == LOCK_TIMEOUT
        finally:
            holder.close()
    finally:
        server.stop()


def test_lock_wait_timeout_fails_only_its_own_request_in_a_pipeline(target, sql, hot, holder):
    """The timed-out request changes nothing; its neighbours in the same batch commit
    (they are visible while the holder still has row 1 locked)."""
    holder.lock("hot", 1)
    with writer_on(target) as conn:
        conn.send_lines([increment(2), increment(1), increment(3), [1, "=", 1, 4, 1, 0, "U", 7]])
        answers = [conn.read_answer() for _ in range(4)]
        assert answers == [OK1, LOCK_TIMEOUT, OK1, OK1]
        assert n_values(sql, [1, 2, 3, 4]) == {1: 0, 2: 1, 3: 1, 4: 7}
        holder.commit()
        assert conn.request(increment(1)) == OK1
    assert n_values(sql, [1, 2, 3, 4]) == {1: 1, 2: 1, 3: 1, 4: 7}


# -- duplicate keys ------------------------------------------------------------------

def test_duplicate_key_in_a_pipeline_fails_only_its_own_request(writer, sql, tables):
    sql.refill("uniq", [(1, 1, "a"), (2, 2, "b")])
    writer.open_index(1, "uniq", ["k", "u", "v"])
    pipeline = [
        ([1, "+", 3, 10, 10, "x"], ["0", "1"]),
        ([1, "+", 3, 1, 99, "dup pk"], DUP_KEY),
        ([1, "+", 3, 11, 11, "y"], ["0", "1"]),
        ([1, "+", 3, 12, 2, "dup unique"], DUP_KEY),
        ([1, "+", 3, 10, 20, "dup of this batch"], DUP_KEY),
        ([1, "=", 1, 11, 1, 0, "U", 2, 11, "pk onto row 2"], DUP_KEY),
        ([1, "=", 1, 10, 1, 0, "U", 10, 1, "u onto row 1"], DUP_KEY),
        ([1, "+", 3, 13, 13, None], ["1", "1", "1048"]),
        ([1, "=", 1, 2, 1, 0, "D"], OK1),
        ([1, "+", 3, 2, 2, "b again"], ["0", "1"]),
        ([1, "=", 1, 11, 1, 0, "U", 11, 11, "y2"], OK1),
        ([1, "+", 3, 14, 14, "z"], ["0", "1"]),
    ]
    writer.send_lines([request for request, _ in pipeline])   # one write: one batch
    answers = [writer.read_answer() for _ in pipeline]
    assert answers == [answer for _, answer in pipeline]
    assert sql.rows("SELECT k, u, v FROM test.uniq ORDER BY k") == [
        ("1", "1", "a"), ("2", "2", "b again"), ("10", "10", "x"), ("11", "11", "y2"),
        ("14", "14", "z")]


def test_concurrent_pipelines_with_duplicates_answer_truthfully(target, sql, tables):
    """Eight connections at once, every other insert a duplicate of an existing row:
    exactly the inserts answered `0 1` are in the table, in whichever batches the
    workers formed."""
    sql.refill("uniq", [(k, k, "old") for k in range(0, 4000, 2)])
    clients, per_client = 8, 250
    results = {}
    barrier = threading.Barrier(clients, timeout=LIVENESS)

    def run(c):
        keys = [c * per_client + i for i in range(per_client)]    # 0..1999: half exist
        with hs.Connection(target.port_wr) as conn:
            conn.open_index(1, "uniq", ["k", "u", "v"])
            barrier.wait()
            for start in range(0, per_client, 50):
                chunk = keys[start:start + 50]
                conn.send_lines([[1, "+", 3, k, 10000 + k, "new"] for k in chunk])
                for k in chunk:
                    results[k] = conn.read_answer()

    threads = [threading.Thread(target=run, args=(c,)) for c in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=LIVENESS * 2)
    assert not any(t.is_alive() for t in threads), "a client hung"
    assert len(results) == clients * per_client
    for k, answer in results.items():
        assert answer == (DUP_KEY if k % 2 == 0 else ["0", "1"]), (k, answer)
    new = {int(k) for (k,) in sql.rows("SELECT k FROM test.uniq WHERE v = 'new'")}
    assert new == {k for k, answer in results.items() if answer == ["0", "1"]}
    assert sql.value("SELECT COUNT(*) FROM test.uniq WHERE v = 'old'") == "2000"


# -- clients that vanish ---------------------------------------------------------------

def test_client_gone_while_its_batch_waits_for_a_lock_leaves_nothing_behind(server, target, sql,
                                                                            hot, holder):
    connections_before = status(sql, "Rowsocket_connections_write")
    holder.lock("hot", 1)
    conn = writer_on(target)
    waits_before = status(sql, "Rowsocket_lock_waits")
    conn.send_lines([increment(5), increment(1), increment(6)])
    wait_for_lock_waits(sql, waits_before, 1, "the request on row 1 to wait")
    reset(conn)
    holder.close()           # rolls back: row 1 is free before the lock wait ends
    wait_until_nothing_is_left(sql, connections_before)
    # The same rows are free for SQL, without any lock wait.
    statement = "UPDATE test.hot SET n = n + 1000 WHERE k IN (1, 5, 6)"
    assert update_without_waiting(server, statement) == 3
    values = n_values(sql, [1, 5, 6])
    assert all(v in (1000, 1001) for v in values.values()), values
    with writer_on(target) as conn:      # and rowsocket still writes them
        conn.send_lines([increment(1), increment(5), increment(6)])
        assert [conn.read_answer() for _ in range(3)] == [OK1] * 3


def test_client_gone_in_the_middle_of_a_pipeline_leaves_nothing_behind(server, target, sql,
                                                                       tables):
    """A client sends thousands of inserts and an unfinished line, then resets the
    connection. Requests run in order, each batch commits whole: the rows that landed
    are a prefix of those sent, the unfinished line is not a request, and no
    transaction or lock is left."""
    sql.refill("gone", [])
    connections_before = status(sql, "Rowsocket_connections_write")
    count = 3000
    conn = writer_on(target, "gone", ("k", "n"))
    data = b"".join(hs.encode_line([1, "+", 2, k, k]) for k in range(1, count + 1))
    conn.send_raw(data + b"1\t+\t2\t999999\t1")           # no LF: not a request yet
    reset(conn)
    wait_until_nothing_is_left(sql, connections_before)
    landed = [int(k) for (k,) in sql.rows("SELECT k FROM test.gone ORDER BY k")]
    assert landed == list(range(1, len(landed) + 1)), "rows landed out of order"

    # A client that stops reading a flood of `?` answers, then vanishes.
    sql.refill("gone", [(k, 0) for k in range(1, 1001)])
    conn = writer_on(target, "gone", ("n",))
    conn.send_lines([[1, ">=", 1, 1, 1000, 0, "+?", 1] for _ in range(100)])
    wait_for(lambda: int(sql.value("SELECT MIN(n) FROM test.gone")) > 0,
             "the first `+?` to commit")
    reset(conn)
    wait_until_nothing_is_left(sql, connections_before)
    assert update_without_waiting(server, "UPDATE test.gone SET n = -1") == 1000
    with writer_on(target, "gone", ("k", "n")) as again:
        assert again.request([1, "+", 2, 5000, 1]) == ["0", "1"]


# -- no deadlocks ----------------------------------------------------------------------
#
# rowsocket never waits for a lock: a request that meets one waits apart, and what
# its batch had done commits without it. So the cycles that deadlock when a waiting
# transaction holds locks (rowsocket against SQL, or two workers) never close.

def check_truth(sql, requests, answers, base):
    """`requests`: (key, amount) of each `+`; `answers` theirs. Each answer is a
    success or a lock wait timeout, and SQL holds `base` plus exactly the successes."""
    expected = dict(base)
    for (k, amount), answer in zip(requests, answers):
        assert answer in (OK1, LOCK_TIMEOUT), (k, amount, answer)
        if answer == OK1:
            expected[k] += amount
    found = n_values(sql, list(expected))
    assert found == expected, (f"SQL holds {found}, the answers {answers} to "
                               f"{requests} say {expected}")


def assert_writes_still_land(sql, conns):
    """After a deadlock, each connection's worker still commits what it answers."""
    for i, conn in enumerate(conns):
        k = HOT_ROWS - i
        before = n_values(sql, [k])[k]
        for _ in range(3):
            assert conn.request(increment(k)) == OK1
        assert n_values(sql, [k]) == {k: before + 3}, \
            "a worker answered `0 1 1` to writes it did not commit"


def test_a_request_waiting_apart_holds_no_lock_sql_waits_for(server, target, sql, hot):
    """SQL holds row 1 and then wants row 2; a rowsocket pipeline takes row 2 and then
    wants row 1 (in request order). Had the worker waited for row 1 holding row 2,
    that was a deadlock; here the increment of row 2 commits and is answered while SQL
    still holds row 1, SQL then gets row 2 at once, and the waiting requests complete
    once SQL commits. No deadlock on either side; SQL shows what the answers say."""
    requests = [(2, 1), (1, 1), (3, 1)]
    deadlocks_before = status(sql, "Rowsocket_deadlocks")
    waits_before = status(sql, "Rowsocket_lock_waits")
    holder = RowHolder(server)
    try:
        holder.sql.execute("UPDATE test.hot SET n = n + 100 WHERE k = 1")
        with writer_on(target) as conn:
            conn.send_lines(in_request_order(requests))
            assert conn.read_answer() == OK1        # row 2, while SQL holds row 1
            wait_for_lock_waits(sql, waits_before, 1, "the request on row 1 to wait")
            holder.sql.execute("UPDATE test.hot SET n = n + 100 WHERE k = 2")
            holder.commit()
            answers = [OK1] + [conn.read_answer() for _ in requests[1:]]
            check_truth(sql, requests, answers, {1: 100, 2: 100, 3: 0})
            assert answers == [OK1] * len(requests), answers
            assert status(sql, "Rowsocket_deadlocks") == deadlocks_before
            assert_writes_still_land(sql, [conn])
    finally:
        holder.close()


def test_pipelines_crossing_on_two_workers_wait_apart_without_deadlock(target, sql, hot,
                                                                        server):
    """SQL holds row 3. Pipeline A = [row 1, row 3 (x3), row 2] and pipeline B = [row 2,
    row 1], in request order. With workers that waited, A would hold row 1 waiting for
    row 3, B row 2 waiting for A's row 1, and once SQL let go, A would want B's row 2:
    a deadlock. Here A's increment of row 1 commits and the rest of A waits apart, B
    completes while SQL still holds row 3, and A completes once SQL commits. Every
    answer `0 1 1`, no deadlock, and SQL shows exactly the increments answered."""
    requests_a = [(1, 1), (3, 10), (3, 10), (3, 10), (2, 1)]
    requests_b = [(2, 100), (1, 1000)]
    deadlocks_before = status(sql, "Rowsocket_deadlocks")
    waits_before = status(sql, "Rowsocket_lock_waits")
    holder = RowHolder(server)
    try:
        holder.lock("hot", 3)
        with writer_on(target) as a, writer_on(target) as b:
            a.send_lines(in_request_order(requests_a))
            assert a.read_answer() == OK1
            wait_for_lock_waits(sql, waits_before, 1, "A to wait for row 3")
            b.send_lines(in_request_order(requests_b))
            answers_b = [b.read_answer() for _ in requests_b]
            assert answers_b == [OK1, OK1], answers_b
            assert not has_answer(a), "A was answered while SQL still held row 3"
            holder.commit()
            answers_a = [OK1] + [a.read_answer() for _ in requests_a[1:]]
            check_truth(sql, requests_a + requests_b, answers_a + answers_b,
                        {1: 0, 2: 0, 3: 0})
            assert answers_a == [OK1] * len(requests_a), answers_a
            assert status(sql, "Rowsocket_deadlocks") == deadlocks_before
            assert_writes_still_land(sql, [a, b])
    finally:
        holder.close()


# -- lock order ------------------------------------------------------------------------
#
# A group of requests that each touch one row by a whole unique key runs in key order
# (the answers still in request order), so that write workers never take the same
# rows' locks in opposite orders. What one connection asks must still happen in the
# order it asked.

def test_pipelines_in_opposite_key_orders_on_two_workers_do_not_deadlock(server, target, sql,
                                                                          hot):
    """Two connections send the same 150 increments, one in ascending and one in
    descending key order, while SQL holds the middle row; the second sends once the
    first waits. Each batch runs in key order and meets the middle row: it is rolled
    back and runs again without the middle row and what follows it in request order,
    which wait apart; once SQL lets go both complete: no deadlock, every answer
    `0 1 1`, every row increased by both."""
    keys = list(range(1, 151))
    conns = [writer_on(target), writer_on(target)]
    holder = RowHolder(server)
    try:
        up, down = conns
        deadlocks_before = status(sql, "Rowsocket_deadlocks")
        waits_before = status(sql, "Rowsocket_lock_waits")
        holder.lock("hot", 75)
        up.send_lines([increment(k) for k in keys])
        wait_for_lock_waits(sql, waits_before, 1, "the first pipeline to wait")
        down.send_lines([increment(k) for k in reversed(keys)])
        wait_for_lock_waits(sql, waits_before, 2, "both pipelines to wait")
        # What each asked before the middle row is done; the rest waits behind it. (A
        # wait is counted when the request meets the lock, before the rest of its
        # batch runs again and commits.)
        expected = {1: 1, 74: 1, 75: 0, 76: 1, 150: 1}
        wait_for(lambda: n_values(sql, list(expected)) == expected,
                 "what each pipeline asked before the middle row")
        holder.commit()
        for conn in (up, down):
            answers = [conn.read_answer() for _ in keys]
            assert answers == [OK1] * len(keys), answers
        assert status(sql, "Rowsocket_deadlocks") == deadlocks_before
        assert n_values(sql, keys) == {k: 2 for k in keys}
    finally:
        holder.close()
        for conn in conns:
            conn.close()


def test_one_connections_pipeline_on_single_rows_happens_in_its_order(target, sql, hot):
    """Requests on the same row keep their order, whatever the key order of the rest:
    two `U` on row 5 (the second wins), `+` then `-` on row 3, row 4 deleted and then
    updated (nothing left to update), and the answers come in request order."""
    pipeline = [
        [1, "=", 1, 5, 1, 0, "U", 1],
        [1, "=", 1, 3, 1, 0, "+", 10],
        [1, "=", 1, 5, 1, 0, "U", 7],
        [1, "=", 1, 4, 1, 0, "D"],
        [1, "=", 1, 3, 1, 0, "-", 4],
        [1, "=", 1, 4, 1, 0, "U", 9],
        [1, "=", 1, 2, 1, 0, "+", 1],
    ]
    with writer_on(target) as conn:
        conn.send_lines(pipeline)
        answers = [conn.read_answer() for _ in pipeline]
    assert answers == [OK1, OK1, OK1, OK1, OK1, ["0", "1", "0"], OK1], answers
    assert dict(sql.rows("SELECT k, n FROM test.hot WHERE k BETWEEN 2 AND 5")) == \
        {"2": "1", "3": "6", "5": "7"}


def test_requests_that_move_a_row_keep_their_order(target, sql, hot):
    """`U` that changes the primary key moves a row onto another key: row 150 becomes
    row 1000, then row 1000 is deleted. In key order the delete would come first
    and find nothing; such a group runs in request order."""
    with writer_on(target, columns=("k",)) as conn:
        pipeline = [[1, "=", 1, 150, 1, 0, "U", 1000], [1, "=", 1, 1000, 1, 0, "D"]]
        conn.send_lines(pipeline)
        assert [conn.read_answer() for _ in pipeline] == [OK1, OK1]
    assert sql.rows("SELECT k FROM test.hot WHERE k IN (150, 1000)") == []


def test_requests_that_want_the_same_unique_value_keep_their_order(target, sql, tables):
    """Row 2 and then row 1 ask for the unique value 5: the first asked gets it, the
    other answers the duplicate key, as in request order (in key order row 1 would
    win). Changing a column of a unique key keeps the group in request order."""
    sql.refill("uniq", [(1, 10, "a"), (2, 20, "b")])
    with writer_on(target, table="uniq", columns=("u",)) as conn:
        pipeline = [[1, "=", 1, 2, 1, 0, "U", 5], [1, "=", 1, 1, 1, 0, "U", 5]]
        conn.send_lines(pipeline)
        assert [conn.read_answer() for _ in pipeline] == [OK1, ["1", "1", "121"]]
    assert sql.rows("SELECT k, u FROM test.uniq ORDER BY k") == [("1", "10"), ("2", "5")]


def test_deletes_on_a_table_with_foreign_keys_keep_their_order(target, sql, tables):
    """Row 2 refers to row 1 of the same table: deleting 2 and then 1 works in that
    order only. Tables with foreign keys keep request order."""
    sql.execute("DROP TABLE IF EXISTS test.tree")
    sql.execute("CREATE TABLE test.tree (k INT PRIMARY KEY, parent INT, "
                "FOREIGN KEY (parent) REFERENCES test.tree (k)) ENGINE=InnoDB")
    sql.execute("INSERT INTO test.tree VALUES (1, NULL), (2, 1)")
    try:
        with writer_on(target, table="tree", columns=("parent",)) as conn:
            pipeline = [[1, "=", 1, 2, 1, 0, "D"], [1, "=", 1, 1, 1, 0, "D"]]
            conn.send_lines(pipeline)
            assert [conn.read_answer() for _ in pipeline] == [OK1, OK1]
        assert sql.rows("SELECT k FROM test.tree") == []
    finally:
        sql.execute("DROP TABLE IF EXISTS test.tree")


# -- group commit ----------------------------------------------------------------------

def test_write_workers_share_log_flushes_and_answer_every_insert(target, sql, tables):
    """Pipelines on every write worker at once: each insert is answered `0 1` and is
    in the table, and the commits were made durable by rowsocket's log flusher, one
    flush for one or more commits (Rowsocket_log_flushes)."""
    sql.create_table("grouped", "k INT PRIMARY KEY, c INT NOT NULL")
    before = {n: status(sql, n) for n in ("Rowsocket_commits", "Rowsocket_log_flushes")}
    conns = [hs.Connection(target.port_wr) for _ in range(12)]
    try:
        for c in conns:
            c.open_index(1, "grouped", ["k", "c"])
        for round_ in range(5):
            for i, c in enumerate(conns):
                c.send_lines([[1, "+", 2, (i * 5 + round_) * 100 + j, i] for j in range(100)])
            for c in conns:
                assert [c.read_answer() for _ in range(100)] == [["0", "1"]] * 100
    finally:
        for c in conns:
            c.close()
    assert int(sql.value("SELECT COUNT(*) FROM test.grouped")) == 12 * 5 * 100
    commits = status(sql, "Rowsocket_commits") - before["Rowsocket_commits"]
    flushes = status(sql, "Rowsocket_log_flushes") - before["Rowsocket_log_flushes"]
    assert 1 <= flushes <= commits, (flushes, commits)


def test_a_client_that_stops_sending_still_gets_every_answer(target, sql, tables):
    """A client that sends its writes and shuts its side of the socket down (as
    `printf ... | nc` does) still reads every answer before the server closes: the
    answers wait for their log flush, and the connection with them."""
    sql.create_table("halfclosed", "k INT PRIMARY KEY, c INT NOT NULL")
    with hs.Connection(target.port_wr) as conn:
        conn.send_lines([hs.open_request(1, "halfclosed", ["k", "c"])] +
                        [[1, "+", 2, k, k] for k in range(1, 201)])
        conn.sock.shutdown(socket.SHUT_WR)
        answers = [conn.read_answer() for _ in range(201)]
        assert conn.is_closed()
    assert answers == [["0", "1"]] * 201
    assert int(sql.value("SELECT COUNT(*) FROM test.halfclosed")) == 200


def test_a_write_commits_only_after_backup_stage_block_commit_ends(server, target, sql, tables):
    """BACKUP STAGE BLOCK_COMMIT (and FLUSH TABLES WITH READ LOCK) hold writes back:
    a rowsocket insert made meanwhile waits apart — its row stays invisible and its
    answer unsent — and commits once the backup lets go."""
    sql.create_table("blocked", "k INT PRIMARY KEY, c INT NOT NULL")
    backup = Sql(server)
    try:
        backup.execute("BACKUP STAGE START")
        backup.execute("BACKUP STAGE BLOCK_COMMIT")
        waits_before = status(sql, "Rowsocket_lock_waits")
        with writer_on(target, "blocked", ("k", "c")) as conn:
            conn.send_lines([[1, "+", 2, 1, 1]])
            wait_for_lock_waits(sql, waits_before, 1, "the write to wait for the backup lock")
            assert int(backup.value("SELECT COUNT(*) FROM test.blocked")) == 0
            assert not has_answer(conn)
            backup.execute("BACKUP STAGE END")
            assert conn.read_answer() == ["0", "1"]
    finally:
        backup.close()
    assert int(sql.value("SELECT COUNT(*) FROM test.blocked")) == 1


@pytest.mark.parametrize("setting", [0, 2])
def test_writes_are_answered_under_every_flush_setting(target, sql, tables, setting):
    """innodb_flush_log_at_trx_commit=0 or 2 make no sync durable per commit; the log
    flusher then writes (2) or leaves (0) the log as InnoDB would, and the answers
    still come."""
    sql.create_table(f"flush{setting}", "k INT PRIMARY KEY, c INT NOT NULL")
    before = int(sql.value("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit"))
    sql.execute(f"SET GLOBAL innodb_flush_log_at_trx_commit = {setting}")
    try:
        with writer_on(target, f"flush{setting}", ("k", "c")) as conn:
            conn.send_lines([[1, "+", 2, k, k] for k in range(1, 101)])
            assert [conn.read_answer() for _ in range(100)] == [["0", "1"]] * 100
    finally:
        sql.execute(f"SET GLOBAL innodb_flush_log_at_trx_commit = {before}")
    assert int(sql.value(f"SELECT COUNT(*) FROM test.flush{setting}")) == 100


def test_clients_that_vanish_after_writing_leave_the_server_serving(target, sql, tables):
    """Clients send writes and reset their connections at once, many times over: the
    server meets the reset while the answers wait for their log flush (both in one
    loop turn, now and then) and must only drop those connections. Run under
    AddressSanitizer by scripts/test-asan.sh."""
    sql.create_table("vanish", "k INT PRIMARY KEY, c INT NOT NULL")
    for round_ in range(30):
        conns = [hs.Connection(target.port_wr) for _ in range(20)]
        for i, c in enumerate(conns):
            c.send_lines([hs.open_request(1, "vanish", ["k", "c"])] +
                         [[1, "+", 2, (round_ * 20 + i) * 10 + j, i] for j in range(10)])
        for c in conns:
            reset(c)
    with writer_on(target, "vanish", ("k", "c")) as conn:
        assert conn.request([1, "+", 2, -1, 0]) == ["0", "1"]
