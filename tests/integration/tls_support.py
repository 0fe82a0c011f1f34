"""TLS for the integration tests: a throwaway CA and server certificate, and a raw
protocol connection over TLS."""

import contextlib
import os
import shutil
import subprocess
import tempfile

import hs


def _openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


@contextlib.contextmanager
def test_certificates():
    """A CA, and a server certificate it signed for 127.0.0.1 and localhost: paths by
    name (ca.pem, server.pem, server.key), removed afterwards."""
    d = tempfile.mkdtemp(prefix="rowsocket-tls-")
    try:
        _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
                 "/CN=rowsocket test CA", "-keyout", "ca.key", "-out", "ca.pem", cwd=d)
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout",
                 "server.key", "-out", "server.csr", cwd=d)
        with open(os.path.join(d, "san.ext"), "w") as f:
            f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
        _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                 "-CAcreateserial", "-days", "2", "-extfile", "san.ext", "-out", "server.pem",
                 cwd=d)
        yield {name: os.path.join(d, name) for name in ("ca.pem", "server.pem", "server.key")}
    finally:
        shutil.rmtree(d, ignore_errors=True)


class TlsConnection(hs.Connection):
    """hs.Connection over TLS (the handshake made in the constructor)."""

    def __init__(self, port, ctx, timeout=hs.TIMEOUT):
        super().__init__(port, timeout=timeout)
        self.sock = ctx.wrap_socket(self.sock, server_hostname="127.0.0.1")
