"""The memcached listener keeps each row as SQL would: a key that is not exactly a value
of the container's key column names no item (a miss; a write of it is refused), a
command changes only the columns it is about (append the last value column, prepend
the first, incr the one, touch the expiry), system-versioned tables keep history as
SQL's writes do, concurrent writers of distinct keys never see a deadlock, and a
batch of single-key writes takes its row locks in key order.
Each behaviour is cross-checked with what SQL does on the same table in strict mode.
"""

import base64
import struct
import threading
import time

import pymysql
import pytest

import harness
from memcached_support import Raw, binary_request, binary_response
import servers
from db import Sql
import targets

pytestmark = targets.rowsocket_only

MISS = b"END\r\n"
BAD_KEY = b"CLIENT_ERROR key is not a value of the key column\r\n"
STATUS_INVALID = 0x04
STATUS_NOT_FOUND = 0x01


@pytest.fixture(scope="module")
def memcached_port():
    return harness.free_ports(1)[0]


@pytest.fixture(scope="module")
def server(memcached_port):
    plugin = targets.make_plugin({"memcached_port": memcached_port, "memcached_threads": 4})
    # Statement-based binary logging: the listener's READ COMMITTED writes are logged
    # as rows whatever binlog_format says (InnoDB refuses statements for them).
    with servers.running_server([plugin], ["--sql-mode=STRICT_ALL_TABLES", "--log-bin=rows-bin",
                                           "--server-id=1", "--binlog-format=STATEMENT"]) as srv:
        yield srv


@pytest.fixture(scope="module")
def ready(sql, server):
    deadline = time.monotonic() + 20
    while sql.value("SELECT COUNT(*) FROM information_schema.TABLES WHERE "
                    "TABLE_SCHEMA = 'rowsocket' AND TABLE_NAME = 'containers'") != "1":
        assert time.monotonic() < deadline, "rowsocket.containers was not made"
        time.sleep(0.1)


@pytest.fixture
def raw(memcached_port, ready):
    r = Raw(memcached_port)
    yield r
    r.close()


def text(raw, line, value=None):
    """Sends one text command (with its data block) and reads its whole answer."""
    raw.send(line + b"\r\n" + (value + b"\r\n" if value is not None else b""))
    first = raw.read_until(b"\r\n")
    if first.startswith(b"VALUE"):
        return first + raw.read_until(b"END\r\n")
    if first.startswith(b"VA "):
        return first + raw.read_until(b"\r\n")
    return first


def binary(port, opcode, key, value=b"", extras=b"", cas=0):
    """One binary command on a connection of its own (the first byte of a connection
    chooses its protocol)."""
    r = Raw(port)
    try:
        r.send(binary_request(opcode, key, value, extras, cas))
        return binary_response(r)
    finally:
        r.close()


def make_container(sql, memcached_port, name, table, body, rows, key="k", values="v",
                   separator="|", flags=None, cas=None, expires=None, options=""):
    """test.<table> with `rows`, mapped as container `name`, once the listener sees it."""
    sql.execute(f"DROP TABLE IF EXISTS test.{table}")
    sql.execute(f"CREATE TABLE test.{table} ({body}) ENGINE=InnoDB {options}")
    sql.insert(table, rows)
    sql.execute("REPLACE INTO rowsocket.containers (name, db_schema, db_table, key_column, "
                "value_columns, value_separator, flags_column, cas_column, expires_column) "
                "VALUES (%s, 'test', %s, %s, %s, %s, %s, %s, %s)",
                (name, table, key, values, separator, flags, cas, expires))
    # The workers read a mapping again a second after they last read it.
    probe = Raw(memcached_port)
    deadline = time.monotonic() + 10
    while True:
        answer = text(probe, b"get @@" + name.encode() + b".probe")
        if not answer.startswith(b"CLIENT_ERROR no container"):
            break
        assert time.monotonic() < deadline, answer
        time.sleep(0.05)
    probe.close()


def sql_refuses(sql, statement, args=None):
    try:
        sql.execute(statement, args)
    except pymysql.MySQLError:
        return True
    return False


# --- item 5: keys of an integer column ---------------------------------------------

@pytest.fixture
def ints(sql, memcached_port, ready):
    make_container(sql, memcached_port, "ints", "mc_ints",
                   "k INT PRIMARY KEY, v VARCHAR(20) NOT NULL",
                   [(0, "zero"), (1, "one"), (2, "two")])
    return "@@ints."


NOT_INTEGERS = [b"x", b"1abc", b"1.4", b"01", b"1e0", b"-0", b"+1", b"0x1", b"1 ", b""]


