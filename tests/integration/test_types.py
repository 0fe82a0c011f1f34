"""Column types end to end: what HandlerSocket answers equals what SQL prints.

Each type has its own table test.ty_<name> (id INT PRIMARY KEY, c <type>). For every
sample value both directions are checked:
- written by SQL, read through HandlerSocket: the answer is the bytes SQL prints;
- written through HandlerSocket: stored exactly as SQL stores the same literal.
SQL results are read with character_set_results=binary: the column's own bytes, as
HandlerSocket sends them.
"""

import pytest

from db import Sql

ALL_BYTES = bytes(range(256))
CONTROL_AND_UNICODE = "".join(chr(i) for i in range(0, 128)) + "é日本😀"

TYPES = {
    "int": ("INT", ["0", "-1", "2147483647", "-2147483648"]),
    "int_unsigned": ("INT UNSIGNED", ["0", "4294967295"]),
    "tinyint": ("TINYINT", ["-128", "127"]),
    "bigint": ("BIGINT", ["-9223372036854775808", "9223372036854775807", "0"]),
    "bigint_unsigned": ("BIGINT UNSIGNED", ["18446744073709551615", "0"]),
    "decimal": ("DECIMAL(20,4)", ["12345.6789", "-0.0001", "0.0000",
                                  "99999999999999.9999", "7"]),
    "float": ("FLOAT", ["1.5", "-3.25", "0", "3.14"]),
    "double": ("DOUBLE", ["3.141592653589793", "-2.5e-300", "1e300", "0.1"]),
    "date": ("DATE", ["2010-02-03", "1000-01-01", "9999-12-31"]),
    "datetime": ("DATETIME", ["2010-02-03 11:22:33", "1000-01-01 00:00:00"]),
    "datetime6": ("DATETIME(6)", ["2010-02-03 11:22:33.123456"]),
    "timestamp": ("TIMESTAMP NULL", ["2010-02-03 11:22:33", "2038-01-19 03:14:07"]),
    "time": ("TIME", ["12:34:56", "-838:59:59"]),
    "year": ("YEAR", ["2010"]),
    "char_utf8mb4": ("CHAR(10) CHARACTER SET utf8mb4", ["abc", "日本語", ""]),
    "varchar_utf8mb4": ("VARCHAR(300) CHARACTER SET utf8mb4",
                        ["Ünïcödé 日本 😀", CONTROL_AND_UNICODE, ""]),
    "varchar_latin1": ("VARCHAR(300) CHARACTER SET latin1",
                       [b"caf\xe9", bytes(range(0x20, 0x80)) + b"\xe0\xff"]),
    "text_utf8mb4": ("TEXT CHARACTER SET utf8mb4", [CONTROL_AND_UNICODE]),
    "text_latin1": ("TEXT CHARACTER SET latin1", [ALL_BYTES]),
    "binary": ("BINARY(8)", [b"\x00\x01\tA\xff", b"\xff" * 8]),
    "varbinary": ("VARBINARY(300)", [ALL_BYTES, b"", b"\x00"]),
    "blob": ("BLOB", [ALL_BYTES, ALL_BYTES[::-1] * 4]),
    "enum": ("ENUM('a','b','c')", ["b", "c"]),
    "set": ("SET('x','y','z')", ["x,z", ""]),
}

CASES = [pytest.param(name, value, id=f"{name}-{i}")
         for name, (_, values) in TYPES.items() for i, value in enumerate(values)]


@pytest.fixture(scope="module")
def tables(sql):
    for name, (column_type, _) in TYPES.items():
        sql.create_table(f"ty_{name}", f"id INT PRIMARY KEY, c {column_type}")
    sql.create_table("binkey", "k VARBINARY(300) PRIMARY KEY, v INT")


@pytest.fixture(scope="module")
def stored(server):
    """SQL reading the column's bytes as stored, without charset conversion."""
    conn = Sql(server, raw_bytes=True)
    yield conn
    conn.close()


def sql_value(stored, name, row_id):
    value = stored.value(f"SELECT c FROM test.ty_{name} WHERE id = %s", (row_id,))
    # Character columns come back as bytes; numbers and dates as (ASCII) str.
    return value.encode("ascii") if isinstance(value, str) else value


