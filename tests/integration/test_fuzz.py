"""The end-to-end fuzzer (fuzz.py) as a test: random tables and random pipelined bursts
on both listeners, for a bounded time, against a private server of its own.

It fails with the seed and a minimal reproduction (SQL and request lines) when
mariadbd dies or hangs, a line gets no answer or more than one, an answer is not
shaped like one, or CHECK TABLE ... EXTENDED finds a damaged table. The environment
sets the budget and the draw:
  ROWSOCKET_FUZZ_SECONDS  seconds of fuzzing (default 60; minimizing a finding adds up
                          to ROWSOCKET_FUZZ_MINIMIZE_SECONDS, default 60)
  ROWSOCKET_FUZZ_SEED     the seed (default: a new one each run, printed on failure)
  ROWSOCKET_FUZZ_AVOID    known issues to stay away from (fuzz.KNOWN_ISSUES, or "known")
Longer runs: scripts/fuzz.py --seconds 600.
"""

import os

import pytest

import fuzz
import targets

pytestmark = targets.rowsocket_only


# Half the budget without authentication, half with account logins and grants.
@pytest.mark.parametrize("options", [fuzz.PLUGIN_OPTIONS, fuzz.ACCOUNT_OPTIONS],
                         ids=["no-login", "account-logins"])
def test_fuzzed_bursts_keep_mariadbd_up_answer_every_line_and_leave_tables_intact(options):
    seed = os.environ.get("ROWSOCKET_FUZZ_SEED")
    plugin = targets.make_plugin(options)
    outcome = fuzz.run(
        plugin,
        seconds=float(os.environ.get("ROWSOCKET_FUZZ_SECONDS", "60")) / 2,
        seed=int(seed) if seed else None,
        avoid=fuzz.parse_avoid(os.environ.get("ROWSOCKET_FUZZ_AVOID", "")),
        minimize_seconds=float(os.environ.get("ROWSOCKET_FUZZ_MINIMIZE_SECONDS", "60")))
    assert outcome.rounds > 0, "the fuzzer ran no round"
    assert not outcome.findings, outcome.report()
