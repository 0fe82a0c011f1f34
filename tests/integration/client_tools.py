"""The client programs under test (librowsocket's live tests, its example and
rowsocket-cli), found in the build tree beside the plugin, and the tables they use.

The build dir is ROWSOCKET_BUILD_DIR, or else derived from ROWSOCKET_PLUGIN
(<build>/src/plugin/rowsocket.so), which ctest sets for every integration test.
"""

import os
import subprocess

import pytest

TIMEOUT = 120


def build_dir():
    explicit = os.environ.get("ROWSOCKET_BUILD_DIR")
    if explicit:
        return explicit
    plugin = os.environ.get("ROWSOCKET_PLUGIN")
    if plugin:
        return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(plugin))))
    pytest.skip("set ROWSOCKET_PLUGIN or ROWSOCKET_BUILD_DIR to find the client binaries")


def program(relative):
    """The absolute path of a built program, e.g. 'src/cli/rowsocket-cli'."""
    path = os.path.join(build_dir(), relative)
    if not os.path.isfile(path):
        pytest.fail(f"{path} is not built")
    return path


CLI = "src/cli/rowsocket-cli"
LIVE_TESTS = "tests/integration/client/client_live_tests"
EXAMPLE = "examples/client_example"


def create_client_tables(sql):
    """The tables client_live_test.cc expects (its header lists them)."""
    sql.create_table("client_items",
                     "id INT PRIMARY KEY, grp INT NOT NULL, name VARCHAR(32), qty INT, "
                     "note VARBINARY(64) NULL, KEY grp_id (grp, id)",
                     [(1, 1, "a", 10, None), (2, 1, "b", 20, b""), (3, 2, "c", 30, b"x"),
                      (4, 2, "d", 40, None), (5, 3, "e", 50, None)])
    sql.create_table("client_ai", "id BIGINT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(32)")
    sql.create_table("client_bin", "k VARBINARY(32) PRIMARY KEY, v BLOB NULL")


def listed_live_tests(suite):
    """The names of the C++ live tests of `suite` ("Live", "Account", ...)."""
    listed = subprocess.run([program(LIVE_TESTS), "--gtest_list_tests",
                             f"--gtest_filter={suite}.*"],
                            stdout=subprocess.PIPE, text=True, check=True).stdout
    return [line.strip() for line in listed.splitlines() if line.startswith("  ")]


def run_live_tests(target, gtest_filter, secret="", pid=None, ssl_ca="", user="",
                   password=""):
    """Runs the C++ live tests against `target`; fails with their output if one fails.
    `ssl_ca`: they connect over TLS, verifying the server against this CA. `user` and
    `password`: the MariaDB account the Account tests log in to."""
    env = dict(os.environ,
               ROWSOCKET_TEST_HOST="127.0.0.1",
               ROWSOCKET_TEST_PORT=str(target.port),
               ROWSOCKET_TEST_PORT_WR=str(target.port_wr),
               ROWSOCKET_TEST_SECRET=secret,
               ROWSOCKET_TEST_SSL_CA=ssl_ca,
               ROWSOCKET_TEST_USER=user,
               ROWSOCKET_TEST_PASSWORD=password)
    if pid is not None:
        env["ROWSOCKET_TEST_MARIADBD_PID"] = str(pid)
    result = subprocess.run([program(LIVE_TESTS), f"--gtest_filter={gtest_filter}",
                             "--gtest_brief=1"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, timeout=TIMEOUT)
    assert result.returncode == 0, result.stdout
    assert "SKIPPED" not in result.stdout, result.stdout
    return result.stdout


def cli(target, *args, stdin=None, sql_socket=None, home=None):
    """Runs rowsocket-cli against `target` (one-shot or batch); returns the CompletedProcess.
    `home`: the HOME it runs with (its ~/.my.cnf is read as the mariadb client reads it)."""
    cmd = [program(CLI), "-h", "127.0.0.1", "-P", str(target.port), "-W", str(target.port_wr)]
    if sql_socket:
        cmd += ["--sql-socket", sql_socket]
    env = dict(os.environ, HOME=str(home)) if home is not None else None
    return subprocess.run(cmd + list(args), input=stdin, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=TIMEOUT, env=env)


def home_with_my_cnf(directory, **client_options):
    """Makes `directory` a HOME whose ~/.my.cnf has these options in its [client] group."""
    lines = ["[client]"] + [f"{key}={value}" for key, value in client_options.items()]
    (directory / ".my.cnf").write_text("\n".join(lines) + "\n")
    return directory


class Terminal:
    """rowsocket-cli on a pseudo-terminal, driven like a person at a keyboard.

    `expect` waits for text in the output (ANSI escapes and CRs removed) and returns
    everything before it; every wait has a timeout, so a hung CLI fails the test.
    """

    ANSI = None

    def __init__(self, target, *args, home):
        import pty
        import re
        Terminal.ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")
        self.master, slave = pty.openpty()
        env = dict(os.environ, TERM="xterm", HOME=home)
        env.pop("ROWSOCKET_HISTFILE", None)
        cmd = [program(CLI), "-h", "127.0.0.1", "-P", str(target.port),
               "-W", str(target.port_wr), *args]
        self.proc = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, env=env,
                                     close_fds=True, start_new_session=True)
        os.close(slave)
        self.buffer = b""

    def send(self, text):
        """Types `text` (str or bytes); a line ends with "\\r", as Enter sends it."""
        os.write(self.master, text.encode() if isinstance(text, str) else text)

    def line(self, text):
        self.send(text + "\r")

    def expect(self, text, timeout=20.0):
        import select
        import time
        want = text.encode()
        deadline = time.monotonic() + timeout
        while True:
            clean = self.ANSI.sub(b"", self.buffer).replace(b"\r", b"")
            at = clean.find(want)
            if at >= 0:
                self.buffer = clean[at + len(want):]
                return clean[:at].decode("utf-8", "replace")
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.master], [], [], max(0.0, left))
            if not ready:
                raise AssertionError(f"no {text!r} in the CLI's output: {clean!r}")
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                raise AssertionError(f"CLI exited before {text!r}: {clean!r}")
            self.buffer += chunk

    def close(self):
        """Types `quit` and returns the exit status; output is drained meanwhile, so a
        CLI blocked on a full terminal can still finish.

        Not Ctrl-D: a control key that arrives while the command before is still
        running meets the terminal in cooked mode (libedit switches to raw mode only
        while it reads), where the tty driver, not libedit, takes it, as it would from
        a person typing that fast. Ctrl-U first clears whatever such a key left."""
        import select
        import time
        if self.proc.poll() is None:
            self.send(b"\x15quit\r")
            deadline = time.monotonic() + 10
            while self.proc.poll() is None and time.monotonic() < deadline:
                ready, _, _ = select.select([self.master], [], [], 0.1)
                if ready:
                    try:
                        os.read(self.master, 65536)
                    except OSError:
                        pass
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
        os.close(self.master)
        return self.proc.returncode
