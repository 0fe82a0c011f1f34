"""Names in P. Database and table names a table could never have answer `1 1 open_table`
and the connection goes on: empty, longer than the server allows, or holding a NUL
byte. Names the line leaves out read as empty, and the empty index name is PRIMARY."""

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


def test_an_empty_index_name_opens_the_primary_key(reader):
    # Net::HandlerSocket's open_index(1, $db, $table, '', ...), as the original's own
    # tests call it.
    assert reader.raw(b"P\t1\ttest\tuser\t\tuser_name\n") == b"0\t1\n"
    assert reader.raw(b"1\t=\t1\t101\n") == b"0\t1\tYukari Takeba\n"


def test_names_left_out_of_P_read_as_empty(reader):
    # No index name: the primary key; no columns: finds answer no values.
    assert reader.raw(b"P\t1\ttest\tuser\n") == b"0\t1\n"
    assert reader.raw(b"1\t=\t1\t101\n") == b"0\t0\n"
    assert reader.raw(b"P\t1\ttest\n") == b"1\t1\topen_table\n"
