"""What bench/compare runs: the targets, the cases, and the rounds over them.

A case is one workload shape (connections, depth, keys per request, key
distribution). For every case, every target runs in turn — A B C D E, A B C D E,
... — for the given number of rounds, so slow drifts of the machine hit every target
alike; each run is one rowsocket-bench process writing a JSON result. A run is
"disturbed" when the CPU used by processes other than the server under test and the
load generator exceeds a threshold during its window; a disturbed run is repeated
(up to `retries` times) and the least disturbed attempt kept.

The kv-* cases read and write the items of rowsocket's memcached container
(rowsocket.kv: k "u<id>", v the row's values joined by TAB, as memcached holds them;
rowsocket-bench --kv) through every target: memcached's protocol (memcached itself
and rowsocket's memcached listener, `rowsocket-memcached`), HandlerSocket finds and
updates of the same table and columns, and SQL (a `set` is INSERT ... ON DUPLICATE KEY
UPDATE there). Only these cases run against rowsocket-memcached.

The rd-* cases are Redis's: rowsocket's Redis listener (`rowsocket-redis`) and
redis-server (`redis`, its append-only file fsynced once a second; `redis-always`,
the same server fsyncing every write, runs the write case only) over the same strings
("u<id>" as in the kv cases; GET, MGET, SET) and hashes ("user:<id>", the user row's
fields; HGETALL). Only these cases run against those targets.

Inserts and deletes come in pairs: right after a target's insert run, its delete run
removes exactly the keys that run inserted, so the table is back to its loaded size
before the next run and every delete finds its row.
"""

import json
import os
import statistics
import subprocess
import tempfile

TARGETS = ["rowsocket", "original", "sql-prepared", "sql", "memcached", "rowsocket-memcached",
           "rowsocket-redis", "redis", "redis-always"]
REDIS_TARGETS = ["rowsocket-redis", "redis", "redis-always"]
TARGET_TITLES = {
    "rowsocket-redis": "rowsocket Redis",
    "redis": "redis-server (everysec)",
    "redis-always": "redis-server (always)",
    "rowsocket": "rowsocket",
    "rowsocket-memcached": "rowsocket memcached",
    "original": "original plugin",
    "sql-prepared": "SQL prepared",
    "sql": "SQL text",
    "memcached": "memcached",
}
PEERS = ["original", "sql-prepared", "sql", "memcached"]  # rowsocket ÷ each of these
# rowsocket's memcached listener ÷ each of these (the kv-* cases)
MEMCACHED_PEERS = ["memcached", "rowsocket", "original", "sql-prepared", "sql"]

# Runs whose "other" CPU (percent of one core) exceeds this are disturbed.
DISTURBED_OTHER_CPU_PCT = 10.0


class Case:
    def __init__(self, name, title, workload="get", conns=64, depth=1, keys=1,
                 dist="uniform", issue=True, batch=1, tls=False, kv=False, rows=None,
                 redis=False, hash=False, io_bound=False):
        self.name = name
        self.title = title
        self.workload = workload
        self.conns = conns
        self.depth = depth
        self.keys = keys
        self.dist = dist
        self.issue = issue  # one of the cases issue 4 asks for (the chart shows these)
        self.batch = batch  # requests per round trip (rowsocket-bench --batch)
        self.tls = tls      # over TLS (rowsocket-bench --ssl): rowsocket only
        self.kv = kv        # the memcached container's items (rowsocket-bench --kv)
        self.rows = rows    # keys drawn from the first `rows` rows only (None: all)
        self.redis = redis  # Redis's protocol: the Redis targets only
        self.hash = hash    # a get is HGETALL of the user row (rowsocket-bench --hash)
        # The table several times the buffer pool (IO_BUFFER_POOL_MB, O_DIRECT): run
        # only by name, never beside in-memory cases (bench/compare).
        self.io_bound = io_bound

    def applies_to(self, target):
        """Why `target` cannot run this case, or None when it can."""
        if (target in REDIS_TARGETS) != self.redis:
            return "the rd-* cases are Redis's protocol, served by the Redis targets only"
        if target == "redis-always" and self.workload != "update":
            return "appendfsync applies to writes (the reads run against `redis`)"
        if target == "rowsocket-memcached" and not self.kv:
            return "rowsocket's memcached listener serves the key-value container (kv-* cases)"
        if self.tls and target != "rowsocket":
            return "TLS on the HandlerSocket ports is rowsocket's (the plain case compares)"
        sql = target in ("sql", "sql-prepared")
        if sql and self.depth > 1:
            return "SQL keeps one statement in flight per connection (no pipelining)"
        if target == "memcached" and self.workload == "range":
            return "memcached has no range scan"
        return None


