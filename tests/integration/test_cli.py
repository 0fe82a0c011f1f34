"""rowsocket-cli in one-shot (-e) and batch (stdin) mode: what scripts see.

Output for scripts is tab-separated rows on stdout, errors on stderr with the wire
code and its meaning, exit status 1 at the first failed command (0 when all worked).
"""

import os
import subprocess

import pytest

import harness
import targets
from client_tools import CLI, cli, home_with_my_cnf, program

pytestmark = targets.rowsocket_only

ROW = "Yukari Takeba\tyukari.takeba@dena.jp\t2010-02-03 11:22:33"
OPEN = "open test.user PRIMARY user_name,user_email,created"


@pytest.fixture(autouse=True)
def sample(sql):
    sql.refill("user", [(101, "Yukari Takeba", "yukari.takeba@dena.jp", "2010-02-03 11:22:33")])


@pytest.fixture(scope="module")
def socket(server):
    return server.socket_path


def test_documented_session_in_human_commands(target):
    result = cli(target, "-e", f"{OPEN}; find test.user = 101")
    assert (result.returncode, result.stdout, result.stderr) == (0, ROW + "\n", "")


def test_documented_session_in_raw_mode(target):
    session = "P\t0\ttest\tuser\tPRIMARY\tuser_name,user_email,created\n0\t=\t1\t101"
    result = cli(target, "--raw", "-e", session)
    assert (result.returncode, result.stdout) == (0, "0\t1\n0\t3\t" + ROW + "\n")


def test_raw_mode_decodes_typed_escapes(target):
    result = cli(target, "--raw", "-e",
                 r"P\t0\ttest\tuser\tPRIMARY\tuser_name" + "\n" + r"0\t=\t1\t101")
    assert result.stdout == "0\t1\n0\t1\tYukari Takeba\n"


def test_raw_mode_shows_escaped_bytes_and_null_visibly(target, sql):
    sql.insert("user", [(102, "tab\there", None, None)])
    result = cli(target, "--raw", "-e",
                 "P\t0\ttest\tuser\tPRIMARY\tuser_name,user_email\n0\t=\t1\t102")
    assert result.stdout == "0\t1\n0\t2\ttab\\x01Ihere\t\\0\n"


def test_raw_mode_error_answer_fails_and_is_explained(target):
    result = cli(target, "--raw", "-e", "0\t=\t1\t101")
    assert result.returncode == 1
    assert result.stdout == "2\t1\tstmtnum\n"
    assert "index id not opened" in result.stderr


def test_a_table_not_opened_yet_opens_with_all_columns(target, socket):
    result = cli(target, "-e", "find test.user = 101", sql_socket=socket)
    assert (result.returncode, result.stdout) == (0, "101\t" + ROW + "\n")


def test_u_names_the_sql_account_where_listeners_ask_for_no_login(target, socket):
    # The listeners here use no account logins: -u root only reads column names.
    result = cli(target, "-u", "root", "-e", "find test.user = 101", sql_socket=socket)
    assert (result.returncode, result.stdout) == (0, "101\t" + ROW + "\n"), result.stderr


def no_sql_home(tmp_path):
    """A HOME whose ~/.my.cnf names an SQL socket no server listens on: a CLI that
    tried SQL would fail."""
    return home_with_my_cnf(tmp_path, socket=tmp_path / "no-server.sock", user="root")


def test_without_sql_options_the_server_tells_the_columns(target, tmp_path):
    # The README's first command, as after scripts/run.sh: no -h, no SQL option.
    result = subprocess.run([program(CLI), "-P", str(target.port), "-W", str(target.port_wr),
                             "-e", "find test.user = 101"],
                            env=dict(os.environ, HOME=str(no_sql_home(tmp_path))),
                            capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stdout, result.stderr) == (0, "101\t" + ROW + "\n", "")


