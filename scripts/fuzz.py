#!/usr/bin/python3
"""Runs the end-to-end fuzzer (tests/integration/fuzz.py) for as long as asked, e.g.

    scripts/fuzz.py --seconds 600 --seed 7 --keep-going

against a private mariadbd it starts itself, loading the plugin named by --plugin or
ROWSOCKET_PLUGIN (default: build/src/plugin/rowsocket.so of this checkout). Prints the
seed, and for each finding the SQL and the request lines that reproduce it; exits 1
when there was a finding. `--help` lists the options.
"""
import os
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "tests", "integration"))
default_plugin = os.path.join(root, "build", "src", "plugin", "rowsocket.so")
if not os.environ.get("ROWSOCKET_PLUGIN") and os.path.isfile(default_plugin):
    os.environ["ROWSOCKET_PLUGIN"] = default_plugin

import fuzz  # noqa: E402  (after the path is set)

sys.exit(fuzz.main())
