"""What bench/cost counts of one server process while a load runs against it.

`perf_window` runs a callable while `perf stat -p PID` counts the process's system
calls (tracepoint raw_syscalls:sys_enter), context switches (software event
context-switches: every time one of its threads leaves the CPU), wake-ups its threads
perform (tracepoint sched:sched_wakeup, counted in the waker's context: the clients it
wakes with an answer and its own threads it hands work to) and CPU time (task-clock).
perf follows threads the process starts meanwhile (counters are inherited). It also
reads the voluntary and involuntary (preempted) switches of every thread from
/proc/PID/task/*/status before and after: involuntary ones grow with how busy the
machine is, voluntary ones (a thread that waits) do not.

`Callgrind` drives a server started under `valgrind --tool=callgrind
--instr-atstart=no` (`wrapper`): uninstrumented while it starts and loads, then
`instrument` switches instrumentation on for good (callgrind_control -i on: switching
it off again would discard every translation, and the next window would start with
seconds of re-translating); `window` zeroes the counters, runs the callable and dumps;
the dump's `totals:` is the user-space instructions (Ir) every thread of the server
executed in between (valgrind counts guest instructions only: no kernel, no time).

Neither needs hardware counters (a VM has none). Both need root (perf, ptrace).
"""

import glob
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

PERF_EVENTS = {
    "syscalls": "raw_syscalls:sys_enter",
    "switches": "context-switches",
    "wakeups": "sched:sched_wakeup",
    "cpu_ms": "task-clock",
}
PERF_ATTACH_S = 0.5  # perf opens a counter per thread before the load starts


def thread_switches(pid):
    """(voluntary, involuntary) context switches summed over the process's threads."""
    voluntary = involuntary = 0
    for status in glob.glob(f"/proc/{pid}/task/*/status"):
        try:
            with open(status) as f:
                for line in f:
                    if line.startswith("voluntary_ctxt_switches:"):
                        voluntary += int(line.split()[1])
                    elif line.startswith("nonvoluntary_ctxt_switches:"):
                        involuntary += int(line.split()[1])
        except OSError:
            continue  # a thread that ended meanwhile
    return voluntary, involuntary


def parse_perf(text):
    """perf stat -x, output -> {name: value} for PERF_EVENTS (0 when not counted)."""
    by_event = {event: name for name, event in PERF_EVENTS.items()}
    values = {name: 0.0 for name in PERF_EVENTS}
    for line in text.splitlines():
        fields = line.split(",")
        if len(fields) > 2 and fields[2] in by_event:
            try:
                values[by_event[fields[2]]] = float(fields[0])
            except ValueError:
                pass  # "<not counted>": the process did not run
    return values


def perf_window(pid, work):
    """Runs work() while perf counts process `pid`; returns (work's result, counts).
    counts holds PERF_EVENTS' values, "voluntary", "involuntary" and "elapsed_s"
    (how long the counters were open)."""
    v0, i0 = thread_switches(pid)
    start = time.monotonic()
    perf = subprocess.Popen(["perf", "stat", "-x,", "-e", ",".join(PERF_EVENTS.values()),
                             "-p", str(pid)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(PERF_ATTACH_S)
        result = work()
    finally:
        perf.send_signal(signal.SIGINT)
        _, err = perf.communicate(timeout=30)
    counts = parse_perf(err)
    if perf.returncode not in (0, -signal.SIGINT) and not any(counts.values()):
        raise RuntimeError(f"perf stat failed: {err.strip()}")
    counts["elapsed_s"] = time.monotonic() - start
    v1, i1 = thread_switches(pid)
    counts["voluntary"], counts["involuntary"] = v1 - v0, i1 - i0
    return result, counts


class Callgrind:
    """The valgrind command prefix for a server whose instructions are counted, and
    the control of its windows. Dumps go to a private directory."""

    def __init__(self, keep_dir=None):
        self.dir = tempfile.mkdtemp(prefix="rs-cost-callgrind-")
        self.prefix = os.path.join(self.dir, "cg")
        self.keep_dir = keep_dir  # where each labelled window's dump is kept (callgrind_annotate)

    def wrapper(self):
        # Off until a window opens (the server runs ~5x faster uninstrumented); no
        # per-line or cache simulation: the count of executed instructions only.
        return ["valgrind", "--tool=callgrind", "--instr-atstart=no",
                f"--callgrind-out-file={self.prefix}.%p", "--dump-line=no", "--compress-strings=no"]

    def control(self, pid, *args):
        proc = subprocess.run(["callgrind_control", *args, str(pid)], capture_output=True,
                              text=True, timeout=120)
        if proc.returncode != 0 or "Error" in proc.stdout:
            raise RuntimeError(f"callgrind_control {' '.join(args)} {pid}: "
                               f"{proc.stdout.strip()} {proc.stderr.strip()}")

    def dumps(self, pid):
        return {path for path in glob.glob(f"{self.prefix}.{pid}.*")}

    def instrument(self, pid):
        self.control(pid, "-i", "on")

    def window(self, pid, work, label=None):
        """Runs work() between zeroed counters and a dump; returns (work's result,
        instructions, seconds the window was open). With keep_dir and a label, the
        dump stays there as <label>.callgrind."""
        before = self.dumps(pid)
        self.control(pid, "-z")
        start = time.monotonic()
        try:
            result = work()
        finally:
            elapsed = time.monotonic() - start
            self.control(pid, "-d")
        new = sorted(self.dumps(pid) - before, key=lambda p: int(p.rsplit(".", 1)[1]))
        if not new:
            raise RuntimeError(f"callgrind wrote no dump for {pid}")
        with open(new[-1]) as f:
            totals = re.search(r"^totals:\s*(\d+)", f.read(), re.M)
        if self.keep_dir and label:
            os.makedirs(self.keep_dir, exist_ok=True)
            shutil.copyfile(new[-1], os.path.join(self.keep_dir, label + ".callgrind"))
        for path in new:
            os.unlink(path)
        return result, int(totals.group(1)) if totals else 0, elapsed

    def cleanup(self):
        for path in glob.glob(os.path.join(self.dir, "*")):
            os.unlink(path)
        os.rmdir(self.dir)


def call_costs(dump, names):
    """{name: (calls, inclusive instructions)} of the functions `names` (each as the
    dump spells it before its parameters: `handler::ha_update_row`, a class's method
    without its namespace), summed over every call site in a callgrind dump written
    with --compress-strings=no (a `cfn=` line, its `calls=` line, then the cost line)."""
    lines = open(dump).read().split("\n")
    found = {}
    for i, line in enumerate(lines[:-2]):
        if not line.startswith("cfn=") or not lines[i + 1].startswith("calls="):
            continue
        for name in names:
            if name + "(" in line:
                n = int(lines[i + 1].split("=")[1].split()[0])
                cost = int(lines[i + 2].split()[1])
                calls, total = found.get(name, (0, 0))
                found[name] = (calls + n, total + cost)
    return found
