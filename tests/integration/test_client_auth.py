"""librowsocket and rowsocket-cli on listeners that require a secret."""

import pytest

import client_tools
import targets

pytestmark = targets.rowsocket_only

SECRET = "client-secret"


@pytest.fixture(scope="module")
def server_options():
    return {"plain_secret": SECRET, "plain_secret_wr": SECRET}


def test_library_authenticates_with_the_secret(target):
    client_tools.run_live_tests(target, "Auth.*", secret=SECRET)


def test_cli_with_secret_reads_and_writes(target):
    result = client_tools.cli(target, "--secret", SECRET, "-e",
                              "open test.user PRIMARY user_id,user_name; "
                              "insert test.user 105 Eve; find test.user = 105; "
                              "delete test.user = 105")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "105\tEve\n1\n"


def test_cli_without_secret_explains_unauth(target):
    result = client_tools.cli(target, "-e", "open test.user PRIMARY user_name")
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.startswith("ERROR 3 1 unauth (not authenticated")
