"""The Python client (clients/python), against a private server.

Every request form goes through `rowsocket.Connection` and its answer, or the change
it made, is cross-checked with SQL; values (None, '', bytes with control bytes, text)
must round-trip exactly; pipelines, errors, the Pool's read/write split and its
behaviour under threads and dropped connections, and the asyncio variant are checked
against the real server. The client is imported from the source tree; one test also
installs it with pip, offline, into a temporary venv.

The listeners require secrets (different ones), so every connection also exercises
authentication. `Relay` sits between a client and a listener when a test needs to
see what the client sent or to cut its connections.
"""

import asyncio
import decimal
import hashlib
import importlib.util
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import threading

import pytest

import targets
from db import Sql

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
CLIENT_DIR = os.path.join(ROOT, "clients", "python")
sys.path.insert(0, os.path.join(CLIENT_DIR, "src"))

import rowsocket  # noqa: E402  (imported from the source tree above)
import rowsocket.aio  # noqa: E402
from rowsocket import Modify, Where, While  # noqa: E402
from rowsocket import _codec  # noqa: E402  (the codec's own unit tests)
from rowsocket import _login  # noqa: E402  (the login scramble's own unit tests)

pytestmark = targets.rowsocket_only

HOST = "127.0.0.1"
READ_SECRET = "py-read-secret"
WRITE_SECRET = "py-write-secret"


@pytest.fixture(scope="module")
def server_options():
    # Small socket buffers on the server's side, so that a pipeline of a few MB fills
    # them (test_a_pipeline_larger_than_every_buffer_cannot_deadlock).
    return {"plain_secret": READ_SECRET, "plain_secret_wr": WRITE_SECRET,
            "rcvbuf": 65536, "sndbuf": 65536}


def reader_endpoint(target):
    return rowsocket.Endpoint(HOST, target.port, READ_SECRET)


def writer_endpoint(target):
    return rowsocket.Endpoint(HOST, target.port_wr, WRITE_SECRET)


@pytest.fixture
def wconn(target):
    with rowsocket.Connection(HOST, target.port_wr, secret=WRITE_SECRET) as conn:
        yield conn


@pytest.fixture
def rconn(target):
    with rowsocket.Connection(HOST, target.port, secret=READ_SECRET) as conn:
        yield conn


@pytest.fixture
def pool(target):
    with rowsocket.Pool(readers=[reader_endpoint(target)],
                        writers=[writer_endpoint(target)]) as p:
        yield p


# -- tables ----------------------------------------------------------------------------
# test.py_items: ids 1..39 with a = id div 10, b = id mod 10, qty = 10 * id.

ITEM_ROWS = [(i, i // 10, i % 10, i * 10, f"n{i}") for i in range(1, 40)]
ITEMS = rowsocket.Index("test", "py_items", "PRIMARY", ["id", "qty", "name"],
                        filter_columns=["a", "b", "qty", "name"])
ITEMS_AB = rowsocket.Index("test", "py_items", "ab", "id,a,b")
VALUES = rowsocket.Index("test", "py_values", "PRIMARY", ["k", "s", "bin", "t"],
                         filter_columns=["s"])
PLAIN = rowsocket.Index("test", "py_plain", "PRIMARY", ["k", "v"])
USERS = rowsocket.Index("test", "user", "PRIMARY", ["user_id", "user_name", "user_email"])


@pytest.fixture(scope="module")
def tables(sql):
    sql.create_table("py_items", "id INT AUTO_INCREMENT PRIMARY KEY, a INT NOT NULL DEFAULT 0, "
                                 "b INT NOT NULL DEFAULT 0, qty INT, name VARCHAR(50), "
                                 "KEY ab (a, b)")
    sql.create_table("py_values", "k INT PRIMARY KEY, s VARCHAR(255) CHARSET utf8mb4 NULL, "
                                  "bin VARBINARY(512) NULL, t TEXT CHARSET utf8mb4 NULL")
    sql.create_table("py_plain", "k INT PRIMARY KEY, v VARCHAR(20)")


@pytest.fixture
def items(sql, tables):
    sql.refill("py_items", ITEM_ROWS)
    sql.refill("py_values", [])
    sql.refill("py_plain", [])


def sql_items(sql, where, order="id", limit=1, offset=0):
    return sql.rows(f"SELECT id, qty, name FROM test.py_items WHERE {where} "
                    f"ORDER BY {order} LIMIT {limit} OFFSET {offset}")


class Relay:
    """A TCP relay to a listener: records what clients send, and cuts every connection
    on demand (as a server restart or a network failure would)."""

    def __init__(self, port):
        self._upstream = port
        self._listener = socket.create_server((HOST, 0))
        self._listener.settimeout(0.1)
        self.port = self._listener.getsockname()[1]
        self.sent = bytearray()
        self._lock = threading.Lock()
        self._sockets = []
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            client.settimeout(None)
            upstream = socket.create_connection((HOST, self._upstream))
            with self._lock:
                self._sockets += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, False), daemon=True).start()

    def _pump(self, src, dst, record):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if record:
                    with self._lock:
                        self.sent += data
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def request_lines(self):
        with self._lock:
            return bytes(self.sent).split(b"\n")[:-1]

    def cut(self):
        """Ends every relayed connection now."""
        with self._lock:
            sockets, self._sockets = self._sockets, []
        for s in sockets:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self):
        self._closed = True
        self._listener.close()
        self.cut()


@pytest.fixture
def write_relay(target):
    relay = Relay(target.port_wr)
    yield relay
    relay.close()


@pytest.fixture
def read_relay(target):
    relay = Relay(target.port)
    yield relay
    relay.close()


# -- the codec, the requests as encoded, the error table (no server needed) ------------

