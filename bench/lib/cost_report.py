"""The report of bench/cost: per case, what one request cost each target, counted.

`write` turns bench/cost's saved runs (the .json it writes beside the report) into
<stem>.md: a table per case (targets as rows; system calls, context switches, of them
preemptions, wake-ups, instructions, server CPU µs and the rate, all per request), with
two builds an A/B table of rowsocket's targets (each count under both and the ratio),
the idle server's own counts per second that were subtracted, and every run.
"""

import json
import os

COUNTS = [  # (key in per_request, column title, decimals)
    ("syscalls", "system calls", 2),
    ("switches", "context switches", 2),
    ("involuntary", "of them preempted", 2),
    ("wakeups", "wake-ups", 2),
    ("instructions", "instructions (user)", 0),
    ("cpu_us", "server CPU µs", 2),
]


def fmt(value, decimals):
    if value is None:
        return "–"
    return f"{value:,.{decimals}f}"


def cells(runs):
    """(variant, case, target) -> merged per-request counts of its perf and callgrind
    runs, plus the rate of the perf run (else the callgrind run's)."""
    merged = {}
    for r in runs:
        key = (r["variant"], r["case"], r["target"])
        cell = merged.setdefault(key, {})
        cell.update(r["per_request"])
        if r["part"] == "perf" or "rps" not in cell:
            cell["rps"] = r["bench"]["rps"]
        cell.setdefault("errors", 0)
        cell["errors"] += r["bench"].get("errors_total", 0)
    return merged


def case_table(case, title, keys, targets_in_order, variants, merged, target_titles):
    ab = len(variants) > 1
    lines = [f"## {title}", ""]
    if keys > 1:
        lines += [f"Per request of {keys} keys; per key is a {keys}th of each.", ""]
    lines += ["| target | " + " | ".join(t for _, t, _ in COUNTS) + " | req/s |",
              "|---|" + "---:|" * (len(COUNTS) + 1)]
    for target in targets_in_order:
        rows = [(v, merged.get((v, case, target))) for v in variants]
        rows = [(v, c) for v, c in rows if c]
        for v, c in rows:
            name = target_titles[target] + (f" — {v}" if ab and len(rows) > 1 else "")
            errors = f" ({c['errors']:.0f} errors)" if c.get("errors") else ""
            lines.append(f"| {name}{errors} | " + " | ".join(
                fmt(c.get(k), d) for k, _, d in COUNTS) + f" | {fmt(c.get('rps'), 0)} |")
        if len(rows) == 2:
            (_, a), (vb, b) = rows
            lines.append(f"| {vb} ÷ {rows[0][0]} | " + " | ".join(
                ratio(a.get(k), b.get(k)) for k, _, _ in COUNTS) + f" | "
                f"{ratio(a.get('rps'), b.get('rps'))} |")
    return lines + [""]


def ratio(before, after):
    if before is None or after is None or not before:
        return "–"
    return f"{after / before:.3f}x"


def ab_table(variants, merged, case_titles, target_titles):
    before, after = variants
    lines = [f"## A/B: {after} ÷ {before}", "",
             "| case | target | " + " | ".join(t for _, t, _ in COUNTS) + " |",
             "|---|---|" + "---:|" * len(COUNTS)]
    for (v, case, target), b in merged.items():
        if v != after or (before, case, target) not in merged:
            continue
        a = merged[(before, case, target)]
        lines.append(f"| {case_titles[case]} | {target_titles[target]} | " + " | ".join(
            f"{fmt(a.get(k), d)} → {fmt(b.get(k), d)} ({ratio(a.get(k), b.get(k))})"
            for k, _, d in COUNTS) + " |")
    return lines + [""]


def idle_table(idle):
    lines = ["## The idle servers (subtracted)", "",
             "What each server did per second with no load, measured once after loading "
             "and subtracted from each run for the run's length (background threads: "
             "InnoDB's timers, the memcached listener's expiry sweep of rowsocket.kv, "
             "which examines rowsocket_memcached_sweep_rate rows a second).", "",
             "| part | build | server | system calls/s | context switches/s | wake-ups/s | "
             "CPU ms/s | instructions/s |", "|---|---|---|---:|---:|---:|---:|---:|"]
    for part, by_variant in idle.items():
        for variant, servers in by_variant.items():
            if variant == "versions":
                continue
            for server, r in servers.items():
                lines.append(f"| {part} | {variant} | {server} | {fmt(r.get('syscalls'), 1)} | "
                             f"{fmt(r.get('switches'), 1)} | {fmt(r.get('wakeups'), 1)} | "
                             f"{fmt(r.get('cpu_ms'), 2)} | {fmt(r.get('instructions'), 0)} |")
    return lines + [""]


