"""The report bench/write_compare writes: bench/results/<stem>.md and <stem>.json.

The Markdown file holds, for inserts, updates and deletes side by side: writes per
second with server CPU per write, InnoDB log flushes per write, the ratios rowsocket ÷
each peer that issue 5 asks for and whether each target is met, rowsocket's write-thread
sweep and its connection sweep (log flushes per write as concurrency grows), every
run's details, and how the run was made. Runs are keyed by (op, variant) — the
variants are bench/write_compare's — and medians are taken over rounds. The JSON keeps
every run's raw result and the run's settings, so `--rerender` can rewrite the .md.
"""

import json
import os
import statistics

import matrix
from report import k, ratio, ratio_cell, summary_cell, title_lines

OPS = ["insert", "update", "delete"]
SIDE_BY_SIDE = ["sql-batch", "sql-row", "original-1", "original-10", "rowsocket",
                "rowsocket-pipe", "rowsocket-pipe-wr8"]
THREADS = [(1, "rowsocket-wr1"), (2, "rowsocket"), (4, "rowsocket-wr4"), (8, "rowsocket-wr8")]
# (ours, peer, least qps ratio) per op, as issue 5 part 4 lists them.
QPS_GOALS = [("rowsocket", "original-1", 1.3), ("rowsocket", "original-10", 3.0),
             ("rowsocket", "sql-row", 3.0), ("rowsocket-pipe", "sql-batch", 1.0)]
CPU_GOAL = ("rowsocket", "original-1", 0.7)  # server CPU per write, at most
# Shown beside the goals' ratios: the pipelined runs with 8 write threads.
MORE_RATIOS = [("rowsocket-pipe-wr8", "sql-batch")]


def median(runs, field):
    values = [r[field] for r in runs if r.get(field) is not None]
    return statistics.median(values) if values else None


def summarize(runs):
    """matrix.summarize plus the medians of the log-flush fields, by (op, variant)."""
    summary = matrix.summarize(runs)
    for key, s in summary.items():
        group = [r for r in runs if (r["case"], r["target_name"]) == key]
        for field in ("flushes_per_write", "fsyncs_per_write", "commits_per_write",
                      "after_us_per_write", "history_after", "mean_us", "server_cpu_pct",
                      "client_cpu_pct", "cpus", "flush_wait_us_per_write", "sync_us"):
            s[field] = median(group, field)
        s["conns"] = group[0]["conns"]
        s["batch"] = group[0].get("batch", 1)
    return summary


def per_write(value):
    if value is None:
        return "—"
    return f"{value:.3f} ({1 / value:,.1f})" if value > 0 else "0"


def title(info, variant):
    return info["variants"][variant]["title"]


def side_by_side(summary, info):
    lines = ["## Side by side: writes/s (server CPU µs per write)", "",
             "| way of writing | conns | " + " | ".join(OPS) + " |",
             "|---|---:|" + "---:|" * len(OPS)]
    for v in SIDE_BY_SIDE:
        cells = [summary.get((op, v)) for op in OPS]
        if not any(cells):
            continue
        conns = info["variants"][v]["conns"]
        lines.append(f"| {title(info, v)} | {conns} | "
                     + " | ".join(summary_cell(c) for c in cells) + " |")
    lines += ["", "## Log flushes per write (Innodb_log_writes ÷ writes; in brackets, writes "
              "per flush)", "", "| way of writing | " + " | ".join(OPS) + " |",
              "|---|" + "---:|" * len(OPS)]
    for v in SIDE_BY_SIDE:
        cells = [summary.get((op, v)) for op in OPS]
        if any(cells):
            lines.append(f"| {title(info, v)} | " + " | ".join(
                per_write(c["flushes_per_write"]) if c else "—" for c in cells) + " |")
    return lines + [""]


