"""The end-to-end fuzzer: random tables, random pipelined HandlerSocket bursts on both
listeners, SQL changing the tables between them, and after each burst the checks
that must always hold.

A round draws 1-3 tables (fuzz_shapes.py), creates and fills them through SQL,
sometimes runs FLUSH TABLES (so that rowsocket opens them first), then sends one to
three waves of requests (fuzz_requests.py) over connections that stay open: one or
two on the write listener and often one on the read listener, each wave pipelined on
all of them at once. Before a later wave SQL may change a table under the open
indexes (ALTER, DROP and CREATE again, TRUNCATE, DML, FLUSH). After each wave
(fuzz_target.py): mariadbd is alive and answers SQL; every line got exactly one
answer line, in order, shaped like an answer; no connection was closed or stalled;
CHECK TABLE ... EXTENDED passes for every table.

Everything is drawn from `random.Random("<seed>:<round>")`, so `--seed S --round R`
replays one round (concurrency between the connections aside). A failure is replayed
with fewer lines and statements (delta debugging, restarting mariadbd after each
crash), then reported with the seed, the SQL and the smallest burst that still fails.

Used by test_fuzz.py (bounded in time) and by scripts/fuzz.py for long runs:

    scripts/fuzz.py --seconds 600 [--seed N] [--round R] [--avoid known] [--keep-going]

Runs in one thread; starts and stops its own private server (harness.py).
"""

import argparse
import os
import random
import sys
import time

import harness
from fuzz_requests import ConnState, Grammar
from fuzz_shapes import random_table
from fuzz_target import DB, SENTINEL_ID, Case, Failure, Target, Wave, uses_accounts

PLUGIN_OPTIONS = {"lock_wait_timeout": 2}
# The same with account logins: every connection logs in, every request passes the
# grant checks.
ACCOUNT_OPTIONS = dict(PLUGIN_OPTIONS, auth="account", auth_wr="account")

# Problems known from issue 12; `--avoid` keeps the draw away from them so that a run
# can look for new ones while they are being fixed.
KNOWN_ISSUES = {
    "modify_extra_values": "U/+/- with more values than columns on = over a whole "
                           "unique key crashes mariadbd (lock planning before validation)",
    "partition": "partitioned tables: a scan over several partitions crashes",
    "generated_column": "generated columns are not computed on write (corrupt index)",
    "long_unique": "UNIQUE on TEXT/BLOB or too long for the engine (hidden hash key) is "
                   "not checked (corrupt index)",
    "prefix_key": "prefix key parts compare only the prefix",
    "memory_hash": "MEMORY HASH indexes scan ranges wrongly",
}


# -- drawing a round ---------------------------------------------------------------------

def round_rng(seed, round_number):
    return random.Random(f"{seed}:{round_number}")


def draw_table(target, rng, name, avoid, parent):
    """Draws shapes until the server takes one; creates it (not filled). Returns the
    Table and its CREATE statement, or (None, None)."""
    for _ in range(20):
        table = random_table(rng, name, avoid, parent=parent)
        statement = table.create_sql(DB)
        if not target.try_sql(statement):
            continue
        if target.has_long_unique(name):
            # A UNIQUE key too long for the engine became a hidden hash key.
            table.features.add("long_unique")
            if "long_unique" in avoid:
                target.sql.execute(f"DROP TABLE `{DB}`.`{name}`")
                continue
        return table, statement
    return None, None


def fill(target, rng, table):
    """Rows (and triggers) for a new table, run now; returns the statements."""
    statements = table.insert_sql(DB, rng, rng.randint(0, 25))
    statements += [a.format(db=DB) for a in table.after]
    for statement in statements:
        target.try_sql(statement)
    return statements