def test_every_byte_below_0x10_is_escaped_and_every_other_byte_stands_for_itself():
    for b in range(256):
        encoded = _codec.escape(bytes([b]))
        assert encoded == (bytes([0x01, b + 0x40]) if b < 0x10 else bytes([b]))
        assert _codec.unescape(encoded) == bytes([b])


def test_none_is_the_null_token_and_the_empty_string_an_empty_token():
    assert _codec.token(None) == b"\x00"
    assert _codec.token("") == b""
    assert _codec.token(b"\x00") == b"\x01\x40"
    assert _codec.parse_answer(b"0\t3\t\x00\t\t\x01\x40").values == [None, b"", b"\x00"]


def test_values_travel_as_their_text():
    assert _codec.token(-12) == b"-12"
    assert _codec.token(decimal.Decimal("1E+3")) == b"1000"
    assert _codec.token(decimal.Decimal("-0.50")) == b"-0.50"
    assert _codec.token("é\t") == "é".encode() + b"\x01\x49"
    assert _codec.token(bytearray(b"\n")) == b"\x01\x4a"
    for bad in (True, 1.5, object()):
        with pytest.raises(TypeError):
            _codec.token(bad)
    with pytest.raises(ValueError):
        _codec.token(decimal.Decimal("NaN"))


def test_a_batch_encodes_every_request_form():
    batch = rowsocket.Batch()
    batch.find(ITEMS, ">=", 5, limit=3, offset=2, in_values=[7, 8], in_key_part=0,
               filters=[Where("qty", ">", 10), While(0, "<=", None)])
    batch.update(ITEMS, "=", [5], [5, "x"])
    batch.find_and_modify(ITEMS, "<", 9, Modify.decrement([0, 1]))
    batch.delete(3, "=", 1)
    batch.insert(ITEMS, [None, "", b"\t"])
    assert [r.line for r in batch.requests] == [
        b">=\t1\t5\t3\t2\t@\t0\t2\t7\t8\tF\t>\t2\t10\tW\t<=\t0\t\x00",
        b"=\t1\t5\t1\t0\tU\t5\tx",
        b"<\t1\t9\t1\t0\t-?\t0\t1",
        b"=\t1\t1\t1\t0\tD",
        b"+\t3\t\x00\t\t\x01\x49",
    ]
    assert batch.has_writes and len(batch) == 5


@pytest.mark.parametrize("build, complaint", [
    (lambda b: b.find(ITEMS, "==", 1), "unknown find operator"),
    (lambda b: b.find(ITEMS, "=", []), "at least one key value"),
    (lambda b: b.find(ITEMS, "=", 1, limit=-1), "limit"),
    (lambda b: b.find(ITEMS, "=", 1, filters=[Where("qty", "<>", 1)]), "filter operator"),
    (lambda b: b.find(ITEMS, "=", 1, filters=[Where("nope", "=", 1)]), "not a filter column"),
    (lambda b: b.find(7, "=", 1, filters=[Where("qty", "=", 1)]), "needs an Index"),
    (lambda b: b.insert(ITEMS, []), "needs values"),
    (lambda b: b.update(ITEMS, "=", 1, "abc"), "list or tuple"),
])
def test_a_request_that_cannot_be_sent_raises_usage_error_at_once(build, complaint):
    batch = rowsocket.Batch()
    with pytest.raises(rowsocket.UsageError, match=complaint):
        build(batch)
    assert len(batch) == 0


def _cpp_strings(text):
    """Joins the adjacent C++ string literals of `text` into one Python string."""
    return "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', text))


def test_explanations_are_the_servers_and_librowsocket_words():
    with open(os.path.join(ROOT, "src", "protocol", "wire_errors.cc")) as f:
        wire = f.read()
    with open(os.path.join(ROOT, "src", "client", "error.cc")) as f:
        engine = f.read()
    codes = {"kTable": 1, "kRequest": 2, "kAuth": 3}
    expected = {}
    for code, word, meaning in re.findall(r'\{(kTable|kRequest|kAuth), "(\w+)",((?:\s*"'
                                          r'(?:[^"\\]|\\.)*")+)\}', wire):
        expected[(codes[code], word)] = _cpp_strings(meaning)
    for number, meaning in re.findall(r'\{"(\d+)", "([^"]*)"\}', engine):
        expected[(1, number)] = meaning
    assert len(expected) > 50
    assert rowsocket.EXPLANATIONS == expected


def test_an_unknown_engine_error_number_is_still_explained():
    assert rowsocket.explain(1, "4242") == "storage engine or SQL error number (see perror)"
    assert rowsocket.explain(2, "nonsense") == ""


# -- account login: the scramble and the exchange (no server needed) -------------------

# Responses computed apart from the client (the formula by hand with hashlib, the same
# vectors as librowsocket's unit test): SHA1(pw) XOR SHA1(nonce + SHA1(SHA1(pw))).
COUNTING_NONCE = b"000102030405060708090a0b0c0d0e0f10111213"
RANDOM_NONCE = b"f3a9c2e07b5d1148a6e2907fcd3318b0e45a7c21"
PW_RESPONSE = b"09870633c1fe3ba1515b7473abf7b736710e5e73"  # "pw", RANDOM_NONCE


@pytest.mark.parametrize("password, nonce, response", [
    ("pw", COUNTING_NONCE, b"c240bb20be464e6a00310bf70095910c89d96cbe"),
    (b"pw", RANDOM_NONCE, PW_RESPONSE),
    ("", COUNTING_NONCE, b"767be93ed197083818f15db91fd7d52407ad353e"),
    (b"", RANDOM_NONCE, b"dbec0c7cc7b4fda0a65ebad58a4c97e15d31d83e"),
    ("pässwörd", COUNTING_NONCE, b"8a70fa1ac58f05e75a7b1461f870c6bf88ab0732"),
    ("пароль", RANDOM_NONCE, b"42aaa66824151fe82bcc73fb6cbfc084c93ed1af"),
    (b"\xff\x00\xfe tab\there", COUNTING_NONCE, b"c82da84506c275e7f88ff1e9a8da55c021eea64f"),
    (b"pw", RANDOM_NONCE.upper(), PW_RESPONSE),
])
def test_the_login_response_is_the_mysql_native_password_scramble(password, nonce, response):
    assert _login.native_password_response(password, nonce) == response


