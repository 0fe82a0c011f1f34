"""One account policy for every listener: each rule SQL's login applies (and the ones
rowsocket adds against guessing and half-open connections) run against the
HandlerSocket read and write ports (`A 2`/`A 3` logins, rowsocket_auth=account) and the
memcached port (SASL PLAIN over TLS, rowsocket_memcached_auth=account).

No assertion here is about how long something takes: each is about what is answered,
in which order, and whether the connection is still open.
"""

import hashlib
import select
import ssl
import socket
import time

import pymysql
import pytest

import harness
import hs
import servers
import targets
import tls_support
from memcached_support import Raw, binary_request, binary_response, wait_for_default_container

pytestmark = targets.rowsocket_only

AUTH_ERROR = 0x20
SASL_AUTH, GET, VERSION = 0x21, 0x00, 0x0b
LISTENERS = ["read", "write", "memcached"]
FAILURES_BEFORE_CLOSE = 3  # login_policy.h, docs/PROTOCOL.md


@pytest.fixture(scope="module")
def memcached_port():
    return harness.free_ports(1)[0]


@pytest.fixture(scope="module")
def server_options(certs, memcached_port):
    return {"auth": "account", "auth_wr": "account", "memcached_port": memcached_port,
            "memcached_auth": "account", "ssl_cert": certs["server.pem"],
            "ssl_key": certs["server.key"]}


@pytest.fixture(scope="module")
def context(certs):
    return ssl.create_default_context(cafile=certs["ca.pem"])


def accounts_for(listener):
    """Each listener's own accounts, so that counts kept per account stay apart."""
    return [
        f"CREATE USER plain_{listener}@localhost IDENTIFIED BY 'pw'",
        f"CREATE USER tlsonly_{listener}@localhost IDENTIFIED BY 'pw' REQUIRE SSL",
        f"CREATE USER locked_{listener}@localhost IDENTIFIED BY 'pw' ACCOUNT LOCK",
        f"CREATE USER expired_{listener}@localhost IDENTIFIED BY 'pw' PASSWORD EXPIRE",
        f"CREATE USER limited_{listener}@localhost IDENTIFIED BY 'pw' "
        "WITH MAX_USER_CONNECTIONS 1",
        f"CREATE USER guessed_{listener}@localhost IDENTIFIED BY 'pw'",
        f"CREATE USER cleared_{listener}@localhost IDENTIFIED BY 'pw'",
        f"CREATE USER target_{listener}@localhost IDENTIFIED BY 'pw'",  # for guessing
        f"CREATE USER sqlguessed_{listener}@localhost IDENTIFIED BY 'pw'",
    ]


@pytest.fixture(scope="module", autouse=True)
def accounts(sql):
    wait_for_default_container(sql)
    sql.execute("CREATE TABLE test.policy (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=InnoDB")
    sql.execute("INSERT INTO test.policy VALUES (1, 'one')")
    sql.execute("INSERT INTO rowsocket.kv (k, v) VALUES ('item', 'value')")
    for listener in LISTENERS + ["shared"]:
        for statement in accounts_for(listener):
            sql.execute(statement)
    for user in sql.flat("SELECT User FROM mysql.user WHERE User LIKE '%\\_%' "
                         "AND User NOT LIKE 'mariadb.%'"):
        sql.execute(f"GRANT SELECT ON test.policy TO {user}@localhost")
        sql.execute(f"GRANT SELECT ON rowsocket.kv TO {user}@localhost")
    sql.execute("SET GLOBAL max_password_errors = 2")
    yield
    sql.execute("SET GLOBAL max_password_errors = DEFAULT")


# -- one client per listener, with the same few verbs -----------------------------

def scramble(password, nonce_hex):
    stage1 = hashlib.sha1(password.encode()).digest()
    stage2 = hashlib.sha1(stage1).digest()
    mix = hashlib.sha1(bytes.fromhex(nonce_hex) + stage2).digest()
    return bytes(a ^ b for a, b in zip(stage1, mix)).hex()


