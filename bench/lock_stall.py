#!/usr/bin/python3
"""Measures whether one locked row holds up other clients (issue 26, item 13).

Starts a private mariadbd with rowsocket (the integration tests' harness) and its
memcached listener, fills rowsocket.kv, test.t1 and test.t2, then runs the same load
twice for --seconds each: once with nothing locked, once while a SQL transaction
holds the row of item `hot` and the row k = 1 of test.t1 (SELECT ... FOR UPDATE,
uncommitted). Throughout, "hot" clients keep writing those two rows (memcached `set
hot`, HandlerSocket `+` on t1 k = 1), and "other" clients, one request at a time,
get and set other items on the memcached listener and increment other rows of t1
and rows of t2 on the HandlerSocket write port. Reports each kind of other request's
p50, p99 and max latency in both runs. Goal: the locked run's p99 within 50 ms of
the unlocked run's. Writes bench/results/<date>-<time>-lock-stall.md.

    bench/lock_stall.py [--seconds 10] [--others 2] [--hot 4] [--plugin PATH]
"""

import argparse
import datetime
import os
import random
import socket
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))

import harness  # noqa: E402
import servers  # noqa: E402
from db import Sql  # noqa: E402

ITEMS = 10000
ROWS = 10000
GOAL_MS = 50.0


class Line:
    """One connection, one request at a time: send, then read until `end`."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def ask(self, data, end):
        self.sock.sendall(data)
        while end not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("closed")
            self.buf += chunk
        i = self.buf.index(end) + len(end)
        answer, self.buf = self.buf[:i], self.buf[i:]
        return answer


class Load:
    """Hot writers and other clients; other clients' latencies go to `samples`."""

    def __init__(self, plugin, memcached_port, others, hot):
        self.plugin, self.mc_port = plugin, memcached_port
        self.stop = threading.Event()
        self.samples = {}  # kind -> [seconds]
        self.lock = threading.Lock()
        self.errors = 0
        work = [self.hot_mc, self.hot_hs] * hot
        work += [self.other_mc, self.other_hs] * others
        self.threads = [threading.Thread(target=w, args=(i,), daemon=True)
                        for i, w in enumerate(work)]

    def record(self, kind, seconds):
        with self.lock:
            self.samples.setdefault(kind, []).append(seconds)

    def hs_writer(self):
        conn = Line(self.plugin.port_wr)
        conn.ask(b"P\t1\ttest\tt1\tPRIMARY\tn\n", b"\n")
        conn.ask(b"P\t2\ttest\tt2\tPRIMARY\tn\n", b"\n")
        return conn

    def hot_mc(self, i):
        conn = Line(self.mc_port)
        while not self.stop.is_set():
            if not conn.ask(b"set hot 0 0 3\r\nnew\r\n", b"\r\n").startswith(b"STORED"):
                self.errors += 1

    def hot_hs(self, i):
        conn = self.hs_writer()
        while not self.stop.is_set():
            conn.ask(b"1\t=\t1\t1\t1\t0\t+\t1\n", b"\n")

    def other_mc(self, i):
        rnd = random.Random(i)
        conn = Line(self.mc_port)
        while not self.stop.is_set():
            key = b"k%d" % rnd.randint(1, ITEMS)
            start = time.monotonic()
            conn.ask(b"get " + key + b"\r\n", b"END\r\n")
            self.record("memcached get", time.monotonic() - start)
            start = time.monotonic()
            answer = conn.ask(b"set " + key + b" 0 0 3\r\nset\r\n", b"\r\n")
            self.record("memcached set", time.monotonic() - start)
            if answer != b"STORED\r\n":
                self.errors += 1

    def other_hs(self, i):
        rnd = random.Random(1000 + i)
        conn = self.hs_writer()
        while not self.stop.is_set():
            for kind, line in (("write port + (t1, other row)",
                                b"1\t=\t1\t%d\t1\t0\t+\t1\n" % rnd.randint(2, ROWS)),
                               ("write port + (t2)",
                                b"2\t=\t1\t%d\t1\t0\t+\t1\n" % rnd.randint(1, ROWS))):
                start = time.monotonic()
                answer = conn.ask(line, b"\n")
                self.record(kind, time.monotonic() - start)
                if not answer.startswith(b"0\t"):
                    self.errors += 1

    def run(self, seconds):
        for t in self.threads:
            t.start()
        time.sleep(seconds)
        self.stop.set()


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100.0 * len(values)))] * 1000


