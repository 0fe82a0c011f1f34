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