def test_an_integer_key_that_is_not_exactly_a_value_is_a_miss(raw, sql, memcached_port, ints):
    assert text(raw, b"get @@ints.1") == b"VALUE @@ints.1 0 3\r\none\r\nEND\r\n"
    for key in NOT_INTEGERS:
        if b" " in key or not key:
            continue  # not a text key
        assert text(raw, b"get @@ints." + key) == MISS, key
        assert text(raw, b"mg @@ints." + key + b" v") == b"EN\r\n", key
    # A multi-get answers the exact keys only, each with its own value.
    assert text(raw, b"get @@ints.1 @@ints.01 @@ints.x @@ints.2 @@ints.1.0") == (
        b"VALUE @@ints.1 0 3\r\none\r\nVALUE @@ints.2 0 3\r\ntwo\r\nEND\r\n")
    # Binary and base64 meta keys may carry any byte: a space or an empty row key.
    for key in NOT_INTEGERS:
        assert binary(memcached_port, 0x00, b"@@ints." + key)["status"] == STATUS_NOT_FOUND, key
        if key:
            b64 = base64.b64encode(b"@@ints." + key)
            assert text(raw, b"mg " + b64 + b" b v") == b"EN\r\n", key
    # SQL in strict mode stores none of them as a key either.
    for key in NOT_INTEGERS:
        if key not in (b"01", b"-0", b"+1", b" 1", b"1 "):
            assert sql_refuses(sql, "INSERT INTO test.mc_ints VALUES (%s, 'w')", key), key


def test_a_write_of_an_inexact_integer_key_is_refused_and_changes_nothing(raw, sql,
                                                                          memcached_port, ints):
    before = sql.rows("SELECT k, v FROM test.mc_ints ORDER BY k")
    for key in [b"2zz", b"1e0", b"01", b"x", b"1.4"]:
        k = b"@@ints." + key
        for line, value in [(b"set " + k + b" 0 0 1", b"w"), (b"add " + k + b" 0 0 1", b"w"),
                            (b"replace " + k + b" 0 0 1", b"w"),
                            (b"append " + k + b" 0 0 1", b"w"),
                            (b"prepend " + k + b" 0 0 1", b"w"),
                            (b"cas " + k + b" 0 0 1 1", b"w"), (b"incr " + k + b" 1", None),
                            (b"decr " + k + b" 1", None), (b"touch " + k + b" 10", None),
                            (b"delete " + k, None), (b"ms " + k + b" 1", b"w"),
                            (b"md " + k, None), (b"ma " + k, None)]:
            assert text(raw, line, value) == BAD_KEY, line
        # gat touches nothing it does not find.
        assert text(raw, b"gat 10 " + k) == MISS
        # The data block of a refused storage command was consumed: the stream is
        # in step, and a noreply write is refused silently.
        raw.send(b"set " + k + b" 0 0 1 noreply\r\nw\r\n")
        assert text(raw, b"get @@ints.2") == b"VALUE @@ints.2 0 3\r\ntwo\r\nEND\r\n"
        for opcode in (0x01, 0x02, 0x03, 0x0e, 0x0f):  # set add replace append prepend
            extras = struct.pack(">II", 0, 0) if opcode <= 0x03 else b""
            answer = binary(memcached_port, opcode, k, b"w", extras)
            assert answer["status"] == STATUS_INVALID, (key, opcode)
        assert binary(memcached_port, 0x04, k)["status"] == STATUS_INVALID  # delete
        assert binary(memcached_port, 0x05, k, extras=struct.pack(">QQI", 1, 0, 0))["status"] == \
            STATUS_INVALID  # increment
        assert binary(memcached_port, 0x1c, k, extras=struct.pack(">I", 10))["status"] == \
            STATUS_INVALID  # touch
    assert sql.rows("SELECT k, v FROM test.mc_ints ORDER BY k") == before
    # The exact keys still work.
    assert text(raw, b"set @@ints.2 0 0 3", b"TWO") == b"STORED\r\n"
    assert text(raw, b"set @@ints.-5 0 0 5", b"minus") == b"STORED\r\n"
    assert text(raw, b"delete @@ints.1") == b"DELETED\r\n"
    assert sql.rows("SELECT k, v FROM test.mc_ints ORDER BY k") == \
        [("-5", "minus"), ("0", "zero"), ("2", "TWO")]


def test_bigint_unsigned_keys_outside_its_range_are_misses_and_refused(raw, sql, memcached_port,
                                                                        ready):
    make_container(sql, memcached_port, "big", "mc_big",
                   "k BIGINT UNSIGNED PRIMARY KEY, v VARCHAR(20) NOT NULL",
                   [(0, "zero"), (18446744073709551615, "max")])
    top = b"18446744073709551615"
    assert text(raw, b"get @@big." + top) == \
        b"VALUE @@big." + top + b" 0 3\r\nmax\r\nEND\r\n"
    for key in [b"-1", b"18446744073709551616", b"99999999999999999999999", b"-0"]:
        assert text(raw, b"get @@big." + key) == MISS, key
        assert text(raw, b"set @@big." + key + b" 0 0 1", b"w") == BAD_KEY, key
        assert sql_refuses(sql, "INSERT INTO test.mc_big VALUES (%s, 'w')",
                           key.decode()) or key == b"-0", key
    assert sql.rows("SELECT k, v FROM test.mc_big ORDER BY k") == \
        [("0", "zero"), ("18446744073709551615", "max")]
    assert text(raw, b"set @@big.18446744073709551614 0 0 1", b"w") == b"STORED\r\n"


