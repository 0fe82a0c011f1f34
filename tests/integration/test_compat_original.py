"""rowsocket answers like the original: one server, both plugins, the same requests.

Both plugins are loaded into ONE server over the same tables. Every case sends its
lines (after a common set of index opens) on a fresh connection to the original and
then to rowsocket, and compares the answers line by line and, for writes, the tables
afterwards (reset before each run). The exceptions in KNOWN_DIFFERENCES are cases
where the original is known wrong; for them rowsocket must give the contract's answer
and the original must still differ (so a stale exception is noticed).
Requests that crash or stall the original are not here (see test_safety.py).
"""

import pytest

import harness
import hs
import servers
from db import Sql

pytestmark = pytest.mark.skipif(
    harness.rowsocket_plugin_path() is None,
    reason="needs ROWSOCKET_PLUGIN=/path/to/rowsocket.so to compare with the original")

SETUP = [
    "P\t0\ttest\tuser\tPRIMARY\tuser_name,user_email,created",
    "P\t1\ttest\tcnums\tPRIMARY\tid,v\ta,b,v,id",
    "P\t2\ttest\tcnums\tab\tid,a,b",
    "P\t3\ttest\tcmod\tPRIMARY\tk,v,n",
    "P\t4\ttest\tcmod\tPRIMARY\tn\tn",
    "P\t5\ttest\tcai\tPRIMARY\tv",
    "P\t6\ttest\tcai\tPRIMARY\tid,v",
    "P\t7\ttest\tcdflt\tPRIMARY\tk,v,n",
]
LONG_KEY = "7" * 200_000

READS = {
    "find": ["0\t=\t1\t101"],
    "find_missing": ["0\t=\t1\t999"],
    "find_crlf": ["0\t=\t1\t101\r"],
    "gt_default_limit": ["1\t>\t1\t5"],
    "gt": ["1\t>\t1\t5\t3\t0"],
    "ge": ["1\t>=\t1\t5\t3\t0"],
    "lt": ["1\t<\t1\t5\t3\t0"],
    "le": ["1\t<=\t1\t5\t3\t0"],
    "offset": ["1\t>=\t1\t5\t3\t2"],
    "past_the_end": ["1\t>\t1\t59\t5\t0", "1\t<\t1\t1\t5\t0"],
    "prefix_eq": ["2\t=\t1\t2\t20\t0"],
    "prefix_eq_offset": ["2\t=\t1\t2\t3\t4"],
    "prefix_gt": ["2\t>\t1\t2\t5\t0"],
    "prefix_le": ["2\t<=\t1\t2\t5\t0"],
    "full_key_ge": ["2\t>=\t2\t2\t5\t5\t0"],
    "full_key_lt": ["2\t<\t2\t2\t5\t5\t0"],
    "in": ["1\t=\t1\t0\t10\t0\t@\t0\t3\t7\t3\t5"],
    "in_missing_value": ["1\t=\t1\t0\t10\t0\t@\t0\t3\t7\t999\t5"],
    "in_non_leading_part": ["2\t=\t2\t1\t0\t10\t0\t@\t1\t3\t7\t3\t5"],
    "in_limit_offset": ["1\t=\t1\t0\t2\t1\t@\t0\t3\t7\t3\t5"],
    "in_prefix": ["2\t=\t1\t0\t30\t0\t@\t0\t2\t3\t2"],
    "in_with_filter": ["1\t=\t1\t0\t10\t0\t@\t0\t3\t7\t3\t5\tF\t>\t1\t4"],
    "filter_each_op": [f"1\t>=\t1\t1\t100\t0\tF\t{op}\t0\t2"
                       for op in ("=", "!=", "<", "<=", ">", ">=")],
    "filter_string": ["1\t<=\t1\t59\t100\t0\tF\t>\t2\tv35"],
    "while_each_op": ["1\t>=\t1\t1\t100\t0\tW\t=\t0\t0", "1\t>=\t1\t1\t100\t0\tW\t<\t0\t3",
                      "1\t<=\t1\t59\t100\t0\tW\t>\t0\t3", "1\t>=\t1\t1\t100\t0\tW\t!=\t0\t3",
                      "1\t>=\t1\t1\t100\t0\tW\t<=\t0\t2", "1\t<=\t1\t59\t100\t0\tW\t>=\t0\t3"],
    "filters_and": ["1\t>=\t1\t1\t100\t0\tF\t>\t0\t1\tF\t<\t1\t3\tW\t<\t3\t45"],
    "filter_offset": ["1\t>=\t1\t1\t3\t2\tF\t=\t1\t5"],
    "filter_nothing": ["1\t>=\t1\t1\t100\t0\tF\t=\t0\t99"],
    "limit_zero": ["1\t>=\t1\t1\t0\t0"],
    "reopen_replaces": ["P\t0\ttest\tuser\tPRIMARY\tuser_email", "0\t=\t1\t101"],
    "null_key": ["1\t=\t1\t\x00"],
    "long_key": ["0\t=\t1\t" + LONG_KEY],
    "readonly_insert": ["3\t+\t3\t9\tx\t9"],
    "readonly_update": ["3\t=\t1\t1\t1\t0\tU\t1\tx\t1", "4\t=\t1\t1\t1\t0\t+?\t1"],
    "readonly_delete": ["3\t=\t1\t1\t1\t0\tD"],
    "readonly_malformed": ["3\t+\t0", "3\t+\t3\t9", "3\t=\t1\t1\t1\t0\tZ\t1",
                           "3\t=\t1\t1\t1\t0\tD\tx", "1\t=\t1\t1\t1\t0\textra"],
    "readonly_index_not_open": ["9\t+\t1\tx", "9\t=\t1\t1\t1\t0\tU\tx"],
}