def test_through_tcp_to_a_host_and_port_the_server_tells_the_columns(target, tmp_path):
    result = cli(target, "-e", "find test.user = 101; insert test.user 108 Ida NULL NULL; "
                 "delete test.user = 108", home=no_sql_home(tmp_path))
    assert (result.returncode, result.stdout, result.stderr) == \
        (0, "101\t" + ROW + "\n1\n", "")


def test_a_named_index_is_described_for_its_own_table(target, sql, tmp_path):
    sql.create_table("cli_named", "id INT PRIMARY KEY, k INT, v VARCHAR(10), KEY k (k)",
                     [(1, 10, "a"), (2, 20, "b")])
    result = cli(target, "-e", "find test.cli_named using k >= 15", home=no_sql_home(tmp_path))
    assert (result.returncode, result.stdout, result.stderr) == (0, "2\t20\tb\n", "")


def test_columns_and_using_pick_what_is_opened(target):
    result = cli(target, "-e", "find test.user using PRIMARY columns user_email = 101")
    assert result.stdout == "yukari.takeba@dena.jp\n"


def test_wire_error_is_explained_and_ends_the_script(target):
    result = cli(target, "-e", f"{OPEN}; find test.user = 101 1; find test.user = 101")
    assert result.returncode == 1
    assert result.stderr == "ERROR 2 1 kpnum (more key values than the index has key parts)\n"
    assert result.stdout == ""


def test_force_goes_on_after_an_error(target):
    result = cli(target, "-f", "-e", f"{OPEN}; find test.user = 101 1; find test.user = 101")
    assert (result.returncode, result.stdout) == (1, ROW + "\n")


def test_unknown_table_is_a_storage_error(target):
    result = cli(target, "-e", "find test.nope columns a = 1")
    assert result.returncode == 1
    assert result.stderr.startswith("ERROR 1 1 open_table (the table does not exist")


def test_bad_command_is_a_usage_error(target):
    result = cli(target, "-e", "fnd test.user = 1")
    assert (result.returncode, result.stderr) == (1, "ERROR: unknown command 'fnd' (try: help)\n")


def test_unreachable_server_is_a_connection_error(target):
    (closed_port,) = harness.free_ports(1)
    result = cli(target, "-P", str(closed_port), "-e", OPEN)
    assert result.returncode == 1
    assert result.stderr.startswith(f"ERROR (connection): cannot connect to 127.0.0.1:{closed_port}")


@pytest.mark.parametrize("hosts", [["-h", "127.0.0.2,127.0.0.1"],
                                   ["-h", "127.0.0.2", "-h", "127.0.0.1"]])