INTEGER_COLUMNS = [  # type, (min, max), rows stored
    ("TINYINT", (-2**7, 2**7 - 1), [-2**7, 0, 2**7 - 1]),
    ("TINYINT UNSIGNED", (0, 2**8 - 1), [0, 2**8 - 1]),
    ("SMALLINT", (-2**15, 2**15 - 1), [-2**15, 7, 2**15 - 1]),
    ("MEDIUMINT UNSIGNED", (0, 2**24 - 1), [0, 2**24 - 1]),
    ("INT", (-2**31, 2**31 - 1), [-2**31, 2**31 - 1]),
    ("BIGINT", (-2**63, 2**63 - 1), [-2**63, -1, 2**63 - 1]),
    ("INT(5) UNSIGNED ZEROFILL", (0, 2**32 - 1), [1, 12345, 2**32 - 1]),
]


def integer_column_text(column, n):
    """The text SQL gives the value n of the column (CAST(k AS CHAR))."""
    return str(n).zfill(5) if "ZEROFILL" in column else str(n)


@pytest.mark.parametrize("column, bounds, stored", INTEGER_COLUMNS,
                         ids=[c for c, _, _ in INTEGER_COLUMNS])
def test_integer_keys_are_the_columns_text_of_its_values(raw, sql, memcached_port, ready,
                                                         column, bounds, stored):
    """Of every integer type, at its bounds and just past them: a key names a row when
    it is the column's own text of a value in its range, as SQL's CAST(k AS CHAR)
    writes it; a write of any other key is refused."""
    name = "int_" + column.split("(")[0].split()[0].lower() + ("_u" if "UNSIGNED" in column else "")
    make_container(sql, memcached_port, name, "mc_" + name,
                   f"k {column} NOT NULL PRIMARY KEY, v VARCHAR(30) NOT NULL",
                   [(n, f"v{n}") for n in stored])
    texts = {t: v for t, v in sql.rows(f"SELECT CAST(k AS CHAR), v FROM test.mc_{name}")}
    assert sorted(texts) == sorted(integer_column_text(column, n) for n in stored)
    low, high = bounds
    numbers = {low - 1, low, low + 1, high - 1, high, high + 1, 0, 1, -1, 2, *stored}
    candidates = {integer_column_text(column, n) for n in numbers} | {str(n) for n in numbers}
    candidates |= {"-0", "+1", "01", "00001", "000001", "1.0", "1e0", "1x"}
    prefix = b"@@" + name.encode() + b"."
    for key in sorted(candidates):
        k = prefix + key.encode()
        if key in texts:
            value = texts[key].encode()
            assert text(raw, b"get " + k) == \
                b"VALUE " + k + b" 0 %d\r\n" % len(value) + value + b"\r\nEND\r\n", key
            continue
        assert text(raw, b"get " + k) == MISS, key
        in_range = any(integer_column_text(column, n) == key for n in numbers
                       if low <= n <= high)
        if not in_range:
            assert text(raw, b"add " + k + b" 0 0 1", b"w") == BAD_KEY, key
            continue
        assert text(raw, b"add " + k + b" 0 0 1", b"w") == b"STORED\r\n", key
        assert sql.rows(f"SELECT v FROM test.mc_{name} WHERE CAST(k AS CHAR) = %s",
                        (key,)) == [("w",)], key
        assert text(raw, b"delete " + k) == b"DELETED\r\n", key
    # One multi-get of them all answers the stored keys only, in the request's order.
    keys = sorted(candidates)
    answer = text(raw, b"get " + b" ".join(prefix + key.encode() for key in keys))
    assert answer == b"".join(
        b"VALUE " + prefix + key.encode() + b" 0 %d\r\n" % len(texts[key]) +
        texts[key].encode() + b"\r\n" for key in keys if key in texts) + MISS
    assert sql.rows(f"SELECT CAST(k AS CHAR) FROM test.mc_{name} ORDER BY k") == \
        [(integer_column_text(column, n),) for n in sorted(stored)]


# --- item 6: keys longer than a character column holds -----------------------------

