"""What memcached clients ask around their data, against Debian's memcached itself:
`stats` (every general-purpose field, in memcached 1.6's order, with counts the
commands really made), its groups, `version`, keys of any bytes but space, CR, LF and
NUL, and libmemcached's load tools (memcslap, memcaslap) running without errors.

A memcached daemon is started by the module when Debian's is installed (the tests
that compare with it skip otherwise); the counts are compared as differences before
and after the same commands on both, so what ran before does not matter.
"""

import os
import re
import shutil
import socket
import struct
import subprocess
import time

import pytest

import harness
import servers
import targets
from memcached_support import Raw, binary_request, binary_response, wait_for_default_container

pytestmark = targets.rowsocket_only

WORKERS = 3
# memcached's general-purpose fields a client may read (PHP's getStats, memcstat, ...):
# every one must be answered.
GENERAL = ("pid uptime time version pointer_size rusage_user rusage_system max_connections "
           "curr_connections total_connections rejected_connections connection_structures "
           "cmd_get cmd_set cmd_flush cmd_touch cmd_meta get_hits get_misses get_expired "
           "get_flushed delete_misses delete_hits incr_misses incr_hits decr_misses decr_hits "
           "cas_misses cas_hits cas_badval touch_hits touch_misses store_too_large "
           "store_no_memory auth_cmds auth_errors bytes_read bytes_written limit_maxbytes "
           "accepting_conns listen_disabled_num threads conn_yields bytes curr_items "
           "total_items evictions").split()
COUNTERS = [n for n in GENERAL if n.startswith(("cmd_", "get_", "delete_", "incr_", "decr_",
                                                "cas_", "touch_", "auth_"))] + ["total_items"]


@pytest.fixture(scope="module")
def memcached_port():
    return harness.free_ports(1)[0]


@pytest.fixture(scope="module")
def server(memcached_port):
    # (No sweep: an expired item stays a row, so that its get counts as memcached's.)
    plugin = targets.make_plugin({"memcached_port": memcached_port, "memcached_flush": "ON",
                                  "memcached_threads": WORKERS, "memcached_sweep_rate": 0})
    with servers.running_server([plugin]) as srv:
        yield srv


@pytest.fixture(scope="module", autouse=True)
def ready(sql, memcached_port):
    wait_for_default_container(sql)


