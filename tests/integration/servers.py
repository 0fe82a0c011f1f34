"""Servers as test fixtures: start, seed the sample data, watch for crashes, stop.

`running_server` is what every server fixture uses. Each server it starts is registered
in RUNNING so that conftest.py can check after every test that no mariadbd has died; on
leaving, it fails if the server crashed at any point or did not stop on SIGTERM.
"""

import contextlib

from db import Sql
from harness import MariaDB

RUNNING = []

USER_TABLE = """user_id INT UNSIGNED PRIMARY KEY, user_name VARCHAR(50),
    user_email VARCHAR(255), created DATETIME"""
USER_ROW = (101, "Yukari Takeba", "yukari.takeba@dena.jp", "2010-02-03 11:22:33")


def seed(server):
    """The sample data every server carries: database `test` and test.user."""
    sql = Sql(server)
    try:
        sql.execute("CREATE DATABASE IF NOT EXISTS test")
        sql.create_table("user", USER_TABLE, [USER_ROW])
    finally:
        sql.close()


def crash_report(server):
    return (f"mariadbd died ({server.exit_status()}); error log tail:\n"
            f"{server.error_log()[-4000:]}")


@contextlib.contextmanager
def running_server(plugins, extra_args=(), open_files=None):
    server = MariaDB(plugins, extra_args, open_files).start()
    RUNNING.append(server)
    try:
        seed(server)
        yield server
    finally:
        RUNNING.remove(server)
        report = None if server.alive() else crash_report(server)
        server.stop()   # raises "mariadbd did not stop" when SIGTERM was not enough
        assert report is None, report


def running_redis(extra=()):
    """A private redis-server (Debian's 7.0) on a free port, without persistence: the
    reference daemon for the Redis protocol's tests (redis_reference.RedisServer)."""
    import redis_reference  # pylint: disable=import-outside-toplevel
    return redis_reference.running_redis(extra)