@pytest.mark.parametrize("column", ["CHAR(10)", "VARCHAR(10)", "VARBINARY(10)"])
def test_a_key_longer_than_the_column_is_a_miss_and_its_write_is_refused(raw, sql,
                                                                        memcached_port, ready,
                                                                        column):
    name = "short_" + column.split("(")[0].lower()
    table = "test.mc_" + name
    make_container(sql, memcached_port, name, "mc_" + name,
                   f"k {column} NOT NULL PRIMARY KEY, v VARCHAR(20) NOT NULL",
                   [("abcdefghij", "ten")])
    prefix = b"@@" + name.encode() + b"."
    long_key = prefix + b"abcdefghijXYZ"

    def rows():
        return [(k.decode() if isinstance(k, bytes) else k, v)
                for k, v in sql.rows(f"SELECT k, v FROM {table}")]

    assert text(raw, b"get " + long_key) == MISS
    assert text(raw, b"set " + long_key + b" 0 0 3", b"new") == BAD_KEY
    assert text(raw, b"delete " + long_key) == BAD_KEY
    assert binary(memcached_port, 0x01, long_key, b"new",
                  struct.pack(">II", 0, 0))["status"] == STATUS_INVALID
    assert rows() == [("abcdefghij", "ten")]
    # SQL's UPDATE with that key matches nothing; its INSERT is refused.
    assert sql.execute(f"UPDATE {table} SET v = 'new' WHERE k = 'abcdefghijXYZ'") == 0
    assert sql_refuses(sql, f"INSERT INTO {table} VALUES ('abcdefghijXYZ', 'n')")
    assert text(raw, b"set " + prefix + b"abcdefghij 0 0 3", b"TEN") == b"STORED\r\n"
    assert rows() == [("abcdefghij", "TEN")]
    # Trailing spaces (binary keys may have them) count where SQL's comparison
    # counts them: not under a PAD SPACE collation (CHAR, VARCHAR), in VARBINARY.
    spaced = "abcdefghij   "
    sql_matches = sql.value(f"SELECT COUNT(*) FROM {table} WHERE k = %s", spaced) == "1"
    assert sql_matches == (column != "VARBINARY(10)")
    hit = binary(memcached_port, 0x00, prefix + spaced.encode())
    assert hit["status"] == (0 if sql_matches else STATUS_NOT_FOUND)
    assert hit["value"] == (b"TEN" if sql_matches else b"Not found")
    replaced = binary(memcached_port, 0x03, prefix + spaced.encode(), b"Ten",
                      struct.pack(">II", 0, 0))
    assert replaced["status"] == (0 if sql_matches else STATUS_INVALID)
    assert rows() == [("abcdefghij", "Ten" if sql_matches else "TEN")]


def test_a_key_counts_characters_of_its_column_and_must_be_valid_in_its_charset(
        raw, sql, memcached_port, ready):
    make_container(sql, memcached_port, "chars", "mc_chars",
                   "k VARCHAR(4) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PRIMARY KEY, "
                   "v VARCHAR(20) NOT NULL", [])
    four = "éléa".encode()  # 4 characters, 6 bytes
    assert text(raw, b"set @@chars." + four + b" 0 0 1", b"a") == b"STORED\r\n"
    assert text(raw, b"get @@chars." + four) == \
        b"VALUE @@chars." + four + b" 0 1\r\na\r\nEND\r\n"
    assert text(raw, b"set @@chars." + four + "é".encode() + b" 0 0 1", b"b") == BAD_KEY
    assert text(raw, b"set @@chars.\xff\xfe 0 0 1", b"c") == BAD_KEY
    assert text(raw, b"get @@chars.\xff\xfe") == MISS
    assert sql_refuses(sql, "INSERT INTO test.mc_chars VALUES (_binary 0xfffe, 'c')")
    assert sql.value("SELECT COUNT(*) FROM test.mc_chars") == "1"


def test_a_case_insensitive_key_column_matches_what_sqls_where_matches(raw, sql,
                                                                      memcached_port, ready):
    make_container(sql, memcached_port, "ci", "mc_ci",
                   "k VARCHAR(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci "
                   "PRIMARY KEY, v VARCHAR(20) NOT NULL", [("Abc", "first")])
    assert sql.rows("SELECT v FROM test.mc_ci WHERE k = 'ABC'") == [("first",)]
    assert text(raw, b"get @@ci.ABC") == b"VALUE @@ci.ABC 0 5\r\nfirst\r\nEND\r\n"
    assert text(raw, b"set @@ci.aBC 0 0 6", b"second") == b"STORED\r\n"
    # One row, as SQL's UPDATE ... WHERE k = 'aBC' changes the row 'Abc'.
    assert sql.rows("SELECT k, v FROM test.mc_ci") == [("Abc", "second")]
    assert text(raw, b"add @@ci.ABC 0 0 1", b"x") == b"NOT_STORED\r\n"
    assert text(raw, b"delete @@ci.abc") == b"DELETED\r\n"
    assert sql.value("SELECT COUNT(*) FROM test.mc_ci") == "0"


