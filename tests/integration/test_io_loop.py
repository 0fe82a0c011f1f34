"""rowsocket_io: the io_uring loop serves when asked for, and where the kernel refuses
io_uring (here a seccomp filter refuses io_uring_setup, as a container runtime's may)
the listeners serve with epoll and the error log says why, once."""

import os
import shutil
import subprocess

import pytest

import harness
import hs
import servers
import targets
from db import Sql

pytestmark = targets.rowsocket_only

# Runs a command with io_uring_setup answering EPERM.
NO_IO_URING_C = r"""
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(int argc, char** argv) {
  struct sock_filter f[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {sizeof f / sizeof f[0], f};
  if (argc < 2 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
      prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
    perror("seccomp");
    return 1;
  }
  execv(argv[1], argv + 1);
  perror("exec");
  return 1;
}
"""


def served(port):
    with hs.Connection(port) as c:
        return c.request(hs.open_request(1, "user", ["user_name"])) == ["0", "1"]


def loop_in_use(server):
    sql = Sql(server)
    try:
        return sql.value("SELECT @@GLOBAL.rowsocket_io")
    finally:
        sql.close()


def test_io_uring_serves_when_asked_for():
    plugin = targets.make_plugin({"io": "io_uring"})
    with servers.running_server([plugin]) as server:
        assert loop_in_use(server) == "io_uring"
        assert "event loop: io_uring" in server.error_log()
        assert served(plugin.port) and served(plugin.port_wr)


def test_io_uring_refused_by_the_kernel_falls_back_to_epoll(tmp_path, monkeypatch):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler to build the seccomp launcher")
    source = tmp_path / "no_io_uring.c"
    source.write_text(NO_IO_URING_C)
    launcher = tmp_path / "no_io_uring"
    subprocess.run([cc, "-O2", "-o", str(launcher), str(source)], check=True)
    wrapper = tmp_path / "mariadbd"
    wrapper.write_text(f'#!/bin/sh\nexec {launcher} {harness.MARIADBD} "$@"\n')
    os.chmod(wrapper, 0o755)
    monkeypatch.setattr(harness, "MARIADBD", str(wrapper))
    plugin = targets.make_plugin({"io": "io_uring"})
    with servers.running_server([plugin]) as server:
        log = server.error_log()
        assert log.count("rowsocket_io=io_uring is unavailable") == 1, log
        assert "Operation not permitted); using epoll" in log
        assert served(plugin.port) and served(plugin.port_wr)