def left_behind(summary, info):
    """InnoDB purges in the background, during a run or after it: the CPU it spends after
    the window is not in a run's own figure. Runs older than this table lack the fields."""
    if not any(s.get("after_us_per_write") is not None for s in summary.values()):
        return []
    lines = ["## Work left behind (InnoDB purge and other background work after the run)", "",
             "Server CPU µs per write spent after the window until InnoDB's history list was "
             "empty and mariadbd quiet, then the run's own figure plus that; in brackets the "
             "history list length at the end of the run.", "",
             "| way of writing | " + " | ".join(OPS) + " |", "|---|" + "---:|" * len(OPS)]
    for v in SIDE_BY_SIDE:
        cells = []
        for op in OPS:
            c = summary.get((op, v))
            after = c.get("after_us_per_write") if c else None
            if after is None:
                cells.append("—")
                continue
            cells.append(f"+{after:.1f} = {c['server_us_per_op'] + after:.1f} "
                         f"({c.get('history_after') or 0:,.0f})")
        if any(cell != "—" for cell in cells):
            lines.append(f"| {title(info, v)} | " + " | ".join(cells) + " |")
    return lines + [""]


def round_trips(summary, info):
    """At one request per round trip each connection waits for its answer before it
    sends again, so writes/s = connections ÷ round trip: what a round trip is made of
    decides the rate as much as CPU does. Runs older than this table lack the fields."""
    ours = [summary.get((op, "rowsocket")) for op in OPS]
    if not any(c and c.get("flush_wait_us_per_write") is not None for c in ours):
        return []

    def busy(c):
        share = (c["server_cpu_pct"] + c["client_cpu_pct"]) / c["cpus"]
        return f"{c['mean_us'] / 1000:.2f} ms ({share:.0f}%)"

    def cell(c, field, show):
        return show(c[field]) if c and c.get(field) is not None else "—"

    rows = []
    for v in ("original-1", "rowsocket"):
        cells = [summary.get((op, v)) for op in OPS]
        if any(cells):
            rows.append(f"| {title(info, v)}: round trip (machine busy) | "
                        + " | ".join(cell(c, "mean_us", lambda _, c=c: busy(c)) for c in cells)
                        + " |")
    rows.append("| rowsocket: answer's wait for the log sync after its commit | " + " | ".join(
        cell(c, "flush_wait_us_per_write", lambda us: f"{us / 1000:.2f} ms") for c in ours) + " |")
    rows.append("| rowsocket: one log sync | " + " | ".join(
        cell(c, "sync_us", lambda us: f"{us / 1000:.2f} ms") for c in ours) + " |")
    return ["## Round trips (one request per round trip)", "",
            "Mean round trip as the client measured it; in brackets the share of the machine's "
            "CPUs the server and the client used together. For rowsocket, the mean time an "
            "answer waited between its batch's commit and the log flusher's sync that made it "
            "durable (Rowsocket_log_flush_wait_microseconds ÷ writes), and the mean time of one "
            "sync (Rowsocket_log_flush_microseconds ÷ Rowsocket_log_flushes).", "",
            "| | " + " | ".join(OPS) + " |", "|---|" + "---:|" * len(OPS)] + rows + [""]


def ratios(summary, info):
    lines = ["## Ratios (qps ratio, server-CPU-per-write ratio)", "",
             "| | " + " | ".join(OPS) + " |", "|---|" + "---:|" * len(OPS)]
    for ours, peer in [(o, p) for o, p, _ in QPS_GOALS] + MORE_RATIOS:
        if not any(summary.get((op, ours)) and summary.get((op, peer)) for op in OPS):
            continue
        lines.append(f"| {title(info, ours)} ÷ {title(info, peer)} | " + " | ".join(
            ratio_cell(summary.get((op, ours)), summary.get((op, peer))) for op in OPS) + " |")
    return lines + [""]


def verdict(ok):
    return "**met**" if ok else "**NOT met**"


