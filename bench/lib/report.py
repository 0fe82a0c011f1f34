"""The report bench/compare writes: bench/results/<stem>.md, <stem>.png, <stem>.json.

The Markdown file holds the summary table in the shape of issue 4 (qps and server
CPU per request by case and target), the ratios rowsocket ÷ each peer, the issue's
targets marked met or not, per-case latency tables, and how the run was made
(machine, versions, settings, disturbance). The PNG is a clustered bar chart of qps
by target for the issue's cases, drawn by gnuplot. The JSON keeps every run's raw
result for later analysis.
"""

import json
import os
import subprocess

from matrix import MEMCACHED_PEERS, PEERS, REDIS_TARGETS, TARGET_TITLES

# (case, peer, minimum qps ratio) that issue 16 asks for; the CPU goals follow.
GOALS = [
    ("pk-64x1", "original", 1.3), ("pk-8x1", "original", 1.3),
    ("pk-64x16keys", "memcached", 1.0), ("pk-64x16pipe", "memcached", 2.0),
    ("pk-hot-64x1", "memcached", 1.0),
]
# Cases where rowsocket's server CPU per get must be no more than memcached's.
CPU_GOALS = ["pk-64x1", "pk-8x1"]
# (case, peer, minimum qps ratio) that issue 18 asks of rowsocket's memcached listener.
MEMCACHED_GOALS = [
    ("kv-get-64x1", "memcached", 0.9), ("kv-get-64x16keys", "memcached", 0.8),
    ("kv-get-64x1", "rowsocket", 1.0), ("kv-get-8x1", "rowsocket", 1.0),
    ("kv-set-64x1", "sql-prepared", 3.0), ("kv-set-64x1", "sql", 3.0),
]
# (case, peer, minimum qps ratio) that issue 28 asks of rowsocket's Redis listener.
REDIS_GOALS = [
    ("rd-get-64x1", "redis", 0.9), ("rd-get-64x16pipe", "redis", 2.0),
    ("rd-set-64x1", "redis-always", 2.0), ("rd-mget-64x16keys", "redis", 0.8),
]

# (case, peer, minimum qps ratio) that issue 29 asks of rowsocket on data that does not fit.
IO_BOUND_GOALS = [("io-pk-64x1", "sql-prepared", 2.0), ("io-pk-64x16keys", "sql-prepared", 2.0)]


def title_lines(title, info, unit):
    """A report's heading, its disturbed-run warning and its note (shared by the read
    and the write reports)."""
    lines = [f"# {title} {info['date']} — {info['mode']}", ""]
    if info["disturbed"]:
        lines += [f"**Disturbed run:** {info['disturbed_reason']} Numbers are indicative only; "
                  f"ratios between targets are more trustworthy than absolute {unit}.", ""]
    if info.get("note"):
        lines += [f"Note: {info['note']}", ""]
    return lines

def k(qps):
    return f"{qps / 1000:.0f}k" if qps >= 10000 else f"{qps / 1000:.1f}k"


def ratio(a, b):
    return a / b if b else float("nan")


def summary_cell(s):
    if s is None:
        return "—"
    mark = " ⚠" if s["disturbed"] else ""
    err = f" **{s['errors']} errors**" if s["errors"] else ""
    return f"{k(s['qps'])}/s ({s['server_us_per_op']:.1f}){mark}{err}"


def ratio_cell(ours, peer):
    if ours is None or peer is None:
        return "—"
    q = ratio(ours["qps"], peer["qps"])
    c = ratio(ours["server_us_per_op"], peer["server_us_per_op"])
    return f"{q:.2f}x qps, {c:.2f}x CPU"


def goals_lines(summary):
    lines = []
    for case, peer, want in GOALS:
        ours, theirs = summary.get((case, "rowsocket")), summary.get((case, peer))
        if not ours or not theirs:
            continue
        got = ratio(ours["qps"], theirs["qps"])
        verdict = "met" if got >= want else "NOT met"
        lines.append(f"- {case}: rowsocket ÷ {TARGET_TITLES[peer]} qps {got:.2f}x "
                     f"(goal ≥ {want}x): **{verdict}**")
    for case in CPU_GOALS:
        ours, theirs = summary.get((case, "rowsocket")), summary.get((case, "memcached"))
        if not ours or not theirs:
            continue
        cpu = ratio(ours["server_us_per_op"], theirs["server_us_per_op"])
        verdict = "met" if cpu <= 1.0 else "NOT met"
        lines.append(f"- {case}: rowsocket ÷ memcached server CPU per get {cpu:.2f}x "
                     f"({ours['server_us_per_op']:.1f} vs {theirs['server_us_per_op']:.1f} µs; "
                     f"goal ≤ 1.0x): **{verdict}**")
    return lines


