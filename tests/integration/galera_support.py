"""Galera clusters of private mariadbd nodes on this machine (Debian's galera-4).

A cluster is seeded without any state transfer: one node is bootstrapped, given the
sample data and stopped cleanly (its grastate.dat then holds the cluster's state id
and seqno); every node starts on a copy of that datadir, node 1 as a new cluster
(gcomm://) and the others joining it, all with the same state, so no snapshot is
needed. A node that falls behind (killed, isolated, or started after node 1 wrote)
catches up by IST from a node's gcache (or an rsync SST).

Each node is small: a 32M buffer pool, a 16M gcache, loopback ports of its own.
Used by test_galera_cluster.py and bench/galera_writes.py.
"""

import os
import re
import shutil
import subprocess
import tempfile
import time

from harness import MariaDB, free_ports

PROVIDER = "/usr/lib/galera/libgalera_smm.so"
SYNC_TIMEOUT = 90.0


def wsrep_args(group_port, ist_port, sst_port, cluster_address, name="node"):
    """mariadbd options of a Galera node listening on the given loopback ports."""
    options = ";".join([f"gmcast.listen_addr=tcp://127.0.0.1:{group_port}",
                        f"ist.recv_addr=127.0.0.1:{ist_port}", "gcache.size=16M",
                        "pc.recovery=false"])
    return ["--wsrep-on=ON", f"--wsrep-provider={PROVIDER}",
            f"--wsrep-cluster-address={cluster_address}", "--wsrep-node-address=127.0.0.1",
            f"--wsrep-node-name={name}", f"--wsrep-provider-options={options}",
            "--wsrep-sst-method=rsync", f"--wsrep-sst-receive-address=127.0.0.1:{sst_port}",
            "--binlog-format=ROW", "--innodb-autoinc-lock-mode=2",
            "--innodb-buffer-pool-size=32M", "--innodb-log-file-size=16M"]


class NodeServer(MariaDB):
    """A node's mariadbd: its datadir open to the rsync daemon of a state transfer,
    which root starts and which then runs as nobody."""

    def _make_plugin_dir(self):     # start(): after the datadir, before mariadbd
        super()._make_plugin_dir()
        os.chmod(self.base, 0o755)
        os.chmod(self.datadir, 0o777)


class GaleraNode:
    """One node: its mariadbd (`server`, a harness.MariaDB) and its Galera ports."""

    def __init__(self, name, plugins, extra_args=()):
        self.name = name
        self.group_port, self.ist_port, self.sst_port = free_ports(3)
        self.server = NodeServer(plugins)
        self.extra_args = list(extra_args)

    @property
    def plugin(self):
        return self.server.plugins[0]

    def configure(self, cluster_address):
        self.server.extra_args = wsrep_args(self.group_port, self.ist_port, self.sst_port,
                                            cluster_address, self.name) + self.extra_args

    def restart_after_crash(self):
        """Starts a node that was killed, as the server's service scripts do
        (galera_recovery): mariadbd --wsrep-recover reads the last committed position
        from InnoDB, and the node starts from it, so that IST can bring it up to date
        (without it a crashed node knows no position and needs a full SST)."""
        server = self.server
        log = os.path.join(server.base, "recover.log")
        subprocess.run(server.command + ["--wsrep-recover", f"--log-error={log}"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
        with open(log, errors="replace") as f:
            found = re.findall(r"WSREP: Recovered position: (\S+)", f.read())
        assert found, f"{self.name}: no recovered position in {log}"
        saved = server.extra_args
        server.extra_args = saved + [f"--wsrep-start-position={found[-1]}"]
        try:
            server.restart()
        finally:
            server.extra_args = saved

    def status(self, name):
        conn = self.server.sql()
        try:
            with conn.cursor() as cur:
                cur.execute("SHOW GLOBAL STATUS LIKE %s", (name,))
                row = cur.fetchone()
                return row[1] if row else None
        finally:
            conn.close()


class GaleraCluster:
    """`size` nodes; `make_plugins()` gives each node's plugin list (ports are
    assigned when the node starts)."""

    def __init__(self, size, make_plugins, extra_args=()):
        self.nodes = [GaleraNode(f"node{i + 1}", make_plugins(), extra_args)
                      for i in range(size)]

    @property
    def address(self):
        return "gcomm://" + ",".join(f"127.0.0.1:{n.group_port}" for n in self.nodes)

    def start(self, seed=None):
        """Bootstraps node 1, runs `seed(server)` on it, then starts the cluster."""
        first = self.nodes[0]
        first.configure("gcomm://")
        first.server.start()
        if seed is not None:
            seed(first.server)
        first.server.stop(keep_files=True)
        snapshot = tempfile.mkdtemp(prefix="rs-galera-seed-")
        try:
            shutil.copytree(first.server.datadir, os.path.join(snapshot, "data"),
                            symlinks=True)
            first.server.restart()     # gcomm:// again: a new cluster, same state
            self.wait_synced(first, 1)
            for node in self.nodes[1:]:
                node.configure(self.address)
                node.server.start(datadir_from=os.path.join(snapshot, "data"))
            for node in self.nodes:
                self.wait_synced(node, len(self.nodes))
            first.configure(self.address)  # a restart of node 1 joins the others
        finally:
            shutil.rmtree(snapshot, ignore_errors=True)
        return self

    def stop(self):
        """Stops every node (a node that does not stop on SIGTERM is killed), then
        raises the first failure."""
        failures = []
        for node in reversed(self.nodes):
            try:
                node.server.stop()
            except Exception as e:
                failures.append(e)
        if failures:
            raise failures[0]

    @staticmethod
    def wait_synced(node, size, timeout=SYNC_TIMEOUT):
        """Waits until `node` is synced in a primary component of `size` nodes."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                state = (node.status("wsrep_local_state_comment"),
                         node.status("wsrep_cluster_status"),
                         node.status("wsrep_cluster_size"), node.status("wsrep_ready"))
                if state == ("Synced", "Primary", str(size), "ON"):
                    return
            except Exception as e:          # still starting, or restarting
                state = repr(e)
            if time.monotonic() > deadline:
                raise AssertionError(f"{node.name} not synced in a cluster of {size}: "
                                     f"{state}; error log:\n"
                                     f"{node.server.error_log()[-3000:]}")
            time.sleep(0.2)
