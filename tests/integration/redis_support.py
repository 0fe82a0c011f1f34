"""How a test gets rowsocket's Redis listener (rowsocket_redis_port).

    with redis_support.running_rowsocket_redis() as rs:
        rs.port      # the Redis port on 127.0.0.1 (no login: a loopback address)
        rs.server    # the private mariadbd (harness.MariaDB): rs.server.sql(), ...
        rs.memcached_port   # its memcached listener, on the same default container

A module-scoped fixture is what the suites use; `options` are more plugin options
(without the `rowsocket_` prefix), `extra_args` more mariadbd arguments, and
`memcached=False` starts no memcached listener (rs.memcached_port is None). The default
container rowsocket.kv exists when the block begins.
"""

import contextlib

import harness
from memcached_support import wait_for_default_container
import servers
from db import Sql
import targets


class RowsocketRedis:
    def __init__(self, server, port, memcached_port):
        self.server = server
        self.port = port
        self.memcached_port = memcached_port


@contextlib.contextmanager
def running_rowsocket_redis(options=None, extra_args=(), memcached=True):
    port, memcached_port = harness.free_ports(2)
    listeners = {"redis_port": port, "memcached_port": memcached_port}
    if not memcached:  # the Redis listener alone
        del listeners["memcached_port"]
        memcached_port = None
    plugin = targets.make_plugin({**listeners, **(options or {})})
    with servers.running_server([plugin], list(extra_args)) as server:
        sql = Sql(server)
        try:
            wait_for_default_container(sql)
        finally:
            sql.close()
        yield RowsocketRedis(server, port, memcached_port)