# --- items 7 and 8: a command changes only the columns it is about -----------------

@pytest.fixture
def pairs(sql, memcached_port, ready):
    """Two NULLable value columns, NULLable flags, no CAS column (a derived CAS)."""
    make_container(sql, memcached_port, "pairs", "mc_pairs",
                   "k VARCHAR(20) PRIMARY KEY, a VARCHAR(20) NULL, b VARCHAR(20) NULL, "
                   "f INT UNSIGNED NULL, e INT UNSIGNED NULL",
                   [("sep", "x|y", "z", None, None), ("nulla", None, "q", 7, 0),
                    ("nullb", "x", None, None, None), ("num", "5", None, None, None)],
                   values="a,b", flags="f", expires="e")


def row(sql, table, key, columns="a, b, f, e"):
    return sql.rows(f"SELECT {columns} FROM test.{table} WHERE k = %s", key)[0]


def test_append_changes_only_the_last_value_column(raw, sql, memcached_port, pairs):
    assert text(raw, b"append @@pairs.sep 0 0 1", b"W") == b"STORED\r\n"
    assert row(sql, "mc_pairs", "sep") == ("x|y", "zW", None, None)
    assert text(raw, b"get @@pairs.sep") == b"VALUE @@pairs.sep 0 6\r\nx|y|zW\r\nEND\r\n"
    assert text(raw, b"append @@pairs.nulla 0 0 1", b"W") == b"STORED\r\n"
    assert row(sql, "mc_pairs", "nulla") == (None, "qW", "7", "0")
    # A NULL last column reads as empty in the item's value; append fills it.
    assert text(raw, b"append @@pairs.nullb 0 0 1", b"W") == b"STORED\r\n"
    assert row(sql, "mc_pairs", "nullb") == ("x", "W", None, None)
    assert text(raw, b"ms @@pairs.sep 2 MA", b"AA") == b"HD\r\n"
    assert row(sql, "mc_pairs", "sep") == ("x|y", "zWAA", None, None)
    assert binary(memcached_port, 0x0e, b"@@pairs.sep", b"B")["status"] == 0
    assert row(sql, "mc_pairs", "sep") == ("x|y", "zWAAB", None, None)
    # What SQL's UPDATE of that one column gives.
    sql.execute("UPDATE test.mc_pairs SET b = CONCAT(b, 'C') WHERE k = 'sep'")
    assert row(sql, "mc_pairs", "sep") == ("x|y", "zWAABC", None, None)


def test_prepend_changes_only_the_first_value_column(raw, sql, memcached_port, pairs):
    assert text(raw, b"prepend @@pairs.sep 0 0 1", b"P") == b"STORED\r\n"
    assert row(sql, "mc_pairs", "sep") == ("Px|y", "z", None, None)
    assert text(raw, b"prepend @@pairs.nulla 0 0 1", b"P") == b"STORED\r\n"
    assert row(sql, "mc_pairs", "nulla") == ("P", "q", "7", "0")
    assert text(raw, b"prepend @@pairs.nullb 0 0 1", b"P") == b"STORED\r\n"
    assert row(sql, "mc_pairs", "nullb") == ("Px", None, None, None)
    assert binary(memcached_port, 0x0f, b"@@pairs.sep", b"Q")["status"] == 0
    assert row(sql, "mc_pairs", "sep") == ("QPx|y", "z", None, None)


def test_incr_of_several_value_columns_is_not_a_number_and_changes_nothing(raw, sql, pairs):
    assert text(raw, b"incr @@pairs.num 1").startswith(b"CLIENT_ERROR cannot increment")
    assert row(sql, "mc_pairs", "num") == ("5", None, None, None)


def test_incr_changes_only_its_value_column(raw, sql, memcached_port, ready):
    make_container(sql, memcached_port, "count", "mc_count",
                   "k VARCHAR(20) PRIMARY KEY, n VARCHAR(20) NULL, f INT UNSIGNED NULL, "
                   "e INT UNSIGNED NULL, c BIGINT UNSIGNED NULL",
                   [("n", "41", None, None, None)], values="n", flags="f", expires="e", cas="c")
    assert text(raw, b"incr @@count.n 1") == b"42\r\n"
    assert row(sql, "mc_count", "n", "n, f, e") == ("42", None, None)
    assert text(raw, b"decr @@count.n 2") == b"40\r\n"
    assert text(raw, b"ma @@count.n v") == b"VA 2\r\n41\r\n"
    assert row(sql, "mc_count", "n", "n, f, e") == ("41", None, None)
    assert sql.value("SELECT c FROM test.mc_count WHERE k = 'n'") != "0"