def goal_lines(summary, info):
    lines = ["## Issue 5's targets", ""]
    for ours, peer, want in QPS_GOALS:
        for op in OPS:
            a, b = summary.get((op, ours)), summary.get((op, peer))
            if a and b:
                got = ratio(a["qps"], b["qps"])
                lines.append(f"- {op}: {title(info, ours)} ÷ {title(info, peer)} = {got:.2f}x "
                             f"(goal ≥ {want}x): {verdict(got >= want)}")
    ours, peer, most = CPU_GOAL
    for op in OPS:
        a, b = summary.get((op, ours)), summary.get((op, peer))
        if a and b:
            got = ratio(a["server_us_per_op"], b["server_us_per_op"])
            lines.append(f"- {op}: server CPU per write, rowsocket ÷ {title(info, peer)} = "
                         f"{got:.2f}x (goal ≤ {most}x): {verdict(got <= most)}")
    lines += thread_goal(summary) + flush_goal(summary, info)
    if len(lines) == 2:
        lines.append("- (not measured in this run)")
    return lines + [""]


def thread_points(summary):
    return [(n, summary.get(("insert", v))) for n, v in THREADS if summary.get(("insert", v))]


def thread_goal(summary):
    points = thread_points(summary)
    one = dict(points).get(1)
    if not one or len(points) < 2:
        return []
    worst = min(s["qps"] for _, s in points)
    return [f"- insert, 1/2/4/8 write threads: lowest {k(worst)}/s vs {k(one['qps'])}/s with one "
            f"(goal: each ≥ the one-thread figure): {verdict(worst >= one['qps'])}"]


def conns_points(summary, info):
    points = [(n, summary.get(("insert", f"rowsocket-c{n}"))) for n in info["sweep_conns"]]
    points.append((info["conns"], summary.get(("insert", "rowsocket"))))
    return sorted(((n, s) for n, s in points if s and s["flushes_per_write"] is not None),
                  key=lambda p: p[0])


def flush_goal(summary, info):
    points = conns_points(summary, info)
    if len(points) < 2:
        return []
    values = [s["flushes_per_write"] for _, s in points]
    shrinks = all(b < a for a, b in zip(values, values[1:]))
    shown = ", ".join(f"{n} conns {v:.3f}" for (n, _), v in zip(points, values))
    return [f"- insert, log flushes per write as connections grow ({shown}) (goal: shrinks): "
            f"{verdict(shrinks)}"]


def sweeps(summary, info):
    lines = ["## rowsocket write threads (`rowsocket_threads_wr`; inserts, 1 request per round "
             f"trip, {info['conns']} connections)", "",
             "| write threads | inserts/s | server µs/write | p99 µs | log flushes per write |",
             "|---:|---:|---:|---:|---:|"]
    for n, s in thread_points(summary):
        lines.append(f"| {n} | {s['qps']:,.0f} | {s['server_us_per_op']:.1f} | "
                     f"{s['p99_us']:,.0f} | {per_write(s['flushes_per_write'])} |")
    lines += ["", "## Log flushes and concurrency (rowsocket inserts, 1 request per round trip, "
              "2 write threads)", "",
              "| connections | inserts/s | log flushes per write | all fsyncs per write | "
              "rowsocket commits per write |", "|---:|---:|---:|---:|---:|"]
    for n, s in conns_points(summary, info):
        lines.append(f"| {n} | {s['qps']:,.0f} | {per_write(s['flushes_per_write'])} | "
                     f"{per_write(s['fsyncs_per_write'])} | "
                     f"{per_write(s['commits_per_write'])} |")
    return lines + [""]


def fmt(value, spec):
    return "—" if value is None else format(value, spec)


def every_run(runs, info):
    lines = ["## Every run", "",
             "| phase | op | way of writing | conns | rows/round trip | writes/s | p50 µs | p99 µs "
             "| server µs/write | client µs/write | other CPU % | log flushes/write | writes "
             "(whole run) | rowsocket rollbacks | window s | errors |",
             "|---|---|---|" + "---:|" * 13]
    for r in runs:
        flag = " ⚠" if r["disturbed"] else ""
        lines.append(
            f"| {r['phase']} | {r['case']} | {title(info, r['target_name'])} | {r['conns']} | "
            f"{r.get('batch', 1)} | {r['qps']:,.0f}{flag} | {r['p50_us']:,.0f} | "
            f"{r['p99_us']:,.0f} | {r['server_us_per_op']:.2f} | {r['client_us_per_op']:.2f} | "
            f"{r['other_cpu_pct']:.0f} | {fmt(r.get('flushes_per_write'), '.4f')} | "
            f"{r.get('writes', 0):,} | {r.get('rowsocket_rollbacks', 0):,} | "
            f"{r['window_s']:.1f} | {r['errors_total']} |")
    return lines + [""]