class HsClient:
    """A HandlerSocket connection; logins are A 2 / A 3 (plain text or TLS)."""

    def __init__(self, port, context=None):
        self.conn = tls_support.TlsConnection(port, context) if context else hs.Connection(port)

    def close(self):
        self.conn.close()

    def login_lines(self, user, password):
        """A 2 and A 3 for one login, as raw bytes (the nonce read in between)."""
        nonce = self.conn.request(["A", "2", user])
        assert nonce[:2] == ["0", "1"], nonce
        return hs.encode_line(["A", "3", user, scramble(password, nonce[2])])

    def send_login(self, user, password):
        self.conn.send_raw(self.login_lines(user, password))

    def read_login(self):
        """'ok', or the refusal's word."""
        answer = self.conn.read_answer()
        return "ok" if answer == ["0", "1"] else answer[2]

    def login(self, user, password):
        self.send_login(user, password)
        return self.read_login()

    def pipelined_wrong_logins(self, user, count):
        """`count` A 2 / A 3 pairs in one write: the A 3s answer `unauth` (no nonce of
        theirs is right) or `nonce`."""
        lines = []
        for _ in range(count):
            lines += [["A", "2", user], ["A", "3", user, "00" * 20]]
        self.conn.send_lines(lines)

    def read_refusals(self):
        """Answers until the connection closes; the A 3 answers among them."""
        refusals = 0
        try:
            while True:
                answer = self.conn.read_answer()
                if answer[:2] != ["0", "1"]:
                    refusals += 1
        except (ConnectionError, OSError):
            return refusals

    def works(self):
        """A request that needs a login: True if it was served."""
        return self.conn.request(hs.open_request(0, "policy", ["v"])) == ["0", "1"]

    def ping(self):
        """A request that needs no login, answered."""
        answer = self.conn.request(["A", "2", "nobody"])
        assert answer[:2] == ["0", "1"]

    def readable(self):
        pending = getattr(self.conn.sock, "pending", lambda: 0)()
        return bool(self.conn.buf) or pending > 0 or bool(
            select.select([self.conn.sock], [], [], 0)[0])

    def is_closed(self, timeout=15):
        return self.conn.is_closed(timeout=timeout)


class McClient:
    """A memcached binary connection; logins are SASL PLAIN (TLS only)."""

    def __init__(self, port, context=None):
        self.raw = Raw(port, context)

    def close(self):
        self.raw.close()

    def login_lines(self, user, password):
        return binary_request(SASL_AUTH, b"PLAIN",
                              b"\0" + user.encode() + b"\0" + password.encode())

    def send_login(self, user, password):
        self.raw.send(self.login_lines(user, password))

    def read_login(self):
        r = binary_response(self.raw)
        if r["status"] == 0:
            return "ok"
        assert r["status"] == AUTH_ERROR, r
        return "refused"

    def login(self, user, password):
        self.send_login(user, password)
        return self.read_login()

    def pipelined_wrong_logins(self, user, count):
        self.raw.send(b"".join(self.login_lines(user, "wrong") for _ in range(count)))

    def read_refusals(self):
        refusals = 0
        try:
            while True:
                if binary_response(self.raw)["status"] == AUTH_ERROR:
                    refusals += 1
        except (EOFError, OSError):
            return refusals

    def works(self):
        self.raw.send(binary_request(GET, b"item"))
        r = binary_response(self.raw)
        return r["status"] == 0 and r["value"] == b"value"

    def ping(self):
        self.raw.send(binary_request(VERSION))
        assert binary_response(self.raw)["status"] == 0

    def readable(self):
        pending = getattr(self.raw.sock, "pending", lambda: 0)()
        return bool(self.raw.buf) or pending > 0 or bool(
            select.select([self.raw.sock], [], [], 0)[0])

    def is_closed(self, timeout=15):
        self.raw.sock.settimeout(timeout)
        try:
            while True:
                chunk = self.raw.sock.recv(65536)
                if not chunk:
                    return True
        except (ConnectionResetError, BrokenPipeError, ssl.SSLError):
            return True
        except socket.timeout:
            return False


@pytest.fixture(params=LISTENERS)
def listener(request):
    return request.param


@pytest.fixture
def clients(target, memcached_port, context):
    """clients(listener, tls=True): a new client of that listener, closed after the test."""
    opened = []

    def make(name, tls=True):
        port = {"read": target.port, "write": target.port_wr,
                "memcached": memcached_port}[name]
        kind = McClient if name == "memcached" else HsClient
        client = kind(port, context if tls else None)
        opened.append(client)
        return client

    yield make
    for client in opened:
        client.close()