def test_touch_changes_only_the_expiry_column_and_keeps_the_cas(raw, sql, memcached_port, pairs):
    cas_before = text(raw, b"gets @@pairs.sep").split(b"\r\n")[0].split()[-1]
    assert text(raw, b"touch @@pairs.sep 1000") == b"TOUCHED\r\n"
    a, b, f, e = row(sql, "mc_pairs", "sep")
    assert (a, b, f) == ("x|y", "z", None) and int(e) > time.time()
    # memcached's touch keeps the item's CAS: a cas after it succeeds.
    assert text(raw, b"gets @@pairs.sep").split(b"\r\n")[0].split()[-1] == cas_before
    assert text(raw, b"gat 2000 @@pairs.nulla") == b"VALUE @@pairs.nulla 7 2\r\n|q\r\nEND\r\n"
    assert row(sql, "mc_pairs", "nulla")[:3] == (None, "q", "7")
    assert text(raw, b"gats 3000 @@pairs.nullb").startswith(b"VALUE @@pairs.nullb 0 2 ")
    assert row(sql, "mc_pairs", "nullb")[:3] == ("x", None, None)
    assert text(raw, b"mg @@pairs.sep T4000 v") == b"VA 5\r\nx|y|z\r\n"
    touch, gat = 0x1c, 0x1d
    assert binary(memcached_port, touch, b"@@pairs.nulla",
                  extras=struct.pack(">I", 5000))["status"] == 0
    assert binary(memcached_port, gat, b"@@pairs.nullb",
                  extras=struct.pack(">I", 6000))["status"] == 0
    assert row(sql, "mc_pairs", "sep")[:3] == ("x|y", "z", None)
    assert row(sql, "mc_pairs", "nulla")[:3] == (None, "q", "7")
    assert row(sql, "mc_pairs", "nullb")[:3] == ("x", None, None)
    assert text(raw, b"cas @@pairs.sep 0 0 3 " + cas_before, b"a|b") == b"STORED\r\n"


def test_touch_of_the_default_container_keeps_the_stored_cas(raw, sql, ready):
    assert text(raw, b"set touched 5 0 1", b"v") == b"STORED\r\n"
    cas = sql.value("SELECT cas FROM rowsocket.kv WHERE k = 'touched'")
    assert text(raw, b"touch touched 100") == b"TOUCHED\r\n"
    assert text(raw, b"gat 200 touched") == b"VALUE touched 5 1\r\nv\r\nEND\r\n"
    assert sql.rows("SELECT v, cas, flags FROM rowsocket.kv WHERE k = 'touched'") == \
        [(b"v", cas, "5")]


def test_a_write_of_a_generated_column_is_refused_and_the_others_still_work(raw, sql,
                                                                          memcached_port, ready):
    # The flags column is computed by SQL: a set (which writes it) is refused as SQL's
    # INSERT of it is, and changes nothing; a touch writes only the expiry and works.
    make_container(sql, memcached_port, "computed", "mc_computed",
                   "k VARCHAR(20) PRIMARY KEY, v VARCHAR(20) NOT NULL, "
                   "f INT UNSIGNED AS (LENGTH(v)) VIRTUAL, e INT UNSIGNED NOT NULL DEFAULT 0",
                   [], flags="f", expires="e")
    sql.execute("INSERT INTO test.mc_computed (k, v) VALUES ('a', 'four')")
    assert sql_refuses(sql, "INSERT INTO test.mc_computed (k, v, f) VALUES ('z', 'x', 1)")
    answer = text(raw, b"set @@computed.a 0 0 3", b"new")
    assert answer.startswith(b"SERVER_ERROR") and b"1906" in answer, answer
    assert text(raw, b"add @@computed.b 0 0 3", b"new").startswith(b"SERVER_ERROR")
    assert sql.rows("SELECT k, v FROM test.mc_computed") == [("a", "four")]
    assert text(raw, b"touch @@computed.a 1000") == b"TOUCHED\r\n"
    assert int(sql.value("SELECT e FROM test.mc_computed WHERE k = 'a'")) > time.time()
    assert text(raw, b"get @@computed.a") == b"VALUE @@computed.a 4 4\r\nfour\r\nEND\r\n"