def binary_log(info):
    options = [o for o in info.get("server_options", []) if o.startswith("--log-bin")]
    return f"binary log on ({options[0]})" if options else "no binary log"


def header(info, runs):
    lines = title_lines("rowsocket write path", info, "rates")
    phases = "; ".join(f"`{p['name']}`: {p['title']}" for p in info["phases"])
    lines += [
        f"- Machine: {info['cpus']} CPUs ({info['cpu_model']}), {info['kernel']}; 1-minute load "
        f"before the run {info['load_before']:.2f}; the whole run took "
        f"{info['minutes']:.1f} minutes.",
        f"- Versions: MariaDB {info['versions'].get('mariadb', '?')}, rowsocket {info['git']}.",
        f"- Data: {info['rows']:,} rows in test.user, buffer pool {info['buffer_pool_mb']} MB "
        "(all in memory, warmed); InnoDB with innodb_flush_log_at_trx_commit=1, "
        f"{binary_log(info)}.",
        f"- Server configurations, each a fresh private mariadbd carrying both plugins over the "
        f"same tables (plugin thread counts are fixed at start): {phases}.",
        f"- Runs: {info['rounds']} round(s), {info['duration']} s measured after "
        f"{info['warmup']} s warm-up, rowsocket-bench with {info['threads']} client threads on "
        "the same machine; medians over rounds. One request per round trip: "
        f"{info['conns']} connections. Batched: {info['batch_conns']} connections × "
        f"{info['batch']:,} rows per round trip (SQL: one multi-row INSERT, UPDATE ... "
        "SET user_email=CONCAT('user',user_id,'.<stamp>@example.com') WHERE user_id IN (...), "
        "or DELETE ... WHERE user_id IN (...) statement, autocommit; rowsocket: "
        f"{info['batch']:,} requests in one write, the next ones once all are answered).",
        "- Inserts take fresh consecutive keys above the loaded ones; each variant's delete run "
        "removes exactly the keys its insert run added; updates set user_email of uniformly "
        "chosen keys.",
        "- Log flushes per write: the rise of Innodb_log_writes (under "
        "innodb_flush_log_at_trx_commit=1 every redo log write is followed by its fsync; "
        "MariaDB 10.11 has no Innodb_os_log_fsyncs) from just before to just after the "
        "rowsocket-bench process, divided by the writes that process completed (warm-up, "
        "window and drain alike), so InnoDB's once-a-second background flush is included. "
        "\"All fsyncs\" is Innodb_data_fsyncs, which adds the data files' fsyncs.",
        f"- A run is ⚠ disturbed when processes other than the server and the load generator "
        f"used more than {info['disturbed_threshold']:.0f}% of a core during its window "
        f"({info['disturbed_runs']} of {len(runs)} kept runs).",
        f"- Command: `{info['command']}`"
        + (f"; extra server options `{' '.join(info['server_options'])}`"
           if info.get("server_options") else ""),
        ""]
    return lines


def write_report(out_dir, stem, runs, info):
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, stem + ".json"), "w") as f:
        json.dump({"info": info, "runs": runs}, f, indent=1)
    summary = summarize(runs)
    lines = (header(info, runs) + side_by_side(summary, info) + left_behind(summary, info)
             + round_trips(summary, info) + ratios(summary, info)
             + goal_lines(summary, info) + sweeps(summary, info) + every_run(runs, info))
    lines.append(f"Every run's raw result: [{stem}.json]({stem}.json).")
    md_path = os.path.join(out_dir, stem + ".md")
    with open(md_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return md_path
