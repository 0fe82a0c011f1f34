"""rowsocket's safety limits, which the original lacks (skipped on the original).

- system schemas are forbidden unless rowsocket_allowed_system_schemas names them;
- no request, however odd, stops a listener;
- index ids are bounded by rowsocket_max_open_indexes;
- a line longer than rowsocket_max_line_length is refused and the connection closed;
- requests that crash or stall the original are answered with an error;
- read_only (a replica's usual setting) refuses rowsocket's writes as it refuses an
  ordinary SQL user's.
"""

import pytest

import hs
import servers
import targets

pytestmark = targets.rowsocket_only

MAX_OPEN_INDEXES = 16
MAX_LINE_LENGTH = 4096
FORBIDDEN = b"2\t1\tforbidden\n"
OPEN_USER = b"P\t0\ttest\tuser\tPRIMARY\tuser_name\n"
FIND_USER = b"0\t=\t1\t101\n"


@pytest.fixture(scope="module")
def server_options():
    return {"max_open_indexes": MAX_OPEN_INDEXES, "max_line_length": MAX_LINE_LENGTH}


@pytest.fixture(scope="module")
def mysql_allowed():
    """A second server that allows the `mysql` schema (and nothing else)."""
    plugin = targets.make_plugin({"allowed_system_schemas": "mysql"})
    with servers.running_server([plugin]) as srv:
        yield srv.plugins[0]


def still_answers(port):
    with hs.Connection(port) as conn:
        return conn.raw(OPEN_USER + FIND_USER, lines=2) == b"0\t1\n0\t1\tYukari Takeba\n"


# -- system schemas ------------------------------------------------------------------

SYSTEM_TABLES = [
    ("mysql", "global_priv", "PRIMARY", "Host,User"),
    ("mysql", "user", "PRIMARY", "Host,User"),
    ("mysql", "db", "PRIMARY", "Host,Db"),
    ("information_schema", "TABLES", "PRIMARY", "TABLE_NAME"),
    ("INFORMATION_SCHEMA", "TABLES", "PRIMARY", "TABLE_NAME"),
    ("performance_schema", "threads", "PRIMARY", "THREAD_ID"),
    ("Performance_Schema", "threads", "PRIMARY", "THREAD_ID"),
    ("sys", "sys_config", "PRIMARY", "variable"),
]


def open_line(db, table, index, columns):
    return "\t".join(["P", "3", db, table, index, columns]).encode() + b"\n"


@pytest.mark.parametrize("db,table,index,columns", SYSTEM_TABLES,
                         ids=[f"{d}.{t}" for d, t, _, _ in SYSTEM_TABLES])
@pytest.mark.parametrize("port_attr", ["port", "port_wr"])
def test_system_schema_is_forbidden_by_default(target, port_attr, db, table, index, columns):
    with hs.Connection(getattr(target, port_attr)) as conn:
        assert conn.raw(open_line(db, table, index, columns)) == FORBIDDEN
        assert conn.raw(b"3\t=\t1\tlocalhost\n") == b"2\t1\tstmtnum\n"
        assert conn.raw(OPEN_USER + FIND_USER, lines=2) == b"0\t1\n0\t1\tYukari Takeba\n"


def test_allowed_system_schema_opens(mysql_allowed):
    with hs.Connection(mysql_allowed.port) as conn:
        assert conn.raw(b"P\t1\tmysql\tglobal_priv\tPRIMARY\tHost,User\n") == b"0\t1\n"
        assert conn.raw(b"P\t2\tmysql\tdb\tPRIMARY\tHost,Db\n") == b"0\t1\n"
        answer = conn.request([1, ">=", 1, "", 100, 0])
        assert answer[:2] == ["0", "2"] and "root" in answer[2:]


@pytest.mark.parametrize("db", ["information_schema", "performance_schema", "sys"])
def test_allowing_mysql_keeps_other_system_schemas_forbidden(mysql_allowed, db):
    table = {"information_schema": "TABLES", "performance_schema": "threads",
             "sys": "sys_config"}[db]
    with hs.Connection(mysql_allowed.port) as conn:
        assert conn.raw(open_line(db, table, "PRIMARY", "x")) == FORBIDDEN


# -- no request stops a listener --------------------------------------------------------

ODD_COMMANDS = [b"Q", b"Q\t1", b"q", b"S", b"X", b"Z", b"\x00", b"shutdown", b"KILL"]


@pytest.mark.parametrize("port_attr", ["port", "port_wr"])
def test_unknown_commands_never_stop_the_listener(target, port_attr):
    port = getattr(target, port_attr)
    for _ in range(3):   # more connections than a small thread pool has threads
        for command in ODD_COMMANDS:
            with hs.Connection(port) as conn:
                answer = conn.raw(command + b"\n")
                assert answer[:2] == b"2\t", (command, answer)
                assert conn.raw(OPEN_USER) == b"0\t1\n"
    assert still_answers(port)


# -- bounded index ids ------------------------------------------------------------------

@pytest.mark.parametrize("index_id", [MAX_OPEN_INDEXES, MAX_OPEN_INDEXES + 1,
                                      99999999, 4294967296, 99999999999999999999])