@pytest.fixture
def connect(listener, clients):
    """connect(tls=True): a new client of the listener under test (memcached's SASL
    logins need TLS)."""
    return lambda tls=True: clients(listener, tls)


def refused(answer, word):
    """A refusal: the HandlerSocket word, or memcached's authentication error."""
    return answer == word or answer == "refused"


# -- the rules ---------------------------------------------------------------------

def test_a_right_password_logs_in(connect, listener):
    c = connect()
    assert not c.works()
    assert c.login(f"plain_{listener}", "pw") == "ok"
    assert c.works()


def test_require_secure_transport_refuses_plain_text(listener, connect, sql):
    sql.execute("SET GLOBAL rowsocket_require_secure_transport = ON")
    try:
        plain = connect(tls=False)
        if listener == "memcached":
            plain.raw.send(b"set fresh 0 0 1\r\nx\r\n")
            line = plain.raw.read_until(b"\r\n")
            assert line.startswith(b"SERVER_ERROR") and b"TLS" in line, line
            assert plain.is_closed()
            plain = connect(tls=False)     # the binary protocol: its auth error
            plain.raw.send(binary_request(VERSION))
            assert binary_response(plain.raw)["status"] == AUTH_ERROR
        else:
            assert plain.conn.request(["A", "2", "nobody"]) == ["3", "1", "tlsrequired"]
        assert plain.is_closed()
        secure = connect(tls=True)
        assert secure.login(f"plain_{listener}", "pw") == "ok"
        assert secure.works()
    finally:
        sql.execute("SET GLOBAL rowsocket_require_secure_transport = OFF")
    assert sql.value("SELECT COUNT(*) FROM rowsocket.kv WHERE k = 'fresh'") == "0"


def test_an_account_that_requires_ssl(listener, connect):
    if listener != "memcached":  # (memcached's SASL PLAIN is taken over TLS only)
        plain = connect(tls=False)
        assert plain.login(f"tlsonly_{listener}", "pw") == "tlsrequired"
        assert not plain.works()
    secure = connect(tls=True)
    assert secure.login(f"tlsonly_{listener}", "pw") == "ok"
    assert secure.works()


@pytest.mark.parametrize("kind,word", [("locked", "locked"), ("expired", "expired")])
def test_locked_and_expired_accounts_are_refused(listener, connect, kind, word):
    c = connect()
    assert refused(c.login(f"{kind}_{listener}", "pw"), word)
    assert not c.works()


def test_max_user_connections(listener, connect):
    first, second = connect(), connect()
    assert first.login(f"limited_{listener}", "pw") == "ok"
    assert refused(second.login(f"limited_{listener}", "pw"), "maxconn")
    assert not second.works()
    assert first.works()


def test_max_password_errors_blocks_the_account(listener, connect, sql):
    user = f"guessed_{listener}"
    # Two wrong passwords (max_password_errors = 2), each on a connection of its own.
    for _ in range(2):
        assert refused(connect().login(user, "wrong"), "unauth")
    blocked = connect()
    assert refused(blocked.login(user, "pw"), "blocked")   # the right one, refused
    assert not blocked.works()
    # ALTER USER starts the count again, as it does SQL's.
    sql.execute(f"ALTER USER {user}@localhost IDENTIFIED BY 'pw'")
    after = connect()
    assert after.login(user, "pw") == "ok"
    assert after.works()


def test_a_successful_login_clears_the_count(listener, connect):
    user = f"cleared_{listener}"
    for _ in range(3):
        assert refused(connect().login(user, "wrong"), "unauth")
        assert connect().login(user, "pw") == "ok"


def test_failures_on_every_listener_count_towards_one_block(clients):
    assert clients("read").login("guessed_shared", "wrong") == "unauth"
    assert clients("memcached").login("guessed_shared", "wrong") == "refused"
    assert clients("write").login("guessed_shared", "pw") == "blocked"


def sql_login(server, user, password):
    """SQL's own login of `user` (over the unix socket): 0, or the error it answers."""
    try:
        pymysql.connect(unix_socket=server.socket_path, user=user, password=password).close()
        return 0
    except pymysql.err.OperationalError as e:
        return e.args[0]