def measure(plugin, memcached_port, args, locked, server):
    holder = Sql(server)
    if locked:
        holder.execute("BEGIN")
        holder.rows("SELECT * FROM rowsocket.kv WHERE k = 'hot' FOR UPDATE")
        holder.rows("SELECT * FROM test.t1 WHERE k = 1 FOR UPDATE")
    load = Load(plugin, memcached_port, args.others, args.hot)
    runner = threading.Thread(target=load.run, args=(args.seconds,))
    runner.start()
    runner.join()
    if locked:
        holder.execute("COMMIT")  # the hot writers' requests then complete
    for t in load.threads:
        t.join(timeout=60)
    holder.close()
    return load


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--others", type=int, default=2, help="other clients per listener")
    ap.add_argument("--hot", type=int, default=4, help="writers of the locked rows per listener")
    ap.add_argument("--plugin", default=os.path.join(ROOT, "build", "src", "plugin", "rowsocket.so"))
    ap.add_argument("--note", default="")
    args = ap.parse_args()
    os.environ["ROWSOCKET_PLUGIN"] = os.path.abspath(args.plugin)
    memcached_port = harness.free_ports(1)[0]
    # The lock outlasts the run: no hot request gives up while it is measured.
    plugin = harness.rowsocket_plugin({"memcached_port": memcached_port,
                                       "lock_wait_timeout": int(args.seconds) + 30})
    server = harness.MariaDB([plugin]).start()
    runs = {}
    try:
        servers.seed(server)
        sql = Sql(server)
        deadline = time.monotonic() + 30
        while sql.value("SELECT COUNT(*) FROM information_schema.TABLES WHERE "
                        "TABLE_SCHEMA = 'rowsocket' AND TABLE_NAME = 'kv'") != "1":
            if time.monotonic() > deadline:
                raise SystemExit("the default container rowsocket.kv was not made")
            time.sleep(0.1)
        sql.execute("INSERT INTO rowsocket.kv (k, v, flags, cas, expires) "
                    f"SELECT CONCAT('k', seq), 'old', 0, 1, 0 FROM test.seq_1_to_{ITEMS}")
        sql.execute("INSERT INTO rowsocket.kv (k, v, flags, cas, expires) VALUES ('hot', 'old', 0, 1, 0)")
        for table in ("t1", "t2"):
            sql.execute(f"CREATE TABLE test.{table} (k INT PRIMARY KEY, n INT NOT NULL) ENGINE=InnoDB")
            sql.execute(f"INSERT INTO test.{table} SELECT seq, 0 FROM test.seq_1_to_{ROWS}")
        sql.close()
        for name, locked in (("unlocked", False), ("locked", True)):
            load = measure(plugin, memcached_port, args, locked, server)
            runs[name] = load
            print(f"{name}: " + ", ".join(f"{k} {len(v)} requests, p99 {percentile(v, 99):.1f} ms"
                                          for k, v in sorted(load.samples.items())))
    finally:
        server.stop()

    now = datetime.datetime.now(datetime.timezone.utc)
    command = (f"bench/lock_stall.py --seconds {args.seconds:g} --others {args.others} "
               f"--hot {args.hot}")
    lines = [f"# Other clients while one row is locked ({now:%Y-%m-%d %H:%M} UTC)", "",
             f"Command: `{command}`" + (f" ({args.note})" if args.note else "") + ".", "",
             f"Each run lasts {args.seconds:g} s. In the locked run a SQL transaction holds the row "
             "of item `hot` and the row k = 1 of test.t1 (SELECT ... FOR UPDATE) for the whole run, "
             f"while {args.hot} client(s) per listener keep writing them; {args.others} other "
             "client(s) per listener send one request at a time. Default worker counts; "
             "clients and server share the machine.", "",
             "| request (other clients) | run | requests | p50 ms | p99 ms | max ms |",
             "|---|---|---:|---:|---:|---:|"]
    worst = 0.0
    for kind in sorted(runs["unlocked"].samples):
        for name in ("unlocked", "locked"):
            values = runs[name].samples.get(kind, [])
            if not values:
                lines.append(f"| {kind} | {name} | 0 | | | |")
                continue
            lines.append(f"| {kind} | {name} | {len(values)} | {percentile(values, 50):.2f} | "
                         f"{percentile(values, 99):.2f} | {max(values) * 1000:.1f} |")
        base = runs["unlocked"].samples[kind]
        held = runs["locked"].samples.get(kind) or [float(args.seconds)]
        worst = max(worst, percentile(held, 99) - percentile(base, 99))
    errors = runs["unlocked"].errors + runs["locked"].errors
    verdict = "met" if worst <= GOAL_MS else "NOT met"
    lines += ["", f"Largest p99 increase of the locked run over the unlocked one: {worst:+.1f} ms "
              f"(goal: at most {GOAL_MS:.0f} ms: {verdict}). Error answers to other clients: "
              f"{errors}."]
    out = os.path.join(ROOT, "bench", "results", f"{now:%Y-%m-%d-%H%M}-lock-stall.md")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"written to {out}")


if __name__ == "__main__":
    main()