def test_the_scramble_checks_out_against_the_hash_mariadb_stores():
    # What the server does with it: SHA1(response XOR SHA1(nonce + stored)) == stored,
    # where stored is PASSWORD('pw') without its '*'.
    stored = bytes.fromhex("D821809F681A40A6E379B50D0463EFAE20BDD122")
    mask = hashlib.sha1(bytes.fromhex(RANDOM_NONCE.decode()) + stored).digest()
    stage1 = bytes(a ^ b for a, b in zip(bytes.fromhex(PW_RESPONSE.decode()), mask))
    assert hashlib.sha1(stage1).digest() == stored


@pytest.mark.parametrize("nonce", [b"", b"00", COUNTING_NONCE[:-1], COUNTING_NONCE + b"00",
                                   COUNTING_NONCE[:-1] + b"g", b"00 " + COUNTING_NONCE[3:]])
def test_a_nonce_that_is_not_40_hex_digits_is_refused(nonce):
    with pytest.raises(ValueError):
        _login.native_password_response("pw", nonce)
    with pytest.raises(rowsocket.IoError, match="nonce"):
        _login.read_answer([b"0\t1\t" + nonce], None, nonce=True)


def test_login_lines_escape_the_user_like_any_token():
    assert _login.nonce_request("a\tb") == b"A\t2\ta\x01Ib\n"
    assert _login.response_request("app", "pw", RANDOM_NONCE) == b"A\t3\tapp\t" + PW_RESPONSE + b"\n"


def test_login_answers_are_read_by_step():
    assert _login.read_answer([b"0\t1\t" + RANDOM_NONCE], None, nonce=True) == RANDOM_NONCE
    assert _login.read_answer([b"0\t1"], None, nonce=False) == b""
    with pytest.raises(rowsocket.ServerError) as caught:
        _login.read_answer([b"3\t1\tunauth"], None, nonce=False)
    assert (caught.value.code, caught.value.word) == (3, "unauth")
    for line, nonce in [(b"0\t1", True), (b"0\t1\t\x00", True), (b"0\t1\tx", False),
                        (b"hello", False)]:
        with pytest.raises(rowsocket.IoError, match="malformed"):
            _login.read_answer([line], None, nonce)


class AccountListener:
    """A scripted listener for account `app` with password `pw`: A 2 answers
    RANDOM_NONCE, A 3 accepts PW_RESPONSE only, anything else answers `0 1`. Records
    every line received."""

    def __init__(self):
        self._server = socket.create_server((HOST, 0))
        self.port = self._server.getsockname()[1]
        self.lines = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn):
        with conn, conn.makefile("rb") as lines:
            for line in lines:
                line = line.rstrip(b"\n")
                self.lines.append(line)
                if line == b"A\t2\tapp":
                    conn.sendall(b"0\t1\t" + RANDOM_NONCE + b"\n")
                elif line.startswith(b"A\t3\t"):
                    ok = line == b"A\t3\tapp\t" + PW_RESPONSE
                    conn.sendall(b"0\t1\n" if ok else b"3\t1\tunauth\n")
                else:
                    conn.sendall(b"0\t1\n")

    def close(self):
        self._server.close()


@pytest.fixture
def account_listener():
    listener = AccountListener()
    yield listener
    listener.close()


def test_a_connection_logs_in_after_its_secret(account_listener):
    with rowsocket.Connection(HOST, account_listener.port, secret="s", user="app",
                              password="pw") as conn:
        assert conn.connected
    assert account_listener.lines == [b"A\t1\ts", b"A\t2\tapp",
                                      b"A\t3\tapp\t" + PW_RESPONSE]
    with pytest.raises(rowsocket.ServerError) as caught:
        rowsocket.Connection(HOST, account_listener.port, user="app", password="nope")
    assert (caught.value.code, caught.value.word) == (3, "unauth")


def test_an_async_connection_and_pools_log_in_alike(account_listener):
    async def run():
        conn = await rowsocket.aio.AsyncConnection.connect(HOST, account_listener.port,
                                                           user="app", password=b"pw")
        conn.close()
        async with rowsocket.aio.AsyncPool([(HOST, account_listener.port)], user="app",
                                           password="pw") as pool:
            async with pool.connection():
                pass
    asyncio.run(run())
    with rowsocket.Pool([(HOST, account_listener.port)], user="app", password="pw") as pool:
        with pool.connection():
            pass
    assert account_listener.lines == [b"A\t2\tapp", b"A\t3\tapp\t" + PW_RESPONSE] * 3


# -- every request form, cross-checked with SQL ----------------------------------------

def test_find_answers_the_sample_row_as_sql_sees_it(rconn, sql):
    expected = sql.rows("SELECT user_id, user_name, user_email FROM test.user "
                        "WHERE user_id = 101")
    assert rconn.find(USERS, "=", 101) == expected


PK_CASES = [
    # op, key, limit, offset, SQL condition, SQL order
    ("=", 5, 1, 0, "id = 5", "id"),
    ("=", 999, 1, 0, "id = 999", "id"),
    (">", 5, 3, 0, "id > 5", "id"),
    (">=", 5, 3, 2, "id >= 5", "id"),
    ("<", 5, 3, 0, "id < 5", "id DESC"),
    ("<=", 30, 4, 3, "id <= 30", "id DESC"),
    (">=", 1, 100, 0, "id >= 1", "id"),
]