@pytest.mark.parametrize("name,value", CASES)
def test_value_written_by_sql_reads_back_through_hs_as_sql_prints_it(
        reader, sql, stored, tables, name, value):
    sql.refill(f"ty_{name}", [(1, value)])
    reader.open_index(1, f"ty_{name}", ["c"])
    answer = reader.request_bytes([1, "=", 1, 1])
    assert answer == [b"0", b"1", sql_value(stored, name, 1)]


@pytest.mark.parametrize("name,value", CASES)
def test_value_written_by_hs_is_stored_as_sql_stores_it(
        writer, sql, stored, tables, name, value):
    sql.refill(f"ty_{name}", [(2, value)])
    writer.open_index(1, f"ty_{name}", ["id", "c"])
    assert writer.request([1, "+", 2, 1, value]) == ["0", "1"]
    assert sql_value(stored, name, 1) == sql_value(stored, name, 2)
    assert writer.request_bytes([1, "=", 1, 1]) == [
        b"0", b"2", b"1", sql_value(stored, name, 2)]


def test_utf8_sample_reads_back_as_its_utf8_bytes(reader, sql, tables):
    sql.refill("ty_varchar_utf8mb4", [(1, CONTROL_AND_UNICODE)])
    reader.open_index(1, "ty_varchar_utf8mb4", ["c"])
    assert reader.request_bytes([1, "=", 1, 1])[2] == CONTROL_AND_UNICODE.encode()


def test_all_256_byte_values_round_trip_through_hs_alone(writer, sql, tables):
    sql.refill("ty_blob", [])
    writer.open_index(1, "ty_blob", ["id", "c"])
    assert writer.request([1, "+", 2, 1, ALL_BYTES]) == ["0", "1"]
    assert writer.request_bytes([1, "=", 1, 1]) == [b"0", b"2", b"1", ALL_BYTES]


def test_key_with_all_256_byte_values_finds_its_row(reader, sql, tables):
    sql.refill("binkey", [(ALL_BYTES, 1), (b"\x00", 2), (b"", 3)])
    reader.open_index(1, "binkey", ["v"])
    assert reader.request([1, "=", 1, ALL_BYTES]) == ["0", "1", "1"]
    assert reader.request([1, "=", 1, b"\x00"]) == ["0", "1", "2"]
    assert reader.request([1, "=", 1, b""]) == ["0", "1", "3"]


# -- NULL and the empty string ---------------------------------------------------------

@pytest.mark.parametrize("name", ["varchar_utf8mb4", "varbinary", "blob"])
def test_NULL_and_empty_string_written_by_hs_stay_distinct(writer, sql, tables, name):
    sql.refill(f"ty_{name}", [])
    writer.open_index(1, f"ty_{name}", ["id", "c"])
    assert writer.raw(b"1\t+\t2\t1\t\x00\n") == b"0\t1\n"
    assert writer.raw(b"1\t+\t2\t2\t\n") == b"0\t1\n"
    assert sql.rows(f"SELECT id, c IS NULL, LENGTH(c) FROM test.ty_{name} ORDER BY id") \
        == [("1", "1", None), ("2", "0", "0")]
    assert writer.raw(b"1\t=\t1\t1\n") == b"0\t2\t1\t\x00\n"
    assert writer.raw(b"1\t=\t1\t2\n") == b"0\t2\t2\t\n"


@pytest.mark.parametrize("name", ["varchar_utf8mb4", "int", "date", "blob"])
def test_NULL_written_by_sql_reads_as_the_NULL_token(reader, sql, tables, name):
    sql.refill(f"ty_{name}", [(1, None)])
    reader.open_index(1, f"ty_{name}", ["id", "c"])
    assert reader.raw(b"1\t=\t1\t1\n") == b"0\t2\t1\t\x00\n"
    assert reader.request([1, "=", 1, 1]) == ["0", "2", "1", None]


def test_empty_string_written_by_sql_reads_as_an_empty_token(reader, sql, tables):
    sql.refill("ty_varchar_utf8mb4", [(1, "")])
    reader.open_index(1, "ty_varchar_utf8mb4", ["id", "c"])
    assert reader.raw(b"1\t=\t1\t1\n") == b"0\t2\t1\t\n"