ERRORS = {
    "stmtnum": ["9\t=\t1\t101"],
    "kpnum": ["0\t=\t2\t101\t5", "2\t=\t3\t1\t2\t3"],
    "fld": ["P\t9\ttest\tuser\tPRIMARY\tnosuch", "P\t9\ttest\tuser\tPRIMARY\tuser_name\tnosuch"],
    "open_table": ["P\t9\ttest\tnosuch\tPRIMARY\tuser_name",
                   "P\t9\tnosuchdb\tuser\tPRIMARY\tuser_name"],
    "idxnum": ["P\t9\ttest\tuser\tnosuch\tuser_name"],
    "op": ["0\t!\t1\t101", "0\t==\t1\t101", "0"],
    "modop": ["0\t=\t1\t101\t1\t0\tZ", "0\t=\t1\t101\t1\t0\tu\t1"],
    "filtertype": ["1\t>=\t1\t1\t1\t0\tFX\t=\t0\t1", "1\t>=\t1\t1\t1\t0\tWW\t=\t0\t1"],
    "filterfld": ["1\t>=\t1\t1\t1\t0\tF\t=\t4\t1", "0\t=\t1\t101\t1\t0\tF\t=\t0\t1"],
    "invalueslen": ["0\t=\t1\t101\t1\t0\t@\t0\t0", "0\t=\t1\t101\t1\t0\t@\t0\tx\t1",
                    "0\t=\t1\t101\t1\t0\t@"],
    "in_fewer_values_than_length": ["0\t=\t1\t101\t1\t0\t@\t0\t3\t101"],
    "cmd": ["garbage", "", "\x01\x02", "x\t=\t1\t101", "-1\t=\t1\t101", "\t"],
    "klen": ["0\t=\tx\t101", "0\t=\t0", "0\t=", "3\t+\t0", "3\t+\tx"],
}

