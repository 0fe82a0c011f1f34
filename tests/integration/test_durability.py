"""Durability: every write rowsocket answered with success survives a crash.

Sixteen connections pipeline inserts with unique keys into a server with
innodb_flush_log_at_trx_commit=1; mariadbd is killed with SIGKILL while they are in
full flight and started again on the same datadir. Then:
- every insert answered `0 1` is in the table (an answer means committed);
- no insert answered with an error is (an error means no effect): some inserts are
  built to fail, with a duplicate in a unique secondary key or a NULL for a NOT NULL
  column, while their primary key is new;
- inserts that were sent but never answered may or may not be there, and nothing
  else is;
- the server recovers cleanly (no [ERROR] in its log, CHECK TABLE is OK) and
  rowsocket serves again.
Run twice: without the binary log, where commits leave their log flush to rowsocket's
log flusher and answers wait for it (checked: Rowsocket_log_flushes grows), and with
log_bin + sync_binlog=1 (where a commit goes through the binlog's two-phase commit and
crash recovery consults the binlog; the log flusher is not used).
"""

import threading
import time

import pytest

import hs
import servers
import targets
from db import Sql

# What the server logs when crash recovery meets the half-written last event of a
# binary log (the write a SIGKILL interrupted).
BINLOG_TAIL_CUT_BY_CRASH = "read_log_event(): 'Event truncated'"

pytestmark = targets.rowsocket_only

CONNECTIONS = 16
PIPELINE = 20
ANSWERED_BEFORE_KILL = 3000   # successes to see before the kill (liveness-bounded)
LIVENESS = 60
EXISTING = 100                # rows with k = -1..-100 and u = -1..-100

OK = ["0", "1"]
DUP_KEY = ["1", "1", "121"]
NOT_NULL = ["1", "1", "1048"]


def planned(c, s):
    """The s-th insert of connection c: (k, request tokens, expected answer)."""
    k = c * 10_000_000 + s + 1
    pad = f"c{c}s{s}".ljust(40, ".")
    if s % 10 == 3:      # u collides with an existing row: the new k must not appear
        return k, [1, "+", 5, k, -(s % EXISTING + 1), c, s, pad], DUP_KEY
    if s % 10 == 7:      # NULL for the NOT NULL column c: the new k must not appear
        return k, [1, "+", 5, k, k, None, s, pad], NOT_NULL
    return k, [1, "+", 5, k, k, c, s, pad], OK


class Client(threading.Thread):
    """Pipelines inserts until the connection breaks; records every answer."""

    def __init__(self, port, c):
        super().__init__(daemon=True)
        self.port, self.c = port, c
        self.answers = {}         # k -> answer tokens
        self.expected = {}        # k -> the answer the request should get
        self.unanswered = set()   # sent, no answer before the connection broke
        self.error = None

    def run(self):
        try:
            conn = hs.Connection(self.port)
            conn.open_index(1, "dur", ["k", "u", "c", "s", "pad"])
        except Exception as e:  # noqa: BLE001 - reported by the test
            self.error = e
            return
        s = 0
        try:
            while True:
                batch = [planned(self.c, s + i) for i in range(PIPELINE)]
                s += PIPELINE
                for k, _, expected in batch:
                    self.expected[k] = expected
                    self.unanswered.add(k)
                conn.send_lines([request for _, request, _ in batch])
                for k, _, _ in batch:
                    self.answers[k] = conn.read_answer()
                    self.unanswered.discard(k)
        except OSError:
            pass                  # the server is gone (reset, EOF or timeout)
        finally:
            conn.close()

    def successes(self):
        return sum(1 for a in self.answers.values() if a == OK)


def wait_for(predicate, what, timeout=LIVENESS):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting after {timeout}s for {what}")
        time.sleep(0.02)


