"""Waiting apart under innodb_rollback_on_timeout=ON: nothing acknowledged is lost.

The worker's THD waits for no lock, so a request that meets one fails at once with a
lock wait timeout. With innodb_rollback_on_timeout=ON, InnoDB then rolls back the
whole transaction, not only the failed row operation: the group's requests that had
already run are undone with it. They must run again (or answer an error), never be
answered as done. Each listener has one worker, so the requests below share batches.
"""

import pytest

import harness
import servers
import targets
from memcached_support import Raw
from test_lock_isolation import (OK1, fresh, holder, increment, mc_value, n_of,  # noqa: F401
                                 status, tables, waiting_for_lock, writer_on)

pytestmark = targets.rowsocket_only


@pytest.fixture(scope="module")
def memcached_port():
    return harness.free_ports(1)[0]


@pytest.fixture(scope="module")
def server(memcached_port):
    plugin = targets.make_plugin({"memcached_port": memcached_port, "threads": 1,
                                  "threads_wr": 1, "memcached_threads": 1,
                                  "lock_wait_timeout": 60})
    with servers.running_server([plugin], ["--innodb-rollback-on-timeout=ON"]) as srv:
        yield srv


def test_hs_writes_before_a_locked_one_are_made_once(target, sql, fresh, holder):
    waits_before = status(sql, "Rowsocket_lock_waits")
    holder.execute("BEGIN")
    holder.rows("SELECT * FROM test.t1 WHERE k = 1 FOR UPDATE")
    with writer_on(target, "t1") as a, writer_on(target, "t1") as b:
        # A's write of row 2 runs, then its write of row 1 meets the lock, which
        # rolls back A's whole transaction (and whatever shared it).
        a.send_lines([increment(2), increment(1), increment(3)])
        b.send_lines([increment(4)])
        waiting_for_lock(sql, waits_before)
        assert b.read_answer() == OK1
        assert n_of(sql, "t1", 4) == 1
        holder.execute("COMMIT")
        assert [a.read_answer() for _ in range(3)] == [OK1, OK1, OK1]
    assert [n_of(sql, "t1", k) for k in (1, 2, 3, 4)] == [1, 1, 1, 1]


def test_memcached_sets_beside_a_locked_one_are_stored_once(memcached_port, sql, fresh,
                                                            holder):
    waits_before = status(sql, "Rowsocket_lock_waits")
    holder.execute("BEGIN")
    holder.rows("SELECT * FROM rowsocket.kv WHERE k = 'locked' FOR UPDATE")
    a, b = Raw(memcached_port), Raw(memcached_port)
    try:
        a.send(b"set other 0 0 1\r\na\r\nappend other 0 0 1\r\nb\r\n"
               b"set locked 0 0 3\r\nnew\r\n")
        b.send(b"set third 0 0 3\r\nnew\r\n")
        waiting_for_lock(sql, waits_before)
        assert b.read_until(b"\r\n") == b"STORED\r\n"
        assert mc_value(sql, "third") == "new"
        holder.execute("COMMIT")
        assert a.read_until(b"STORED\r\nSTORED\r\nSTORED\r\n") == b"STORED\r\n" * 3
        assert (mc_value(sql, "other"), mc_value(sql, "locked")) == ("ab", "new")
    finally:
        a.close()
        b.close()