# The buffer pool of the IO-bound cases: 1M rows of test.user are about 30x this.
IO_BUFFER_POOL_MB = 32

CASES = [
    Case("pk-8x1", "PK get, 8 conns, depth 1", conns=8),
    Case("pk-64x1", "PK get, 64 conns, depth 1"),
    Case("pk-64x16pipe", "PK get, 64 conns, 16 pipelined", depth=16),
    Case("pk-64x16keys", "PK get, 64 conns, 16 keys per request", keys=16),
    Case("pk-hot-64x1", "hot key: PK get of one row, 64 conns", rows=1, issue=False),
    Case("index-8x1", "secondary-index get (user_name, 4 rows), 8 conns", workload="index",
         conns=8),
    Case("pk-64x1-zipf", "PK get, 64 conns, Zipf 0.99 keys", dist="zipf", issue=False),
    Case("range-64x1", "range scan LIMIT 10, 64 conns", workload="range", issue=False),
    Case("update-64x1", "update by PK, 64 conns", workload="update", issue=False),
    Case("mix-64x1", "90% PK get / 10% update, 64 conns", workload="mix", issue=False),
    Case("insert-64x1", "insert (fresh keys), 64 conns", workload="insert", issue=False),
    Case("delete-64x1", "delete by PK, 64 conns", workload="delete", issue=False),
    Case("pk-64x1-tls", "PK get, 64 conns, depth 1, over TLS", tls=True, issue=False),
    Case("pk-64x16pipe-tls", "PK get, 64 conns, 16 pipelined, over TLS", depth=16, tls=True,
         issue=False),
    Case("kv-get-8x1", "kv get, 8 conns, depth 1", conns=8, kv=True, issue=False),
    Case("kv-get-64x1", "kv get, 64 conns, depth 1", kv=True, issue=False),
    Case("kv-get-64x16pipe", "kv get, 64 conns, 16 pipelined", depth=16, kv=True, issue=False),
    Case("kv-get-64x16keys", "kv get, 64 conns, 16 keys per request", keys=16, kv=True,
         issue=False),
    Case("kv-get-hot-64x1", "kv get of one item (hot key), 64 conns", rows=1, kv=True,
         issue=False),
    Case("kv-set-64x1", "kv set (upsert of the whole item), 64 conns", workload="update",
         kv=True, issue=False),
    Case("rd-get-8x1", "Redis GET, 8 conns, depth 1", conns=8, redis=True, issue=False),
    Case("rd-get-64x1", "Redis GET, 64 conns, depth 1", redis=True, issue=False),
    Case("rd-get-64x16pipe", "Redis GET, 64 conns, 16 pipelined", depth=16, redis=True,
         issue=False),
    Case("rd-mget-64x16keys", "Redis MGET of 16 keys, 64 conns", keys=16, redis=True,
         issue=False),
    Case("rd-hgetall-8x1", "Redis HGETALL of a row, 8 conns", conns=8, redis=True, hash=True,
         issue=False),
    Case("rd-hgetall-64x1", "Redis HGETALL of a row, 64 conns", redis=True, hash=True,
         issue=False),
    Case("rd-set-64x1", "Redis SET (durable), 64 conns", workload="update", redis=True,
         issue=False),
    Case("io-pk-64x1", "IO-bound: PK get, 64 conns (table 30x the buffer pool, O_DIRECT)",
         io_bound=True, issue=False),
    Case("io-pk-64x16keys", "IO-bound: PK get of 16 keys, 64 conns (table 30x the buffer pool)",
         keys=16, io_bound=True, issue=False),
]