@pytest.mark.parametrize("op, key, limit, offset, where, order", PK_CASES)
def test_find_operators_limits_and_offsets_match_sql(rconn, sql, items, op, key, limit,
                                                     offset, where, order):
    assert rconn.find(ITEMS, op, key, limit=limit, offset=offset) == sql_items(
        sql, where, order, limit, offset)


def test_find_on_a_key_prefix_of_a_secondary_index(rconn, sql, items):
    assert rconn.find(ITEMS_AB, "=", [2], limit=20) == sql.rows(
        "SELECT id, a, b FROM test.py_items WHERE a = 2 ORDER BY a, b")
    assert rconn.find(ITEMS_AB, ">=", (1, 5), limit=3) == sql.rows(
        "SELECT id, a, b FROM test.py_items WHERE (a, b) >= (1, 5) ORDER BY a, b LIMIT 3")


def test_in_list_answers_rows_in_the_order_of_its_values(rconn, items):
    rows = rconn.find(ITEMS, "=", [0], in_values=[30, 4, 999, 17], limit=10)
    assert [r[0] for r in rows] == ["30", "4", "17"]


def test_where_skips_and_while_stops_as_sql_would(rconn, sql, items):
    assert rconn.find(ITEMS, ">=", 1, limit=5, filters=[Where("b", "=", 3)]) == sql_items(
        sql, "b = 3", limit=5)
    assert rconn.find(ITEMS, ">=", 1, limit=50, filters=[While("a", "<", 1)]) == sql_items(
        sql, "a < 1", limit=50)
    by_position = rconn.find(ITEMS, ">", 10, limit=50, filters=[Where(2, ">=", 300),
                                                                Where("name", "!=", "n33")])
    assert by_position == sql_items(sql, "id > 10 AND qty >= 300 AND name != 'n33'", limit=50)


def test_insert_returns_the_auto_increment_id_and_sql_sees_the_row(wconn, sql, items):
    new_id = wconn.insert(ITEMS, [None, "99", "new"])
    assert isinstance(new_id, int) and new_id > 39
    assert sql.rows("SELECT id, qty, name FROM test.py_items WHERE id = %s", (new_id,)) == [
        (str(new_id), "99", "new")]
    assert wconn.insert(ITEMS, [1000, 1, "given"]) == 1000


def test_insert_into_a_table_without_auto_increment_returns_none(wconn, sql, items):
    assert wconn.insert(PLAIN, [1, "one"]) is None
    assert sql.rows("SELECT k, v FROM test.py_plain") == [("1", "one")]


def test_update_increment_decrement_and_delete_count_rows_and_sql_sees_them(wconn, sql, items):
    assert wconn.update(ITEMS, "=", 5, [5, 7, "five"]) == 1
    assert sql_items(sql, "id = 5") == [("5", "7", "five")]
    assert wconn.increment(ITEMS, ">=", 1, [0, 5], limit=3) == 3
    assert sql.rows("SELECT qty FROM test.py_items WHERE id <= 3 ORDER BY id") == [
        ("15",), ("25",), ("35",)]
    assert wconn.decrement(ITEMS, "=", [0], [0, 2], in_values=[1, 2], limit=2) == 2
    assert sql.rows("SELECT qty FROM test.py_items WHERE id <= 2 ORDER BY id") == [
        ("13",), ("23",)]
    assert wconn.delete(ITEMS, ">", 30, limit=100, filters=[Where("b", "<", 5)]) == 4
    assert sql.value("SELECT COUNT(*) FROM test.py_items WHERE id > 30") == "5"
    assert wconn.update(ITEMS, "=", 999, [999]) == 0


def test_decrement_leaves_a_row_that_would_cross_zero(wconn, sql, items):
    assert wconn.decrement(ITEMS, "=", 1, [0, 11]) == 0
    assert sql.value("SELECT qty FROM test.py_items WHERE id = 1") == "10"


@pytest.mark.parametrize("modify, after", [
    (Modify.update([4, 1]), [("4", "1", "n4")]),
    (Modify.increment([0, 6]), [("4", "46", "n4")]),
    (Modify.decrement([0, 6]), [("4", "34", "n4")]),
    (Modify.delete(), []),
])
def test_find_and_modify_returns_the_rows_as_they_were(wconn, sql, items, modify, after):
    assert wconn.find_and_modify(ITEMS, "=", 4, modify) == [("4", "40", "n4")]
    assert sql_items(sql, "id = 4") == after


def test_open_index_with_an_id_of_ones_own(wconn, items):
    wconn.open_index(7, "test", "py_items", "PRIMARY", ["name"], ["qty"])
    assert wconn.find(7, ">", 0, limit=2, filters=[Where(0, ">", 10)]) == [("n2",), ("n3",)]
    # The id is the caller's: an Index never takes it, and reopening 7 replaces it.
    assert wconn.find(ITEMS, "=", 2) == [("2", "20", "n2")]
    wconn.open_index(7, "test", "py_items", "PRIMARY", "qty")
    assert wconn.find(7, "=", 2) == [("20",)]


# -- values: None, '', bytes, text -----------------------------------------------------

CONTROL = bytes(range(0x10)) + b"\t\n\r\x7f\xff"


