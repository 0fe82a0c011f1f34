#!/usr/bin/python3
"""Measures what idle client connections cost mariadbd in memory.

Starts a private mariadbd with rowsocket (the integration tests' harness), opens N
connections to the read listener, has each open an index and do one find (so each
holds a session with an open index, as a pooled client would), then lets them sit
idle. Reports mariadbd's resident memory before and after, per connection, and
writes bench/results/<date>-idle-connections.md.

    bench/idle_connections.py [--connections 10000] [--plugin build/src/plugin/rowsocket.so]
"""

import argparse
import datetime
import os
import resource
import socket
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))

import harness  # noqa: E402
import servers  # noqa: E402

OPEN = b"P\t0\ttest\tuser\tPRIMARY\tuser_name\n"
FIND = b"0\t=\t1\t101\n"


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def settle(pid, seconds=3.0):
    """RSS after the server had a moment to trim (rowsocket trims idle buffers ~1 s)."""
    time.sleep(seconds)
    return rss_kib(pid)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--connections", type=int, default=10000)
    ap.add_argument("--plugin", default=os.path.join(ROOT, "build", "src", "plugin", "rowsocket.so"))
    args = ap.parse_args()
    os.environ["ROWSOCKET_PLUGIN"] = os.path.abspath(args.plugin)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, args.connections + 1000), hard))

    plugin = harness.rowsocket_plugin({"max_connections": args.connections + 100, "timeout": 0})
    server = harness.MariaDB([plugin], extra_args=["--open-files-limit=65535"]).start()
    try:
        servers.seed(server)
        pid = server.proc.pid
        # Warm up: one connection's worth of tables and buffers, so the baseline
        # already holds what any number of connections share.
        with socket.create_connection(("127.0.0.1", plugin.port)) as s:
            s.sendall(OPEN + FIND)
            time.sleep(0.2)
        before = settle(pid)
        conns = []
        for i in range(args.connections):
            s = socket.create_connection(("127.0.0.1", plugin.port), timeout=30)
            s.sendall(OPEN + FIND)
            conns.append(s)
            if i % 500 == 499:  # drain answers as we go
                for c in conns[-500:]:
                    c.recv(4096)
        for c in conns[len(conns) // 500 * 500:]:
            c.recv(4096)
        after = settle(pid)
        per_conn = (after - before) * 1024 / args.connections
        for c in conns:
            c.close()
    finally:
        server.stop()

    date = datetime.date.today().isoformat()
    text = (f"# Idle connections: memory per connection ({date})\n\n"
            f"Command: `bench/idle_connections.py --connections {args.connections}`\n\n"
            f"Each connection opened an index (`P`) and did one find, then sat idle.\n\n"
            f"| connections | mariadbd RSS before | after | per connection |\n"
            f"|---:|---:|---:|---:|\n"
            f"| {args.connections} | {before / 1024:.1f} MiB | {after / 1024:.1f} MiB | "
            f"{per_conn / 1024:.2f} KiB |\n\n"
            f"The figure includes the kernel-side socket buffers only as far as they are "
            f"charged to the process; it is mostly the connection object, its session and "
            f"its open index binding.\n")
    out = os.path.join(ROOT, "bench", "results", f"{date}-idle-connections.md")
    with open(out, "w") as f:
        f.write(text)
    print(text)
    print(f"written to {out}")


if __name__ == "__main__":
    main()
