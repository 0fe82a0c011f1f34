"""A find-and-modify that fails half-way has no effect: the rows it had already
changed are put back, while the rest of its batch still commits."""

import pytest


@pytest.fixture
def uniq(sql):
    sql.create_table("uniq", "id INT PRIMARY KEY, u INT, UNIQUE KEY ku (u)",
                     [(1, 10), (2, 20), (3, 30)])
    yield
    sql.execute("DROP TABLE IF EXISTS test.uniq")


def test_update_failing_on_its_second_row_leaves_the_first_unchanged(writer, sql, uniq):
    writer.open_index(0, "uniq", ["u"])
    # Row 1 takes u=99, row 2 would take it too: duplicate key.
    assert writer.request([0, ">=", 1, 1, 10, 0, "U", 99]) == ["1", "1", "121"]
    assert sql.rows("SELECT id, u FROM test.uniq ORDER BY id") == \
        [("1", "10"), ("2", "20"), ("3", "30")]


def test_failed_request_in_a_pipeline_does_not_undo_its_neighbours(writer, sql, uniq):
    writer.open_index(0, "uniq", ["u"])
    answers = writer.raw(b"0\t=\t1\t3\t1\t0\tU\t33\n"
                         b"0\t>=\t1\t1\t10\t0\tU\t99\n"
                         b"0\t=\t1\t1\t1\t0\tU\t11\n", lines=3)
    assert answers == b"0\t1\t1\n1\t1\t121\n0\t1\t1\n"
    assert sql.rows("SELECT id, u FROM test.uniq ORDER BY id") == \
        [("1", "11"), ("2", "20"), ("3", "33")]


@pytest.fixture
def family(sql):
    sql.execute("DROP TABLE IF EXISTS test.kid")
    sql.create_table("parent", "id INT PRIMARY KEY, v VARCHAR(5)",
                     [(1, "a"), (2, "b"), (3, "c")])
    sql.execute("CREATE TABLE test.kid (id INT PRIMARY KEY, p INT, "
                "FOREIGN KEY (p) REFERENCES test.parent (id)) ENGINE=InnoDB")
    sql.execute("INSERT INTO test.kid VALUES (1, 2)")
    yield
    sql.execute("DROP TABLE IF EXISTS test.kid")
    sql.execute("DROP TABLE IF EXISTS test.parent")


def test_delete_failing_on_a_referenced_row_puts_the_deleted_rows_back(writer, sql, family):
    writer.open_index(0, "parent", ["v"])
    assert writer.request([0, ">=", 1, 1, 10, 0, "D"]) == ["1", "1", "152"]
    assert sql.rows("SELECT id, v FROM test.parent ORDER BY id") == \
        [("1", "a"), ("2", "b"), ("3", "c")]


# -- BLOB and TEXT columns ---------------------------------------------------------
#
# A row image holds BLOB/TEXT values as pointers into the handler's buffers; putting
# such a row back needs the values' bytes saved too. Long values are stored off the
# row's page by InnoDB, short ones in it: both kinds are here.

LONG_TEXT = "a long note, " * 2000
LONG_BLOB = bytes(range(256)) * 100


def notes_rows(sql):
    return sql.rows("SELECT id, u, MD5(body), LENGTH(body), MD5(pic), LENGTH(pic) "
                    "FROM test.notes ORDER BY id")


@pytest.fixture(params=["InnoDB", "Aria", "MyISAM"])
def notes(sql, request):
    sql.execute("DROP TABLE IF EXISTS test.note_ref")
    sql.create_table("notes", "id INT PRIMARY KEY, u INT, body TEXT, pic BLOB, UNIQUE KEY ku (u)",
                     [(1, 10, LONG_TEXT, LONG_BLOB), (2, 20, "short", b"\x00\xff"),
                      (3, 30, "", None)], engine=request.param)
    yield request.param
    sql.execute("DROP TABLE IF EXISTS test.note_ref")
    sql.execute("DROP TABLE IF EXISTS test.notes")


def test_update_failing_half_way_puts_back_text_and_blob_values(writer, sql, notes):
    before = notes_rows(sql)
    writer.open_index(0, "notes", ["u", "body", "pic"])
    # Row 1 takes u=99 and new values, row 2 would take u=99 too: duplicate key.
    assert writer.request([0, ">=", 1, 1, 10, 0, "U", 99, "new body", "new pic"]) == \
        ["1", "1", "121"]
    assert notes_rows(sql) == before


def test_delete_failing_half_way_puts_back_text_and_blob_values(writer, sql, notes):
    if notes != "InnoDB":
        pytest.skip("foreign keys are InnoDB's")
    sql.execute("CREATE TABLE test.note_ref (id INT PRIMARY KEY, n INT, "
                "FOREIGN KEY (n) REFERENCES test.notes (id)) ENGINE=InnoDB")
    sql.execute("INSERT INTO test.note_ref VALUES (1, 2)")
    before = notes_rows(sql)
    writer.open_index(0, "notes", ["u"])
    # Row 1 goes, row 2 is referenced: the delete fails and row 1 comes back whole.
    assert writer.request([0, ">=", 1, 1, 10, 0, "D"]) == ["1", "1", "152"]
    assert notes_rows(sql) == before