def test_none_empty_and_control_bytes_round_trip_exactly(target, wconn, server, items):
    written = [(None, b"", None),
               ("", CONTROL, ""),
               ("tab\there\nline", bytes(range(256)), "\x00\x01")]
    for k, values in enumerate(written, start=1):
        wconn.insert(VALUES, [k, *values])
    expected = [tuple(v.encode() if isinstance(v, str) else v for v in row) for row in written]
    raw_sql = Sql(server, raw_bytes=True)
    try:
        assert raw_sql.rows("SELECT s, bin, t FROM test.py_values ORDER BY k") == expected
    finally:
        raw_sql.close()
    with rowsocket.Connection(HOST, target.port, secret=READ_SECRET, raw=True) as raw:
        assert [row[1:] for row in raw.find(VALUES, ">=", 1, limit=10)] == expected
    text = wconn.find(VALUES, ">=", 1, limit=2)
    assert text == [("1", None, "", None),
                    ("2", "", CONTROL.decode("utf-8", "surrogateescape"), "")]


def test_values_written_by_sql_read_back_exactly(rconn, sql, items):
    sql.insert("py_values", [(4, "", CONTROL, None), (5, None, None, "")])
    rows = rconn.find(VALUES, ">=", 4, limit=2)
    assert [(r[1], r[3]) for r in rows] == [("", None), (None, "")]
    assert rows[0][2].encode("utf-8", "surrogateescape") == CONTROL


def test_an_empty_string_as_the_last_token_stays_an_empty_string(wconn, sql, items):
    wconn.insert(VALUES, [6, "x", None, ""])
    assert sql.rows("SELECT s, t FROM test.py_values WHERE k = 6") == [("x", "")]
    assert wconn.update(VALUES, "=", 6, [6, ""]) == 1
    assert sql.rows("SELECT s FROM test.py_values WHERE k = 6") == [("",)]
    assert wconn.find(VALUES, "=", 6, filters=[Where("s", "=", "")]) == [("6", "", None, "")]
    assert wconn.find(VALUES, "=", 6, filters=[Where("s", "=", None)]) == []


def test_text_is_utf8_and_bytes_that_are_not_survive_a_str_round_trip(wconn, sql, items):
    wconn.insert(VALUES, [7, "Ünïcødé ✓", b"\xe9\xff", "日本"])
    assert sql.rows("SELECT s, t FROM test.py_values WHERE k = 7") == [("Ünïcødé ✓", "日本")]
    (row,) = wconn.find(VALUES, "=", 7)
    assert row[1] == "Ünïcødé ✓" and row[3] == "日本"
    wconn.update(VALUES, "=", 7, [8, row[1], row[2]])  # a str read back writes the same bytes
    assert sql.value("SELECT HEX(bin) FROM test.py_values WHERE k = 8") == "E9FF"


def test_numbers_and_decimals_are_sent_as_text(wconn, sql, items):
    wconn.insert(PLAIN, [decimal.Decimal("3"), decimal.Decimal("12.50")])
    wconn.insert(PLAIN, [-4, 2 ** 40])
    assert sql.rows("SELECT k, v FROM test.py_plain ORDER BY k") == [
        ("-4", str(2 ** 40)), ("3", "12.50")]


# -- pipelines -------------------------------------------------------------------------

def test_a_pipeline_answers_in_order_with_a_mid_pipeline_error(wconn, sql, items):
    batch = rowsocket.Batch()
    batch.find(ITEMS, "=", 1)
    batch.insert(PLAIN, [10, "ten"])
    batch.find(ITEMS, "=", [1, 2])          # more key values than key parts: kpnum
    batch.insert(PLAIN, [10, "again"])      # duplicate key
    batch.update(PLAIN, "=", 10, [10, "TEN"])
    batch.find_and_modify(PLAIN, "=", 10, Modify.delete())
    batch.find(PLAIN, "=", 10)
    result = wconn.execute(batch)
    assert len(result) == 7 and result.answered == 7 and not result.ok
    assert result[0] == [("1", "10", "n1")]
    assert result[1] is None
    assert isinstance(result[2], rowsocket.ServerError) and result[2].word == "kpnum"
    assert isinstance(result[3], rowsocket.ServerError) and result[3].word == "121"
    assert result[4:] == [1, [("10", "TEN")], []]
    assert result.first_error is result[2]
    with pytest.raises(rowsocket.ServerError, match="kpnum"):
        result.values()
    assert sql.value("SELECT COUNT(*) FROM test.py_plain") == "0"


@pytest.mark.parametrize("variant", ["sync", "asyncio"])
def test_a_pipeline_larger_than_every_buffer_cannot_deadlock(target, rconn, sql, items,
                                                             variant):
    # About 8 MB of requests and 3 MB of answers, more than the socket buffers and
    # rowsocket_max_output_buffer hold: the server stops reading while its answers
    # wait unread, so a client that sent everything before reading would hang.
    everything = sql_items(sql, "id >= 1", limit=39)
    batch = rowsocket.Batch()
    for i in range(5000):
        batch.find(ITEMS, ">=", 1, limit=39,
                   filters=[Where("name", "!=", str(i).rjust(1500, "x"))])
    if variant == "sync":
        result = rconn.execute(batch)
    else:
        async def execute():
            conn = await rowsocket.aio.AsyncConnection.connect(HOST, target.port,
                                                               secret=READ_SECRET)
            async with conn:
                return await conn.execute(batch)
        result = asyncio.run(execute())
    assert result.ok and len(result) == 5000
    assert all(rows == everything for rows in result)


def test_requests_on_an_index_that_cannot_open_get_the_opens_error(wconn, items):
    missing = rowsocket.Index("test", "no_such_table", "PRIMARY", ["id"])
    batch = rowsocket.Batch()
    batch.find(missing, "=", 1)
    batch.find(ITEMS, "=", 1)
    batch.insert(missing, [1])
    result = wconn.execute(batch)
    assert [getattr(o, "word", o) for o in result] == ["open_table", [("1", "10", "n1")],
                                                       "open_table"]
    assert str(result[0]).startswith("1 1 open_table (the table does not exist")
    # The failed open is forgotten: the next request on it tries again.
    with pytest.raises(rowsocket.ServerError, match="open_table"):
        wconn.find(missing, "=", 1)


