"""What the Python client scripts of test_memcached_clients.py share.

A script is run as `script HOST:PORT HOST:PORT PREFIX`: two servers of one target
(Debian's memcached or rowsocket's memcached listener) and a key prefix of its own.
It prints `ok <check>` or `FAIL <check>: <why>` for each check, `restart` (then reads
a line from stdin) where the test restarts the first server, and exits 0 only when
every check passed. A check's name holds no `: `.
"""

import re
import sys
import time
import traceback

# The general-purpose fields of memcached 1.6's `stats` that applications and
# monitoring read (cache hit ratios, fill level, connection counts).
STATS_FIELDS = ["pid", "uptime", "time", "version", "curr_connections",
                "total_connections", "cmd_get", "cmd_set", "get_hits", "get_misses",
                "curr_items", "bytes", "limit_maxbytes", "threads", "evictions"]
# memcached's own form; node's `memcached` client matches it with /(\d+)\.(\d+)\.(\d+)$/.
VERSION = re.compile(r"^\d+\.\d+\.\d+$")


class Checks:
    def __init__(self):
        self.servers = [tuple_of(a) for a in sys.argv[1:3]]
        self.prefix = sys.argv[3]
        self.failed = 0

    def key(self, name):
        return f"{self.prefix}:{name}"

    def check(self, name, fn):
        try:
            fn()
        except Exception as e:   # every failure is reported, and the next check runs
            self.failed += 1
            detail = "".join(traceback.format_exception_only(type(e), e)).strip()
            print(f"FAIL {name}: {detail}", flush=True)
        else:
            print(f"ok {name}", flush=True)

    def wait_for_restart(self):
        print("restart", flush=True)
        sys.stdin.readline()

    def done(self):
        sys.exit(1 if self.failed else 0)


def tuple_of(address):
    host, port = address.rsplit(":", 1)
    return host, int(port)


def retrying(fn, seconds=15.0):
    """fn() until it stops raising, as an application retries a request once its cache
    server is back."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return fn()
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def check_stats(stats):
    """stats: the field names and values of one server's `stats`, as str."""
    missing = [f for f in STATS_FIELDS if f not in stats]
    assert not missing, f"stats lacks {missing}"
    for f in STATS_FIELDS:
        if f != "version":
            assert re.fullmatch(r"\d+(\.\d+)?", stats[f]), f"stats {f} = {stats[f]!r}"
    assert VERSION.match(stats["version"]), f"stats version = {stats['version']!r}"


def check_version(version):
    assert VERSION.match(version), f"version = {version!r}"


def expect(got, wanted, what="value"):
    assert got == wanted, f"{what}: got {got!r}, expected {wanted!r}"


def sleep_until(start, seconds):
    time.sleep(max(0.0, start + seconds - time.monotonic()))