def test_sql_failures_and_sql_blocks_count_here(listener, connect, server, sql):
    user = f"sqlguessed_{listener}"
    assert sql_login(server, user, "wrong") == 1045
    assert sql_login(server, user, "wrong") == 1045   # max_password_errors = 2
    assert sql_login(server, user, "pw") == 4150      # SQL blocked it (ER_USER_IS_BLOCKED)
    c = connect()
    assert refused(c.login(user, "pw"), "blocked")    # here too
    assert not c.works()
    # FLUSH PRIVILEGES lifts SQL's block; the account's next SQL login clears the count.
    sql.execute("FLUSH PRIVILEGES")
    assert sql_login(server, user, "pw") == 0
    after = connect()
    assert after.login(user, "pw") == "ok"
    assert after.works()


def test_a_refused_login_is_answered_after_others_are_served(listener, connect):
    guesser, other = connect(), connect()
    for failures in (1, 2):
        guesser.send_login(f"target_{listener}", "wrong")
        # Another connection's login, sent later, is served meanwhile ...
        assert other.login(f"plain_{listener}", "pw") == "ok"
        assert not guesser.readable()      # ... while the refusal is still held
        assert refused(guesser.read_login(), "unauth")
    assert not guesser.is_closed(timeout=0.5)


def status(sql, name):
    return int(sql.rows(f"SHOW GLOBAL STATUS LIKE 'Rowsocket_{name}'")[0][1])


def test_a_few_failures_close_the_connection(listener, connect, sql):
    closed, delayed = status(sql, "connections_login_closed"), status(sql, "logins_delayed")
    c = connect()
    c.pipelined_wrong_logins(f"target_{listener}", 100)
    assert c.read_refusals() == FAILURES_BEFORE_CLOSE
    assert status(sql, "connections_login_closed") == closed + 1
    assert status(sql, "logins_delayed") == delayed + FAILURES_BEFORE_CLOSE
    # A login after refusals on other connections still works.
    assert connect().login(f"plain_{listener}", "pw") == "ok"


@pytest.fixture
def short_connect_timeout(sql):
    sql.execute("SET GLOBAL rowsocket_connect_timeout = 1")
    yield
    sql.execute("SET GLOBAL rowsocket_connect_timeout = DEFAULT")


def test_a_connection_that_never_logs_in_is_closed(listener, connect, short_connect_timeout):
    talker = connect()
    logged_in = connect()
    assert logged_in.login(f"plain_{listener}", "pw") == "ok"
    deadline = time.monotonic() + 20
    closed = False
    while time.monotonic() < deadline and not closed:
        try:
            talker.ping()                  # busy, but never logged in
        except (ConnectionError, EOFError, OSError):
            closed = True
        else:
            time.sleep(0.2)
    assert closed
    assert logged_in.works()               # a logged-in one stays


def test_a_half_open_handshake_is_closed(listener, target, memcached_port, sql,
                                         short_connect_timeout):
    before = status(sql, "connections_connect_timed_out")
    port = {"read": target.port, "write": target.port_wr, "memcached": memcached_port}[listener]
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"\x16\x03\x01\x02\x00\x01")   # the start of a ClientHello, then nothing
        s.settimeout(20)
        try:
            assert s.recv(100) == b""
        except ConnectionResetError:
            pass
    assert status(sql, "connections_connect_timed_out") == before + 1



def test_without_logins_only_an_unfinished_handshake_is_closed(certs):
    """On listeners that ask for no login, a connection that has sent nothing yet is
    admitted (rowsocket_timeout alone bounds it); an unfinished TLS handshake is not."""
    plugin = targets.make_plugin({"ssl_cert": certs["server.pem"],
                                  "ssl_key": certs["server.key"], "connect_timeout": 1})
    with servers.running_server([plugin]) as srv:
        port = srv.plugins[0].port
        with hs.Connection(port) as silent, \
                socket.create_connection(("127.0.0.1", port)) as stalled:
            stalled.sendall(b"\x16\x03\x01\x02\x00\x01")
            stalled.settimeout(20)
            try:
                assert stalled.recv(100) == b""
            except ConnectionResetError:
                pass
            # Closed after more than the connect timeout: the silent one is still served.
            assert silent.request(["A", "2", "x"])[0] in ("2", "3")