# -- errors ----------------------------------------------------------------------------

def test_server_errors_carry_code_word_and_explanation_and_leave_the_connection_usable(
        wconn, items):
    with pytest.raises(rowsocket.ServerError) as caught:
        wconn.find(ITEMS_AB, "=", [1, 2, 3])
    error = caught.value
    assert (error.code, error.word) == (2, "kpnum")
    assert error.explanation == "more key values than the index has key parts"
    assert str(error) == "2 1 kpnum (more key values than the index has key parts)"
    assert isinstance(error, rowsocket.Error)
    with pytest.raises(rowsocket.ServerError) as duplicate:
        wconn.insert(ITEMS, [1, 1, "dup"])
    assert (duplicate.value.code, duplicate.value.word) == (1, "121")
    assert duplicate.value.explanation == "duplicate key"
    assert wconn.connected and wconn.find(ITEMS, "=", 1) == [("1", "10", "n1")]


def test_writes_on_the_read_listener_are_refused_as_readonly(rconn, items):
    with pytest.raises(rowsocket.ServerError) as caught:
        rconn.insert(PLAIN, [1, "x"])
    assert (caught.value.code, caught.value.word) == (2, "readonly")
    assert "use the write port" in caught.value.explanation


@pytest.mark.parametrize("secret", [None, "wrong"])
def test_a_missing_or_wrong_secret_is_refused_with_unauth(target, secret):
    if secret is None:
        with rowsocket.Connection(HOST, target.port) as conn:
            with pytest.raises(rowsocket.ServerError) as caught:
                conn.find(USERS, "=", 101)
    else:
        with pytest.raises(rowsocket.ServerError) as caught:
            rowsocket.Connection(HOST, target.port, secret=secret)
    assert (caught.value.code, caught.value.word) == (3, "unauth")
    assert caught.value.explanation.startswith("not authenticated")


def test_auth_after_connecting_opens_the_listener(target):
    with rowsocket.Connection(HOST, target.port) as conn:
        conn.auth(READ_SECRET)
        assert conn.find(USERS, "=", 101)[0][1] == "Yukari Takeba"


def test_a_refused_connect_is_an_io_error():
    port = socket.create_server((HOST, 0))
    closed_port = port.getsockname()[1]
    port.close()
    with pytest.raises(rowsocket.IoError, match="cannot connect"):
        rowsocket.Connection(HOST, closed_port)


def test_a_dropped_connection_raises_io_error_and_stays_closed(target, write_relay, items):
    conn = rowsocket.Connection(HOST, write_relay.port, secret=WRITE_SECRET)
    assert conn.find(ITEMS, "=", 1) == [("1", "10", "n1")]
    write_relay.cut()
    with pytest.raises(rowsocket.IoError):
        conn.find(ITEMS, "=", 1)
    assert not conn.connected
    with pytest.raises(rowsocket.IoError, match="not connected"):
        conn.insert(PLAIN, [1, "x"])


@pytest.fixture
def locked_row(server, sql, items):
    """Row 1 of test.py_plain, locked by an SQL transaction for the whole test: a write
    to it waits (rowsocket_lock_wait_timeout, seconds) far past the clients' timeouts.
    The write a client gave up on still waits apart after its connection closed, as
    SQL's statement would, and is made once the lock is gone: the fixture waits for
    it (its value "one"), so that it cannot land in a later test."""
    sql.insert("py_plain", [(1, "held")])
    holder = Sql(server)
    holder.execute("BEGIN")
    holder.execute("SELECT * FROM test.py_plain WHERE k = 1 FOR UPDATE")
    yield
    holder.execute("ROLLBACK")
    holder.close()
    deadline = time.monotonic() + 30
    while sql.value("SELECT v FROM test.py_plain WHERE k = 1") != "one":
        assert time.monotonic() < deadline, "the abandoned write was never made"
        time.sleep(0.01)


def test_a_request_past_its_timeout_is_an_io_error_and_closes_the_connection(target,
                                                                           locked_row):
    with rowsocket.Connection(HOST, target.port_wr, secret=WRITE_SECRET, timeout=0.2) as conn:
        with pytest.raises(rowsocket.IoError, match="timeout"):
            conn.update(PLAIN, "=", 1, [1, "one"])
        assert not conn.connected


def test_a_cancelled_async_request_closes_its_connection(target, locked_row):
    async def main():
        conn = await rowsocket.aio.AsyncConnection.connect(HOST, target.port_wr,
                                                           secret=WRITE_SECRET)
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(conn.update(PLAIN, "=", 1, [1, "one"]), 0.2)
        # Its answer would arrive later and be read as the next request's.
        assert not conn.connected
        with pytest.raises(rowsocket.IoError, match="not connected"):
            await conn.find(PLAIN, "=", 1)

    asyncio.run(main())


def test_an_overlong_line_ends_the_connection_and_the_batch(wconn, sql, items):
    max_line = int(sql.value("SELECT @@rowsocket_max_line_length"))
    batch = rowsocket.Batch()
    batch.find(ITEMS, "=", 1)
    batch.find(ITEMS, "=", "x" * (max_line + 1))
    batch.find(ITEMS, "=", 2)
    result = wconn.execute(batch)
    assert result[0] == [("1", "10", "n1")]
    assert isinstance(result[1], rowsocket.ServerError) and result[1].word == "linelen"
    assert isinstance(result[2], rowsocket.IoError)
    assert result.answered == 2
    assert not wconn.connected


# -- the pool --------------------------------------------------------------------------

FIND_LINE = re.compile(rb"\d+\t(=|>|>=|<|<=)\t1\t\d+\t1\t0")