@pytest.mark.parametrize("binlog", [False, True], ids=["no-binlog", "binlog"])
def test_answered_inserts_survive_sigkill(binlog):
    args = ["--innodb-flush-log-at-trx-commit=1"]
    if binlog:
        args += ["--log-bin=durability-bin", "--server-id=1", "--sync-binlog=1"]
    with servers.running_server([targets.make_plugin({"threads_wr": 4})], args) as server:
        sql = Sql(server)
        sql.create_table("dur", "k BIGINT PRIMARY KEY, u BIGINT, c INT NOT NULL, s INT NOT NULL, "
                                "pad VARCHAR(64), UNIQUE KEY uu (u)",
                         [(-i, -i, 0, 0, "existing") for i in range(1, EXISTING + 1)])
        sql.close()

        clients = [Client(server.plugins[0].port_wr, c) for c in range(1, CONNECTIONS + 1)]
        for client in clients:
            client.start()
        wait_for(lambda: sum(c.successes() for c in clients) >= ANSWERED_BEFORE_KILL
                 or not any(c.is_alive() for c in clients),
                 f"{ANSWERED_BEFORE_KILL} answered inserts")
        assert all(c.is_alive() for c in clients), \
            f"a client stopped before the kill: {[c.error for c in clients if c.error]}"
        sql = Sql(server)
        log_flushes = int(sql.rows("SHOW GLOBAL STATUS LIKE 'Rowsocket_log_flushes'")[0][1])
        sql.close()
        if binlog:
            assert log_flushes == 0, "with the binary log, commits must go through its group commit"
        else:
            assert log_flushes > 0, "commits did not leave their flush to the log flusher"
        server.kill()
        for client in clients:
            client.join(timeout=LIVENESS)
        assert not any(c.is_alive() for c in clients), "a client hung after the kill"

        server.restart()
        log = server.error_log()
        # A binary log cut mid-event by SIGKILL is reported and truncated by the
        # server's own crash recovery, exactly as after a crash under SQL load; that
        # report is expected, any other error is not.
        errors = [line for line in log.splitlines()
                  if "[ERROR]" in line and BINLOG_TAIL_CUT_BY_CRASH not in line]
        assert errors == [], "errors while recovering:\n" + "\n".join(errors)

        sql = Sql(server)
        try:
            present = {int(k) for (k,) in sql.rows("SELECT k FROM test.dur WHERE k > 0")}
            check = sql.rows("CHECK TABLE test.dur")
            existing = int(sql.value("SELECT COUNT(*) FROM test.dur WHERE k < 0"))
        finally:
            sql.close()
        assert check[-1][2:] == ("status", "OK"), check
        assert existing == EXISTING

        answered = {}
        expected = {}
        unanswered = set()
        for client in clients:
            answered.update(client.answers)
            expected.update(client.expected)
            unanswered |= client.unanswered
        wrong = {k: (a, expected[k]) for k, a in answered.items() if a != expected[k]}
        assert wrong == {}, f"answers other than planned: {dict(list(wrong.items())[:10])}"
        succeeded = {k for k, a in answered.items() if a == OK}
        failed = {k for k, a in answered.items() if a != OK}
        assert len(succeeded) >= ANSWERED_BEFORE_KILL and failed

        lost = sorted(succeeded - present)
        assert lost == [], f"{len(lost)} inserts answered `0 1` are gone, e.g. {lost[:10]}"
        applied = sorted(failed & present)
        assert applied == [], f"{len(applied)} inserts answered with an error are there, " \
                              f"e.g. {applied[:10]}"
        strangers = sorted(present - succeeded - unanswered)
        assert strangers == [], f"rows nobody inserted: {strangers[:10]}"

        # rowsocket serves again after recovery.
        with hs.Connection(server.plugins[0].port_wr) as conn:
            conn.open_index(1, "dur", ["k", "u", "c", "s", "pad"])
            assert conn.request([1, "+", 5, 1, 1, 1, 1, "after"]) == OK
        with hs.Connection(server.plugins[0].port) as conn:
            conn.open_index(1, "dur", ["pad"])
            assert conn.request([1, "=", 1, 1]) == ["0", "1", "after"]