class Settings:
    def __init__(self, bench, rows, rounds, duration, warmup, threads, retries, log):
        self.bench = bench          # path of rowsocket-bench
        self.rows = rows
        self.rounds = rounds
        self.duration = duration
        self.warmup = warmup
        self.threads = threads
        self.retries = retries
        self.log = log


class Matrix:
    """Runs cases × targets × rounds against a started, loaded Stack."""

    def __init__(self, stack, settings):
        self.stack = stack
        self.s = settings
        self.runs = []          # every kept run: dicts from rowsocket-bench's JSON + ours
        self.next_key = settings.rows + 1_000_000  # fresh keys, far above the loaded ones
        self.tmp = tempfile.mkdtemp(prefix="rs-bench-")

    def endpoint(self, target, write):
        st = self.stack
        if target in ("rowsocket", "original"):
            plugin = st.rowsocket if target == "rowsocket" else st.original
            return "hs", (plugin.port_wr if write else plugin.port), st.mariadb_pid
        if target == "memcached":
            return "memcached", st.memcached.port, st.memcached.pid
        if target == "rowsocket-memcached":
            return "memcached", st.memcached_port, st.mariadb_pid
        if target == "rowsocket-redis":
            return "redis", st.redis_port, st.mariadb_pid
        if target in ("redis", "redis-always"):
            return "redis", st.redis.port, st.redis.pid
        return target, st.mariadb.sql_port, st.mariadb_pid

    def command(self, case, target, json_path, key_base=None, key_count=None):
        write = case.workload in ("insert", "update", "delete", "mix")
        kind, port, pid = self.endpoint(target, write)
        threads = min(self.s.threads, case.conns)
        cmd = [self.s.bench, "--target", kind, "--port", str(port), "--server-pid", str(pid),
               "--workload", case.workload, "--dist", case.dist,
               "--conns", str(case.conns), "--threads", str(threads),
               "--depth", str(case.depth), "--keys", str(case.keys),
               "--rows", str(case.rows or self.s.rows), "--duration", str(self.s.duration),
               "--warmup", str(self.s.warmup), "--label", f"{case.name}/{target}",
               "--json", json_path, "--no-progress"]
        if case.batch > 1:
            cmd += ["--batch", str(case.batch)]
        if case.tls:
            cmd += ["--ssl"]
        if case.kv:
            cmd += ["--kv"]
        if case.hash:
            cmd += ["--hash"]
        if key_base is not None:
            cmd += ["--key-base", str(key_base)]
        if key_count is not None:
            cmd += ["--key-count", str(key_count)]
        return cmd

    def run_once(self, case, target, rnd, key_base=None, key_count=None):
        json_path = os.path.join(self.tmp, f"{case.name}.{target}.{rnd}.json")
        cmd = self.command(case, target, json_path, key_base, key_count)
        self.stack.settle()
        if target == "redis-always":
            self.stack.redis.appendfsync("always")
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True,
                                  timeout=self.s.duration + self.s.warmup + 120)
        finally:
            if target == "redis-always":
                self.stack.redis.appendfsync("everysec")
        if proc.returncode == 2 or not os.path.exists(json_path):
            raise RuntimeError(f"rowsocket-bench could not run {case.name}/{target}:\n"
                               f"{' '.join(cmd)}\n{proc.stderr}")
        with open(json_path) as f:
            result = json.load(f)
        os.unlink(json_path)
        result.update(case=case.name, target_name=target, round=rnd,
                      disturbed=result["other_cpu_pct"] > DISTURBED_OTHER_CPU_PCT,
                      command=" ".join(cmd[1:]).replace(json_path, "RUN.json"))  # no machine path
        return result

    def run_kept(self, case, target, rnd, **keys):
        """Runs once, and again while disturbed (up to retries); keeps the calmest."""
        best = None
        for attempt in range(1 + self.s.retries):
            if attempt and keys.get("key_count") is not None:
                break  # a delete pool is used up by the first attempt
            result = self.run_once(case, target, rnd, **keys)
            result["attempts"] = attempt + 1
            if best is None or result["other_cpu_pct"] < best["other_cpu_pct"]:
                best = result
            if not result["disturbed"]:
                break
            if keys.get("key_base") is not None:
                keys["key_base"] = self.fresh_keys()
        return best

    def fresh_keys(self):
        base = self.next_key
        self.next_key += 10_000_000
        return base

    def record(self, result):
        self.runs.append(result)
        flag = " DISTURBED" if result["disturbed"] else ""
        err = f" ERRORS={result['errors_total']} ({result['first_error']})" \
            if result["errors_total"] else ""
        self.s.log(f"  {result['case']:<14} {result['target_name']:<13} round {result['round']}: "
                   f"{result['qps']:>9.0f}/s  p99 {result['p99_us']:>7.0f}us  "
                   f"server {result['server_us_per_op']:>5.2f}us/op  "
                   f"other cpu {result['other_cpu_pct']:.0f}%{flag}{err}")

    def run(self, cases, targets):
        by_name = {c.name: c for c in cases}
        for case in cases:
            if case.workload == "delete" and "insert-64x1" in by_name:
                continue  # runs paired with its insert case
            self.s.log(f"case {case.name}: {case.title}")
            for rnd in range(1, self.s.rounds + 1):
                for target in targets:
                    if case.applies_to(target):
                        continue
                    if case.workload == "insert":
                        self.insert_then_delete(case, by_name.get("delete-64x1"), target, rnd)
                    elif case.workload == "delete":
                        self.standalone_delete(case, target, rnd)
                    else:
                        self.record(self.run_kept(case, target, rnd))
        os.rmdir(self.tmp)  # every run's JSON was read and removed
        return self.runs

    def insert_then_delete(self, insert_case, delete_case, target, rnd):
        base = self.fresh_keys()
        ins = self.run_kept(insert_case, target, rnd, key_base=base)
        self.record(ins)
        base = ins["key_base"]
        inserted = ins["next_key"] - base
        if delete_case is not None and inserted > 0:
            self.record(self.run_kept(delete_case, target, rnd, key_base=base,
                                      key_count=inserted))
        self.cleanup(target)

    def standalone_delete(self, case, target, rnd):
        """Without an insert case: pre-fill a pool of rows, then delete them."""
        base = self.fresh_keys()
        count = 50_000
        if target == "memcached":
            from stack import user_row
            self.stack.memcached.set_many((f"u{i}", user_row(i)) for i in range(base, base + count))
        else:
            self.stack.insert_rows("user", base, base + count - 1)
        self.record(self.run_kept(case, target, rnd, key_base=base, key_count=count))
        self.cleanup(target)

    def cleanup(self, target):
        if target != "memcached":
            self.stack.delete_above(self.s.rows)


def summarize(runs):
    """Medians per (case, target): qps, latencies, server CPU; disturbed/error counts."""
    groups = {}
    for r in runs:
        groups.setdefault((r["case"], r["target_name"]), []).append(r)
    summary = {}
    for key, rs in groups.items():
        med = lambda field: statistics.median(r[field] for r in rs)  # noqa: E731
        summary[key] = {
            "qps": med("qps"), "p50_us": med("p50_us"), "p99_us": med("p99_us"),
            "p999_us": med("p999_us"), "server_us_per_op": med("server_us_per_op"),
            "client_us_per_op": med("client_us_per_op"), "other_cpu_pct": med("other_cpu_pct"),
            "runs": len(rs), "disturbed": sum(r["disturbed"] for r in rs),
            "errors": sum(r["errors_total"] for r in rs),
            "qps_all": [r["qps"] for r in rs],
        }
    return summary
