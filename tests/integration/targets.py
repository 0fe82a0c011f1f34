"""Which plugin the tests talk to, and the marks that depend on it.

ROWSOCKET_TARGET=rowsocket (default) runs the tests against our plugin, loaded from
ROWSOCKET_PLUGIN; ROWSOCKET_TARGET=original runs the same tests against Debian's
handlersocket.so, the baseline. Tests are written once for both.
"""

import os

import pytest

import harness

TARGET = os.environ.get("ROWSOCKET_TARGET", "rowsocket")
if TARGET not in ("rowsocket", "original"):
    raise pytest.UsageError(
        f"ROWSOCKET_TARGET must be 'rowsocket' or 'original', not {TARGET!r}")

# A test that pins rowsocket-only behaviour (Part 2 or safety limits); skipped on the
# original. Registered in conftest.py.
rowsocket_only = pytest.mark.rowsocket_only


def original_bug(why):
    """Marks a test the original is known to fail: xfail (strict) on the original only.

    `why` names the bug; every such bug is listed in ORIGINAL-DIFFERENCES.md.
    """
    return pytest.mark.xfail(TARGET == "original", reason=f"original bug: {why}",
                             strict=True)


def make_plugin(options=None):
    """The Plugin object for the current target, with plugin options (no prefix)."""
    if TARGET == "original":
        return harness.original_plugin(options)
    if harness.rowsocket_plugin_path() is None:
        pytest.skip("ROWSOCKET_TARGET=rowsocket needs ROWSOCKET_PLUGIN=/path/to/"
                    "rowsocket.so (or set ROWSOCKET_TARGET=original)")
    return harness.rowsocket_plugin(options)