def test_the_pool_sends_finds_to_readers_and_writes_only_to_writers(target, read_relay,
                                                                     write_relay, sql, items):
    pool = rowsocket.Pool(readers=[(HOST, read_relay.port, READ_SECRET)],
                          writers=[(HOST, write_relay.port, WRITE_SECRET)])
    with pool:
        for k in range(1, 11):
            assert pool.insert(PLAIN, [k, f"v{k}"]) is None
            assert pool.update(PLAIN, "=", k, [k, f"w{k}"]) == 1
            assert pool.find(ITEMS, "=", k) == [(str(k), str(10 * k), f"n{k}")]
            assert pool.increment(ITEMS, "=", k, [0, 1]) == 1
        batch = rowsocket.Batch()
        batch.find(ITEMS, "=", 1)
        batch.find(PLAIN, "=", 1)
        assert pool.execute(batch).values() == [[("1", "11", "n1")], [("1", "w1")]]
    read_lines = read_relay.request_lines()
    assert read_lines and all(line.startswith((b"A\t", b"P\t")) or FIND_LINE.fullmatch(line)
                              for line in read_lines), read_lines
    assert sum(1 for line in read_lines if FIND_LINE.fullmatch(line)) == 12
    write_lines = write_relay.request_lines()
    assert not any(FIND_LINE.fullmatch(line) for line in write_lines)
    assert sql.rows("SELECT COUNT(*), MIN(v) FROM test.py_plain") == [("10", "w1")]


def test_the_pool_uses_the_endpoints_of_a_role_in_turn(target, items):
    relays = [Relay(target.port), Relay(target.port)]
    try:
        with rowsocket.Pool(readers=[(HOST, r.port, READ_SECRET) for r in relays]) as pool:
            for k in range(1, 7):
                assert pool.find(ITEMS, "=", k)[0][0] == str(k)
        finds = [sum(1 for line in r.request_lines() if FIND_LINE.fullmatch(line))
                 for r in relays]
        assert finds == [3, 3]
    finally:
        for r in relays:
            r.close()


def test_a_pool_whose_only_writer_is_a_read_port_meets_readonly(target, items):
    with rowsocket.Pool(writers=[reader_endpoint(target)]) as pool:
        with pytest.raises(rowsocket.ServerError, match="readonly"):
            pool.insert(PLAIN, [1, "x"])
        assert pool.find(ITEMS, "=", 3)[0][0] == "3"  # no readers: finds use the writers


def test_a_pool_without_writers_refuses_writes_before_sending(target, items):
    with rowsocket.Pool(readers=[reader_endpoint(target)]) as pool:
        with pytest.raises(rowsocket.UsageError, match="no write endpoint"):
            pool.delete(ITEMS, "=", 1)


def test_the_pool_is_safe_under_threads(pool, sql, items):
    threads, ops = 8, 40
    failures = []

    def work(t):
        try:
            for i in range(ops):
                k = t * 1000 + i
                pool.insert(PLAIN, [k, f"t{t}"])
                assert pool.find(ITEMS, "=", i % 39 + 1)[0][0] == str(i % 39 + 1)
                assert pool.update(PLAIN, "=", k, [k, f"u{t}-{i}"]) == 1
                with pool.connection("write") as conn:  # read your own write
                    assert conn.find(PLAIN, "=", k) == [(str(k), f"u{t}-{i}")]
        except Exception as e:  # reported below, with its thread
            failures.append((t, repr(e)))

    workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert failures == []
    assert sql.value("SELECT COUNT(*) FROM test.py_plain") == str(threads * ops)
    assert sql.value("SELECT COUNT(*) FROM test.py_plain WHERE v LIKE 'u%'") == str(threads * ops)
    assert 0 < pool.idle_connections <= 16


def test_the_pool_recovers_when_its_connections_drop_and_reopens_its_indexes(
        target, read_relay, write_relay, items):
    with rowsocket.Pool(readers=[(HOST, read_relay.port, READ_SECRET)],
                        writers=[(HOST, write_relay.port, WRITE_SECRET)]) as pool:
        assert pool.find(ITEMS, "=", 1) == [("1", "10", "n1")]
        assert pool.insert(PLAIN, [1, "one"]) is None
        assert pool.idle_connections == 2
        read_relay.cut()
        write_relay.cut()
        # New connections: each opens the Index again before its request.
        assert pool.find(ITEMS, "=", 2) == [("2", "20", "n2")]
        assert pool.insert(PLAIN, [2, "two"]) is None
        assert pool.find(PLAIN, "=", 2) == [("2", "two")]
    assert sum(line.startswith(b"P\t") for line in read_relay.request_lines()) == 3


def test_a_pool_backs_off_from_an_endpoint_that_refuses_connections():
    port = socket.create_server((HOST, 0))
    closed_port = port.getsockname()[1]
    port.close()
    with rowsocket.Pool(writers=[(HOST, closed_port)], min_backoff=60) as pool:
        with pytest.raises(rowsocket.IoError, match="cannot connect"):
            pool.insert(PLAIN, [1, "x"])
        with pytest.raises(rowsocket.IoError, match=r"is down \(1 failed connects\)"):
            pool.insert(PLAIN, [1, "x"])


# -- asyncio ---------------------------------------------------------------------------