def test_several_hosts_use_the_first_that_answers(target, sql, hosts):
    # 127.0.0.2 is a loopback address the server does not listen on: refused.
    ports = ["-P", str(target.port), "-W", str(target.port_wr)]
    result = subprocess.run([program(CLI), *hosts, *ports, "-e",
                             "open test.user PRIMARY user_id,user_name; "
                             "insert test.user 106 Cy; find test.user = 106"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            timeout=60)
    assert (result.returncode, result.stdout, result.stderr) == (0, "106\tCy\n", "")
    assert sql.flat("SELECT user_name FROM test.user WHERE user_id = 106") == ["Cy"]
    raw = subprocess.run([program(CLI), *hosts, *ports, "--raw", "-e",
                          "P\t0\ttest\tuser\tPRIMARY\tuser_name\n0\t=\t1\t101"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         timeout=60)
    assert (raw.returncode, raw.stdout) == (0, "0\t1\n0\t1\tYukari Takeba\n")


def test_several_hosts_none_answering_is_a_connection_error(target):
    result = subprocess.run([program(CLI), "-h", "127.0.0.2,127.0.0.3", "-P", str(target.port),
                             "-e", OPEN], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, timeout=60)
    assert result.returncode == 1
    assert result.stderr.startswith("ERROR (connection): ")


def test_an_empty_host_in_the_list_is_a_bad_option(target):
    result = subprocess.run([program(CLI), "-h", "127.0.0.1,", "-e", OPEN],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            timeout=60)
    assert (result.returncode, result.stderr) == (2, "bad --host\n")


def test_writes_go_to_the_write_port_and_sql_sees_them(target, sql):
    result = cli(target, "-e",
                 "open test.user PRIMARY user_id,user_name,user_email; "
                 "insert test.user 104 Ann NULL; insert test.user 105 Bob ''; "
                 "update test.user = 104 set 104 Anne; "
                 "delete test.user = 105")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == "1\n1\n"  # rows updated, rows deleted
    assert sql.rows("SELECT user_id, user_name, user_email FROM test.user "
                    "WHERE user_id > 101") == [("104", "Anne", None)]


def test_null_and_empty_string_stay_apart(target, sql):
    result = cli(target, "-e",
                 "open test.user PRIMARY user_id,user_email; "
                 "insert test.user 104 NULL; insert test.user 105 ''; insert test.user 106 'NULL'")
    assert result.returncode == 0, result.stderr
    assert sql.rows("SELECT user_email FROM test.user WHERE user_id > 101 "
                    "ORDER BY user_id") == [(None,), ("",), ("NULL",)]
    shown = cli(target, "-e", "find test.user columns user_email >= 104 limit 3")
    assert shown.stdout == "NULL\n\nNULL\n"  # tab output prints NULL like mariadb -B


def test_increment_decrement_and_returning(target, sql):
    sql.create_table("counters", "id INT PRIMARY KEY, n INT", [(1, 10)])
    result = cli(target, "-e",
                 "open test.counters PRIMARY n; increment test.counters = 1 by 5; "
                 "decrement test.counters = 1 by 2 returning; find test.counters = 1; "
                 "decrement test.counters = 1 by 100")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "1\n15\n13\n0\n"


def test_limit_offset_in_and_filters(target, sql):
    sql.insert("user", [(102, "B", "b@x", "2011-01-01 00:00:00"),
                        (103, "C", "c@x", "2012-01-01 00:00:00")])
    ids = "open test.user PRIMARY user_id; "
    def run(query):
        result = cli(target, "-e", ids + query)
        assert result.returncode == 0, result.stderr
        return result.stdout.split()
    assert run("find test.user >= 101 limit 2 offset 1") == ["102", "103"]
    assert run("find test.user <= 103 limit 10") == ["103", "102", "101"]
    assert run("find test.user = 0 limit 10 in 0 103 101") == ["103", "101"]
    assert run("find test.user >= 101 limit 10 where created > '2011-06-01'") == ["103"]
    assert run("find test.user >= 101 limit 10 while created < '2011-06-01'") == ["101", "102"]


def test_vertical_and_table_formats_and_column_names(target):
    vertical = cli(target, "-e", f"{OPEN}; find test.user = 101\\G")
    assert vertical.stdout.splitlines() == [
        "*************************** 1. row ***************************",
        " user_name: Yukari Takeba",
        "user_email: yukari.takeba@dena.jp",
        "   created: 2010-02-03 11:22:33"]
    table = cli(target, "-t", "-e", f"{OPEN}; find test.user = 101")
    assert "| Yukari Takeba | yukari.takeba@dena.jp | 2010-02-03 11:22:33 |" in table.stdout
    named = cli(target, "--column-names", "-e", f"{OPEN}; find test.user = 101")
    assert named.stdout == "user_name\tuser_email\tcreated\n" + ROW + "\n"


def test_batch_mode_reads_commands_from_stdin(target):
    result = cli(target, stdin=f"{OPEN}\nfind test.user = 101\nfind test.user = 999\n")
    assert (result.returncode, result.stdout) == (0, ROW + "\n")


def test_help_lists_every_command(target):
    result = cli(target, "-e", "help")
    for word in ("open", "find", "insert", "update", "increment", "decrement", "delete", "raw"):
        assert f"  {word} " in result.stdout