WRITES = {
    "insert": ["3\t+\t3\t10\tx\t100"],
    "insert_null_and_empty": ["3\t+\t3\t11\t\x00\t\x00", "3\t+\t3\t12\t\t0"],
    "insert_auto_increment": ["5\t+\t1\tx", "5\t+\t1\ty", "6\t+\t2\t\x00\tz"],
    "insert_explicit_auto_increment_id": ["6\t+\t2\t50\ty"],
    "insert_duplicate": ["3\t+\t3\t1\tdup\t0"],
    "insert_defaults_outside_columns": ["7\t+\t3\t1\tx\t1"],
    "insert_fewer_values_explicit_defaults": ["7\t+\t1\t2"],
    "insert_fewer_values_null_defaults": ["3\t+\t1\t13"],
    "update": ["3\t=\t1\t2\t1\t0\tU\t2\tbb\t21"],
    "update_range": ["3\t>=\t1\t2\t3\t0\tU?\t2\tx\t1", "3\t>=\t1\t1\t10\t0"],
    "update_no_match": ["3\t=\t1\t99\t1\t0\tU\t99\tx\t1"],
    "update_fewer_values": ["3\t=\t1\t2\t1\t0\tU\t2\tbb"],
    "update_with_filter": ["4\t>=\t1\t1\t10\t0\tF\t>\t0\t5\tU\t0"],
    "plus_minus": ["4\t=\t1\t1\t1\t0\t+\t5", "4\t=\t1\t1\t1\t0\t-\t3", "4\t=\t1\t5\t1\t0\t-\t7"],
    "minus_crossing_zero": ["4\t=\t1\t1\t1\t0\t-\t11", "4\t=\t1\t3\t1\t0\t-\t-6",
                            "4\t=\t1\t3\t1\t0\t-\t2", "4\t=\t1\t1\t1\t0\t-?\t11"],
    "question_forms": ["4\t=\t1\t1\t1\t0\t+?\t5", "4\t=\t1\t2\t1\t0\t-?\t5",
                       "3\t>=\t1\t2\t2\t1\tD?", "3\t=\t1\t99\t1\t0\tD?"],
    "delete": ["3\t=\t1\t2\t1\t0\tD", "3\t>=\t1\t1\t2\t1\tD", "3\t=\t1\t99\t1\t0\tD"],
    "delete_with_filter": ["4\t>=\t1\t1\t10\t0\tF\t>\t0\t0\tD"],
    "in_minus": ["4\t=\t1\t0\t10\t0\t@\t0\t3\t1\t2\t5\t-\t8"],
}


class KnownDifference:
    """A case where the original is known wrong; rowsocket must answer `answers`
    (and leave `rows` in test.cmod when given)."""

    def __init__(self, why, answers=None, rows=None):
        self.why, self.answers, self.rows = why, answers, rows


KNOWN_DIFFERENCES = {
    "limit_zero": KnownDifference(
        "the original treats limit 0 as limit 1; the contract says SQL LIMIT 0",
        answers=["0\t2"]),
    "in_prefix": KnownDifference(
        "the original returns only the first row of each IN value's lookup",
        answers=["0\t3\t" + "\t".join(f"{i}\t{i // 10}\t{i % 10}"
                                      for i in [*range(30, 40), *range(20, 30)])]),
    "in_fewer_values_than_length": KnownDifference(
        "the original reads IN values past the end of the request",
        answers=["2\t1\tinvalueslen"]),
    "update_fewer_values": KnownDifference(
        "the original sets the columns without a value to '' / 0",
        answers=["0\t1\t1"],
        rows=[("1", "a", "10"), ("2", "bb", "20"), ("3", "c", "-5"), ("4", "d", "0"),
              ("5", "e", "7")]),
    "insert_fewer_values_null_defaults": KnownDifference(
        "the original stores '' / 0 instead of a column's NULL default",
        answers=["0\t1"],
        rows=[("1", "a", "10"), ("2", "b", "20"), ("3", "c", "-5"), ("4", "d", "0"),
              ("5", "e", "7"), ("13", None, None)]),
    "update_range": KnownDifference(
        "the original keeps the rows a failing multi-row update changed before the "
        "failure; rowsocket puts them back, so an error answer means no effect",
        answers=["1\t1\t121", "0\t3\t1\ta\t10\t2\tb\t20\t3\tc\t-5\t4\td\t0\t5\te\t7"],
        rows=[("1", "a", "10"), ("2", "b", "20"), ("3", "c", "-5"), ("4", "d", "0"),
              ("5", "e", "7")]),
    "readonly_index_not_open": KnownDifference(
        "on the read listener the original looks up the index id before it refuses a "
        "write; rowsocket refuses every write there first",
        answers=["2\t1\treadonly", "2\t1\treadonly"]),
    "insert_explicit_auto_increment_id": KnownDifference(
        "the original answers id 0 when the client gives the AUTO_INCREMENT value; "
        "rowsocket answers the id of the row, as the C API's mysql_insert_id() does",
        answers=["0\t1\t50"]),
}