def runs_table(runs, case_titles):
    lines = ["## Every run", "",
             "| part | build | case | target | connections | requests counted | req/s | "
             "other CPU % |", "|---|---|---|---|---:|---:|---:|---:|"]
    for r in runs:
        b = r["bench"]
        counted = b["requests"] if r["part"] == "perf" else \
            r["counts"]["requests"][1] - r["counts"]["requests"][0]
        lines.append(f"| {r['part']} | {r['variant']} | {r['case']} | {r['target']} | "
                     f"{b['conns']:.0f} | {counted:,.0f} | {b['rps']:,.0f} | "
                     f"{b.get('other_cpu_pct', 0):.0f} |")
    return lines + [""]


def write(out_dir, stem, saved, cases, target_titles):
    info, runs = saved["info"], saved["runs"]
    variants = info["variants"]
    merged = cells(runs)
    versions = next((by["versions"] for by in saved["idle"].values() if "versions" in by), {})
    builds = (f"builds {' and '.join(variants)} (rowsocket's targets under each; the "
              f"others once)" if len(variants) > 1 else "one build")
    lines = [
        f"# What one request costs the server, counted — {info['date']}", "",
        f"- Machine: {info['cpus']} CPUs ({info['cpu_model']}), {info['kernel']}; MariaDB "
        f"{versions.get('mariadb', '?')}"
        + (f", {versions['memcached']}" if "memcached" in versions else "")
        + (f", {versions['redis']}" if "redis" in versions else "") + "; "
        f"commit {info['git']}; {builds}.",
        f"- Made by `{info['command']}` in {info['minutes']:.0f} minutes; 1-minute load "
        f"{info['load_before']:.2f} before, {info['load_after']:.2f} after.",
        "- **System calls and instructions per request are comparable between runs; "
        "rates and CPU µs are not.** The machine is shared with other builds and tests, "
        "so req/s and server CPU µs move with them (10–40% between two runs of one "
        "build); system calls and instructions per request move little (1–3%). Context "
        "switches and wake-ups move with load too: a client that is asleep when its "
        "answer comes is woken and often preempts the worker that woke it (`of them "
        "preempted`), so compare them within one run only.",
        f"- System calls, context switches, wake-ups, CPU µs: `perf stat -p` of the "
        f"server at full speed, {info['rows']:,} rows, {info['warmup']:g} s warm-up + "
        f"{info['duration']:g} s per run, divided by every request the load generator had "
        f"answered; wake-ups are those the server's threads perform (clients woken by an "
        f"answer, its own threads handed work). CPU µs: the server's CPU time over the "
        f"load generator's window.",
        f"- Instructions: user-space instructions of every server thread (callgrind's "
        f"Ir, valgrind; mariadbd, memcached and redis-server under it), {info['callgrind_rows']:,} rows, "
        f"a {info['callgrind_duration']:g} s run minus a set-up-only run, over the "
        f"difference of requests"
        + (f", at most {info['callgrind_conns']} connections" if info["callgrind_conns"]
           else ", the case's connections") + "; rowsocket's spare workers and the memcached "
        "listener's expiry sweep off. Under valgrind one thread runs at a time.",
        f"- {info['threads']} client threads; rowsocket-bench in every run"
        + (f"; each count the median of {info['rounds']} runs" if info.get("rounds", 1) > 1
           else "") + ".", ""]
    if info.get("note"):
        lines += [info["note"], ""]
    if len(variants) == 2:
        lines += ab_table(variants, merged, {c: cases[c][0] for c in cases}, target_titles)
    order = list(target_titles)
    for case in dict.fromkeys(r["case"] for r in runs):
        title, _, _, keys, _ = cases[case]
        present = [t for t in order if any(k[1] == case and k[2] == t for k in merged)]
        lines += case_table(case, title, keys, present, variants, merged, target_titles)
    lines += idle_table(saved["idle"])
    lines += runs_table(runs, {c: cases[c][0] for c in cases})
    os.makedirs(out_dir, exist_ok=True)
    md = os.path.join(out_dir, stem + ".md")
    with open(md, "w") as f:
        f.write("\n".join(lines))
    with open(os.path.join(out_dir, stem + ".json"), "w") as f:
        json.dump(saved, f, indent=1)
    return md
