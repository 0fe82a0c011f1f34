"""Spare workers (rowsocket_spare_threads): they serve only while other workers wait
inside a batch, for a page read from disk. Here the table is several times a small
buffer pool read with O_DIRECT, so that finds wait for the disk; on rows the buffer
pool holds, nobody waits and the spares serve nothing."""

import random
import threading

import pytest

import hs
import servers
import targets

pytestmark = targets.rowsocket_only

SPARES = 6
ROWS = 60000  # about 16 MiB of rows: twice the buffer pool


@pytest.fixture(scope="module")
def server():
    plugin = targets.make_plugin({"spare_threads": SPARES})
    extra = ["--innodb-buffer-pool-size=8M", "--innodb-flush-method=O_DIRECT"]
    with servers.running_server([plugin], extra_args=extra) as srv:
        yield srv


def status(sql, name):
    return int(sql.value(f"SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS "
                         f"WHERE VARIABLE_NAME = 'ROWSOCKET_{name.upper()}'"))


def pad(i):
    return f"row{i:06d}".ljust(200, "x")


@pytest.fixture(scope="module")
def big(sql):
    sql.execute("CREATE TABLE test.big (id INT PRIMARY KEY, pad CHAR(200) NOT NULL) ENGINE=InnoDB")
    sql.execute(f"INSERT INTO test.big SELECT seq, RPAD(CONCAT('row', LPAD(seq, 6, '0')), 200, 'x') "
                f"FROM test.seq_1_to_{ROWS}")
    return "big"


def test_the_spares_are_the_listeners_threads_beside_its_workers(sql, target):
    for state in ("rowsocket: spare read worker", "rowsocket: spare write worker"):
        count = int(sql.value("SELECT COUNT(*) FROM information_schema.PROCESSLIST "
                              "WHERE STATE = %s", (state,)))
        assert count == SPARES, state


def test_finds_that_wait_for_the_disk_are_served_by_spares_too(target, sql, big):
    waits, turns = status(sql, "worker_waits"), status(sql, "spare_turns")
    seen = threading.Event()
    wrong = []

    def client(seed):
        rng = random.Random(seed)
        with hs.Connection(target.port) as c:
            c.open_index(0, big, ["pad"])
            # Bounded by requests, not time: stops once a spare has served a turn.
            for _ in range(3000):
                if seen.is_set():
                    return
                i = rng.randint(1, ROWS)
                answer = c.request([0, "=", 1, i])
                if answer != ["0", "1", pad(i)]:
                    wrong.append((i, answer))
                    return

    def watch():
        for _ in range(3000):
            if status(sql, "spare_turns") > turns:
                seen.set()
                return
            stop.wait(0.01)

    stop = threading.Event()
    clients = [threading.Thread(target=client, args=(s,)) for s in range(16)]
    watcher = threading.Thread(target=watch)
    for t in clients + [watcher]:
        t.start()
    for t in clients:
        t.join()
    stop.set()
    watcher.join()
    assert not wrong
    assert status(sql, "worker_waits") > waits
    assert status(sql, "spare_turns") > turns


def test_finds_of_rows_in_the_buffer_pool_wait_for_nothing(target, sql, big):
    sql.create_table("small", "id INT PRIMARY KEY, v INT", [(i, i * 2) for i in range(1, 101)])
    with hs.Connection(target.port) as c:
        c.open_index(0, "small", ["v"])
        for i in range(1, 101):                   # every page read once
            assert c.request([0, "=", 1, i]) == ["0", "1", str(i * 2)]
        waits, turns = status(sql, "worker_waits"), status(sql, "spare_turns")
        for _ in range(5):
            for i in range(1, 101):
                assert c.request([0, "=", 1, i]) == ["0", "1", str(i * 2)]
    assert status(sql, "worker_waits") == waits
    assert status(sql, "spare_turns") == turns