def test_writes_to_a_table_with_triggers_are_refused_once_the_trigger_exists(raw, sql,
                                                                           memcached_port, ready):
    # SQL would run the trigger and the listener cannot: it changes nothing. The
    # refusal follows the table's definition (a trigger made after the container was
    # first used counts; one dropped no longer does).
    make_container(sql, memcached_port, "trig", "mc_trig",
                   "k VARCHAR(20) PRIMARY KEY, v VARCHAR(20) NOT NULL", [("a", "one")])
    assert text(raw, b"set @@trig.a 0 0 3", b"two") == b"STORED\r\n"
    sql.execute("CREATE TRIGGER test.mc_trig_bu BEFORE UPDATE ON test.mc_trig "
                "FOR EACH ROW SET NEW.v = UPPER(NEW.v)")
    try:
        answer = text(raw, b"set @@trig.a 0 0 5", b"three")
        assert answer.startswith(b"SERVER_ERROR") and b"triggers" in answer, answer
        assert text(raw, b"delete @@trig.a").startswith(b"SERVER_ERROR")
        assert text(raw, b"set @@trig.b 0 0 1", b"b").startswith(b"SERVER_ERROR")
        assert sql.rows("SELECT k, v FROM test.mc_trig") == [("a", "two")]
        assert text(raw, b"get @@trig.a") == b"VALUE @@trig.a 0 3\r\ntwo\r\nEND\r\n"
    finally:
        sql.execute("DROP TRIGGER test.mc_trig_bu")
    assert text(raw, b"set @@trig.a 0 0 4", b"four") == b"STORED\r\n"
    assert sql.rows("SELECT k, v FROM test.mc_trig") == [("a", "four")]


# --- item 16: system-versioned tables, and deadlocks of rowsocket's own batches -------

def test_a_container_on_a_system_versioned_table_works_and_keeps_history(raw, sql,
                                                                        memcached_port, ready):
    make_container(sql, memcached_port, "versioned", "mc_versioned",
                   "k VARCHAR(20) PRIMARY KEY, v VARCHAR(20) NOT NULL", [("a", "first")],
                   options="WITH SYSTEM VERSIONING")
    assert text(raw, b"get @@versioned.a") == \
        b"VALUE @@versioned.a 0 5\r\nfirst\r\nEND\r\n"
    assert text(raw, b"set @@versioned.a 0 0 6", b"second") == b"STORED\r\n"
    assert text(raw, b"set @@versioned.b 0 0 1", b"B") == b"STORED\r\n"
    assert text(raw, b"add @@versioned.b 0 0 1", b"C") == b"NOT_STORED\r\n"
    assert text(raw, b"append @@versioned.a 0 0 1", b"!") == b"STORED\r\n"
    assert text(raw, b"get @@versioned.a @@versioned.b") == (
        b"VALUE @@versioned.a 0 7\r\nsecond!\r\nVALUE @@versioned.b 0 1\r\nB\r\nEND\r\n")
    assert text(raw, b"delete @@versioned.b") == b"DELETED\r\n"
    assert text(raw, b"get @@versioned.b") == MISS
    assert text(raw, b"add @@versioned.b 0 0 1", b"D") == b"STORED\r\n"
    assert sql.rows("SELECT k, v FROM test.mc_versioned ORDER BY k") == \
        [("a", "second!"), ("b", "D")]
    # Every version, as SQL's UPDATE and DELETE would have kept them.
    assert sql.rows("SELECT k, v FROM test.mc_versioned FOR SYSTEM_TIME ALL "
                    "ORDER BY k, ROW_START") == \
        [("a", "first"), ("a", "second"), ("a", "second!"), ("b", "B"), ("b", "D")]


def test_concurrent_pipelined_sets_of_distinct_new_keys_never_deadlock(memcached_port, sql,
                                                                        ready):
    """Several connections, each pipelining many sets of new keys that interleave with
    the others' in key order (so their transactions meet in the same index gaps)."""
    sql.execute("DELETE FROM rowsocket.kv WHERE k LIKE 'dl:%'")
    rollbacks = int(sql.rows("SHOW GLOBAL STATUS LIKE 'Rowsocket_rollbacks'")[0][1])
    writers, rounds, per_round = 6, 30, 40
    answers = [[] for _ in range(writers)]
    failures = []

    def write(w):
        try:
            r = Raw(memcached_port)
            for n in range(rounds):
                batch = b"".join(
                    b"set dl:%06d:%d 0 0 1\r\nv\r\n" % (n * per_round + i, w)
                    for i in range(per_round))
                r.send(batch)
                for _ in range(per_round):
                    answers[w].append(r.read_until(b"\r\n"))
            r.close()
        except Exception as e:  # noqa: BLE001 - reported below
            failures.append(repr(e))

    threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
    wrong = [a for per in answers for a in per if a != b"STORED\r\n"]
    assert wrong == [], wrong[:5]
    assert sql.value("SELECT COUNT(*) FROM rowsocket.kv WHERE k LIKE 'dl:%'") == \
        str(writers * rounds * per_round)
    # Not even a deadlock that a retry hid: the batches never locked each other's gaps.
    assert int(sql.rows("SHOW GLOBAL STATUS LIKE 'Rowsocket_rollbacks'")[0][1]) == rollbacks


# -- lock order ------------------------------------------------------------------------
#
# A write group whose commands each touch one key runs in key order (answers still in
# request order), as HandlerSocket's single-row writes do, so that two workers never
# take the same rows' locks in opposite orders. The order shows only in the CAS
# values, which each write takes from one counter as it runs.