@pytest.fixture(scope="module")
def memcached():
    """The port of a memcached 1.6 started for this module (Debian's package)."""
    path = shutil.which("memcached")
    if path is None:
        pytest.skip("Debian's memcached is not installed")
    port = harness.free_ports(1)[0]
    args = [path, "-p", str(port), "-U", "0", "-l", "127.0.0.1", "-t", str(WORKERS)]
    if os.geteuid() == 0:
        args += ["-u", "nobody"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, "memcached did not start"
                time.sleep(0.05)
        yield port
    finally:
        proc.terminate()
        proc.wait(10)


def exchange(port, data, end=b"END\r\n"):
    r = Raw(port)
    try:
        r.send(data)
        return r.read_until(end)
    finally:
        r.close()


def stat_lines(answer):
    lines = answer.decode("latin-1").split("\r\n")
    assert lines[-2:] == ["END", ""], answer
    out = []
    for line in lines[:-2]:
        word, name, value = line.split(" ", 2)
        assert word == "STAT", line
        out.append((name, value))
    return out


def stats(port, group=b""):
    return dict(stat_lines(exchange(port, b"stats" + (b" " + group if group else b"") + b"\r\n")))


# -- stats ----------------------------------------------------------------------------------

def test_stats_has_every_general_field_in_memcacheds_order(memcached_port, memcached):
    ours = [n for n, _ in stat_lines(exchange(memcached_port, b"stats\r\n"))]
    theirs = [n for n, _ in stat_lines(exchange(memcached, b"stats\r\n"))]
    assert not [n for n in GENERAL if n not in theirs], "a field memcached 1.6 does not have"
    missing = [n for n in GENERAL if n not in ours]
    assert not missing
    memcacheds = [n for n in ours if not n.startswith("rowsocket_")]
    assert memcacheds == [n for n in theirs if n in memcacheds], "memcached's order"
    assert not [n for n in memcacheds if n not in theirs], "names memcached does not use"
    own = ours[len(memcacheds):]
    assert own and all(n.startswith("rowsocket_") for n in own), "rowsocket's own come last"


def test_stats_counts_what_the_commands_did_as_memcached_counts_it(memcached_port, memcached):
    run = str(time.monotonic_ns()).encode()

    def commands(port):
        k = lambda name: b"c" + run + name
        steps = [
            b"set " + k(b"q") + b" 0 0 1\r\nx\r\n", b"add " + k(b"q") + b" 0 0 1\r\nx\r\n",
            b"get " + k(b"q") + b" " + k(b"none") + b"\r\n", b"get " + k(b"q") + b" " + k(b"q") + b"\r\n",
            b"gat 100 " + k(b"q") + b" " + k(b"none") + b"\r\n",
            b"touch " + k(b"q") + b" 100\r\n", b"touch " + k(b"none") + b" 100\r\n",
            b"incr " + k(b"none") + b" 1\r\n", b"set " + k(b"n") + b" 0 0 1\r\n5\r\n",
            b"incr " + k(b"n") + b" 2\r\n", b"decr " + k(b"n") + b" 1\r\n",
            b"decr " + k(b"none") + b" 1\r\n",
            b"cas " + k(b"none") + b" 0 0 1 5\r\nx\r\n", b"cas " + k(b"q") + b" 0 0 1 12345678901234567\r\nx\r\n",
            b"delete " + k(b"n") + b"\r\n", b"delete " + k(b"n") + b"\r\n",
            b"mg " + k(b"q") + b" v\r\n", b"mg " + k(b"none") + b" v\r\n",
            b"ms " + k(b"m") + b" 1\r\nx\r\n", b"md " + k(b"m") + b"\r\n", b"ma " + k(b"none") + b"\r\n",
            b"me " + k(b"q") + b"\r\n", b"append " + k(b"q") + b" 0 0 1\r\ny\r\n",
            b"prepend " + k(b"none") + b" 0 0 1\r\ny\r\n",
            b"set " + k(b"e") + b" 0 -1 1\r\nx\r\n", b"get " + k(b"e") + b"\r\n",
        ]
        r = Raw(port)
        try:
            for step in steps:
                r.send(step + b"mn\r\n")
                r.read_until(b"MN\r\n")
            r.send(b"gets " + k(b"q") + b"\r\n")
            cas = r.read_until(b"END\r\n").split(b"\r\n")[0].split()[-1]
            r.send(b"cas " + k(b"q") + b" 0 0 1 " + cas + b"\r\nz\r\n")
            assert r.read_until(b"\r\n") == b"STORED\r\n"
        finally:
            r.close()

    deltas = {}
    for name, port in (("rowsocket", memcached_port), ("memcached", memcached)):
        before = stats(port)
        commands(port)
        after = stats(port)
        deltas[name] = {c: int(after[c]) - int(before[c]) for c in COUNTERS}
    assert deltas["rowsocket"] == deltas["memcached"]
    assert deltas["rowsocket"]["get_hits"] > 0 and deltas["rowsocket"]["cas_badval"] == 1


def test_stats_connections_bytes_threads_and_times_are_the_listeners(memcached_port, server,
                                                                    sql):
    before = stats(memcached_port)
    held = [Raw(memcached_port) for _ in range(3)]
    try:
        for h in held:
            h.send(b"mn\r\n")
            h.read_until(b"MN\r\n")
        during = stats(memcached_port)
    finally:
        for h in held:
            h.close()
    assert int(during["curr_connections"]) >= 4
    assert int(during["total_connections"]) - int(before["total_connections"]) >= 4
    assert int(during["max_connections"]) >= int(during["curr_connections"])
    assert int(during["bytes_read"]) - int(before["bytes_read"]) >= 3 * len(b"mn\r\n") + 7
    assert int(during["bytes_written"]) > int(before["bytes_written"])
    assert int(during["threads"]) == WORKERS
    assert during["version"] == exchange(memcached_port, b"version\r\n", b"\r\n")[8:-2].decode()
    assert abs(int(during["time"]) - time.time()) < 5
    server_uptime = int(sql.value("SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS "
                                  "WHERE VARIABLE_NAME = 'UPTIME'"))
    assert 0 <= int(during["uptime"]) <= server_uptime + 1
    assert int(during["pid"]) == server.proc.pid
    assert float(during["rusage_user"]) > 0
    assert during["evictions"] == "0"
    assert during["accepting_conns"] == "1"
    plugin_version = sql.value("SELECT PLUGIN_AUTH_VERSION FROM information_schema.PLUGINS "
                               "WHERE PLUGIN_NAME = 'rowsocket'")
    assert during["rowsocket_version"] == plugin_version
    assert f"rowsocket {plugin_version} starting" in server.error_log()


def test_curr_items_and_bytes_are_the_storage_engines_estimate_for_the_default_container(
        memcached_port, sql):
    r = Raw(memcached_port)
    try:
        for i in range(40):
            r.send(b"set items%d 0 0 100 noreply\r\n%s\r\n" % (i, b"v" * 100))
        r.send(b"mn\r\n")
        r.read_until(b"MN\r\n")
    finally:
        r.close()
    sql.execute("ANALYZE TABLE rowsocket.kv")

    def table_status():
        return tuple(int(v) for v in sql.rows(
            "SELECT TABLE_ROWS, DATA_LENGTH FROM information_schema.TABLES "
            "WHERE TABLE_SCHEMA = 'rowsocket' AND TABLE_NAME = 'kv'")[0])

    # (InnoDB may refresh its estimate in the background meanwhile: either will do.)
    before = table_status()
    s = stats(memcached_port)
    after = table_status()
    assert (int(s["curr_items"]), int(s["bytes"])) in (before, after)
    assert int(s["curr_items"]) >= 40 and int(s["bytes"]) > 0
    assert int(s["limit_maxbytes"]) > int(s["bytes"])
    # Both are the table's bytes and the data directory's free space, each read when it
    # is asked: other writers on the file system (parallel tests) move it in between.
    maxbytes = int(stats(memcached_port, b"settings")["maxbytes"])
    limit = int(s["limit_maxbytes"])
    assert abs(maxbytes - limit) <= max(limit // 100, 1 << 26)


def test_stats_groups_answer_as_memcached_does(memcached_port, memcached):
    settings = stats(memcached_port, b"settings")
    theirs = stats(memcached, b"settings")
    assert settings["tcpport"] == str(memcached_port)
    assert settings["num_threads"] == str(WORKERS)
    assert not [n for n in settings if n not in theirs]
    for group in (b"items", b"slabs", b"detail dump"):
        assert stat_lines(exchange(memcached_port, b"stats " + group + b"\r\n")) == []
    assert stats(memcached_port, b"sizes") == stats(memcached, b"sizes")
    r = Raw(memcached_port)
    try:
        r.send(b"stats conns\r\n")
        conns = stat_lines(r.read_until(b"END\r\n"))
        mine = "tcp:%s:%d" % r.sock.getsockname()
        assert ("addr", mine) in [(n.split(":", 1)[1], v) for n, v in conns]
        # An unknown group is memcached's ERROR, and the connection goes on.
        for port in (memcached_port, memcached):
            assert exchange(port, b"stats bogus\r\nversion\r\n", b"\r\n") == b"ERROR\r\n"
        r.send(b"version\r\n")
        assert r.read_until(b"\r\n").startswith(b"VERSION ")
    finally:
        r.close()


def test_stats_reset_restarts_the_counters_as_memcached_does(memcached_port, memcached):
    """`stats reset` answers RESET and the counters start again from zero, the same ones
    as memcached's; `stats detail on|off` is OK and a bare `stats detail` its usage."""
    after = {}
    for name, port in (("rowsocket", memcached_port), ("memcached", memcached)):
        assert exchange(port, b"set rst 0 0 1\r\nx\r\nget rst\r\nget nope\r\n",
                        b"END\r\nEND\r\n").startswith(b"STORED")
        assert int(stats(port)["cmd_get"]) >= 2
        assert exchange(port, b"stats reset\r\n", b"\r\n") == b"RESET\r\n"
        after[name] = stats(port)
        answers = exchange(port, b"stats detail on\r\nstats detail off\r\nstats detail\r\n",
                           b"dump\r\n")
        assert answers == b"OK\r\nOK\r\nCLIENT_ERROR usage: stats detail on|off|dump\r\n"
    for counter in COUNTERS:
        assert after["rowsocket"][counter] == after["memcached"][counter] == "0", counter
    assert int(after["rowsocket"]["curr_connections"]) >= 1
    assert int(after["rowsocket"]["uptime"]) >= 0


def test_binary_stats_are_one_packet_each_then_an_empty_key(memcached_port):
    text = [n for n, _ in stat_lines(exchange(memcached_port, b"stats\r\n"))]
    r = Raw(memcached_port)
    try:
        r.send(binary_request(0x10, opaque=7))
        names = []
        while True:
            p = binary_response(r)
            assert p["status"] == 0 and p["opaque"] == 7
            if not p["key"]:
                break
            names.append(p["key"].decode())
        assert names == text
        r.send(binary_request(0x10, b"settings"))
        first = binary_response(r)
        assert first["key"] == b"maxbytes"
    finally:
        r.close()


# -- version ----------------------------------------------------------------------------------

def test_version_is_memcacheds_form_ending_in_digits(memcached_port):
    answer = exchange(memcached_port, b"version\r\n", b"\r\n")
    assert re.fullmatch(rb"VERSION 1\.6\.\d+\r\n", answer), answer
    r = Raw(memcached_port)
    try:
        r.send(binary_request(0x0b))
        assert binary_response(r)["value"] == answer[8:-2]
    finally:
        r.close()
    if shutil.which("memcached"):
        installed = subprocess.run(["memcached", "-V"], capture_output=True, text=True).stdout
        assert installed.split()[1].startswith("1.6.")


# -- keys -----------------------------------------------------------------------------------

@pytest.mark.parametrize("key", [b"\x10memcaslap-key", b"tab\there", b"ctl\x01\x1b\x7f",
                                 b"\xff\xfe", b"k" * 250])
def test_a_key_of_any_bytes_but_space_cr_lf_nul_is_stored_and_read_back(memcached_port, memcached,
                                                                        sql, key):
    for port in (memcached_port, memcached):
        answer = exchange(port, b"set " + key + b" 3 0 2\r\nhi\r\nget " + key + b"\r\n")
        assert answer == b"STORED\r\nVALUE " + key + b" 3 2\r\nhi\r\nEND\r\n", port
    assert sql.value("SELECT v FROM rowsocket.kv WHERE k = UNHEX(%s)", (key.hex(),)) == b"hi"
    assert exchange(memcached_port, b"mg " + key + b" v\r\n", b"hi\r\n") == b"VA 2\r\nhi\r\n"


def test_a_binary_key_may_hold_any_byte(memcached_port, memcached, sql):
    key = b"sp ace\r\nnul\0\x10\xff"
    for port in (memcached_port, memcached):
        r = Raw(port)
        try:
            r.send(binary_request(0x01, key, b"bin", struct.pack(">II", 9, 0)))
            assert binary_response(r)["status"] == 0, port
            r.send(binary_request(0x0c, key))    # GetK
            got = binary_response(r)
            assert (got["status"], got["key"], got["value"]) == (0, key, b"bin"), port
        finally:
            r.close()
    assert sql.value("SELECT v FROM rowsocket.kv WHERE k = UNHEX(%s)", (key.hex(),)) == b"bin"


def test_a_refused_key_keeps_the_stream_in_step(memcached_port):
    long_key = b"k" * 251
    for key in (long_key, b"a\0b"):
        # (Read as a command, the data block would answer ERROR.)
        answer = exchange(memcached_port, b"set " + key + b" 0 0 7\r\nbogus!!\r\nversion\r\n",
                          b"VERSION")
        assert answer == b"CLIENT_ERROR bad command line format\r\nVERSION", key
    assert exchange(memcached_port, b"get " + long_key + b"\r\nversion\r\n", b"VERSION") == (
        b"CLIENT_ERROR bad command line format\r\nVERSION")


def test_a_key_the_key_column_cannot_hold_is_refused_in_memcacheds_words(memcached_port, sql):
    sql.execute("CREATE TABLE test.short_keys (k VARCHAR(4) CHARACTER SET utf8mb4 PRIMARY KEY, "
                "v TEXT NOT NULL) ENGINE=InnoDB")
    sql.execute("REPLACE INTO rowsocket.containers (name, db_schema, db_table, key_column, "
                "value_columns) VALUES ('short', 'test', 'short_keys', 'k', 'v')")
    deadline = time.monotonic() + 10
    while exchange(memcached_port, b"get @@short.x\r\n").startswith(b"CLIENT_ERROR no container"):
        assert time.monotonic() < deadline
        time.sleep(0.2)
    for key in (b"@@short.\x10abc", b"@@short.tab\t"):
        assert exchange(memcached_port, b"set " + key + b" 0 0 1\r\nx\r\n", b"\r\n") == b"STORED\r\n"
    for key in (b"@@short.toolong", b"@@short.\xff"):
        answer = exchange(memcached_port, b"set " + key + b" 0 0 7\r\nbogus!!\r\nversion\r\n",
                          b"VERSION")
        assert answer == b"CLIENT_ERROR key is not a value of the key column\r\nVERSION", key
    assert sql.value("SELECT COUNT(*) FROM test.short_keys") == "2"


# -- libmemcached's load tools ----------------------------------------------------------------

def run_tool(args):
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


@pytest.mark.parametrize("tool", ["memcslap", "memcaslap"])
def test_libmemcached_load_tools_run_without_errors(memcached_port, tool):
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} (Debian's libmemcached-tools) is not installed")
    server = f"127.0.0.1:{memcached_port}"
    if tool == "memcslap":
        for test in ("set", "get", "mget"):
            out = run_tool([tool, f"--servers={server}", "--concurrency=2",
                            "--execute-number=200", f"--test={test}"])
            assert "error" not in out.lower() and "failed" not in out.lower(), out
        out = run_tool([tool, f"--servers={server}", "--binary", "--concurrency=2",
                        "--execute-number=200", "--test=set"])
        assert "error" not in out.lower(), out
    else:
        for extra in ([], ["-B"]):
            # (Its text keys begin with 0x10; an error answer is printed as it comes.)
            out = run_tool([tool, "-s", server, "-T", "1", "-c", "4", "-x", "2000", *extra])
            assert "ERROR" not in out, out
            assert "get_misses: 0" in out, out
            assert re.search(r"cmd_set: [1-9]", out) and re.search(r"cmd_get: [1-9]", out), out


def test_memcstat_prints_the_listeners_stats(memcached_port):
    if shutil.which("memcstat") is None:
        pytest.skip("memcstat (Debian's libmemcached-tools) is not installed")
    for extra in ([], ["--binary"]):
        out = run_tool(["memcstat", f"--servers=127.0.0.1:{memcached_port}", *extra])
        for field in ("uptime", "curr_connections", "curr_items", "get_hits", "limit_maxbytes",
                      "threads"):
            assert re.search(rf"\b{field}: \d", out), (field, out)

