"""A private MariaDB server for the integration tests.

`MariaDB` creates a fresh datadir and a private plugin dir, starts mariadbd on free
ports with the HandlerSocket-speaking plugins asked for, and stops it again. It knows
nothing about the wire protocol (see hs.py) nor about pytest (see conftest.py).

Plugins are described by `Plugin`: the .so to load, its option prefix, and the read and
write ports it will listen on. Both the original `handlersocket.so` and our
`rowsocket.so` fit that shape, so one server can carry either or both.
"""

import os
import resource
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import pymysql

SYSTEM_PLUGIN_DIR = "/usr/lib/mysql/plugin"
MARIADBD = shutil.which("mariadbd") or "/usr/sbin/mariadbd"
INSTALL_DB = shutil.which("mariadb-install-db") or "/usr/bin/mariadb-install-db"

START_TIMEOUT = 60.0     # datadir ready and SQL answering
LISTEN_TIMEOUT = 20.0    # then, every plugin port listening
STOP_TIMEOUT = 60.0
START_ATTEMPTS = 3       # fresh ports each time a chosen port turns out taken


def free_ports(n):
    """Returns n distinct TCP ports that were free a moment ago."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def rowsocket_plugin_path():
    """The built rowsocket.so named by ROWSOCKET_PLUGIN, or None."""
    path = os.environ.get("ROWSOCKET_PLUGIN")
    if path and os.path.isfile(path):
        return os.path.abspath(path)
    return None


class Plugin:
    """One HandlerSocket-speaking plugin to load: its file, option prefix and ports.

    `options` maps option names without the prefix (e.g. "plain_secret") to values.
    """

    def __init__(self, name, so_name, prefix, options=None, address="127.0.0.1"):
        self.name = name            # "original" or "rowsocket"
        self.so_name = so_name      # file name inside the plugin dir
        self.prefix = prefix        # system-variable prefix, e.g. "handlersocket"
        self.options = dict(options or {})
        self.address = address
        self.port = None            # read listener, assigned at start
        self.port_wr = None         # write listener, assigned at start

    def command_line(self):
        args = [
            f"--plugin-load-add={self.so_name}",
            f"--loose-{self.prefix}_address={self.address}",
            f"--loose-{self.prefix}_port={self.port}",
            f"--loose-{self.prefix}_port_wr={self.port_wr}",
        ]
        for key, value in self.options.items():
            args.append(f"--loose-{self.prefix}_{key}={value}")
        return args


def original_plugin(options=None):
    return Plugin("original", "handlersocket.so", "handlersocket", options)


def rowsocket_plugin(options=None):
    """rowsocket with `options`. ROWSOCKET_IO (epoll or io_uring) sets rowsocket_io for
    every start that does not set it itself, so that the suites run against either
    event loop."""
    options = dict(options or {})
    io = os.environ.get("ROWSOCKET_IO")
    if io:
        options.setdefault("io", io)
    return Plugin("rowsocket", "rowsocket.so", "rowsocket", options)


def mariadbd_environment():
    """The environment mariadbd runs with. ROWSOCKET_MARIADBD_PRELOAD (a library path,
    e.g. libasan.so for an AddressSanitizer build of the plugin) is preloaded into
    mariadbd only, never into the test process."""
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    preload = os.environ.get("ROWSOCKET_MARIADBD_PRELOAD")
    if preload:
        env["LD_PRELOAD"] = preload
        # mariadbd itself is not instrumented: report errors in the plugin, not the
        # allocations the server keeps for its lifetime.
        env.setdefault("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=1:halt_on_error=1")
    return env


class MariaDB:
    """A private mariadbd with its own datadir, plugin dir, socket and ports."""

    def __init__(self, plugins=(), extra_args=(), open_files=None):
        self.plugins = list(plugins)
        self.extra_args = list(extra_args)
        self.open_files = open_files  # RLIMIT_NOFILE (soft and hard) of mariadbd, if set
        self.proc = None
        self.base = None            # temp dir holding datadir, plugin dir, socket, logs
        self.sql_port = None
        self.command = None         # the mariadbd command line, for diagnostics
        self.restarts = 0           # times restart() brought the server back

    # -- paths ---------------------------------------------------------------

    @property
    def datadir(self):
        return os.path.join(self.base, "data")

    @property
    def plugin_dir(self):
        return os.path.join(self.base, "plugin")

    @property
    def socket_path(self):
        return os.path.join(self.base, "mysqld.sock")

    @property
    def log_path(self):
        return os.path.join(self.base, "error.log")

    @property
    def stderr_path(self):
        return os.path.join(self.base, "stderr.log")

    # -- lifecycle -----------------------------------------------------------

    def start(self, datadir_from=None):
        """Starts on a fresh datadir, or on a copy of `datadir_from` (a stopped
        server's datadir, e.g. to seed the nodes of a Galera cluster)."""
        self.base = tempfile.mkdtemp(prefix="rs-it-")
        if datadir_from:
            shutil.copytree(datadir_from, self.datadir, symlinks=True)
        else:
            self._install_datadir()
        self._make_plugin_dir()
        for attempt in range(1, START_ATTEMPTS + 1):
            self._spawn()
            try:
                self._wait_ready()
                return self
            except PortTaken:
                # Another process grabbed a port between our probe and the bind.
                self.stop(check=False, keep_files=True)
                if attempt == START_ATTEMPTS:
                    self._remove_files()
                    raise
            except Exception:
                self.stop(check=False)
                raise

    def kill(self):
        """SIGKILL, as a crash would end it; waits until the process is gone.

        The datadir and the ports stay: `restart()` brings the server back on them."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def restart(self):
        """Starts mariadbd again on the same datadir and the same ports (after `kill()`
        or `stop(keep_files=True)`); crash recovery runs if the last stop was a crash.

        The logs of the previous run are kept as error.log.<n> and stderr.log.<n>;
        `error_log()` then shows the new run only."""
        if self.alive():
            raise RuntimeError("restart() needs a stopped server")
        self.restarts += 1
        for path in (self.log_path, self.stderr_path):
            if os.path.exists(path):
                shutil.copyfile(path, f"{path}.{self.restarts}")
        for attempt in range(1, START_ATTEMPTS + 1):
            # The same ports first; fresh ones only if another process took one meanwhile.
            self._spawn(same_ports=attempt == 1)
            try:
                self._wait_ready()
                return self
            except PortTaken:
                self.stop(check=False, keep_files=True)
                if attempt == START_ATTEMPTS:
                    raise
            except Exception:
                self.stop(check=False, keep_files=True)
                raise

    def _spawn(self, same_ports=False):
        if not same_ports:
            ports = free_ports(1 + 2 * len(self.plugins))
            self.sql_port = ports[0]
            for i, plugin in enumerate(self.plugins):
                plugin.port, plugin.port_wr = ports[1 + 2 * i], ports[2 + 2 * i]
        cmd = [
            MARIADBD, "--no-defaults",
            f"--datadir={self.datadir}",
            f"--tmpdir={self.tmpdir}",
            f"--socket={self.socket_path}",
            f"--port={self.sql_port}",
            "--bind-address=127.0.0.1",
            f"--plugin-dir={self.plugin_dir}",
            "--user=root",
            "--innodb-buffer-pool-size=128M",
            f"--log-error={self.log_path}",
            f"--pid-file={os.path.join(self.base, 'mysqld.pid')}",
            "--skip-log-bin",
            "--max-connections=1000",
            # The original plugin is "beta"; ours may be below gamma while young.
            "--plugin-maturity=unknown",
        ]
        for plugin in self.plugins:
            cmd += plugin.command_line()
        cmd += self.extra_args
        self.command = cmd
        for path in (self.log_path, self.stderr_path):   # logs of this attempt only
            open(path, "wb").close()
        with open(self.stderr_path, "wb") as out:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                                         env=mariadbd_environment(),
                                         preexec_fn=self._limit_open_files if self.open_files
                                         else None)

    def _limit_open_files(self):
        """In the child, before exec: mariadbd cannot raise its descriptor limit past
        `open_files`."""
        resource.setrlimit(resource.RLIMIT_NOFILE, (self.open_files, self.open_files))

    def stop(self, check=True, keep_files=False):
        """SIGTERM, then wait; SIGKILL only as a last resort, which is a failure.

        With check, also fails when mariadbd does not exit cleanly on SIGTERM (a crash
        during shutdown, e.g. in a plugin's deinit)."""
        if self.proc is None:
            return
        problem = None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=STOP_TIMEOUT)
                if self.proc.returncode != 0:
                    problem = f"mariadbd {self.exit_status()} after SIGTERM"
            except subprocess.TimeoutExpired:
                stacks = self._thread_stacks()
                self.proc.kill()
                self.proc.wait()
                problem = (f"mariadbd did not stop within {STOP_TIMEOUT:.0f}s of "
                           f"SIGTERM (killed); where its threads were:\n{stacks}")
        log = self.error_log()
        if not keep_files:
            self._remove_files()
        if problem and check:
            raise AssertionError(f"{problem}; error log tail:\n{log[-3000:]}")

    def _thread_stacks(self):
        """The stacks of a hung mariadbd's threads (gdb, if the machine has it): the
        plugin's frames are named, the server's are addresses (it is stripped)."""
        if shutil.which("gdb") is None:
            return "(no gdb to show them)"
        try:
            out = subprocess.run(["gdb", "-p", str(self.proc.pid), "-batch", "-nx",
                                  "-ex", "thread apply all bt 30"],
                                 capture_output=True, text=True, timeout=60).stdout
        except (OSError, subprocess.TimeoutExpired) as e:
            return f"(gdb failed: {e})"
        # Only the threads with a frame in the plugin: the rest are the server's own.
        threads = out.split("\nThread ")
        ours = [t for t in threads if "rowsocket" in t]
        return "\nThread ".join(ours)[-12000:] or out[-4000:]

    def _remove_files(self):
        if not os.environ.get("ROWSOCKET_KEEP_DATADIR"):
            shutil.rmtree(self.base, ignore_errors=True)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def error_log(self):
        """The server's error log, followed by anything it wrote to stderr."""
        text = ""
        for path in (self.log_path, self.stderr_path):
            try:
                with open(path, errors="replace") as f:
                    text += f.read()
            except OSError:
                pass
        return text

    def exit_status(self):
        """None while running; else a description of how mariadbd ended."""
        if self.proc is None or self.proc.poll() is None:
            return None
        code = self.proc.returncode
        if code < 0:
            return f"killed by signal {signal.Signals(-code).name}"
        return f"exited with status {code}"

    # -- access --------------------------------------------------------------

    def sql(self, db=None, **kwargs):
        """A new pymysql connection as root over the unix socket (autocommit)."""
        kwargs.setdefault("autocommit", True)
        kwargs.setdefault("charset", "utf8mb4")
        return pymysql.connect(unix_socket=self.socket_path, user="root",
                               database=db, binary_prefix=True, **kwargs)

    def plugin(self, name):
        for p in self.plugins:
            if p.name == name:
                return p
        raise KeyError(name)

    # -- steps ---------------------------------------------------------------

    @property
    def tmpdir(self):
        """Private temporary dir: servers started in parallel must not share /tmp
        (mariadb-install-db removes its temporary tables by name)."""
        path = os.path.join(self.base, "tmp")
        os.makedirs(path, exist_ok=True)
        return path

    def _install_datadir(self):
        result = subprocess.run(
            [INSTALL_DB, "--no-defaults", f"--datadir={self.datadir}", f"--tmpdir={self.tmpdir}",
             "--auth-root-authentication-method=normal", "--user=root",
             "--skip-test-db"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if result.returncode != 0:
            raise RuntimeError("mariadb-install-db failed:\n" + result.stdout)

    def _make_plugin_dir(self):
        os.makedirs(self.plugin_dir)
        for name in os.listdir(SYSTEM_PLUGIN_DIR):
            os.symlink(os.path.join(SYSTEM_PLUGIN_DIR, name),
                       os.path.join(self.plugin_dir, name))
        ours = rowsocket_plugin_path()
        if ours:
            link = os.path.join(self.plugin_dir, "rowsocket.so")
            if os.path.lexists(link):
                os.unlink(link)
            os.symlink(ours, link)

    def _wait_ready(self):
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if self.proc.poll() is not None:
                log = self.error_log()
                if "Address already in use" in log:
                    raise PortTaken(f"SQL port {self.sql_port} was taken")
                raise RuntimeError(f"mariadbd {self.exit_status()} during start-up; "
                                   f"error log:\n{log[-5000:]}")
            self._check_plugins_loaded()
            if os.path.exists(self.socket_path) and self._sql_answers():
                break
            if time.monotonic() > deadline:
                raise RuntimeError("mariadbd did not become ready; error log:\n"
                                   + self.error_log()[-5000:])
            time.sleep(0.05)
        self._wait_listeners()

    def _check_plugins_loaded(self):
        log = self.error_log()
        if "Couldn't load plugins" in log or "Can't open shared library" in log:
            raise RuntimeError("a plugin failed to load; error log:\n" + log[-5000:])

    def _sql_answers(self):
        try:
            self.sql().close()
            return True
        except pymysql.err.OperationalError:
            return False

    def _wait_listeners(self):
        """Waits until mariadbd itself listens on every plugin port.

        Connecting is not proof: with parallel test runs another process may hold the
        port, so the listening sockets must belong to our mariadbd."""
        wanted = {p: (p.port, p.port_wr) for p in self.plugins}
        deadline = time.monotonic() + LISTEN_TIMEOUT
        while True:
            ours = listening_ports(self.proc.pid)
            missing = [(p, port) for p, ports in wanted.items() for port in ports
                       if port not in ours]
            if not missing:
                return
            if self.proc.poll() is not None or time.monotonic() > deadline:
                plugin, port = missing[0]
                if self.proc.poll() is None and port_is_listening(port):
                    raise PortTaken(f"port {port} is held by another process")
                raise RuntimeError(
                    f"{plugin.name} ({plugin.so_name}) is not listening on {port}; "
                    f"error log:\n{self.error_log()[-5000:]}")
            time.sleep(0.05)


class PortTaken(RuntimeError):
    """A port chosen for the server was taken by another process before the bind."""


def listening_ports(pid):
    """TCP ports on which process `pid` has a listening socket (Linux /proc)."""
    inodes = set()
    fd_dir = f"/proc/{pid}/fd"
    try:
        fds = os.listdir(fd_dir)
    except OSError:
        return set()
    for fd in fds:
        try:
            target = os.readlink(os.path.join(fd_dir, fd))
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:["):-1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if fields[3] == "0A" and fields[9] in inodes:     # 0A = LISTEN
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def port_is_listening(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False