def draw_interlude(target, rng, tables, avoid):
    """SQL statements between two waves, run now (they shape the next wave's draw)."""
    table = rng.choice(tables)
    t = f"`{DB}`.`{table.name}`"
    plain = [c for c in table.columns if c.writable and not c.auto_increment]
    choices = ["FLUSH TABLES", f"FLUSH TABLES {t}", f"ANALYZE TABLE {t}",
               f"OPTIMIZE TABLE {t}", f"TRUNCATE TABLE {t}", f"DELETE FROM {t} LIMIT 3",
               f"ALTER TABLE {t} ADD COLUMN `zz{rng.randrange(100)}` INT DEFAULT 5",
               f"ALTER TABLE {t} FORCE", "recreate"]
    if plain:
        c = rng.choice(plain)
        choices.append(f"ALTER TABLE {t} DROP COLUMN `{c.name}`")
        choices.append(f"UPDATE {t} SET `{c.name}` = `{c.name}` LIMIT 5")
    secondary = [i for i in table.indexes if i.kind != "primary"]
    if secondary:
        choices.append(f"ALTER TABLE {t} DROP INDEX `{rng.choice(secondary).name}`")
    choice = rng.choice(choices)
    if choice != "recreate":
        target.try_sql(choice)
        return [choice]
    # The same name, a new shape: open indexes on the old one must notice.
    statements = [f"DROP TABLE {t}"]
    target.try_sql(statements[0])
    parent = tables[0] if tables[0] is not table else None
    new, create = draw_table(target, rng, table.name, avoid, parent)
    if new is None:
        return statements
    tables[tables.index(table)] = new
    return statements + [create] + fill(target, rng, new)


def make_case(target, rng, avoid):
    """Draws a round. The draw runs the round's SQL as it goes (shapes the server
    refuses are drawn again; later waves are drawn for the tables as SQL left them);
    Target.run then runs the round from a fresh database."""
    target.reset_database()
    tables, setup = [], []
    for i in range(rng.randint(1, 3)):
        table, create = draw_table(target, rng, f"t{i}", avoid,
                                   tables[0] if tables else None)
        if table is not None:
            tables.append(table)
            setup += [create] + fill(target, rng, table)
    if not tables:
        raise RuntimeError("the server refused every table shape drawn")
    flush = rng.random() < 0.15
    if flush:
        target.sql.execute("FLUSH TABLES")
    grammar = Grammar(rng, DB, tables, avoid, SENTINEL_ID, keep_login=uses_accounts(target.plugin))
    kinds = ["write"] * rng.randint(1, 2) + (["read"] if rng.random() < 0.7 else [])
    if rng.random() < 0.1:
        kinds.append(rng.choice(["write, reset", "read, reset"]))
    conns = [ConnState(kind.startswith("write")) for kind in kinds]
    waves = []
    for w in range(rng.choice([1, 1, 2, 3])):
        sql = draw_interlude(target, rng, tables, avoid) if w else []
        burst = rng.randint(5, 60) if rng.random() > 0.05 else rng.randint(200, 600)
        lines = []
        for conn, kind in zip(conns, kinds):
            if w and kind.endswith("reset"):
                lines.append([])
                continue
            opens = []
            if w == 0:
                opens = [b"\t".join(grammar.open_line(conn, index_id=i, careful=True))
                         + b"\n" for i in range(rng.randint(1, 4))]
                opens = [line for line in opens if grammar.acceptable(conn, line[:-1])]
            lines.append(opens + [grammar.line(conn) for _ in range(burst)])
        waves.append(Wave(sql, lines))
    return Case(setup, flush, kinds, waves)


def server_breaks_it_alone(target, case, failure):
    """True when the round's SQL alone, without a single request, fails as `failure`
    did (MariaDB has bugs of its own, e.g. with indexed virtual columns)."""
    return reproduce(target, case.with_items([]), failure)


# -- making a failure small --------------------------------------------------------------

def reproduce(target, case, failure):
    """Runs `case` from scratch; True when it fails as `failure` did. Restarts mariadbd
    afterwards if it crashed or hung."""
    got, _ = target.run(case)
    if (got is not None and got.kind in ("crash", "hang", "closed", "connect",
                                         "sql-blocked")) or not target.server.alive():
        target.recover()
    return failure.same_as(got)