def test_async_connection_runs_every_request_form(target, sql, items):
    async def main():
        conn = await rowsocket.aio.AsyncConnection.connect(HOST, target.port_wr,
                                                           secret=WRITE_SECRET)
        async with conn:
            assert await conn.find(ITEMS, ">", 36, limit=5) == sql_items(sql, "id > 36", limit=5)
            assert await conn.insert(PLAIN, [1, None]) is None
            assert await conn.update(PLAIN, "=", 1, [1, ""]) == 1
            assert await conn.increment(ITEMS, "=", 1, [0, 1]) == 1
            assert await conn.decrement(ITEMS, "=", 1, [0, 2]) == 1
            assert await conn.find_and_modify(ITEMS, "=", 1, Modify.update([1, 0])) == [
                ("1", "9", "n1")]
            assert await conn.delete(ITEMS, "<", 4, limit=10) == 3
            batch = rowsocket.Batch()
            batch.find(PLAIN, "=", 1)
            batch.find(ITEMS, "=", [1, 2])
            result = await conn.execute(batch)
            assert result[0] == [("1", "")] and result[1].word == "kpnum"
            with pytest.raises(rowsocket.ServerError, match="121"):
                await conn.insert(PLAIN, [1, "dup"])

    asyncio.run(main())
    assert sql.rows("SELECT k, v FROM test.py_plain") == [("1", "")]
    assert sql.value("SELECT COUNT(*) FROM test.py_items WHERE id < 4") == "0"


def test_async_pool_serves_concurrent_tasks(target, sql, items):
    async def task(pool, conn, t):
        for i in range(25):
            k = t * 100 + i
            await pool.insert(PLAIN, [k, f"a{t}"])
            assert (await pool.find(ITEMS, "=", i + 1))[0][0] == str(i + 1)
            assert (await conn.find(ITEMS, "=", 39 - i))[0][0] == str(39 - i)

    async def main():
        async with rowsocket.aio.AsyncPool(readers=[reader_endpoint(target)],
                                           writers=[writer_endpoint(target)]) as pool:
            shared = await rowsocket.aio.AsyncConnection.connect(HOST, target.port,
                                                                 secret=READ_SECRET)
            async with shared:  # one connection shared by every task: requests take turns
                await asyncio.gather(*(task(pool, shared, t) for t in range(10)))
            assert 0 < pool.idle_connections <= 16

    asyncio.run(main())
    assert sql.value("SELECT COUNT(*) FROM test.py_plain") == "250"


def test_async_connection_drop_raises_io_error_and_the_async_pool_recovers(target, read_relay,
                                                                           items):
    async def main():
        conn = await rowsocket.aio.AsyncConnection.connect(HOST, read_relay.port,
                                                           secret=READ_SECRET)
        async with rowsocket.aio.AsyncPool(readers=[(HOST, read_relay.port, READ_SECRET)]) as pool:
            assert await pool.find(ITEMS, "=", 5) == [("5", "50", "n5")]
            assert await conn.find(ITEMS, "=", 5) == [("5", "50", "n5")]
            read_relay.cut()
            with pytest.raises(rowsocket.IoError):
                await conn.find(ITEMS, "=", 5)
            assert not conn.connected
            assert await pool.find(ITEMS, "=", 6) == [("6", "60", "n6")]

    asyncio.run(main())


# -- the README's session and installation ---------------------------------------------

def test_the_readme_session_prints_what_the_readme_says(target, capsys):
    with open(os.path.join(CLIENT_DIR, "README.md")) as f:
        readme = f.read()
    code = re.search(r"```python\n(.*?)```", readme, re.S).group(1)
    printed = re.search(r"It prints:\n\n```\n(.*?)```", readme, re.S).group(1)
    for port, endpoint in ((9998, reader_endpoint(target)), (9999, writer_endpoint(target))):
        literal = f'("127.0.0.1", {port})'
        assert literal in code
        code = code.replace(literal, repr(tuple(endpoint)))
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out == printed

def test_the_client_type_checks_strictly(tmp_path):
    if shutil.which("mypy") is None:
        pytest.skip("mypy is not installed (Debian: mypy)")
    checked = subprocess.run(["mypy", "--strict", "--python-version", "3.8", "--cache-dir",
                              str(tmp_path / "cache"), os.path.join(CLIENT_DIR, "src")],
                             capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def _missing_packaging_tools():
    missing = []
    if subprocess.run([sys.executable, "-m", "pip", "--version"],
                      capture_output=True).returncode != 0:
        missing.append("pip (Debian: python3-pip)")
    for module, package in (("setuptools", "python3-setuptools"), ("wheel", "python3-wheel"),
                            ("venv", "python3-venv"), ("ensurepip", "python3-venv")):
        if importlib.util.find_spec(module) is None:
            missing.append(f"{module} (Debian: {package})")
    return missing


def test_pip_installs_the_client_offline_into_a_venv(tmp_path, target):
    missing = _missing_packaging_tools()
    if missing:
        pytest.skip("pip install needs " + ", ".join(missing))
    source = tmp_path / "src"  # a copy: building leaves build/ and *.egg-info behind
    shutil.copytree(CLIENT_DIR, source,
                    ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages",
                    str(venv)], check=True)
    python = str(venv / "bin" / "python")
    installed = subprocess.run(
        [python, "-m", "pip", "install", "--no-index", "--no-build-isolation", "--no-deps",
         "--disable-pip-version-check", "--quiet", str(source)],
        capture_output=True, text=True, cwd=tmp_path)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    script = ("import os, sys, rowsocket\n"
              "assert rowsocket.__file__.startswith(sys.prefix), rowsocket.__file__\n"
              "assert os.path.exists(os.path.join(os.path.dirname(rowsocket.__file__), "
              "'py.typed'))\n"
              "users = rowsocket.Index('test', 'user', 'PRIMARY', ['user_name'])\n"
              "with rowsocket.Connection('127.0.0.1', int(sys.argv[1]), secret=sys.argv[2]) as c:\n"
              "    print(c.find(users, '=', 101)[0][0])\n")
    ran = subprocess.run([python, "-c", script, str(target.port), READ_SECRET],
                         capture_output=True, text=True, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "Yukari Takeba\n"