MOD_ROWS = [(1, "a", 10), (2, "b", 20), (3, "c", -5), (4, "d", 0), (5, "e", 7)]
CASES = ([pytest.param(n, "port", lines, id=n) for n, lines in READS.items()]
         + [pytest.param(n, "port_wr", lines, id=n) for n, lines in ERRORS.items()]
         + [pytest.param(n, "port_wr", lines, id=n) for n, lines in WRITES.items()])


@pytest.fixture(scope="module")
def both():
    plugins = [harness.original_plugin(),
               harness.rowsocket_plugin({"max_line_length": 16 * 1024 * 1024})]
    with servers.running_server(plugins) as srv:
        sql = Sql(srv)
        sql.create_table("cnums", "id INT PRIMARY KEY, a INT, b INT, v VARCHAR(20), "
                                  "KEY ab (a, b)",
                         [(i, i // 10, i % 10, f"v{i}") for i in range(1, 60)])
        reset_write_tables(sql)
        yield srv, sql
        sql.close()


def reset_write_tables(sql):
    sql.create_table("cmod", "k INT PRIMARY KEY, v VARCHAR(20), n INT", MOD_ROWS)
    sql.create_table("cai", "id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(20)")
    sql.create_table("cdflt", "k INT PRIMARY KEY, v VARCHAR(20) DEFAULT 'dv', "
                              "n INT DEFAULT 42, note VARCHAR(10) DEFAULT 'nd'")


def dump_write_tables(sql):
    return {t: sql.rows(f"SELECT * FROM test.{t} ORDER BY 1") for t in ("cmod", "cai", "cdflt")}


def run(plugin, port_attr, lines, sql, writes):
    """Runs SETUP + lines on a fresh connection; returns (answers, tables after)."""
    if writes:
        reset_write_tables(sql)
    data = "".join(line + "\n" for line in SETUP + lines).encode("latin-1")
    with hs.Connection(getattr(plugin, port_attr)) as conn:
        answers = conn.raw(data, lines=len(SETUP) + len(lines)).decode("latin-1")
    return answers.split("\n")[:-1], dump_write_tables(sql) if writes else None


@pytest.mark.parametrize("name,port_attr,lines", CASES)
def test_rowsocket_answers_like_the_original(both, name, port_attr, lines):
    srv, sql = both
    writes = name in WRITES
    theirs = run(srv.plugin("original"), port_attr, lines, sql, writes)
    ours = run(srv.plugin("rowsocket"), port_attr, lines, sql, writes)
    known = KNOWN_DIFFERENCES.get(name)
    if known is None:
        assert ours == theirs
        return
    assert ours[0][:len(SETUP)] == theirs[0][:len(SETUP)]
    if known.answers is not None:
        assert ours[0][len(SETUP):] == known.answers, known.why
    if known.rows is not None:
        assert ours[1]["cmod"] == known.rows, known.why
    assert ours != theirs, f"stale exception, the original now agrees: {known.why}"


def test_every_known_difference_names_a_case():
    assert set(KNOWN_DIFFERENCES) <= set(READS) | set(ERRORS) | set(WRITES)