def global_status(sql, name):
    return int(sql.rows("SHOW GLOBAL STATUS LIKE %s", (name,))[0][1])


def cas_of(raw, key):
    line = text(raw, b"gets " + key)
    assert line.startswith(b"VALUE "), line
    return int(line.split(b"\r\n")[0].split()[4])


def test_a_batch_of_single_key_sets_runs_in_key_order(raw, sql):
    """`set lo:b` then `set lo:a` sent at once: where both ran in one batch (counted
    by Rowsocket_batches), `lo:a` ran first and has the smaller CAS; both answered
    STORED, in request order."""
    in_one_batch = 0
    for n in range(20):
        a, b = b"lo:%d:a" % n, b"lo:%d:b" % n
        before = global_status(sql, "Rowsocket_batches")
        raw.send(b"set " + b + b" 0 0 1\r\nB\r\nset " + a + b" 0 0 1\r\nA\r\n")
        assert raw.read_until(b"\r\n") == b"STORED\r\n"
        assert raw.read_until(b"\r\n") == b"STORED\r\n"
        if global_status(sql, "Rowsocket_batches") - before != 1:
            continue  # the two arrived in two turns: nothing to compare
        in_one_batch += 1
        assert cas_of(raw, a) < cas_of(raw, b), n
    assert in_one_batch > 0, "no attempt ran both sets in one batch"
    sql.execute("DELETE FROM rowsocket.kv WHERE k LIKE 'lo:%'")


def test_pipelines_on_two_keys_in_opposite_orders_all_land(memcached_port, sql, ready):
    """Two connections (on different workers, or the same one) pipeline writes of the
    same two keys in opposite orders, many times: every write answers as memcached's
    would, none is lost (each incr counts), and no group was rolled back by a
    deadlock."""
    for key in (b"lo:x", b"lo:y"):
        sql.execute("REPLACE INTO rowsocket.kv (k, v, cas, flags, expires) "
                    "VALUES (%s, '0', 1, 0, 0)", (key,))
    rollbacks = global_status(sql, "Rowsocket_rollbacks")
    deadlocks = global_status(sql, "Rowsocket_deadlocks")
    rounds, per_round = 40, 10
    failures, wrong = [], []

    def hammer(keys):
        try:
            r = Raw(memcached_port)
            for _ in range(rounds):
                r.send(b"".join(b"incr %s 1\r\n" % keys[i % 2] for i in range(per_round)))
                for _ in range(per_round):
                    answer = r.read_until(b"\r\n")
                    if not answer.rstrip().isdigit():
                        wrong.append(answer)
            r.close()
        except Exception as e:  # noqa: BLE001 - reported below
            failures.append(repr(e))

    threads = [threading.Thread(target=hammer, args=(keys,))
               for keys in ((b"lo:x", b"lo:y"), (b"lo:y", b"lo:x"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
    assert wrong == [], wrong[:5]
    each = rounds * per_round  # two connections, half of each's incrs on each key
    assert sql.rows("SELECT k, v FROM rowsocket.kv WHERE k IN ('lo:x', 'lo:y') ORDER BY k") == \
        [(b"lo:x", b"%d" % each), (b"lo:y", b"%d" % each)]
    assert global_status(sql, "Rowsocket_rollbacks") == rollbacks
    assert global_status(sql, "Rowsocket_deadlocks") == deadlocks
    sql.execute("DELETE FROM rowsocket.kv WHERE k LIKE 'lo:%'")


def test_a_container_the_engine_cannot_use_is_answered_in_memcacheds_words(raw, sql,
                                                                           memcached_port, ready):
    # What went wrong is said as memcached says its errors, never in HandlerSocket's
    # `<class> <word>`: a key column without a unique index of its own, a table gone.
    make_container(sql, memcached_port, "nokey", "mc_nokey",
                   "id INT PRIMARY KEY, k VARCHAR(20), v VARCHAR(20)", [], key="k")
    assert text(raw, b"get @@nokey.a") == \
        b"SERVER_ERROR the key column has no unique index of its own\r\n"
    make_container(sql, memcached_port, "gone", "mc_gone",
                   "k VARCHAR(20) PRIMARY KEY, v VARCHAR(20)", [])
    sql.execute("DROP TABLE test.mc_gone")
    deadline = time.monotonic() + 10
    while (answer := text(raw, b"set @@gone.a 0 0 1", b"x")) == b"STORED\r\n":
        assert time.monotonic() < deadline, answer
        time.sleep(0.05)
    assert answer == b"SERVER_ERROR the table cannot be opened\r\n"
    r = binary(memcached_port, 0x01, b"@@gone.a", b"x", struct.pack(">II", 0, 0))
    assert r["status"] == 0x82, r    # memcached's "temporary failure"