def minimize(target, case, failure, seconds, log):
    """Delta debugging over the request lines, then the SQL statements, within
    `seconds`. Returns the smallest failing case found, and whether it failed again."""
    deadline = time.monotonic() + seconds
    if not reproduce(target, case, failure):
        return case, False
    items = case.items()
    chunks = 2
    while len(items) >= 2 and time.monotonic() < deadline:
        size = -(-len(items) // chunks)
        for start in range(0, len(items), size):
            if time.monotonic() >= deadline:
                break
            candidate = items[:start] + items[start + size:]
            if candidate and reproduce(target, case.with_items(candidate), failure):
                items = candidate
                chunks = max(chunks - 1, 2)
                log(f"  minimizing: {len(items)} lines still fail")
                break
        else:
            if chunks >= len(items):
                break
            chunks = min(len(items), chunks * 2)
    small = case.with_items(items)
    # Then the SQL, last statement first (a table's rows before the table itself).
    for statement in reversed(small.statements()):
        if time.monotonic() >= deadline:
            break
        candidate = small.without_statement(statement)
        if reproduce(target, candidate, failure):
            small = candidate
    if small.flush and time.monotonic() < deadline:
        if reproduce(target, small.without_flush(), failure):
            small = small.without_flush()
    return small, True


# -- reporting ---------------------------------------------------------------------------

def describe(finding):
    """The text a person needs to see and replay a finding."""
    case, failure = finding["case"], finding["failure"]
    replay = f"--seed {finding['seed']} --round {finding['round']}"
    if finding["avoid"]:
        replay += " --avoid " + ",".join(sorted(finding["avoid"]))
    if finding.get("accounts"):
        replay += " --accounts"
    out = [f"FUZZ FINDING: {failure}",
           f"seed {finding['seed']}, round {finding['round']}; replay the whole round: "
           f"scripts/fuzz.py {replay}"]
    if case is None:
        return "\n".join(out)
    out += [("smallest reproduction found (replayed: it fails the same way):"
             if finding["reproduced"] else
             "the round did not fail again when replayed; all of it:"),
            "-- SQL", f"CREATE DATABASE {DB};"]
    out += [s + ";" for s in case.setup]
    if case.flush:
        out.append("FLUSH TABLES;")
    answers = finding.get("answers") or []
    for w, wave in enumerate(case.waves):
        out.append(f"-- wave {w + 1}")
        out += [s + ";" for s in wave.sql]
        for n, lines in enumerate(wave.lines):
            out.append(f"   connection {n + 1} ({case.kinds[n]}), one write, all "
                       f"connections at once:")
            seen = answers[w][n] if w < len(answers) and n < len(answers[w]) else []
            for i, line in enumerate(lines):
                answer = repr(seen[i]) if i < len(seen) else "(no answer)"
                out.append(f"     {line!r}  ->  {answer[:500]}")
    return "\n".join(out)


class Outcome:
    def __init__(self, seed):
        self.seed = seed
        self.rounds = 0
        self.lines = 0
        self.findings = []
        self.answers = {}           # answer kind -> count, to see what the draw reaches

    def tally(self, seen):
        for wave in seen:
            for answers in wave:
                for answer in answers:
                    tokens = answer.split(b"\t")
                    if tokens[0] == b"0":
                        kind = "ok" if len(tokens) == 2 else "ok with values"
                    else:
                        kind = b" ".join(tokens[:1] + tokens[2:3]).decode("ascii", "replace")
                    self.answers[kind] = self.answers.get(kind, 0) + 1

    def report(self):
        total = sum(self.answers.values()) or 1
        common = sorted(self.answers.items(), key=lambda kv: -kv[1])[:12]
        head = (f"fuzz: seed {self.seed}, {self.rounds} rounds, {self.lines} request "
                f"lines, {len(self.findings)} findings\nanswers: "
                + ", ".join(f"{k} {100 * v / total:.0f}%" for k, v in common))
        return "\n\n".join([head] + [describe(f) for f in self.findings])


# -- the loop ----------------------------------------------------------------------------

def run(plugin, seconds=60.0, seed=None, rounds=None, first_round=0, avoid=frozenset(),
        keep_going=False, minimize_seconds=120.0, log=print):
    """Fuzzes a private server carrying `plugin` for `seconds` (or `rounds` rounds).
    Returns an Outcome; stops at the first finding unless keep_going."""
    if seed is None:
        seed = random.SystemRandom().randrange(1 << 32)
    outcome = Outcome(seed)
    log(f"fuzz: seed {seed}" + (f", avoiding {','.join(sorted(avoid))}" if avoid else ""))
    target = Target(plugin)
    seen_failures = []
    try:
        deadline = time.monotonic() + seconds
        round_number = first_round
        while (time.monotonic() < deadline if rounds is None
               else round_number < first_round + rounds):
            case = make_case(target, round_rng(seed, round_number), avoid)
            failure, answers = target.run(case)
            outcome.rounds += 1
            outcome.lines += case.line_count()
            outcome.tally(answers)
            if failure is not None:
                log(f"fuzz: round {round_number}: {failure}")
                if not target.server.alive() or failure.kind in ("hang", "closed",
                                                                  "sql-blocked"):
                    target.recover()
                if failure.kind == "check-table" and server_breaks_it_alone(target, case,
                                                                            failure):
                    log("fuzz: the same round without any request fails CHECK TABLE the "
                        "same way: the server's own problem, not counted. Its SQL:\n"
                        + "\n".join(s + ";" for s in case.statements()))
                    failure = None
            if failure is not None:
                new = not any(failure.same_as(f) for f in seen_failures)
                seen_failures.append(failure)
                if new:
                    small, reproduced = minimize(target, case, failure, minimize_seconds, log)
                    if reproduced and small is not case:
                        _, answers = target.run(small)
                        if not target.server.alive():
                            target.recover()
                    outcome.findings.append({
                        "seed": seed, "round": round_number, "avoid": avoid,
                        "accounts": uses_accounts(plugin),
                        "case": small, "failure": failure, "reproduced": reproduced,
                        "answers": answers})
                    log(describe(outcome.findings[-1]))
                if not keep_going:
                    break
            if outcome.rounds % 50 == 0:
                log(f"fuzz: {outcome.rounds} rounds, {outcome.lines} lines")
            round_number += 1
    finally:
        alive = target.server.alive()
        try:
            target.stop()
        except AssertionError as e:
            if alive:
                outcome.findings.append({
                    "seed": seed, "round": "shutdown", "avoid": avoid, "case": None,
                    "accounts": uses_accounts(plugin),
                    "failure": Failure("shutdown", str(e)[:3000]), "reproduced": False})
    return outcome


def parse_avoid(text):
    """Known-issue names from a comma-separated list; `known` stands for all."""
    names = set()
    for name in (text or "").split(","):
        name = name.strip()
        if name == "known":
            names |= set(KNOWN_ISSUES)
        elif name in KNOWN_ISSUES:
            names.add(name)
        elif name:
            raise ValueError(f"unknown known-issue name {name!r}; "
                             f"one of: known, {', '.join(KNOWN_ISSUES)}")
    return frozenset(names)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--round", type=int, default=None,
                        help="replay only this round of the seed")
    parser.add_argument("--rounds", type=int, default=None,
                        help="run this many rounds instead of --seconds")
    parser.add_argument("--avoid", default="",
                        help="comma-separated known issues to stay away from ('known' = "
                             "all): " + ", ".join(KNOWN_ISSUES))
    parser.add_argument("--keep-going", action="store_true",
                        help="go on after a finding (each distinct finding is reported)")
    parser.add_argument("--minimize-seconds", type=float, default=120.0)
    parser.add_argument("--accounts", action="store_true",
                        help="every connection logs in as an account (rowsocket_auth=account)")
    parser.add_argument("--plugin", default=os.environ.get("ROWSOCKET_PLUGIN"),
                        help="rowsocket.so to load (default: $ROWSOCKET_PLUGIN)")
    args = parser.parse_args(argv)
    if not args.plugin or not os.path.isfile(args.plugin):
        parser.error("needs --plugin or ROWSOCKET_PLUGIN naming a built rowsocket.so")
    os.environ["ROWSOCKET_PLUGIN"] = os.path.abspath(args.plugin)
    first_round, rounds = 0, args.rounds
    if args.round is not None:
        if args.seed is None:
            parser.error("--round needs --seed")
        first_round, rounds = args.round, 1
    options = ACCOUNT_OPTIONS if args.accounts else PLUGIN_OPTIONS
    outcome = run(harness.rowsocket_plugin(options), seconds=args.seconds,
                  seed=args.seed, rounds=rounds, first_round=first_round,
                  avoid=parse_avoid(args.avoid), keep_going=args.keep_going,
                  minimize_seconds=args.minimize_seconds,
                  log=lambda text: print(text, file=sys.stderr, flush=True))
    print(outcome.report())
    return 1 if outcome.findings else 0


if __name__ == "__main__":
    sys.exit(main())