def listener_goals_lines(summary, goals, ours_target):
    """A line per goal of `ours_target` (rowsocket's memcached or Redis listener)."""
    lines = []
    for case, peer, want in goals:
        ours = summary.get((case, ours_target))
        theirs = summary.get((case, peer))
        if not ours or not theirs:
            continue
        got = ratio(ours["qps"], theirs["qps"])
        cpu = ratio(ours["server_us_per_op"], theirs["server_us_per_op"])
        verdict = "met" if got >= want else "NOT met"
        peer_title = "rowsocket HandlerSocket" if peer == "rowsocket" else TARGET_TITLES[peer]
        lines.append(f"- {case}: {TARGET_TITLES[ours_target]} ÷ {peer_title} qps {got:.2f}x "
                     f"(goal ≥ {want}x): **{verdict}**; server CPU per request {cpu:.2f}x "
                     f"({ours['server_us_per_op']:.1f} vs {theirs['server_us_per_op']:.1f} µs)")
    return lines


def ratio_table(heading, ours_target, peers, cases, summary, titles=None):
    """A section of `ours_target` ÷ each of `peers`, a row per case."""
    titles = {**TARGET_TITLES, **(titles or {})}
    lines = ["", f"## {heading} (qps ratio, server-CPU-per-request ratio)", "",
             "| case | " + " | ".join(f"÷ {titles[p]}" for p in peers) + " |",
             "|---|" + "---:|" * len(peers)]
    for c in cases:
        ours = summary.get((c.name, ours_target))
        lines.append(f"| {c.title} | " + " | ".join(
            ratio_cell(ours, summary.get((c.name, p))) for p in peers) + " |")
    return lines


def write_chart(path_png, summary, cases, targets):
    """Clustered bars: qps (thousands) by case (issue 4's cases and the kv cases) and
    target."""
    issue_cases = [c for c in cases if c.issue or c.kv or c.redis]
    data_path = path_png[:-4] + ".dat"
    with open(data_path, "w") as f:
        f.write("case " + " ".join(f'"{TARGET_TITLES[t]}"' for t in targets) + "\n")
        for c in issue_cases:
            vals = []
            for t in targets:
                s = summary.get((c.name, t))
                vals.append(f"{s['qps'] / 1000:.1f}" if s else "-")
            f.write(f'"{c.name}" ' + " ".join(vals) + "\n")
    script = f"""
set terminal pngcairo size 1100,600 font "sans,10"
set output "{path_png}"
set title "qps by target and case (thousands of keys per second; medians)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set datafile missing "-"
set key top left
set grid ytics
set ylabel "k keys/s"
set yrange [0:*]
plot for [i=2:{len(targets) + 1}] "{data_path}" using i:xtic(1) title columnheader(i)
"""
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True, capture_output=True)
        return None
    except (OSError, subprocess.CalledProcessError) as e:
        return f"gnuplot failed: {getattr(e, 'stderr', e)}"
    finally:
        os.unlink(data_path)