def test_index_id_at_or_above_the_limit_answers_stmtnum(reader, index_id):
    line = b"P\t%d\ttest\tuser\tPRIMARY\tuser_name\n" % index_id
    assert reader.raw(line) == b"2\t1\tstmtnum\n"
    assert reader.raw(b"%d\t=\t1\t101\n" % index_id) == b"2\t1\tstmtnum\n"
    assert reader.raw(OPEN_USER + FIND_USER, lines=2) == b"0\t1\n0\t1\tYukari Takeba\n"


def test_highest_index_id_below_the_limit_works(reader):
    top = MAX_OPEN_INDEXES - 1
    assert reader.raw(b"P\t%d\ttest\tuser\tPRIMARY\tuser_name\n" % top) == b"0\t1\n"
    assert reader.raw(b"%d\t=\t1\t101\n" % top) == b"0\t1\tYukari Takeba\n"


# -- line length ------------------------------------------------------------------------

@pytest.mark.parametrize("port_attr", ["port", "port_wr"])
def test_line_longer_than_the_limit_answers_linelen_and_closes(target, port_attr):
    with hs.Connection(getattr(target, port_attr)) as conn:
        conn.send_raw(OPEN_USER + b"0\t=\t1\t" + b"1" * (MAX_LINE_LENGTH + 100) + b"\n")
        assert conn.read_line() == b"0\t1"
        assert conn.read_line() == b"2\t1\tlinelen"
        assert conn.is_closed()
    assert still_answers(getattr(target, port_attr))


def test_endless_line_without_newline_answers_linelen_and_closes(reader):
    reader.send_raw(b"x" * (4 * MAX_LINE_LENGTH))
    assert reader.read_line() == b"2\t1\tlinelen"
    assert reader.is_closed()


def test_line_just_under_the_limit_is_served(reader):
    reader.raw(OPEN_USER)
    padding = MAX_LINE_LENGTH - len(FIND_USER) - 16
    assert reader.raw(b"0\t=\t1\t" + b"0" * padding + b"101\n") == b"0\t1\tYukari Takeba\n"


# -- requests that crash or stall the original ------------------------------------------

@pytest.mark.parametrize("line", [
    b"0\t=\t99999999999999999999\t101\n",
    b"0\t=\t4294967297\t101\n",
    b"0\t=\t-1\t101\n",
    b"0\t=\t1\t101\t1\t0\t@\t0\t99999999999999999999\t101\n",
    b"0\t=\t1\t101\t1\t0\t@\t99999999999\t1\t101\n",
    b"0\t+\t99999999999999999999\tx\n",
], ids=["huge_key_count", "wrapping_key_count", "negative_key_count", "huge_in_length",
        "huge_in_column", "huge_insert_count"])
def test_absurd_counts_answer_an_error(writer, line):
    writer.raw(OPEN_USER)
    answer = writer.raw(line)
    assert answer[:2] in (b"1\t", b"2\t"), answer
    assert writer.raw(FIND_USER) == b"0\t1\tYukari Takeba\n"


@pytest.fixture(scope="module")
def user_view(sql):
    sql.execute("CREATE OR REPLACE VIEW test.user_view AS SELECT * FROM test.user")


def test_open_on_a_view_answers_an_error(reader, user_view):
    # The original crashes mariadbd here (mysql.user is a view too).
    answer = reader.raw(b"P\t1\ttest\tuser_view\tPRIMARY\tuser_name\n")
    assert answer[:2] in (b"1\t", b"2\t"), answer
    assert reader.raw(b"1\t=\t1\t101\n")[:2] == b"2\t"
    assert reader.raw(OPEN_USER + FIND_USER, lines=2) == b"0\t1\n0\t1\tYukari Takeba\n"


# -- read_only -----------------------------------------------------------------------

def test_read_only_refuses_writes_and_keeps_serving_reads(writer, sql):
    """With read_only on, writes answer `1 1 1290` (SQL's ER_OPTION_PREVENTS_STATEMENT)
    and change nothing; reads go on; with it off again, writes work."""
    writer.raw(b"P\t1\ttest\tuser\tPRIMARY\tuser_id,user_name\n")
    sql.execute("SET GLOBAL read_only = 1")
    try:
        assert writer.raw(b"1\t+\t2\t4242\tro\n") == b"1\t1\t1290\n"
        assert writer.raw(b"1\t=\t1\t101\t1\t0\tU\t101\tchanged\n") == b"1\t1\t1290\n"
        assert writer.raw(b"1\t=\t1\t101\t1\t0\tD\n") == b"1\t1\t1290\n"
        assert writer.raw(b"1\t=\t1\t101\n") == b"0\t2\t101\tYukari Takeba\n"
    finally:
        sql.execute("SET GLOBAL read_only = 0")
    assert int(sql.value("SELECT COUNT(*) FROM test.user WHERE user_id = 4242")) == 0
    assert writer.raw(b"1\t+\t2\t4242\tro\n") == b"0\t1\n"
    assert writer.raw(b"1\t=\t1\t4242\t1\t0\tD\n") == b"0\t1\t1\n"
