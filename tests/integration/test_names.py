"""Database and table names a table could never have answer `1 1 open_table` and the
connection goes on: empty, longer than the server allows, or holding a NUL byte."""

import pytest

GOOD = b"0\t=\t1\t101\n"


@pytest.mark.parametrize("db,table", [
    (b"test", b""), (b"", b"user"), (b"test", b"u" * 300), (b"d" * 300, b"user"),
    (b"test", b"user\x01\x40x"), (b"test\x01\x40", b"user"), (b"test", b"../user"),
])
def test_impossible_names_answer_open_table(reader, db, table):
    reader.raw(b"P\t0\ttest\tuser\tPRIMARY\tuser_name\n")
    assert reader.raw(b"P\t1\t" + db + b"\t" + table + b"\tPRIMARY\tuser_name\n") == \
        b"1\t1\topen_table\n"
    assert reader.raw(GOOD) == b"0\t1\tYukari Takeba\n"