def write_report(out_dir, stem, runs, summary, cases, targets, info):
    os.makedirs(out_dir, exist_ok=True)
    md_path = os.path.join(out_dir, stem + ".md")
    png_path = os.path.join(out_dir, stem + ".png")
    json_path = os.path.join(out_dir, stem + ".json")
    io_bound = all(c.io_bound for c in cases)  # (bench/compare keeps the io-* cases apart)
    chart_error = write_chart(png_path, summary, cases, targets)
    with open(json_path, "w") as f:
        json.dump({"info": info, "runs": runs}, f, indent=1)

    lines = title_lines("rowsocket benchmark", info, "qps")
    lines += [
        f"- Machine: {info['cpus']} CPUs ({info['cpu_model']}), {info['kernel']}; 1-minute load "
        f"before the run {info['load_before']:.2f}.",
        f"- Versions: MariaDB {info['versions']['mariadb']}, {info['versions']['memcached']}, "
        + (f"{info['versions']['redis']}, " if "redis" in info["versions"] else "") +
        f"rowsocket {info['git']}.",
        f"- Data: {info['rows']:,} rows in test.user and test.user_si, buffer pool "
        f"{info['buffer_pool_mb']} MB " + (
            "(IO-bound: the table is many times the buffer pool)."
            if io_bound else "(all in memory, warmed)."),
        f"- Runs: {info['rounds']} round(s) of every target in turn per case, {info['duration']} s "
        f"measured after {info['warmup']} s warm-up, rowsocket-bench with {info['threads']} client "
        f"thread(s) on the same machine as the servers; medians over rounds.",
        "- Plugins and memcached at their defaults (rowsocket threads = cores; original "
        "handlersocket_threads = 16, threads_wr = 1; memcached -t 4; rowsocket's memcached "
        "listener, in the kv cases, rowsocket_memcached_threads = half the cores, at least 2; "
        "its Redis listener, in the rd cases, rowsocket_redis_threads likewise; redis-server "
        "one thread, its append-only file on); "
        "SQL over TCP, autocommit, one thread per connection."
        + (f" Extra server options: `{' '.join(info['server_options'])}`."
           if info.get("server_options") else ""),
        f"- A run is ⚠ disturbed when processes other than the server and the load generator "
        f"used more than {info['disturbed_threshold']:.0f}% of a core during its window "
        f"({info['disturbed_runs']} of {len(runs)} kept runs).",
        f"- Command: `{info['command']}`",
        "",
        "## Summary: qps (server CPU µs per request)",
        "",
        "| case | " + " | ".join(TARGET_TITLES[t] for t in targets) + " |",
        "|---|" + "---:|" * len(targets),
    ]
    for c in cases:
        cells = [summary_cell(summary.get((c.name, t))) for t in targets]
        lines.append(f"| {c.title} | " + " | ".join(cells) + " |")
    peers = [p for p in PEERS if p in targets]
    if "rowsocket" in targets and peers:
        lines += ratio_table("rowsocket ÷ each peer", "rowsocket", peers, cases, summary)
        if io_bound:
            lines += ["", "## Issue 29's targets on data that does not fit", ""] + (
                listener_goals_lines(summary, IO_BOUND_GOALS, "rowsocket")
                or ["- (not measured)"])
        else:
            lines += ["", "## Issue 16's targets", ""] + (goals_lines(summary) or ["- (not measured)"])
    mc_peers = [p for p in MEMCACHED_PEERS if p in targets]
    kv_cases = [c for c in cases if c.kv]
    if "rowsocket-memcached" in targets and mc_peers and kv_cases:
        lines += ratio_table("rowsocket's memcached listener ÷ each peer, kv cases",
                             "rowsocket-memcached", mc_peers, kv_cases, summary,
                             {"rowsocket": "rowsocket HandlerSocket"})
        lines += ["", "## Issue 18's targets", ""] + (
            listener_goals_lines(summary, MEMCACHED_GOALS, "rowsocket-memcached")
            or ["- (not measured)"])
    redis_peers = [p for p in REDIS_TARGETS[1:] if p in targets]
    redis_cases = [c for c in cases if c.redis]
    if "rowsocket-redis" in targets and redis_peers and redis_cases:
        lines += ratio_table("rowsocket's Redis listener ÷ redis-server, rd cases",
                             "rowsocket-redis", redis_peers, redis_cases, summary)
        lines += ["", "## Issue 28's targets", ""] + (
            listener_goals_lines(summary, REDIS_GOALS, "rowsocket-redis")
            or ["- (not measured)"])
    lines += ["", "## Latency and CPU per case (medians)", ""]
    for c in cases:
        rows = [(t, summary.get((c.name, t))) for t in targets]
        rows = [(t, s) for t, s in rows if s]
        if not rows:
            continue
        lines += [f"### {c.title} (`{c.name}`)", "",
                  "| target | qps (min–max of rounds) | p50 µs | p99 µs | p99.9 µs | server µs/req | client µs/req "
                  "| other CPU % | runs (⚠) | errors |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for t, s in rows:
            spread = f"{k(min(s['qps_all']))}–{k(max(s['qps_all']))}"
            lines.append(f"| {TARGET_TITLES[t]} | {s['qps']:,.0f} ({spread}) | {s['p50_us']:.0f} | "
                         f"{s['p99_us']:.0f} | {s['p999_us']:.0f} | {s['server_us_per_op']:.2f} | "
                         f"{s['client_us_per_op']:.2f} | {s['other_cpu_pct']:.0f} | "
                         f"{s['runs']} ({s['disturbed']}) | {s['errors']} |")
        lines.append("")
    lines += ["## Notes", "",
              "- A request of the 16-keys case looks up 16 keys; its qps counts keys, and "
              "CPU per request is per key.",
              "- memcached's secondary-index case reads one value holding the rows of a name "
              "(what a cache would store); memcached has no range scan; SQL cannot pipeline.",
              "- Inserts and deletes are paired: each target's delete run removes exactly the "
              "keys its insert run added.",
              "- The kv cases read and write rowsocket.kv (k \"u<id>\", v the row's values "
              "joined by TAB, exactly what memcached holds) through every target: HandlerSocket "
              "opens its PRIMARY on v,cas,flags,expires (what the memcached listener reads), SQL "
              "selects those columns by k, and a set writes the whole item (HandlerSocket U of "
              "those columns, SQL INSERT ... ON DUPLICATE KEY UPDATE). Writes to MariaDB are "
              "durable before their answer (innodb_flush_log_at_trx_commit=1); memcached's are not.",
              "- The rd cases read and write the same items through Redis's protocol (GET, "
              "MGET, SET of \"u<id>\"; HGETALL \"user:<id>\": test.user's row through "
              "rowsocket's container `user`, a hash of the same three fields in redis-server). "
              "redis-server keeps an append-only file: `redis-server (everysec)` fsyncs it once "
              "a second (a crash loses up to a second of writes), `redis-server (always)` "
              "before each answer, as rowsocket's writes are durable before theirs.",
              ""]
    if chart_error:
        lines += [f"Chart not drawn: {chart_error}", ""]
    else:
        lines += [f"![qps by target]({stem}.png)", ""]
    lines.append(f"Every run's raw result: [{stem}.json]({stem}.json).")
    with open(md_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return md_path
